/* MCP problem description: option defaults, argument checks, bounds and the natural residual. */
#include <math.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

void cdyn_mcp_defaults(cdyn_mcp_options *o)
{
    if (o == NULL)
        return;
    o->tol = 1e-10;
    o->max_iter = 100;
    o->merit = CDYN_MCP_FB;
    o->penalty_lambda = 0.95;
    o->nonmonotone_memory = 1;
    o->armijo_sigma = 1e-4;
    o->backtrack = 0.5;
    o->max_backtracks = 40;
    o->lm_mu0 = 1e-8;
    o->jacobian_fd = 0;
    o->fd_step = 0.0;
    o->allocator = NULL;
    o->progress = NULL;
    o->progress_ctx = NULL;
    o->globalize = 1;
}

cdyn_status cdyn_mcp_check_options(const cdyn_mcp_options *o, cdyn_report *r)
{
    if (!(o->tol > 0.0) || !isfinite(o->tol))
        return cdyn_fail(r, CDYN_EINVAL, "options: tol must be finite and > 0");
    if (o->max_iter < 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: max_iter must be >= 1");
    if (o->merit != CDYN_MCP_FB && o->merit != CDYN_MCP_FB_PENALIZED)
        return cdyn_fail(r, CDYN_EINVAL, "options: unknown merit %d", (int)o->merit);
    if (o->merit == CDYN_MCP_FB_PENALIZED && !(o->penalty_lambda > 0.0 && o->penalty_lambda <= 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "options: penalty_lambda must be in (0, 1]");
    if (o->nonmonotone_memory < 1 || o->nonmonotone_memory > 64)
        return cdyn_fail(r, CDYN_EINVAL, "options: nonmonotone_memory must be in [1, 64]");
    if (!(o->armijo_sigma > 0.0 && o->armijo_sigma < 0.5))
        return cdyn_fail(r, CDYN_EINVAL, "options: armijo_sigma must be in (0, 1/2)");
    if (!(o->backtrack > 0.0 && o->backtrack < 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "options: backtrack must be in (0, 1)");
    if (o->max_backtracks < 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: max_backtracks must be >= 1");
    if (!(o->lm_mu0 > 0.0) || !isfinite(o->lm_mu0))
        return cdyn_fail(r, CDYN_EINVAL, "options: lm_mu0 must be finite and > 0");
    if (!(o->fd_step >= 0.0 && o->fd_step < 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "options: fd_step must be in [0, 1)");
    if (o->globalize != 0 && o->globalize != 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: globalize must be 0 or 1");
    return CDYN_OK;
}

static cdyn_status check_pattern(const cdyn_mcp *p, cdyn_report *r)
{
    const int n = p->n;
    if (p->rowind == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "sparse pattern: rowind is NULL");
    if (p->colptr[0] != 0)
        return cdyn_fail(r, CDYN_EINVAL, "sparse pattern: colptr[0] must be 0");
    /* The whole of colptr before any walk over rowind, whose length is colptr[n]: a column
       that ends past it (colptr = {0, 3, 2}) would read beyond it (issue 18). */
    for (int j = 0; j < n; ++j)
        if (p->colptr[j + 1] < p->colptr[j])
            return cdyn_fail(r, CDYN_EINVAL, "sparse pattern: colptr decreases at column %d", j);
    for (int j = 0; j < n; ++j) {
        for (int k = p->colptr[j]; k < p->colptr[j + 1]; ++k)
            if (p->rowind[k] < 0 || p->rowind[k] >= n)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "sparse pattern: row index %d out of range in column %d",
                                 p->rowind[k], j);
    }
    return CDYN_OK; /* duplicates are found when the Newton-matrix pattern is built */
}

cdyn_status cdyn_mcp_check_problem(const cdyn_mcp *p, cdyn_report *r)
{
    if (p == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "mcp is NULL");
    if (p->n <= 0)
        return cdyn_fail(r, CDYN_EINVAL, "mcp->n must be > 0 (got %d)", p->n);
    if (p->F == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "mcp->F is NULL");
    if (p->jac != NULL && p->jac_sparse != NULL)
        return cdyn_fail(r, CDYN_EINVAL, "give either jac (dense) or jac_sparse, not both");
    if (p->colptr == NULL && (p->rowind != NULL || p->jac_sparse != NULL))
        return cdyn_fail(r, CDYN_EINVAL, "rowind/jac_sparse need the pattern colptr");
    if (p->colptr != NULL && p->jac != NULL)
        return cdyn_fail(r, CDYN_EINVAL, "a sparse pattern was given with a dense jac");
    for (int i = 0; i < p->n; ++i) {
        const double li = p->lower ? p->lower[i] : 0.0;
        const double ui = p->upper ? p->upper[i] : INFINITY;
        if (isnan(li) || isnan(ui))
            return cdyn_fail(r, CDYN_EINVAL, "bound %d is NaN", i);
        if (li > ui)
            return cdyn_fail(r, CDYN_EINVAL, "lower[%d] = %g > upper[%d] = %g", i, li, i, ui);
        if (li == INFINITY || ui == -INFINITY)
            return cdyn_fail(r, CDYN_EINVAL, "bounds of x[%d] admit no finite value", i);
    }
    if (p->colptr != NULL)
        return check_pattern(p, r);
    return CDYN_OK;
}

cdyn_status cdyn_mcp_check_start(const cdyn_mcp *p, const double *x, int need_jacobian,
                                 cdyn_report *r)
{
    if (x == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "x (the starting point) is NULL");
    if (!cdyn_dense_all_finite(p->n, x))
        return cdyn_fail(r, CDYN_EINVAL, "the starting point contains NaN or Inf");
    if (need_jacobian && (p->colptr ? p->jac_sparse == NULL : p->jac == NULL))
        return cdyn_fail(r, CDYN_EINVAL,
                         "no Jacobian: set jac (dense), jac_sparse with a pattern, or "
                         "options.jacobian_fd");
    return CDYN_OK;
}

void cdyn_mcp_fill_bounds(const cdyn_mcp *p, double *l, double *u)
{
    for (int i = 0; i < p->n; ++i) {
        l[i] = p->lower ? p->lower[i] : 0.0;
        u[i] = p->upper ? p->upper[i] : INFINITY;
    }
}

double cdyn_mcp_natural_residual(int n, const double *l, const double *u, const double *x,
                                 const double *F)
{
    return cdyn_mcp_natural_excess(n, l, u, x, F, NULL);
}

double cdyn_mcp_natural_excess(int n, const double *l, const double *u, const double *x,
                               const double *F, const double *floor)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        /* The projection drops a NaN operand (like fmin/fmax, written out to stay inline),
           so NaN input is caught explicitly. */
        if (isnan(x[i]) || isnan(F[i]))
            return NAN;
        /* x - mid(l, u, x - F): F itself where the projection is interior, written so (not as
           x - (x - F), which is 0 in floating point when |F| < ulp(x): the polish of
           fb_newton.c once "solved" F = 1e4 atan(x) at x = -1.5e37 that way). */
        const double v = x[i] - F[i];
        double ri = v <= l[i]   ? fabs(x[i] - l[i])
                          : v >= u[i] ? fabs(x[i] - u[i])
                                      : fabs(F[i]);
        if (isnan(ri))
            return NAN;
        if (floor != NULL)
            ri = ri > floor[i] ? ri - floor[i] : 0.0;
        if (ri > r)
            r = ri;
    }
    return r;
}

double cdyn_mcp_residual(const cdyn_mcp *p, const double *x, const double *F)
{
    if (p == NULL || x == NULL || F == NULL || p->n <= 0)
        return NAN;
    double r = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const double li = p->lower ? p->lower[i] : 0.0;
        const double ui = p->upper ? p->upper[i] : INFINITY;
        if (isnan(li) || isnan(ui) || li > ui)
            return NAN;
        const double ri = cdyn_mcp_natural_residual(1, &li, &ui, x + i, F + i);
        if (isnan(ri))
            return NAN;
        if (ri > r)
            r = ri;
    }
    return r;
}
