/* Internal: box-constrained merit minimization for MCPs (box_merit_form.c, box_merit.c,
 * box_merit_solve.c).
 *
 * Both merit functions are written as f(y) = 1/2 ||R(y)||^2 over a box lo <= y <= up, with a
 * residual R: R^N -> R^m and its Jacobian J_R (m-by-N, dense column-major):
 *   FB:    y = x (N = m = n), R = Phi(x) of fb_function.c, J_R = diag(da) + diag(db) F'(x).
 *   slack: y = (x, slacks) with one slack w_i >= 0 per finite lower bound and one z_i >= 0 per
 *          finite upper bound of a non-fixed x_i (slack k of the layout sits at y[n + k]);
 *          rows: F_i(x) - w_i + z_i for every non-fixed i (in order), then one row per slack:
 *          (x_i - l_i) w_i or (u_i - x_i) z_i, in slack order. */
#ifndef CDYN_SOLVERS_BOX_MERIT_INTERNAL_H
#define CDYN_SOLVERS_BOX_MERIT_INTERNAL_H

#include "cdyn/boxmerit.h"
#include "solvers/mcp/mcp_internal.h"

/* ---- Formulations (box_merit_form.c) ---------------------------------------------------- */

typedef struct bm_layout {
    int n;               /* MCP unknowns */
    int kind;            /* cdyn_box_merit_kind */
    int N;               /* optimization variables */
    int m;               /* residual rows */
    int neq;             /* slack: rows F_i - w_i + z_i (the non-fixed variables) */
    const double *l, *u; /* n bounds (explicit, no NULL defaults) */
    int *wi, *zi;        /* slack: y-index of the lower / upper slack of x_i, or -1; NULL for FB */
} bm_layout;

/* Count the slacks and fill wi, zi (n ints each; unused and may be NULL for FB). */
void cdyn_bm_layout_init(bm_layout *lay, int n, const double *l, const double *u, int kind, int *wi,
                         int *zi);

/* The box of y: [l, u] for x, [0, +inf) for slacks. */
void cdyn_bm_box(const bm_layout *lay, double *lo, double *up);

/* Slacks consistent with F = F(x): w_i = max(F_i, 0), z_i = max(-F_i, 0), so that the rows
 * F - w + z vanish (no-op for FB). */
void cdyn_bm_init_slacks(const bm_layout *lay, const double *F, double *y);

/* R(y) given F = F(x), x = y[0..n). For FB, da and db (n each, may be NULL) receive the factors
 * of the generalized-Jacobian element; unused for slack. */
void cdyn_bm_residual(const bm_layout *lay, const double *y, const double *F, double *R, double *da,
                      double *db);

/* J_R (m-by-N, leading dimension m) from J = F'(x) (dense n-by-n) and, for FB, da and db of
 * cdyn_bm_residual at the same point. */
void cdyn_bm_jacobian(const bm_layout *lay, const double *y, const double *J, const double *da,
                      const double *db, double *JR);

/* ---- The iteration (box_merit.c) ---------------------------------------------------------- */

typedef struct bm_work {
    const cdyn_mcp *p;
    const cdyn_box_merit_options *o;
    bm_layout lay;
    int n, N, m;
    double *l, *u;             /* n: MCP bounds */
    double *lo, *up;           /* N: box of y */
    double *y, *yt;            /* N: iterate, trial point */
    double *F, *Ft;            /* n: F at x, at the trial x */
    double *R, *Rt;            /* m */
    double *da, *db;           /* n: FB factors */
    double *g, *gprev, *s, *d; /* N: gradient, previous gradient, last step, direction */
    double *v, *rhs;           /* N: scratch */
    double *r1;                /* m: scratch */
    double *JR;                /* m*N */
    double *G;                 /* N*N: J_R^T J_R */
    double *C;                 /* N*N: reduced LM matrix and its Cholesky factor */
    double *Jd;                /* n*n: dense F'(x) */
    double *hist;              /* nonmonotone_memory merit values */
    int *freeidx;              /* N */
    mcp_jac J;                 /* F'(x) as the callback delivers it (values = Jd when dense) */
    mcp_fd fd;
    double f;  /* merit at y */
    double nu; /* current Levenberg–Marquardt weight, >= options.lm_mu */
    int nfev, njev;
} bm_work;

/* Run from w->y (x part set and inside the box; slacks and F not yet evaluated). On CDYN_OK
 * w->y holds the solution. Fills iterations, evaluations, residual and the message of r. */
cdyn_status cdyn_bm_iterate(bm_work *w, cdyn_report *r);

#endif
