/* cdyn_mcp_solver: cdyn_mcp_solve split into create (workspace, linear-system object, KLU's
 * symbolic analysis: everything that depends only on n, the pattern and the options) and run
 * (any problem of that structure). A time stepper or a BVP solves many MCPs of one structure:
 * run allocates nothing of ours, and on the sparse path KLU keeps its symbolic analysis and
 * refactors numerically from run to run. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/mcp/mcp_internal.h"

struct cdyn_mcp_solver {
    cdyn_mcp_options opts;
    int n, sparse;
    int *colptr, *rowind; /* the pattern (sparse), to check each run's problem against */
    void *block;          /* the carved vectors of mcp_work */
    int *color, *mark;    /* finite-difference coloring scratch (in block) */
    mcp_work w;
};

void cdyn_mcp_solver_free(cdyn_mcp_solver *s)
{
    if (s == NULL)
        return;
    const cdyn_allocator *a = s->opts.allocator;
    cdyn_mcp_linsys_free(a, &s->w.ls);
    cdyn_mem_free(a, s->block);
    cdyn_mem_free(a, s->colptr);
    cdyn_mem_free(a, s->rowind);
    cdyn_mem_free(a, s);
}

void cdyn_mcp_solver_forget(cdyn_mcp_solver *s)
{
    if (s != NULL && s->w.ls.sys != NULL)
        cdyn_linsys_forget(s->w.ls.sys);
}

cdyn_status cdyn_mcp_solver_create(const cdyn_mcp *p, const cdyn_mcp_options *opts,
                                   cdyn_mcp_solver **out, cdyn_report *r)
{
    return cdyn_mcp_solver_create_ordered(p, opts, NULL, out, r);
}

cdyn_status cdyn_mcp_solver_create_ordered(const cdyn_mcp *p, const cdyn_mcp_options *opts,
                                           const int *order, cdyn_mcp_solver **out,
                                           cdyn_report *r)
{
    cdyn_report_clear(r, "fb-newton");
    if (out == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "out is NULL");
    *out = NULL;
    cdyn_status st = cdyn_mcp_check_problem(p, r);
    if (st != CDYN_OK)
        return st;
    cdyn_mcp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_mcp_defaults(&o);
    if ((st = cdyn_mcp_check_options(&o, r)) != CDYN_OK)
        return st;
    if (p->colptr == NULL && (size_t)p->n * (size_t)p->n > (size_t)INT_MAX)
        return cdyn_fail(r, CDYN_ETOOBIG,
                         "dense path limited to n*n <= INT_MAX; give a sparse pattern");
    cdyn_mcp_solver *s = cdyn_mem_alloc(o.allocator, sizeof *s);
    if (s == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the solver");
    memset(s, 0, sizeof *s);
    s->opts = o;
    s->n = p->n;
    s->sparse = p->colptr != NULL;
    const size_t nn = (size_t)p->n;
    if (s->sparse) {
        const size_t nnz = (size_t)p->colptr[p->n];
        s->colptr = cdyn_mem_array(o.allocator, nn + 1, sizeof(int));
        s->rowind = cdyn_mem_array(o.allocator, nnz, sizeof(int));
        if (s->colptr == NULL || s->rowind == NULL) {
            cdyn_mcp_solver_free(s);
            return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the pattern copy");
        }
        memcpy(s->colptr, p->colptr, (nn + 1) * sizeof(int));
        memcpy(s->rowind, p->rowind, nnz * sizeof(int));
    }
    mcp_work *w = &s->w;
    w->o = &s->opts;
    w->n = p->n;
    w->jnb = cdyn_mcp_josephy_bounded(p);
    cdyn_mcp_jac_init(p, &w->J);
    cdyn_carve cv = {0, 0};
    cdyn_mcp_carve_work(w, &cv, NULL, &s->color, &s->mark);
    s->block = cv.overflow ? NULL : cdyn_mem_alloc(o.allocator, cv.off);
    if (s->block == NULL) {
        cdyn_mcp_solver_free(s);
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace");
    }
    cv = (cdyn_carve){0, 0};
    cdyn_mcp_carve_work(w, &cv, s->block, &s->color, &s->mark);
    st = cdyn_mcp_linsys_create(o.allocator, p->n, s->sparse ? p->colptr : NULL, p->rowind,
                                order, &w->ls);
    if (st != CDYN_OK) {
        cdyn_mcp_solver_free(s);
        if (st == CDYN_ENOMEM)
            return cdyn_fail(r, st, "cannot allocate the Newton-matrix factorization");
        if (st == CDYN_EINVAL)
            return cdyn_fail(r, st, "sparse pattern: duplicate entries in a column (or "
                                    "rejected by KLU)");
        return cdyn_fail(r, st, "sparse pattern too large for 32-bit indices");
    }
    *out = s;
    return CDYN_OK;
}

cdyn_status cdyn_mcp_solver_solve(cdyn_mcp_solver *s, const cdyn_mcp *p, double *x,
                                cdyn_report *r)
{
    cdyn_report_clear(r, s != NULL && s->opts.merit == CDYN_MCP_FB_PENALIZED
                             ? "fb-newton-penalized"
                             : "fb-newton");
    if (s == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "solver is NULL");
    cdyn_status st = cdyn_mcp_check_problem(p, r);
    if (st != CDYN_OK)
        return st;
    if (p->n != s->n || (p->colptr != NULL) != s->sparse ||
        (s->sparse && (memcmp(p->colptr, s->colptr, ((size_t)s->n + 1) * sizeof(int)) != 0 ||
                       memcmp(p->rowind, s->rowind, (size_t)s->colptr[s->n] * sizeof(int)) != 0)))
        return cdyn_fail(r, CDYN_EINVAL, "the problem's size or sparsity pattern is not the one "
                                         "the solver was created for");
    if ((st = cdyn_mcp_check_start(p, x, !s->opts.jacobian_fd, r)) != CDYN_OK)
        return st;
    mcp_work *w = &s->w;
    w->p = p;
    w->lambda = s->opts.merit == CDYN_MCP_FB_PENALIZED ? s->opts.penalty_lambda : 1.0;
    w->jac_fixed = 0;
    w->jabsmax = INFINITY;
    w->nfev = w->njev = 0;
    cdyn_mcp_jac_init(p, &w->J);
    if (s->opts.jacobian_fd)
        cdyn_mcp_fd_setup(p, s->opts.fd_step, s->color, s->mark, &w->fd);
    cdyn_mcp_fill_bounds(p, w->l, w->u);
    memcpy(w->x, x, (size_t)s->n * sizeof(double));
    st = cdyn_mcp_fb_newton(w, r);
    if (st == CDYN_OK || st == CDYN_EINACCURATE) /* the certified point, or the best one */
        memcpy(x, w->x, (size_t)s->n * sizeof(double));
    return st;
}
