/* Internal: the implicit compliant step (Song-Kumar-Pang eq. 10) as residual rows, shared by
 * the stepper (implicit_ncp.c) and the boundary-value layer (src/bvp/), which stacks N of them.
 *
 * Rows taking part: k model rows. nd = 2 (planar: n, t) or 3 (n, t, o) directions per row.
 * Unknowns of one step, y (ny values), in this order:
 *   q (nq), v (nv), delta (k nd, row by row), lambda (k nd), beta (k)
 * so that the state x = (q, v, delta) is y's first nx = nq + nv + k nd entries. Rows of F in the
 * same order, each paired with the unknown of its index (bounds: lambda_n and beta >= 0, the
 * rest free):
 *   q - q0 - h G((q + q0)/2) v   (the midpoint keeps quaternions unit: see docs/theory.md)
 *   M(q) (v - v0) - h (tau - bias(q, v)) - h Gamma(q)' lambda
 *   lambda - (K + C/h) delta + (C/h) delta0                           (per row, nd)
 *   a_nn (Psi_n(q) + delta_n), a_nn = K_nn (scale_normal) or 1   ⊥ lambda_n
 *   mu lambda_n s_d + beta lambda_d / rho,  s_d = (delta_d - delta0_d)/h + Gamma_d(q) v   (d = t, o)
 *   mu lambda_n + gamma - rho,  rho = sqrt(lambda_t^2 + lambda_o^2 + gamma^2)   ⊥ beta
 * With friction_qp (Song-Kumar-Pang Proposition 1, exact cone, gamma unused) the last two give
 * way to
 *   lambda_T - P(lambda_n, q, v)     P the friction QP's minimizer (friction_qp.h) with
 *                                    S = (A^-1)_TT / h, A = K + C/h, and
 *                                    d = [(A^-1)_Tn lambda_n + (A^-1 Ch delta0)_T - delta0_T] / h
 *                                        + Gamma_T(q) v,  so that S lambda_T + d = s_T
 *   beta                             (beta is not used: pinned at 0, the layout kept)
 * Derivatives: analytic in v, delta, lambda, beta and x0; in q by central differences of the
 * model's M(q), bias(q, v), Gamma(q) and Psi(q) (docs/theory.md says why). */
#ifndef CDYN_STEP_IMPLICIT_NCP_H
#define CDYN_STEP_IMPLICIT_NCP_H

#include "cdyn/sparse.h"
#include "cdyn/step.h"

typedef struct ncp_form {
    const cdyn_model *model;
    cdyn_data *data;           /* dense evaluation workspace (owned by the caller) */
    int nq, nv, nc, nd, k;     /* sizes; k rows taking part */
    int nx, ny;
    const int *rows;           /* k model rows */
    const double *mu;          /* k */
    const double *A, *Ch;      /* k blocks nd x nd: K + C/h and C/h (column-major) */
    double h, gamma;
    int scale_normal;          /* nonzero: a_nn = (K + C/h)_nn in the normal rows, else 1 */
    int friction_qp;           /* nonzero: the friction rows below are replaced (Proposition 1) */
    const double *tau;         /* nv, or NULL */
    double *lower, *upper;     /* ny bounds */
    double *scratch;           /* ncp_form_scratch(f) doubles */
} ncp_form;

/* Fill f for the k model rows `rows` (kept by pointer) at step h: their friction coefficients
 * into mu (k), the blocks K + C/h and C/h into A and Ch (k nd^2 each), sizes and bounds (f->lower
 * and f->upper must point at ny values already). f->tau, scratch, scale_normal and friction_qp
 * are left. */
void ncp_form_setup(ncp_form *f, const cdyn_model *m, cdyn_data *data, int k, const int *rows,
                    double *mu, double *A, double *Ch, double h, double gamma);

/* Doubles of scratch the evaluation needs. */
size_t ncp_form_scratch(int nq, int nv, int k, int nd);

/* With friction_qp: 0 when every row's A block is symmetric with (A^-1)_TT positive definite
 * (the friction QP is then convex), else the first offending position c among the k rows, + 1. */
int ncp_form_check_qp(const ncp_form *f);

/* F(x0, y) into F (ny). 0 on success, nonzero when the model cannot be evaluated at y's q. */
int ncp_form_F(ncp_form *f, const double *x0, const double *y, double *F);

/* Dense Jacobians at (x0, y): Jy (ny x ny, column-major) and Jx (ny x nx) when not NULL.
 * 0 on success. */
int ncp_form_J(ncp_form *f, const double *x0, const double *y, double *Jy, double *Jx);

/* The q coordinates' kinematic trees (qtree: nq; -1 for the ground) from the dofs' (dof_tree). */
void ncp_form_qtree(const cdyn_model *m, const int *dof_tree, int *qtree);

/* The structural pattern of ncp_form_J's Jy (ny x ny) as a bit mask, bit i + j ny
 * (ny ny / 8 + 1 bytes): q and v couple within a kinematic tree; a contact row with the dofs of
 * its bodies (Jn: the model's normal Jacobian, for its pattern) and the q of their trees. pos: nc
 * ints of scratch. Holds for both friction laws. */
void ncp_form_pattern(const ncp_form *f, const int *qtree, const int *dof_tree, const cdyn_csc *Jn,
                      int *pos, unsigned char *marky);

#endif
