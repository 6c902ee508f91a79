/* Internal: the friction-cone QP solver (include/cdyn/coneqp.h) — workspace, problem layout,
 * linear-system backends and the interior-point iteration. docs/theory.md has the math.
 *
 * Conic form used inside: minimize 1/2 x'Hx + c'x subject to s = h - G x in Q, where Q is a
 * product of standard second-order cones, one per contact (possibly of dimension 1 or absent),
 * and G is block diagonal:
 *   FULL  (cone problem, mu > 0):  s_i = (mu x_n, x_t)          m_i = d_i
 *   RAY   (cone problem, mu = 0):  s_i = (x_n), x_t fixed to 0   m_i = 1
 *   BALL  (disk problem, r > 0):   s_i = (r, x_t)                m_i = d_i
 *   FIXED (disk problem, r = 0):   no cone, x_t fixed to 0       m_i = 0
 * "Fixed" variables are held at 0: identity rows in the Newton matrix, free multipliers. */
#ifndef CDYN_SOLVERS_CONEQP_INTERNAL_H
#define CDYN_SOLVERS_CONEQP_INTERNAL_H

#include "cdyn/coneqp.h"
#include "linalg/csc.h"
#include "linalg/linsys.h"
#include "solvers/coneqp/soc.h"

enum { CQ_FULL = 0, CQ_RAY = 1, CQ_BALL = 2, CQ_FIXED = 3 };

/* Symmetry tolerance of H (relative to max|H_ij|) and the shift of the PSD test. */
#define CQ_SYM_TOL 1e-10
#define CQ_PSD_SHIFT 1e-10

typedef struct cq_contact {
    int d;      /* contact dimension, 2 or 3 */
    int vo, nv; /* first variable and number of variables (d, or d - 1 for the disk problem) */
    int co;     /* offset in the cone vectors s, z, ... (each contact reserves d entries) */
    int kind;   /* CQ_FULL ... CQ_FIXED, set per run */
    int m;      /* cone dimension this run (0 for CQ_FIXED) */
    double a;   /* FULL: mu; RAY: 1 (coefficient of x_n in s_0) */
    double r;   /* BALL: radius mu * lambda_n */
} cq_contact;

struct cdyn_coneqp_solver {
    cdyn_coneqp_options opts;
    int nc, n, mcap; /* contacts, variables, capacity of the cone vectors (sum of d) */
    int disk;        /* disk (fixed-normal) problem */
    int sparse;

    cq_contact *ct;         /* nc */
    int *fixed;             /* n flags, per run */
    int ncones;             /* cones with m >= 1, per run */
    double *W, *Winv, *blk; /* 9 per contact: NT scaling, its inverse, G'W^-2 G block */

    double *block; /* one allocation holding every vector below */
    /* n-vectors (x, z, s and their trial twins are swapped, never freed on their own) */
    double *x, *dx, *rx, *hx, *rhs, *xt, *res;
    /* cone vectors (mcap) */
    double *s, *z, *lam, *dsa, *dza, *ds, *dz, *tm, *zt, *st;

    /* the Newton matrix's Cholesky factorization (dense or CHOLMOD) */
    cdyn_linsys *ls;
    /* sparse: copy of H's pattern, triplets of the Newton matrix and their assembly */
    int *hcolptr, *hrowind;
    int na, ntrip;      /* H lower-triangle triplets, all triplets */
    int *ti, *tj, *src; /* triplet rows, columns; src[k] = entry of Hs for k < na */
    double *tx;
    cdyn_csc_assembly as;

    /* per run */
    const cdyn_coneqp *p;
    double hmax, hdiag, cmax; /* max|H_ij|, max H_jj over free variables, ||c||_inf */
    double fixdiag;           /* diagonal of the identity rows of fixed variables (set by each
                                 factorization: the largest free diagonal entry) */
};

/* ---- the Newton matrix (coneqp_kkt.c) ---- */

/* Create the linear system (sparse: copy H's pattern, build the Newton-matrix triplets, H's
 * lower triangle plus every contact's lower block, and run CHOLMOD's symbolic analysis once). */
cdyn_status cdyn_cq_kkt_create(cdyn_coneqp_solver *w, const cdyn_csc *Hs, cdyn_report *r);
/* Assemble (H with fixed rows/columns replaced by identity) + blk + shift I and factor it.
 * CDYN_ESINGULAR when it is not positive definite, CDYN_ENUMERIC when not finite. */
cdyn_status cdyn_cq_kkt_factor(cdyn_coneqp_solver *w, double shift, cdyn_report *r);
/* b := K^{-1} b with the last successful factorization. */
cdyn_status cdyn_cq_kkt_solve(cdyn_coneqp_solver *w, double *b, cdyn_report *r);
/* Frees what create allocated; accepts a solver whose create failed part way. */
void cdyn_cq_kkt_free(cdyn_coneqp_solver *w);

/* ---- problem checks (coneqp_check.c) ---- */

/* Structure: ncontacts, dims, H xor Hs, Hs pattern and size; *n receives the size.
 * need_values: also check the values of Hs (finite). */
/* The options of cdyn_coneqp_solve (tolerances, max_iter, step_fraction); shared with
 * cdyn_stepper_create, which checks nested options at creation. */
cdyn_status cdyn_coneqp_check_options(const cdyn_coneqp_options *o, cdyn_report *r);

cdyn_status cdyn_cq_check_structure(const cdyn_coneqp *p, int need_values, int *n, cdyn_report *r);
/* Values: mu, normal, c, dense H finite; mu >= 0; radii; symmetry of H. */
cdyn_status cdyn_cq_check_values(const cdyn_coneqp *p, int n, cdyn_report *r);
/* Dimension of contact i. */
int cdyn_cq_dim(const cdyn_coneqp *p, int i);

/* ---- layout and vector maps (coneqp_layout.c) ---- */

/* Per-run kinds, cone dimensions, fixed flags and data scales from p's values. */
void cdyn_cq_layout(cdyn_coneqp_solver *w, const cdyn_coneqp *p);
/* y := H x (the symmetric matrix whose lower triangle p stores). */
void cdyn_cq_hmul(const cdyn_coneqp *p, int n, const double *x, double *y);
/* v (m_i entries) := -G_i x_i: the variable part of s_i. */
void cdyn_cq_cone_from_x(const cq_contact *c, const double *x, double *v);
/* x_i += -G_i' v (fixed entries untouched). */
void cdyn_cq_x_add_cone(const cq_contact *c, const double *v, double *x);
/* Certificates of (x, u) given hx = H x (n values each). */
void cdyn_cq_certify(const cdyn_coneqp *p, int n, const double *x, const double *u,
                     const double *hx, cdyn_coneqp_info *info);

/* ---- the iteration (coneqp_ipm.c) ---- */

/* Run the interior-point method on w->p (layout done). On CDYN_OK, w->x and w->z hold the
 * solution. *iters receives the iterations. */
cdyn_status cdyn_cq_ipm(cdyn_coneqp_solver *w, int *iters, cdyn_report *r);

/* Factor the Newton matrix (assembled from w->blk); when it is not numerically positive
 * definite, retry with diagonal shifts 1e-13, 1e-11, 1e-9, 1e-7 times its largest diagonal
 * entry (*shift: the one used, 0 when none). CDYN_ENUMERIC when every shift fails. */
cdyn_status cdyn_cq_factor(cdyn_coneqp_solver *w, double *shift, cdyn_report *r);
/* sol := K^{-1} rhs with the factor; after a shifted factorization, two steps of iterative
 * refinement against the unshifted K. */
cdyn_status cdyn_cq_newton_solve(cdyn_coneqp_solver *w, double shift, const double *rhs,
                                 double *sol, cdyn_report *r);

/* The dual vector u = -G'z in x space; fixed entries get (H x + c)_j (free multipliers).
 * hx = H x must be current. */
void cdyn_cq_dual_vector(const cdyn_coneqp_solver *w, const double *hx, double *u);

#endif
