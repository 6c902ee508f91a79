/* cdyn_box_merit_solve: option defaults and checks, the one-time workspace (a single block
 * through the caller's allocator), the iteration, and the copy-back on success. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/box_merit_internal.h"

void cdyn_box_merit_defaults(cdyn_box_merit_options *o)
{
    if (o == NULL)
        return;
    o->tol = 1e-10;
    o->max_iter = 500;
    o->merit = CDYN_BOX_MERIT_FB;
    o->newton = 1;
    o->gtol = 1e-12;
    o->nonmonotone_memory = 10;
    o->armijo_sigma = 1e-4;
    o->max_backtracks = 40;
    o->lm_mu = 1e-6;
    o->active_eps = 1e-3;
    o->jacobian_fd = 0;
    o->fd_step = 0.0;
    o->allocator = NULL;
}

static cdyn_status check_options(const cdyn_box_merit_options *o, cdyn_report *r)
{
    if (!(o->tol > 0.0) || !isfinite(o->tol))
        return cdyn_fail(r, CDYN_EINVAL, "options: tol must be finite and > 0");
    if (o->max_iter < 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: max_iter must be >= 1");
    if (o->merit != CDYN_BOX_MERIT_FB && o->merit != CDYN_BOX_MERIT_SLACK)
        return cdyn_fail(r, CDYN_EINVAL, "options: unknown merit %d", (int)o->merit);
    if (!(o->gtol >= 0.0 && o->gtol < 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "options: gtol must be in [0, 1)");
    if (o->nonmonotone_memory < 1 || o->nonmonotone_memory > 64)
        return cdyn_fail(r, CDYN_EINVAL, "options: nonmonotone_memory must be in [1, 64]");
    if (!(o->armijo_sigma > 0.0 && o->armijo_sigma < 0.5))
        return cdyn_fail(r, CDYN_EINVAL, "options: armijo_sigma must be in (0, 1/2)");
    if (o->max_backtracks < 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: max_backtracks must be >= 1");
    if (!(o->lm_mu > 0.0) || !isfinite(o->lm_mu))
        return cdyn_fail(r, CDYN_EINVAL, "options: lm_mu must be finite and > 0");
    if (!(o->active_eps >= 0.0) || !isfinite(o->active_eps))
        return cdyn_fail(r, CDYN_EINVAL, "options: active_eps must be finite and >= 0");
    if (!(o->fd_step >= 0.0 && o->fd_step < 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "options: fd_step must be in [0, 1)");
    return CDYN_OK;
}

/* Largest N with N * N <= INT_MAX. */
#define BM_MAX_DENSE 46340

/* Carve the workspace from one block: doubles first, then ints. */
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

/* Sizes of the problem layout before anything is allocated: N and m of the slack layout are
   known from the bounds alone. */
static void count_layout(const cdyn_mcp *p, int kind, size_t *N, size_t *m)
{
    const size_t n = (size_t)p->n;
    if (kind == CDYN_BOX_MERIT_FB) {
        *N = *m = n;
        return;
    }
    size_t ns = 0, neq = 0;
    for (int i = 0; i < p->n; ++i) {
        const double li = p->lower ? p->lower[i] : 0.0;
        const double ui = p->upper ? p->upper[i] : INFINITY;
        if (li == ui)
            continue;
        ++neq;
        ns += (size_t)(isfinite(li) != 0) + (size_t)(isfinite(ui) != 0);
    }
    *N = n + ns;
    *m = neq + ns;
}

static cdyn_status run(const cdyn_mcp *p, const cdyn_box_merit_options *o, size_t N, size_t m,
                       double *x, cdyn_report *r)
{
    const int n = p->n;
    const size_t nn = (size_t)n;
    const int sparse = p->colptr != NULL;
    const int fd = o->jacobian_fd != 0;
    const size_t nvals = sparse ? (size_t)p->colptr[n] : 0;
    const size_t M = (size_t)o->nonmonotone_memory;
    /* l, u, F, Ft, da, db (+ fd xp, Fp); lo, up, y, yt, g, gprev, s, d, v, rhs; R, Rt, r1;
       JR; G, C; Jd; sparse values; history. No overflow: N <= 3n and m N, N^2 <= INT_MAX were
       checked by the caller. */
    const size_t ndbl =
        (6 + (fd ? 2 : 0)) * nn + 10 * N + 3 * m + m * N + 2 * N * N + nn * nn + nvals + M;
    const size_t nint =
        N + (o->merit == CDYN_BOX_MERIT_SLACK ? 2 * nn : 0) + ((sparse && fd) ? 2 * nn : 0);
    const size_t nint_as_dbl = (nint * sizeof(int) + sizeof(double) - 1) / sizeof(double);
    double *block = cdyn_mem_array(o->allocator, ndbl + nint_as_dbl, sizeof(double));
    if (block == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace (%zu doubles)",
                         ndbl + nint_as_dbl);

    bm_work w;
    memset(&w, 0, sizeof w);
    carve c = {block, (int *)(void *)(block + ndbl)};
    w.p = p;
    w.o = o;
    w.n = n;
    w.N = (int)N;
    w.m = (int)m;
    w.l = take_d(&c, nn);
    w.u = take_d(&c, nn);
    w.F = take_d(&c, nn);
    w.Ft = take_d(&c, nn);
    w.da = take_d(&c, nn);
    w.db = take_d(&c, nn);
    w.lo = take_d(&c, N);
    w.up = take_d(&c, N);
    w.y = take_d(&c, N);
    w.yt = take_d(&c, N);
    w.g = take_d(&c, N);
    w.gprev = take_d(&c, N);
    w.s = take_d(&c, N);
    w.d = take_d(&c, N);
    w.v = take_d(&c, N);
    w.rhs = take_d(&c, N);
    w.R = take_d(&c, m);
    w.Rt = take_d(&c, m);
    w.r1 = take_d(&c, m);
    w.JR = take_d(&c, m * N);
    w.G = take_d(&c, N * N);
    w.C = take_d(&c, N * N);
    w.Jd = take_d(&c, nn * nn);
    w.hist = take_d(&c, M);
    w.freeidx = take_i(&c, N);
    w.J.n = n;
    w.J.sparse = sparse;
    w.J.colptr = p->colptr;
    w.J.rowind = p->rowind;
    w.J.nvals = sparse ? nvals : nn * nn;
    w.J.values = sparse ? take_d(&c, nvals) : w.Jd;
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
    int *wi = NULL, *zi = NULL;
    if (o->merit == CDYN_BOX_MERIT_SLACK) {
        wi = take_i(&c, nn);
        zi = take_i(&c, nn);
    }
    if (sparse) {
        /* Duplicates would be ambiguous in the dense expansion (cdyn_mcp_solve rejects them
           too); freeidx serves as the mark array. */
        for (int i = 0; i < n; ++i)
            w.freeidx[i] = -1;
        for (int j = 0; j < n; ++j)
            for (int k = p->colptr[j]; k < p->colptr[j + 1]; ++k) {
                if (w.freeidx[p->rowind[k]] == j) {
                    cdyn_mem_free(o->allocator, block);
                    return cdyn_fail(r, CDYN_EINVAL,
                                     "sparse pattern: duplicate entries in column %d", j);
                }
                w.freeidx[p->rowind[k]] = j;
            }
    }
    cdyn_mcp_fill_bounds(p, w.l, w.u);
    cdyn_bm_layout_init(&w.lay, n, w.l, w.u, (int)o->merit, wi, zi);
    cdyn_bm_box(&w.lay, w.lo, w.up);
    for (int i = 0; i < n; ++i)
        w.y[i] = fmin(w.u[i], fmax(w.l[i], x[i]));

    const cdyn_status st = cdyn_bm_iterate(&w, r);
    if (st == CDYN_OK)
        memcpy(x, w.y, nn * sizeof(double));
    cdyn_mem_free(o->allocator, block);
    return st;
}

cdyn_status cdyn_box_merit_solve(const cdyn_mcp *p, const cdyn_box_merit_options *opts, double *x,
                                 cdyn_report *r)
{
    cdyn_report_clear(r, "box-merit-fb");
    cdyn_box_merit_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_box_merit_defaults(&o);
    if (o.merit == CDYN_BOX_MERIT_SLACK)
        cdyn_report_method(r, "box-merit-slack");
    cdyn_status st = cdyn_mcp_check_problem(p, r);
    if (st != CDYN_OK)
        return st;
    if ((st = check_options(&o, r)) != CDYN_OK)
        return st;
    if (x == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "x (the starting point) is NULL");
    if (!cdyn_dense_all_finite(p->n, x))
        return cdyn_fail(r, CDYN_EINVAL, "the starting point contains NaN or Inf");
    if (!o.jacobian_fd && (p->colptr ? p->jac_sparse == NULL : p->jac == NULL))
        return cdyn_fail(r, CDYN_EINVAL,
                         "no Jacobian: set jac (dense), jac_sparse with a pattern, or "
                         "options.jacobian_fd");
    size_t N, m;
    count_layout(p, (int)o.merit, &N, &m);
    /* m <= N and n <= N, so N^2 <= INT_MAX bounds every dense array and BLAS dimension. */
    if (N > BM_MAX_DENSE)
        return cdyn_fail(r, CDYN_ETOOBIG,
                         "dense method limited to N^2 <= INT_MAX (N = %zu optimization "
                         "variables); use cdyn_mcp_solve with a sparse pattern",
                         N);
    return run(p, &o, N, m, x, r);
}
