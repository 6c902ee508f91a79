/* cdyn — mixed complementarity problems (box-constrained variational inequalities).
 *
 * MCP(F, l, u): find x with l <= x <= u such that for every i
 *     F_i(x) >= 0  if x_i = l_i,     F_i(x) <= 0  if x_i = u_i,     F_i(x) = 0  if l_i < x_i < u_i.
 * Free variables have l_i = -INFINITY, u_i = +INFINITY (then F_i(x) = 0); the nonlinear
 * complementarity problem (NCP) is l = 0, u = +INFINITY; l_i = u_i fixes x_i.
 *
 * Method: Fischer–Burmeister reformulation Phi(x) = 0 for boxes (optionally the penalized
 * function of Chen–Chen–Kanzow), semismooth Newton with an element of the generalized Jacobian,
 * Armijo line search on 1/2 ||Phi||^2 (optionally non-monotone), steepest-descent fallback and a
 * Levenberg–Marquardt-type diagonal shift when the Newton matrix is singular, and, when the
 * iteration stalls, a few Newton steps on the natural map and then proximal-perturbation
 * restarts (options.globalize). Dense Newton
 * systems are solved with LAPACK LU, sparse ones with KLU (symbolic analysis once per call,
 * numeric refactorization every iteration). See docs/theory.md and docs/api.md.
 *
 * Entry points
 *   cdyn_mcp_defaults    fill the options with their defaults.
 *   cdyn_mcp_solve       solve an MCP given by callbacks.
 *   cdyn_mcp_solver_create / _run / _free
 *                        the same with a reusable solver for many problems of one structure
 *                        (n, sparsity pattern, options): run allocates nothing of cdyn's and
 *                        keeps KLU's symbolic analysis (time steppers, boundary-value problems).
 *   cdyn_mcp_residual    ||x - mid(l, u, x - F)||_inf, the residual every MCP solver reports.
 *   cdyn_lcp_fb_newton   the same method on an LCP (cdyn/lcp.h) as the NCP F(z) = M z + q.
 *
 * Thread safety: every function is reentrant; callbacks receive the caller's ctx unchanged and
 * are called from the calling thread only. */
#ifndef CDYN_MCP_H
#define CDYN_MCP_H

#include "cdyn/alloc.h"
#include "cdyn/export.h"
#include "cdyn/lcp.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* F(x) into F (n values). Return 0 on success; nonzero means "F cannot be evaluated at this x"
 * (e.g. outside its domain): a line-search trial point is then rejected and the step shortened. */
typedef int (*cdyn_mcp_fun)(void *ctx, const double *x, double *F);

/* Dense Jacobian dF/dx at x into J (n*n, column-major: J[i + j*n] = dF_i/dx_j). 0 on success. */
typedef int (*cdyn_mcp_jac_dense)(void *ctx, const double *x, double *J);

/* Sparse Jacobian at x: values[k] for the k-th entry of the fixed pattern (colptr, rowind) of
 * cdyn_mcp, in the same order. 0 on success. */
typedef int (*cdyn_mcp_jac_sparse)(void *ctx, const double *x, double *values);

typedef struct cdyn_mcp {
    int n;               /* number of unknowns, > 0 */
    const double *lower; /* n values, may contain -INFINITY; NULL: all 0 (NCP) */
    const double *upper; /* n values, may contain +INFINITY; NULL: all +INFINITY */
    cdyn_mcp_fun F;      /* required */

    /* Dense path (colptr == NULL): jac, or options.jacobian_fd. */
    cdyn_mcp_jac_dense jac;

    /* Sparse path (colptr != NULL): the n-by-n pattern of dF/dx in compressed sparse columns
     * (colptr: n+1 entries with colptr[0] = 0; rowind: colptr[n] row indices, any order within
     * a column, no duplicates) and jac_sparse, or options.jacobian_fd (column-colored finite
     * differences on this pattern). The diagonal need not be in the pattern. */
    const int *colptr;
    const int *rowind;
    cdyn_mcp_jac_sparse jac_sparse;

    void *ctx; /* passed unchanged to every callback */
} cdyn_mcp;

typedef enum cdyn_mcp_merit {
    CDYN_MCP_FB = 0,          /* Fischer–Burmeister */
    CDYN_MCP_FB_PENALIZED = 1 /* Chen–Chen–Kanzow penalized FB with weight penalty_lambda */
} cdyn_mcp_merit;

typedef struct cdyn_mcp_options {
    double tol;             /* stop when every row's |x - mid(l, u, x - F(x))|_i <= tol + its
                               rounding floor 16 eps (|F_i| + sum_j |J_ij x_j|) (1e-10) */
    int max_iter;           /* Newton iterations (100) */
    cdyn_mcp_merit merit;   /* CDYN_MCP_FB */
    double penalty_lambda;  /* lambda in (0, 1] of the penalized FB; 1 is plain FB (0.95) */
    int nonmonotone_memory; /* Armijo reference = max of the last m merit values; 1 = monotone
                               (1); at most 64 */
    double armijo_sigma;    /* sufficient-decrease constant in (0, 1/2) (1e-4) */
    double backtrack;       /* step-length factor per backtrack, in (0, 1) (0.5) */
    int max_backtracks;     /* per line search (40) */
    double lm_mu0;          /* first diagonal shift, relative to max |H_ij|, tried when the
                               Newton matrix H is singular; then x100 up to three times (1e-8) */
    int jacobian_fd;        /* nonzero: finite differences instead of jac / jac_sparse (0) */
    double fd_step;         /* relative difference step; 0: sqrt(DBL_EPSILON) (0) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
    /* Called after every Newton iteration with its number (1, 2, ...) and the natural residual
     * reached, for progress lines of long solves; NULL: none (NULL). A nonzero return stops the
     * solve with CDYN_ENOCONV ("stopped by the progress callback"). */
    int (*progress)(void *ctx, int iteration, double residual);
    void *progress_ctx; /* passed to progress unchanged (NULL) */
    /* 1: when the Newton iteration stalls (no acceptable step, or a stationary point of the
     * merit function that is not a solution) or reaches max_iter, first take up to 8
     * semismooth Newton steps on the natural map x - mid(l, u, x - F(x)) from there, without a
     * line search (active-set Newton: locally quadratic where the merit function's line search
     * refuses the step that solves; kept only when they reach tol), then up to 12 Josephy-Newton
     * iterations (the linearized MCP solved exactly by Lemke on its Schur complement onto the
     * bounded variables: the linear problem picks the active bounds; bounds free, fixed or
     * [l, inf) only, at most 256 bounded; workspace carved at creation), then restart it with proximal
     * perturbations: solve MCP(F + eps (x - xbar), l, u) around the stall point xbar, move xbar
     * to its solution and try unit Newton steps from there, shrinking eps as these problems get
     * solved (Billups' proximal perturbation strategy; docs/theory.md). The restarts get
     * another max_iter Newton iterations; runs that converge without them are unchanged.
     * 0: report the stall (1). */
    int globalize;
} cdyn_mcp_options;

CDYN_API void cdyn_mcp_defaults(cdyn_mcp_options *opts);

/* Solve the MCP by FB semismooth Newton. x (n values): in, the starting point (finite; it
 * need not lie in the box); out, the solution. On any status other than CDYN_OK and
 * CDYN_EINACCURATE, x is left unchanged. opts may be NULL (defaults); report may be NULL.
 * Returns
 *   CDYN_OK        certified: x lies in [l, u] (the iterate projected onto the box), F was
 *                  evaluated afresh at x by the callback (no failure, finite), and the natural
 *                  residual ||x - mid(l, u, x - F(x))||_inf there is <= opts->tol
 *                  (row by row, plus the row's rounding floor: see tol);
 *   CDYN_EINACCURATE  the projected answer's natural residual stays > tol after up to three
 *                  Newton runs from the projected point: x holds that point (in the box) and
 *                  report->residual its residual; not a certified solution;
 *   CDYN_ENOCONV   iteration limit, or stagnation (the line search found no decrease, or a
 *                  stationary point of the merit function that is not a solution), and the
 *                  restarts of options.globalize (when set) did not help either; the message
 *                  says which;
 *   CDYN_EINVAL    NULL pointers, n <= 0, l > u or NaN bounds, non-finite start, malformed
 *                  sparse pattern, missing Jacobian, bad options, or a callback that fails or
 *                  returns NaN/Inf at the starting point;
 *   CDYN_ENUMERIC  a callback failed (or returned NaN/Inf) later and the line search could not
 *                  step around it, a Jacobian evaluation failed at an accepted iterate, or F
 *                  fails or is not finite at the answer projected onto [l, u] (e.g. a pole
 *                  on the boundary);
 *   CDYN_ENOMEM    allocation failed (ours or KLU's).
 * report: iterations = Newton steps taken (restarts included; the natural-map steps only when
 * they solved); evaluations = callback calls (F
 * calls, including those of finite differences, plus Jacobian calls); residual = natural
 * residual of the last iterate; method = "fb-newton" or "fb-newton-penalized", with
 * "+polish" appended when the natural-map steps, "+proximal" when the proximal-perturbation
 * restarts (options.globalize) produced
 * the solution (the message then says after how many iterations Newton stalled and how many
 * restarts it took; a failure of the restarts appends their count to the stall message). */
CDYN_API cdyn_status cdyn_mcp_solve(const cdyn_mcp *mcp, const cdyn_mcp_options *opts, double *x,
                                    cdyn_report *report);

typedef struct cdyn_mcp_solver cdyn_mcp_solver;

/* Allocate a solver for the structure of mcp: n, dense or sparse and the pattern (copied), and
 * the options (copied; opts NULL: defaults). On the sparse path KLU's symbolic analysis runs
 * here. F, the Jacobian callbacks, bounds and ctx of mcp are not used yet. *out is NULL on
 * failure. Statuses: CDYN_EINVAL (as cdyn_mcp_solve's problem and option checks), CDYN_ETOOBIG,
 * CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_mcp_solver_create(const cdyn_mcp *mcp, const cdyn_mcp_options *opts,
                                            cdyn_mcp_solver **out, cdyn_report *report);

/* Solve mcp, which must have the size and sparsity pattern given to create (CDYN_EINVAL
 * otherwise); its callbacks, bounds and ctx may differ from run to run. x, statuses and report
 * as for cdyn_mcp_solve. Allocates nothing of cdyn's (KLU allocates its numeric factors on the
 * first run, and again only when a refactorization is rejected). Not for concurrent use. */
CDYN_API cdyn_status cdyn_mcp_solver_solve(cdyn_mcp_solver *solver, const cdyn_mcp *mcp, double *x,
                                         cdyn_report *report);

/* Free a solver; accepts NULL. */
CDYN_API void cdyn_mcp_solver_free(cdyn_mcp_solver *solver);

/* Natural-map residual ||x - mid(l, u, x - F)||_inf for given x and F = F(x) (n values each),
 * with the bounds of mcp (mcp->F and the Jacobian fields are not used). It is zero exactly at
 * solutions. Returns NAN for invalid arguments or NaN input. */
CDYN_API double cdyn_mcp_residual(const cdyn_mcp *mcp, const double *x, const double *F);

/* LCP(q, M) (see cdyn/lcp.h) solved by the same FB-Newton method as the NCP F(z) = M z + q
 * with the dense path and the exact Jacobian M. z (n values): in, the starting point (use zeros
 * when you have no guess); out, the solution. w receives M z + q. Both are left unchanged on
 * failure (both written with CDYN_EINACCURATE). OK certifies z >= 0 and the natural residual
 * at that z with w recomputed, an absolute test (Lemke's is componentwise, see lcp.h). Statuses as for cdyn_mcp_solve; report->residual = ||min(z, M z + q)||_inf, the same
 * measure as cdyn_lcp_residual. For LCPs whose M is not a P-matrix the merit function can have
 * stationary points that are not solutions (CDYN_ENOCONV): Lemke is the robust choice there. */
CDYN_API cdyn_status cdyn_lcp_fb_newton(const cdyn_lcp *lcp, const cdyn_mcp_options *opts,
                                        double *z, double *w, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
