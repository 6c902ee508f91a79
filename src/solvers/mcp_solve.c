/* cdyn_mcp_solve: argument checks, the one-time workspace (one block through the caller's
 * allocator, plus the linear-system object), the iteration, and the copy-back on success. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp_internal.h"

/* Carve the workspace from one block of doubles followed by ints. */
typedef struct carve {
    double *d;
    int *i;
} carve;

static double *take_d(carve *c, size_t count)
{
    double *p = c->d;
    c->d += count;
    return p;
}

static int *take_i(carve *c, size_t count)
{
    int *p = c->i;
    c->i += count;
    return p;
}

static cdyn_status run(const cdyn_mcp *p, const cdyn_mcp_options *o, const double *Jfixed,
                       double Jabsmax, double *x, cdyn_report *r)
{
    const int n = p->n;
    const int sparse = p->colptr != NULL;
    const int fd = o->jacobian_fd != 0;
    const size_t nn = (size_t)n;
    const size_t nvals = sparse ? (size_t)p->colptr[n] : nn * nn;
    const size_t nstore = Jfixed != NULL ? 0 : nvals;
    const size_t m = (size_t)o->nonmonotone_memory;
    const size_t ndbl = 13 * nn + m + nstore + (fd ? 2 * nn : 0);
    const size_t nint = (sparse && fd) ? 2 * nn : 0;
    const size_t nint_as_dbl = (nint * sizeof(int) + sizeof(double) - 1) / sizeof(double);
    double *block = cdyn_mem_array(o->allocator, ndbl + nint_as_dbl, sizeof(double));
    if (block == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace (%zu doubles)",
                         ndbl + nint_as_dbl);

    mcp_work w;
    memset(&w, 0, sizeof w);
    carve c = {block, (int *)(void *)(block + ndbl)};
    w.p = p;
    w.o = o;
    w.n = n;
    w.lambda = (o->merit == CDYN_MCP_FB_PENALIZED) ? o->penalty_lambda : 1.0;
    w.l = take_d(&c, nn);
    w.u = take_d(&c, nn);
    w.x = take_d(&c, nn);
    w.F = take_d(&c, nn);
    w.Phi = take_d(&c, nn);
    w.xt = take_d(&c, nn);
    w.Ft = take_d(&c, nn);
    w.Phit = take_d(&c, nn);
    w.da = take_d(&c, nn);
    w.db = take_d(&c, nn);
    w.d = take_d(&c, nn);
    w.g = take_d(&c, nn);
    w.tmp = take_d(&c, nn);
    w.hist = take_d(&c, m);
    w.J.n = n;
    w.J.sparse = sparse;
    w.J.colptr = p->colptr;
    w.J.rowind = p->rowind;
    w.J.nvals = nvals;
    if (Jfixed != NULL) {
        /* Read-only use: jac_fixed keeps every writer of J.values away. */
        w.J.values = (double *)Jfixed;
        w.jac_fixed = 1;
        w.jabsmax = Jabsmax;
    } else {
        w.J.values = take_d(&c, nvals);
        w.jabsmax = INFINITY;
    }
    if (fd) {
        w.fd.step = o->fd_step > 0.0 ? o->fd_step : sqrt(DBL_EPSILON);
        w.fd.xp = take_d(&c, nn);
        w.fd.Fp = take_d(&c, nn);
        if (sparse) {
            int *color = take_i(&c, nn);
            cdyn_mcp_fd_color(n, p->colptr, p->rowind, color, &w.fd.ncolors, take_i(&c, nn));
            w.fd.color = color;
        }
    }
    cdyn_mcp_fill_bounds(p, w.l, w.u);
    memcpy(w.x, x, nn * sizeof(double));

    mcp_dense_lu *dlu = NULL;
    mcp_sparse_lu *slu = NULL;
    cdyn_status st =
        sparse ? cdyn_mcp_sparse_lu_create(o->allocator, n, p->colptr, p->rowind, &slu, &w.ls)
               : cdyn_mcp_dense_lu_create(o->allocator, n, &dlu, &w.ls);
    if (st == CDYN_ENOMEM)
        cdyn_fail(r, st, "cannot allocate the Newton-matrix factorization");
    else if (st == CDYN_EINVAL)
        cdyn_fail(r, st, "sparse pattern: duplicate entries in a column (or rejected by KLU)");
    else if (st != CDYN_OK)
        cdyn_fail(r, st, "sparse pattern too large for 32-bit indices");
    else
        st = cdyn_mcp_fb_newton(&w, r);

    if (st == CDYN_OK)
        memcpy(x, w.x, nn * sizeof(double));
    cdyn_mcp_sparse_lu_free(o->allocator, slu);
    cdyn_mcp_dense_lu_free(o->allocator, dlu);
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
    if (x == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "x (the starting point) is NULL");
    if (!cdyn_dense_all_finite(p->n, x))
        return cdyn_fail(r, CDYN_EINVAL, "the starting point contains NaN or Inf");
    if (Jfixed != NULL)
        o.jacobian_fd = 0; /* the exact Jacobian is known */
    else if (!o.jacobian_fd && (p->colptr ? p->jac_sparse == NULL : p->jac == NULL))
        return cdyn_fail(r, CDYN_EINVAL,
                         "no Jacobian: set jac (dense), jac_sparse with a pattern, or "
                         "options.jacobian_fd");
    if (p->colptr == NULL && (size_t)p->n * (size_t)p->n > (size_t)INT_MAX)
        return cdyn_fail(r, CDYN_ETOOBIG,
                         "dense path limited to n*n <= INT_MAX; give a sparse pattern");
    return run(p, &o, Jfixed, Jabsmax, x, r);
}
