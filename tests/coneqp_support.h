/* Test-side helpers for the friction-cone QP: CSC copies of dense matrices, a contact-chain
 * Delassus matrix, and a KKT checker written independently of src/solvers/coneqp/coneqp_*.c (plain
 * loops, its own cone formulas) so that its verdict can serve as the reference. */
#ifndef CDYN_TEST_CONEQP_SUPPORT_H
#define CDYN_TEST_CONEQP_SUPPORT_H

#include "cdyn/coneqp.h"
#include "sparse_support.h"
#include "support.h"

/* CSC copy of a dense symmetric n-by-n matrix (entries that are exactly 0 are dropped unless
 * on the diagonal). lower_only: store row >= column only; else both triangles. */
void cq_dense_to_csc(int n, const double *H, int lower_only, test_csc *out);

/* Delassus matrix H = J M^-1 J' of a chain of nc contacts between nc + 1 point masses (body 0
 * fixed to the ground): contact i acts between bodies i and i+1 in a random orthonormal frame
 * (rows n, t, o of R_i; planar contacts use the first two rows of a planar frame), masses in
 * [1, 2]. Block tridiagonal, symmetric positive definite. dims: nc contact dimensions.
 * Returns the dense matrix (malloc, n*n) when dense != NULL, and the lower-triangle CSC. */
void cq_chain_delassus(test_rng *g, int nc, const int *dims, double **dense, test_csc *lower);
/* The same with only the tangential rows of every contact (d_i - 1 per contact): the matrix of
 * the fixed-normal (disk) problem. */
void cq_chain_delassus_tangential(test_rng *g, int nc, const int *dims, double **dense,
                                  test_csc *lower);

/* Result of the independent KKT check of (x, u) for p; all max-norms. */
typedef struct cq_kkt {
    double primal; /* cone (or disk) violation of x */
    double dual;   /* dual-cone violation of Hx + c (cone problem; 0 for disks) */
    double comp;   /* max_i |x_i'(Hx+c)_i| (+ r_i ||(Hx+c)_i|| for disks) */
    double uerr;   /* ||u - (Hx + c)||_inf: the dual residual of the pair (x, u) */
    double udual;  /* dual-cone violation of u itself (cone problem; 0 for disks) */
    double ugap;   /* sum_i x_i'u_i (+ r_i ||u_i|| for disks): the gap of the pair (x, u) */
    double gap;    /* sum of the per-contact complementarity terms */
    double obj;    /* 1/2 x'Hx + c'x */
    double scale;  /* max(1, ||c||_inf) */
} cq_kkt;

/* H is read from p->H (dense, full) or p->Hs (CSC: lower triangle, upper ignored). u may be
 * NULL (then uerr, udual, ugap are 0).
 *
 * Why these numbers certify: for x in K, u in K* and r = Hx + c - u, convexity gives for the
 * optimum x*: f(x*) >= f(x) + (u + r)'(x* - x) >= f(x) - ugap - ||r||_inf ||x* - x||_1, and
 * with H >= lambda I also ||x - x*||_2 <= (||r||_2 + sqrt(||r||_2^2 + 2 lambda ugap)) / lambda. */
void cq_kkt_check(const cdyn_coneqp *p, const double *x, const double *u, cq_kkt *out);

/* The strong-convexity bound above on ||x - x*||_2 from a check result (n variables). */
double cq_distance_bound(const cq_kkt *k, int n, double lambda_min);

/* Number of variables of p computed here (independent of cdyn_coneqp_size). */
int cq_nvars(const cdyn_coneqp *p);

/* Euclidean projection of v onto the cone {||y_t|| <= m y_n} of dimension d (the textbook
 * formula); m = INFINITY: the half-space y_n >= 0. */
void cq_proj_cone(int d, double m, const double *v, double *y);

#endif
