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
 * The stepper appends the joint-limit rows' unknowns and rows after beta (f->lim,
 * implicit_limits.h); the BVP's forms have none.
 * Derivatives: all analytic, the model's from cdyn_eval_derivatives; assembled straight into
 * a dense matrix or a sparse pattern (implicit_ncp_jac.c; docs/theory.md). */
#ifndef CDYN_STEP_IMPLICIT_NCP_FORM_H
#define CDYN_STEP_IMPLICIT_NCP_FORM_H

#include "cdyn/sparse.h"
#include "cdyn/step.h"
#include "step/friction_qp.h"

typedef struct ncp_limits ncp_limits; /* joint-limit rows (implicit_limits.h) */

typedef struct ncp_form {
    const cdyn_model *model;
    cdyn_data *data;           /* dense evaluation workspace (owned by the caller) */
    int nq, nv, nc, nd, k;     /* sizes; k rows taking part */
    int nx, ny;
    const int *rows;           /* k model rows */
    const double *mu;          /* k */
    const double *A, *Ch;      /* k blocks nd x nd: K + C/h and C/h (column-major) */
    double *Ai;                /* NULL, or k blocks nd x nd for A^-1 (ncp_form_invert): the
                                  friction QP's rows then skip an nd x nd LU per evaluation */
    double h, gamma;
    int scale_normal;          /* nonzero: a_nn = (K + C/h)_nn in the normal rows, else 1 */
    int friction_qp;           /* nonzero: the friction rows below are replaced (Proposition 1) */
    const int *qp_rows;        /* with friction_qp: k flags, the rows the QP takes (the others
                                  keep the NCP rows; NULL: every row) */
    const int *pairs;          /* npair flags: the pairs whose rows take part, the only ones the
                                  model evaluates (cdyn_eval_pairs); NULL: all */
    const unsigned char *der_keep; /* NULL, or the model's derivative-pattern positions the
                                  rows' pairs can fill (cdyn_model_deriv_keep): the Newton
                                  matrix leaves out the others, zero couplings of pairs not
                                  taking part (an all-against-all model's pattern is dense) */
    const double *tau;         /* nv, or NULL */
    double *lower, *upper;     /* ny bounds */
    double *scratch;           /* ncp_form_scratch(f) doubles */
    const ncp_limits *lim;     /* NULL (set so by ncp_form_setup), or the stepper's joint-limit
                                  rows appended to y and F (ncp_limits_attach) */
} ncp_form;

/* Fill f for the k model rows `rows` (kept by pointer) at step h: their friction coefficients
 * into mu (k), the blocks K + C/h and C/h into A and Ch (k nd^2 each), sizes and bounds (f->lower
 * and f->upper must point at ny values already). f->tau, scratch, scale_normal and friction_qp
 * are left. */
void ncp_form_setup(ncp_form *f, const cdyn_model *m, cdyn_data *data, int k, const int *rows,
                    double *mu, double *A, double *Ch, double h, double gamma);

/* A^-1 of every row into f->Ai (k nd^2 doubles, set by the caller); rows whose A is singular
 * keep no inverse (the QP rows refuse them as before). */
void ncp_form_invert(ncp_form *f);

/* Doubles of scratch the evaluation needs. */
size_t ncp_form_scratch(int nq, int nv, int k, int nd);

/* The rows the friction QP can take: ok[c] = 1 when row c's A block is symmetric with (A^-1)_TT
 * positive definite (the QP is then convex), else 0 (a rigid or uncoupled tangential
 * direction: K_t = C_t = 0); returns how many cannot. */
int ncp_form_qp_rows(const ncp_form *f, int *ok);

/* Whether row c uses the friction QP (friction_qp and qp_rows). */
static inline int ncp_row_qp(const ncp_form *f, int c)
{
    return f->friction_qp && (f->qp_rows == NULL || f->qp_rows[c]);
}

/* F(x0, y) into F (ny). 0 on success, nonzero when the model cannot be evaluated at y's q. */
int ncp_form_F(ncp_form *f, const double *x0, const double *y, double *F);

/* Dense Jacobians at (x0, y): Jy (ny x ny, column-major) and Jx (ny x nx) when not NULL.
 * 0 on success. */
int ncp_form_J(ncp_form *f, const double *x0, const double *y, double *Jy, double *Jx);

/* Where ncp_form_jac puts the Jacobian's entries: added into a dense column-major array (ld
 * rows), added into the values of a CSC pattern (entries outside it are counted in `missing`),
 * listed as positions (ti, tj; NULL: only counted in n), to build that pattern, or written in
 * the order they come (values[n++]: the values of a listed pattern, repeats included). The same
 * calls in the same order whatever the values, so a listed pattern always holds the entries. */
enum { NCP_SINK_DENSE, NCP_SINK_CSC, NCP_SINK_LIST, NCP_SINK_SEQ };
typedef struct ncp_sink {
    int mode;
    double *dense;
    int ld;
    double *values;
    const int *colptr, *rowind;
    size_t missing;
    int *ti, *tj;
    size_t n;
} ncp_sink;

/* The Jacobians into sinks (NULL: not wanted); dense and CSC sinks must hold zeros on entry. Cost
 * linear in the model's and the rows' entries. 0 on success. */
int ncp_form_jac(ncp_form *f, const double *x0, const double *y, ncp_sink *jy, ncp_sink *jx);

/* The Jacobian in y by central differences of ncp_form_F (the analytic matrix's oracle), into a
 * dense or a CSC sink (CSC: columns with disjoint row patterns share one difference, so an
 * entry missing from the pattern shows as a wrong value, not a dropped one); work: 5 ny doubles. */
int ncp_form_jac_fd(ncp_form *f, const double *x0, const double *y, ncp_sink *jy, double *work);

/* ---- shared by implicit_ncp_form.c and implicit_ncp_jac.c ---- */

/* Row c's friction QP at lambda_n = ln with the slip's rigid part gv = Gamma_T v: the solution,
 * and the derivatives of d in lambda_n (dln) and in delta0 (dd0, (nd-1) x nd column-major);
 * drdln = dr/dlambda_n. */
typedef struct ncp_qp_row {
    friction_qp_sol sol;
    double dln[2], dd0[6], drdln;
} ncp_qp_row;
int ncp_qp_row_solve(const ncp_form *f, int c, double ln, const double *d0, const double *gv,
                     ncp_qp_row *o);

/* The scratch of f, laid out. */
typedef struct ncp_scr {
    double *qdot, *qm; /* nq */
    double *f1, *acc;  /* nv */
    double *psi, *gv;  /* k, k (nd - 1) */
    double *lam3;      /* 3 nc */
    int *pos;          /* nc: model row -> c + 1, 0 when not taking part */
    ncp_qp_row *qp;    /* k */
} ncp_scr;
ncp_scr ncp_scratch(const ncp_form *f);

/* The model at (q, v): s->f1, psi, gv and pos (implicit_ncp_form.c); then its derivatives. */
int ncp_form_model(ncp_form *f, const ncp_scr *s, const double *q, const double *v,
                   const double *v0, const double *lam);
int ncp_form_derivs(ncp_form *f, const ncp_scr *s, const double *v, const double *v0,
                    const double *lam);
/* A^-1 of row c (nd x nd): the cached block (f->Ai), or computed; 1 when singular. */
int ncp_row_inverse(const ncp_form *f, int c, double *Ai);
/* Row scalings: the normal gap row's a_nn, the constitutive rows' 1 / (K + C/h)_dd. */
double ncp_normal_scale(const ncp_form *f, int c);
double ncp_row_scale(const ncp_form *f, int c, int d);

#endif
