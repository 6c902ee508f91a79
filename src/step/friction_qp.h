/* Internal: the friction QP of one contact (Song-Kumar-Pang Proposition 1, eq. 7),
 *
 *     minimize  1/2 x' S x + d' x   subject to  |x| <= r,
 *
 * x the tangential force (n = 1 in planar models, 2 in spatial ones), S symmetric positive
 * definite, r = mu lambda_n >= 0. Its KKT conditions, (S + nu I) x + d = 0 with
 * nu >= 0 complementary to r - |x| >= 0, are the maximum-dissipation law with the slip velocity
 * S x + d = -nu x. The solution is unique and a piecewise smooth function of (d, r): the step
 * uses its derivative inside the Newton iteration (implicit_ncp_form.c). */
#ifndef CDYN_STEP_FRICTION_QP_H
#define CDYN_STEP_FRICTION_QP_H

typedef struct friction_qp_sol {
    double x[2];  /* the minimizer */
    double nu;    /* the multiplier of |x| <= r (0 inside the disk) */
    double Dd[4]; /* dx/dd, n x n column-major */
    double Dr[2]; /* dx/dr */
    int on_boundary;
} friction_qp_sol;

/* Solve for n = 1 or 2 (S column-major, n x n). The boundary case is Newton's method on the
 * secular equation 1/|x(nu)| = 1/r (Moré-Sorensen), which converges monotonically from nu = 0.
 * Returns 0, or 1 when S is not positive definite or an input is not finite. */
int friction_qp_solve(int n, const double *S, const double *d, double r, friction_qp_sol *out);

#endif
