/* cdyn_box_merit_solve: option defaults and checks, the one-time workspace (a single block
 * through the caller's allocator), the iteration, and the copy-back on success. */
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/boxmerit/box_merit_internal.h"

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

/* Integer scratch of one call besides freeidx: the sparse fd coloring, and the slack
 * layout's index maps. */
typedef struct bm_ints {
    int *color, *mark, *wi, *zi;
} bm_ints;

/* Point the arrays of w into block, or with block NULL only measure the layout into cv.
 * Expects n, N, m, o and J (but its values) set. No overflow: N <= 3n and m N, N^2 <= INT_MAX
 * were checked by the caller. */
static void carve_work(bm_work *w, cdyn_carve *cv, void *block, bm_ints *s)
{
    const size_t nn = (size_t)w->n, N = (size_t)w->N, m = (size_t)w->m;
    w->l = cdyn_carve_doubles(cv, block, nn);
    w->u = cdyn_carve_doubles(cv, block, nn);
    w->F = cdyn_carve_doubles(cv, block, nn);
    w->Ft = cdyn_carve_doubles(cv, block, nn);
    w->da = cdyn_carve_doubles(cv, block, nn);
    w->db = cdyn_carve_doubles(cv, block, nn);
    w->lo = cdyn_carve_doubles(cv, block, N);
    w->up = cdyn_carve_doubles(cv, block, N);
    w->y = cdyn_carve_doubles(cv, block, N);
    w->yt = cdyn_carve_doubles(cv, block, N);
    w->g = cdyn_carve_doubles(cv, block, N);
    w->gprev = cdyn_carve_doubles(cv, block, N);
    w->s = cdyn_carve_doubles(cv, block, N);
    w->d = cdyn_carve_doubles(cv, block, N);
    w->v = cdyn_carve_doubles(cv, block, N);
    w->rhs = cdyn_carve_doubles(cv, block, N);
    w->R = cdyn_carve_doubles(cv, block, m);
    w->Rt = cdyn_carve_doubles(cv, block, m);
    w->r1 = cdyn_carve_doubles(cv, block, m);
    w->JR = cdyn_carve_doubles(cv, block, m * N);
    w->G = cdyn_carve_doubles(cv, block, N * N);
    w->C = cdyn_carve_doubles(cv, block, N * N);
    w->Jd = cdyn_carve_doubles(cv, block, nn * nn);
    w->hist = cdyn_carve_doubles(cv, block, (size_t)w->o->nonmonotone_memory);
    w->freeidx = cdyn_carve_ints(cv, block, N);
    w->J.values = w->J.sparse ? cdyn_carve_doubles(cv, block, w->J.nvals) : w->Jd;
    if (w->o->jacobian_fd) {
        w->fd.xp = cdyn_carve_doubles(cv, block, nn);
        w->fd.Fp = cdyn_carve_doubles(cv, block, nn);
        if (w->J.sparse) {
            s->color = cdyn_carve_ints(cv, block, nn);
            s->mark = cdyn_carve_ints(cv, block, nn);
        }
    }
    if (w->o->merit == CDYN_BOX_MERIT_SLACK) {
        s->wi = cdyn_carve_ints(cv, block, nn);
        s->zi = cdyn_carve_ints(cv, block, nn);
    }
}

static cdyn_status run(const cdyn_mcp *p, const cdyn_box_merit_options *o, size_t N, size_t m,
                       double *x, cdyn_report *r)
{
    const int n = p->n;
    const size_t nn = (size_t)n;
    const int sparse = p->colptr != NULL;
    bm_work w;
    memset(&w, 0, sizeof w);
    w.p = p;
    w.o = o;
    w.n = n;
    w.N = (int)N;
    w.m = (int)m;
    cdyn_mcp_jac_init(p, &w.J);

    bm_ints s = {NULL, NULL, NULL, NULL};
    cdyn_carve cv = {0, 0};
    carve_work(&w, &cv, NULL, &s);
    void *block = cv.overflow ? NULL : cdyn_mem_alloc(o->allocator, cv.off);
    if (block == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace (%zu bytes)", cv.off);
    cv = (cdyn_carve){0, 0};
    carve_work(&w, &cv, block, &s);
    if (o->jacobian_fd)
        cdyn_mcp_fd_setup(p, o->fd_step, s.color, s.mark, &w.fd);
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
    cdyn_bm_layout_init(&w.lay, n, w.l, w.u, (int)o->merit, s.wi, s.zi);
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
    if ((st = cdyn_mcp_check_start(p, x, !o.jacobian_fd, r)) != CDYN_OK)
        return st;
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
