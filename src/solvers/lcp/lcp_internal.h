/* Internal: helpers shared by the LCP solvers (not installed). */
#ifndef CDYN_SOLVERS_LCP_INTERNAL_H
#define CDYN_SOLVERS_LCP_INTERNAL_H

#include "cdyn/lcp.h"

/* Validate lcp (non-NULL, n > 0, M and q present and finite); *mnorm (may be NULL) receives the
 * induced infinity norm of M (largest absolute row sum). */
cdyn_status cdyn_lcp_validate(const cdyn_lcp *lcp, double *mnorm, cdyn_report *rep);

/* Lemke's options (n: the problem size, for the covering vector; 0 skips that check). Shared
 * with cdyn_stepper_create, which checks nested options at creation. */
cdyn_status cdyn_lemke_check_options(const cdyn_lemke_options *o, int n, cdyn_report *rep);

/* cdyn_lemke_ex for an lcp that passed cdyn_lcp_validate and a report already cleared:
 * cdyn_lcp_solve validates once for all its attempts. */
cdyn_status cdyn_lemke_validated(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z,
                                 double *w, int *basis, cdyn_report *report);

/* cdyn_lcp_solve that also hands out the final complementary basis of its first attempt, Lemke
 * with opts->lemke (basis[i] = 1: z_i basic; n ints, may be NULL), when that attempt answers:
 * then *have_basis = 1 (may be NULL), else 0 (an answer of a fallback, or a failure). */
cdyn_status cdyn_lcp_solve_basis(const cdyn_lcp *lcp, const cdyn_lcp_options *opts, double *z,
                                 double *w, int *basis, int *have_basis, cdyn_report *report);

/* cdyn_lcp_enumerate that also counts the complementary bases skipped as singular
 * (*singular may be NULL). With *count == 0 and *singular == 0 the LCP has no solution. */
cdyn_status cdyn_lcp_enumerate_ex(const cdyn_lcp *lcp, double *solutions, int max_solutions,
                                  int *count, int *singular, const cdyn_allocator *allocator,
                                  cdyn_report *report);

/* ---- Certificates (lcp_cert.c) --------------------------------------------------------- */

/* The componentwise certificate of an answer z (n values, finite or not) of an lcp that passed
 * cdyn_lcp_validate: with z+ = max(z, 0), w = M z+ + q and s_i = |q_i| + sum_j |M_ij z+_j|
 * (accumulated in long double), z passes for tolerance tol when every row has z_i >= -tol s_i,
 * w_i >= -tol s_i and |min(z+_i, w_i)| <= tol s_i. Returns the largest violation of the three in
 * units of s_i (0 for an exact solution; passes when <= tol; NaN when z or w is not finite).
 * zo receives z+, wo receives w with its negatives within tol s_i set to 0 (n values each,
 * neither aliasing z); *nat (may be NULL) receives ||min(z+, w)||_inf, the residual of
 * cdyn_lcp_residual, or NaN. */
double cdyn_lcp_certify(const cdyn_lcp *lcp, const double *z, double tol, double *zo, double *wo,
                        double *nat);
/* The same; flags (n ints, may be NULL) receives 1 for the rows with z_i < -tol s_i or
 * w_i < -tol s_i (sign violations, which only another basis can cure), else 0. */
double cdyn_lcp_certify_ex(const cdyn_lcp *lcp, const double *z, double tol, double *zo,
                           double *wo, double *nat, int *flags);

/* A candidate that fails the certificate is handed out (CDYN_EINACCURATE, "the best point")
 * only when its violation is below this fraction of its rows' scales; one further off is no
 * answer at all, and the solver's failure status stands (outputs untouched). */
#define INACCURATE_MAX 1e-2

/* cdyn_lcp_certify, and when z fails, again with its entries below 16 (n + 1) eps ||z||_inf set
 * to 0 (rounding noise of degenerate basic variables; the copy goes to zc, n values): the better
 * of the two points is left in zo, wo, *nat, flags and its violation returned. */
double cdyn_lcp_certify_clean(const cdyn_lcp *lcp, const double *z, double tol, double *zc,
                              double *zo, double *wo, double *nat, int *flags);

/* The first row i with q_i < 0 and M_ij <= 0 for every j (then w_i <= q_i < 0 for every
 * z >= 0: the LCP has no feasible point, proven by signs alone), or -1. */
int cdyn_lcp_infeasible_row(const cdyn_lcp *lcp);

/* 1 when y (n values) is a Farkas certificate of infeasibility checked with rounding-error
 * bounds: y >= 0, y != 0, M^T y <= 0 and q^T y < 0, so that y^T (M z + q) < 0 for every z >= 0.
 * 0 otherwise (not a certificate, or too close to call). */
int cdyn_lcp_farkas_check(const cdyn_lcp *lcp, const double *y);

#endif
