/* cdyn_mcp_solve: argument checks, the one-time workspace (one block through the caller's
 * allocator, plus the linear-system object), the iteration, and the copy-back on success. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/mcp/mcp_internal.h"

void cdyn_mcp_carve_work(mcp_work *w, cdyn_carve *cv, void *block, int **color, int **mark)
{
    const size_t nn = (size_t)w->n;
    w->l = cdyn_carve_doubles(cv, block, nn);
    w->u = cdyn_carve_doubles(cv, block, nn);
    w->x = cdyn_carve_doubles(cv, block, nn);
    w->F = cdyn_carve_doubles(cv, block, nn);
    w->Phi = cdyn_carve_doubles(cv, block, nn);
    w->xt = cdyn_carve_doubles(cv, block, nn);
    w->Ft = cdyn_carve_doubles(cv, block, nn);
    w->Phit = cdyn_carve_doubles(cv, block, nn);
    w->da = cdyn_carve_doubles(cv, block, nn);
    w->db = cdyn_carve_doubles(cv, block, nn);
    w->d = cdyn_carve_doubles(cv, block, nn);
    w->g = cdyn_carve_doubles(cv, block, nn);
    w->tmp = cdyn_carve_doubles(cv, block, nn);
    w->floor = cdyn_carve_doubles(cv, block, nn);
    w->hist = cdyn_carve_doubles(cv, block, (size_t)w->o->nonmonotone_memory);
    if (w->o->globalize) {
        w->xbar = cdyn_carve_doubles(cv, block, nn);
        w->Fbar = cdyn_carve_doubles(cv, block, nn);
        cdyn_mcp_josephy_carve(w, cv, block);
    }
    if (!w->jac_fixed)
        w->J.values = cdyn_carve_doubles(cv, block, w->J.nvals);
    if (w->o->jacobian_fd) {
        w->fd.xp = cdyn_carve_doubles(cv, block, nn);
        w->fd.Fp = cdyn_carve_doubles(cv, block, nn);
        if (w->J.sparse) {
            *color = cdyn_carve_ints(cv, block, nn);
            *mark = cdyn_carve_ints(cv, block, nn);
        }
    }
}

static cdyn_status run(const cdyn_mcp *p, const cdyn_mcp_options *o, const double *Jfixed,
                       double Jabsmax, double *x, cdyn_report *r)
{
    const int n = p->n;
    const int sparse = p->colptr != NULL;
    const size_t nn = (size_t)n;
    mcp_work w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.o = o;
    w.n = n;
    w.lambda = (o->merit == CDYN_MCP_FB_PENALIZED) ? o->penalty_lambda : 1.0;
    cdyn_mcp_jac_init(p, &w.J);
    w.jac_fixed = Jfixed != NULL;
    w.jnb = w.jac_fixed ? 0 : cdyn_mcp_josephy_bounded(p);

    int *color = NULL, *mark = NULL;
    cdyn_carve cv = {0, 0};
    cdyn_mcp_carve_work(&w, &cv, NULL, &color, &mark);
    void *block = cv.overflow ? NULL : cdyn_mem_alloc(o->allocator, cv.off);
    if (block == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace (%zu bytes)", cv.off);
    cv = (cdyn_carve){0, 0};
    cdyn_mcp_carve_work(&w, &cv, block, &color, &mark);
    if (Jfixed != NULL) {
        /* Read-only use: jac_fixed keeps every writer of J.values away. */
        w.J.values = (double *)Jfixed;
        w.jabsmax = Jabsmax;
    } else {
        w.jabsmax = INFINITY;
    }
    if (o->jacobian_fd)
        cdyn_mcp_fd_setup(p, o->fd_step, color, mark, &w.fd);
    cdyn_mcp_fill_bounds(p, w.l, w.u);
    memcpy(w.x, x, nn * sizeof(double));

    cdyn_status st = cdyn_mcp_linsys_create(o->allocator, n, sparse ? p->colptr : NULL,
                                            p->rowind, NULL, &w.ls);
    if (st == CDYN_ENOMEM)
        cdyn_fail(r, st, "cannot allocate the Newton-matrix factorization");
    else if (st == CDYN_EINVAL)
        cdyn_fail(r, st, "sparse pattern: duplicate entries in a column (or rejected by KLU)");
    else if (st != CDYN_OK)
        cdyn_fail(r, st, "sparse pattern too large for 32-bit indices");
    else
        st = cdyn_mcp_fb_newton(&w, r);

    if (st == CDYN_OK || st == CDYN_EINACCURATE) /* the certified point, or the best one */
        memcpy(x, w.x, nn * sizeof(double));
    cdyn_mcp_linsys_free(o->allocator, &w.ls);
    cdyn_mem_free(o->allocator, block);
    return st;
}

cdyn_status cdyn_mcp_solve(const cdyn_mcp *p, const cdyn_mcp_options *opts, double *x,
                           cdyn_report *r)
{
    return cdyn_mcp_solve_fixed(p, opts, NULL, 0.0, x, r);
}

cdyn_status cdyn_mcp_solve_fixed(const cdyn_mcp *p, const cdyn_mcp_options *opts,
                                 const double *Jfixed, double Jabsmax, double *x, cdyn_report *r)
{
    cdyn_report_clear(r, "fb-newton");
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
    if (o.merit == CDYN_MCP_FB_PENALIZED)
        cdyn_report_method(r, "fb-newton-penalized");
    if ((st = cdyn_mcp_check_start(p, x, Jfixed == NULL && !o.jacobian_fd, r)) != CDYN_OK)
        return st;
    if (Jfixed != NULL)
        o.jacobian_fd = 0; /* the exact Jacobian is known */
    if (p->colptr == NULL && (size_t)p->n * (size_t)p->n > (size_t)INT_MAX)
        return cdyn_fail(r, CDYN_ETOOBIG,
                         "dense path limited to n*n <= INT_MAX; give a sparse pattern");
    return run(p, &o, Jfixed, Jabsmax, x, r);
}
