/* cdyn — mixed complementarity problems by box-constrained merit minimization.
 *
 * The Buffo–Maciel approach: an MCP (cdyn/mcp.h: find l <= x <= u with F_i(x) >= 0 at x_i = l_i,
 * <= 0 at x_i = u_i, = 0 in between) is solved by minimizing a merit function whose zeros are
 * exactly its solutions, subject to simple bounds. Two merit functions:
 *
 *   CDYN_BOX_MERIT_FB     1/2 ||Phi(x)||^2 over l <= x <= u, with Phi the Fischer–Burmeister box
 *                         reformulation of cdyn_mcp_solve (same n unknowns). Stationary points
 *                         are solutions when F' is a (mixed) P0-matrix there
 * (docs/theory.md). CDYN_BOX_MERIT_SLACK  the "natural" merit function of the paper: slack
 * variables w, z >= 0 for the lower and upper bounds, F(x) = w - z, and 1/2 ||F(x) - w + z||^2 +
 * 1/2 sum ((x - l) w)^2 + 1/2 sum ((u - x) z)^2 over l <= x <= u, w >= 0, z >= 0 (up to 3n
 * unknowns, smooth when F is).
 *
 * Method: projected Levenberg–Marquardt (Gauss–Newton) steps on the variables that are not
 * held at a bound (epsilon-active set of Bertsekas), safeguarded by the nonmonotone spectral
 * projected gradient method of Birgin–Martínez–Raydan. Dense linear algebra (LAPACK Cholesky);
 * a sparse Jacobian pattern is accepted and expanded to dense. See docs/theory.md.
 *
 * Why its own header: the options differ from cdyn_mcp_options (merit kinds, spectral and
 * active-set parameters), and the problem type is shared unchanged — include cdyn/mcp.h and
 * describe the problem once, then call either solver.
 *
 * Thread safety: reentrant; callbacks receive the caller's ctx and run on the calling thread. */
#ifndef CDYN_BOXMERIT_H
#define CDYN_BOXMERIT_H

#include "cdyn/alloc.h"
#include "cdyn/export.h"
#include "cdyn/mcp.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cdyn_box_merit_kind {
    CDYN_BOX_MERIT_FB = 0,   /* Fischer–Burmeister merit over [l, u] */
    CDYN_BOX_MERIT_SLACK = 1 /* Buffo–Maciel / Andreani et al. natural merit with slacks */
} cdyn_box_merit_kind;

typedef struct cdyn_box_merit_options {
    double tol;                /* stop when ||x - mid(l, u, x - F(x))||_inf <= tol (1e-10) */
    int max_iter;              /* iterations, each one Jacobian evaluation (500) */
    cdyn_box_merit_kind merit; /* CDYN_BOX_MERIT_FB */
    int newton;                /* nonzero: Gauss–Newton steps with the spectral projected
                                  gradient as fallback; 0: spectral projected gradient only (1) */
    double gtol;               /* stationarity: ||P(y - g / (||J_R||_1 ||R||_2)) - y||_inf <=
                                  gtol ends the call (f = ||R||^2 / 2, g = grad f = J_R^T R),
                                  in [0, 1) (1e-12) */
    int nonmonotone_memory;    /* projected-gradient steps: Armijo reference = max of the last m
                                  merit values, in [1, 64] (10) */
    double armijo_sigma;       /* sufficient-decrease constant in (0, 1/2) (1e-4) */
    int max_backtracks;        /* step reductions per line search (40) */
    double lm_mu;      /* smallest Levenberg–Marquardt weight nu: the Gauss–Newton matrix
                          is shifted by nu min(1, ||R||) diag(J^T J); nu adapts in
                          [lm_mu, 1], > 0 (1e-6) */
    double active_eps; /* epsilon of the active-set estimate, >= 0 (1e-3) */
    int jacobian_fd;   /* nonzero: finite differences instead of jac / jac_sparse (0) */
    double fd_step;    /* relative difference step; 0: sqrt(DBL_EPSILON) (0) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_box_merit_options;

CDYN_API void cdyn_box_merit_defaults(cdyn_box_merit_options *opts);

/* Solve the MCP p by box-constrained minimization of the chosen merit function.
 * x (n values): in, the starting point (finite; projected onto [l, u] before the first
 * evaluation); out, the solution. On any status other than CDYN_OK, x is left unchanged.
 * opts may be NULL (defaults); report may be NULL. Dense method: N*N <= INT_MAX for the N
 * optimization variables (n for FB, n plus one per finite bound of a non-fixed variable for the
 * slack merit), else CDYN_ETOOBIG.
 * Returns
 *   CDYN_OK        natural residual <= opts->tol (the merit function is zero up to that);
 *   CDYN_ENOCONV   "stationary point of the merit function that is not a solution" (the
 *                  projected gradient vanished, see gtol, while the residual is above tol), the
 *                  iteration limit, or stagnation (no sufficient decrease); the message says
 *                  which, with the merit value, projected gradient and natural residual;
 *   CDYN_EINVAL    NULL pointers, n <= 0, l > u or NaN bounds, non-finite start, malformed
 *                  sparse pattern, missing Jacobian, bad options, or a callback that fails or
 *                  returns NaN/Inf at the (projected) starting point;
 *   CDYN_ENUMERIC  F failed at every trial point of a line search, or the Jacobian failed at a
 *                  later iterate;
 *   CDYN_ENOMEM    the workspace (one block per call) could not be allocated;
 *   CDYN_ETOOBIG   the dense size limit above.
 * report: iterations; evaluations = F calls (with finite differences) plus Jacobian calls;
 * residual = natural residual of the last iterate; method = "box-merit-fb" or
 * "box-merit-slack". */
CDYN_API cdyn_status cdyn_box_merit_solve(const cdyn_mcp *p, const cdyn_box_merit_options *opts,
                                          double *x, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
