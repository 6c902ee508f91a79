/* The implicit scheme's MCP solver (implicit_ncp_ws.h): the callbacks that evaluate the step's
 * residual and Newton matrix for FB-Newton, the matrix's sparse pattern (listed from the form's
 * calls, which do not depend on values) and its fill-reducing order, shared by every active set. */
#include "step/implicit_ncp_ws.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"
#include "solvers/mcp/mcp_internal.h"

#include <colamd.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

double ncp_now(void)
{
    struct timespec t;
    if (timespec_get(&t, TIME_UTC) != TIME_UTC)
        return 0.0;
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* F, and the best point evaluated so far (by the natural residual of the problem being solved,
 * pins included): a failed solve leaves its iterate unchanged, but the retry of ncp_advance starts
 * from this point. */
static int cb_F(void *ctx, const double *y, double *F)
{
    ncp_ws *w = ctx;
    const double t0 = ncp_now();
    const int fail = ncp_form_F(&w->f, w->x0, y, F) != 0;
    w->prof->time_residual += ncp_now() - t0;
    w->prof->residuals++;
    if (fail)
        return 1;
    const double res = cdyn_mcp_residual(&w->mcp, y, F);
    if (res < w->best_res) {
        const size_t n = (size_t)w->f.ny;
        w->best_res = res;
        memcpy(w->ybest, y, n * sizeof(double));
        memcpy(w->Fbest, F, n * sizeof(double));
    }
    return 0;
}

static int cb_J(void *ctx, const double *y, double *J)
{
    ncp_ws *w = ctx;
    const double t0 = ncp_now();
    const int ny = w->f.ny;
    ncp_sink sink = {NCP_SINK_DENSE, J, ny, NULL, NULL, NULL, 0, NULL, NULL, 0};
    memset(J, 0, (size_t)ny * ny * sizeof(double));
    const int rc = w->fd ? ncp_form_jac_fd(&w->f, w->x0, y, &sink, w->fdwork)
                         : ncp_form_jac(&w->f, w->x0, y, &sink, NULL);
    w->prof->time_jacobian += ncp_now() - t0;
    w->prof->jacobians++;
    return rc;
}

static int cb_J_sparse(void *ctx, const double *y, double *values)
{
    ncp_ws *w = ctx;
    ncp_sink sink = {NCP_SINK_CSC, NULL, 0, values, w->colptr, w->rowind, 0, NULL, NULL, 0};
    const double t0 = ncp_now();
    memset(values, 0, (size_t)w->colptr[w->f.ny] * sizeof(double));
    int rc;
    if (w->fd) {
        rc = ncp_form_jac_fd(&w->f, w->x0, y, &sink, w->fdwork);
    } else {
        /* the entries in the order they come, then added at the positions found once with the
         * pattern: no search per entry */
        ncp_sink seq = {NCP_SINK_SEQ, NULL, 0, w->seqval, NULL, NULL, 0, NULL, NULL, 0};
        rc = ncp_form_jac(&w->f, w->x0, y, &seq, NULL) != 0 || seq.n != w->nseq;
        for (size_t t = 0; t < w->nseq && rc == 0; t++)
            values[w->seqpos[t]] += w->seqval[t];
    }
    w->prof->time_jacobian += ncp_now() - t0;
    w->prof->jacobians++;
    return rc;
}

/* The pattern of the step's Jacobian for the rows of f, as CSC in w->colptr / w->rowind (and
 * w->seqpos, w->seqval, w->nseq), from a: the positions ncp_form_jac writes (listed at y),
 * sorted and merged. 0, or 1 (memory, model). */
static int ncp_pattern(cdyn_stepper *s, ncp_ws *w, ncp_form *f, const double *x0,
                       const double *y, const cdyn_allocator *a)
{
    const int n = f->ny;
    ncp_sink list = {NCP_SINK_LIST, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, 0};
    if (ncp_form_jac(f, x0, y, &list, NULL) != 0)
        return 1;
    list.ti = cdyn_mem_array(&s->arena.as, list.n + 1, sizeof(int));
    list.tj = cdyn_mem_array(&s->arena.as, list.n + 1, sizeof(int));
    int *next = cdyn_mem_array(&s->arena.as, (size_t)n + 1, sizeof(int));
    int *mark = cdyn_mem_array(&s->arena.as, (size_t)n + 1, sizeof(int));
    w->colptr = cdyn_mem_array(a, (size_t)n + 1, sizeof(int));
    w->rowind = cdyn_mem_array(a, list.n + 1, sizeof(int));
    w->seqpos = cdyn_mem_array(a, list.n + 1, sizeof(int));
    w->seqval = cdyn_mem_array(a, list.n + 1, sizeof(double));
    w->nseq = list.n;
    if (list.ti == NULL || list.tj == NULL || next == NULL || mark == NULL || w->colptr == NULL ||
        w->rowind == NULL || w->seqpos == NULL || w->seqval == NULL)
        return 1;
    list.n = 0;
    if (ncp_form_jac(f, x0, y, &list, NULL) != 0)
        return 1;
    /* bucket by column, then by row within each column (a counting pass over rows keeps the
     * columns sorted), dropping repeats */
    memset(next, 0, ((size_t)n + 1) * sizeof(int));
    for (size_t t = 0; t < list.n; t++)
        next[list.ti[t] + 1]++;
    for (int i = 0; i < n; i++)
        next[i + 1] += next[i];
    int *byrow = cdyn_mem_array(&s->arena.as, list.n + 1, sizeof(int));
    if (byrow == NULL)
        return 1;
    for (size_t t = 0; t < list.n; t++)
        byrow[next[list.ti[t]]++] = (int)t;
    memset(w->colptr, 0, ((size_t)n + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        mark[i] = -1;
    /* rows in increasing order: count distinct (row, column) per column */
    for (size_t u = 0; u < list.n; u++) {
        const int t = byrow[u], i = list.ti[t], j = list.tj[t];
        if (mark[j] != i) {
            mark[j] = i;
            w->colptr[j + 1]++;
        }
    }
    for (int j = 0; j < n; j++)
        w->colptr[j + 1] += w->colptr[j];
    memcpy(next, w->colptr, (size_t)n * sizeof(int));
    for (int j = 0; j < n; j++)
        mark[j] = -1;
    for (size_t u = 0; u < list.n; u++) {
        const int t = byrow[u], i = list.ti[t], j = list.tj[t];
        if (mark[j] != i) {
            mark[j] = i;
            w->rowind[next[j]++] = i;
        }
    }
    for (size_t t = 0; t < list.n; t++)
        w->seqpos[t] = cdyn_csc_find(w->colptr, w->rowind, list.ti[t], list.tj[t]);
    return 0;
}

/* The full layout's order (w->rank) for step size h: the Jacobian's pattern with every model
 * row taking part (each with its friction law at this h), listed at x0 with zero deformations
 * and forces (positions do not depend on values), ordered by COLAMD.
 * Arrays from the step's arena; the pattern is left in w->colptr / w->rowind (replaced by the
 * current rows' pattern next). 0, or 1 (memory, model, COLAMD). */
static int ncp_full_order(cdyn_stepper *s, ncp_ws *w, const cdyn_state *x0, double h)
{
    const int nc = s->nc, nd = w->nd, n = w->nyf;
    const cdyn_allocator *as = &s->arena.as;
    int *rows = cdyn_mem_array(as, (size_t)nc + 1, sizeof(int));
    int *qp = cdyn_mem_array(as, (size_t)nc + 1, sizeof(int));
    int *perm = cdyn_mem_array(as, (size_t)n + 1, sizeof(int));
    double *mu = cdyn_mem_array(as, (size_t)nc + 1, sizeof(double));
    double *A = cdyn_mem_array(as, (size_t)nc * nd * nd + 1, sizeof(double));
    double *Ch = cdyn_mem_array(as, (size_t)nc * nd * nd + 1, sizeof(double));
    double *xf = cdyn_mem_array(as, (size_t)n, sizeof(double));
    double *lo = cdyn_mem_array(as, (size_t)n, sizeof(double));
    double *up = cdyn_mem_array(as, (size_t)n, sizeof(double));
    if (rows == NULL || qp == NULL || perm == NULL || mu == NULL || A == NULL || Ch == NULL ||
        xf == NULL || lo == NULL || up == NULL)
        return 1;
    for (int i = 0; i < nc; i++)
        rows[i] = i;
    ncp_form f = w->f; /* tau, scale_normal and the scratch (sized for every row) */
    f.lower = lo;
    f.upper = up;
    ncp_form_setup(&f, s->model, s->data, nc, rows, mu, A, Ch, h, s->opts.gamma);
    ncp_limits_attach(&f, &w->lim);
    f.friction_qp = s->opts.friction_qp != 0;
    if (f.friction_qp)
        ncp_form_qp_rows(&f, qp);
    f.qp_rows = qp;
    f.pairs = NULL;
    f.der_keep = NULL; /* every pair's couplings */
    memset(xf, 0, (size_t)n * sizeof(double));
    memcpy(xf, x0->q, (size_t)s->nq * sizeof(double));
    memcpy(xf + s->nq, x0->v, (size_t)s->nv * sizeof(double));
    /* x0 is xf's first nx entries: q, v and zero deformations */
    if (ncp_pattern(s, w, &f, xf, xf, as) != 0)
        return 1;
    /* COLAMD (as KLU's own analysis used per active set; AMD orders led the 30-sphere scene
       of test_step_fd into a failed step: pivots on its nearly singular systems) */
    const int nnz = w->colptr[n];
    const size_t alen = colamd_recommended(nnz, n, n);
    int *ai = alen > 0 && alen < (size_t)INT32_MAX ? cdyn_mem_array(as, alen, sizeof(int)) : NULL;
    if (ai == NULL)
        return 1;
    memcpy(ai, w->rowind, (size_t)nnz * sizeof(int));
    memcpy(perm, w->colptr, ((size_t)n + 1) * sizeof(int));
    double knobs[COLAMD_KNOBS];
    int stats[COLAMD_STATS];
    colamd_set_defaults(knobs);
    if (!colamd(n, n, (int)alen, ai, perm, knobs, stats))
        return 1;
    for (int i = 0; i < n; i++)
        w->rank[perm[i]] = i;
    return 0;
}

/* The current rows' order: their unknowns sorted by their rank in the full layout's order. */
static void ncp_restrict_order(const cdyn_stepper *s, ncp_ws *w)
{
    const int nd = w->nd, k = w->f.k, nc = s->nc, nqv = s->nq + s->nv;
    const int od = nqv, ol = w->f.nx, ob = ol + k * nd, olf = nqv + nc * nd, obf = olf + nc * nd;
    /* w->order holds, at each rank of the full order, the current unknown there (or -1), and
     * is then compacted */
    for (int i = 0; i < w->nyf; i++)
        w->order[i] = -1;
    for (int i = 0; i < w->f.ny; i++) {
        int full;
        if (i < od)
            full = i;
        else if (i < ol)
            full = od + w->rows[(i - od) / nd] * nd + (i - od) % nd;
        else if (i < ob)
            full = olf + w->rows[(i - ol) / nd] * nd + (i - ol) % nd;
        else if (i < ob + k)
            full = obf + w->rows[i - ob];
        else
            full = obf + nc + (i - ob - k); /* the joint-limit rows (implicit_limits.h) */
        w->order[w->rank[full]] = i;
    }
    int m = 0;
    for (int r = 0; r < w->nyf; r++)
        if (w->order[r] >= 0)
            w->order[m++] = w->order[r];
}

/* The kept solver for the current problem, or -1. Dense: one of its size (the dense path keeps
 * nothing of a problem's values between runs). Sparse: one of its rows and laws (its pattern),
 * made with the order a new one would take, that of step size f.h; the one in use is taken as it
 * is, whatever h (continuation changes h, not the pattern). */
static int ncp_find(const ncp_ws *w, int sparse)
{
    for (int e = 0; e < w->nkept; e++) {
        const ncp_kept *c = &w->kept[e];
        if (c->solver == NULL || c->ny != w->f.ny)
            continue;
        if (!sparse)
            return e;
        if (c->k == w->f.k && memcmp(c->key, w->key, (size_t)c->k * sizeof(int)) == 0 &&
            (e == w->cur || c->order_h == w->f.h))
            return e;
    }
    return -1;
}

/* The entry to build a new solver in: one of the same rows and laws made with another order (it
 * would not be found again), an empty one, else the least recently used. */
static int ncp_victim(const ncp_ws *w)
{
    int v = 0;
    for (int e = 0; e < w->nkept; e++) {
        const ncp_kept *c = &w->kept[e];
        if (c->solver == NULL ||
            (c->k == w->f.k && memcmp(c->key, w->key, (size_t)c->k * sizeof(int)) == 0))
            return e;
        if (w->kept[e].used < w->kept[v].used)
            v = e;
    }
    return v;
}

/* Make entry e the one in use: w->solver and the pattern, and the problem's. */
static void ncp_use(ncp_ws *w, int e, int sparse)
{
    const ncp_kept *c = &w->kept[e];
    w->cur = e;
    w->solver = c->solver;
    w->colptr = c->colptr;
    w->rowind = c->rowind;
    w->seqpos = c->seqpos;
    w->seqval = c->seqval;
    w->nseq = c->nseq;
    w->mcp.colptr = sparse ? c->colptr : NULL;
    w->mcp.rowind = sparse ? c->rowind : NULL;
}

/* A new solver for the current rows and laws in entry e (its old one freed and its arena reset);
 * on the sparse backend with the restriction of the full layout's order, found once per step
 * size. */
static cdyn_status ncp_build(cdyn_stepper *s, ncp_ws *w, int e, const cdyn_state *x0,
                             cdyn_report *r)
{
    const int sparse = s->opts.backend == CDYN_BACKEND_FB_SPARSE;
    ncp_kept *c = &w->kept[e];
    cdyn_mcp_solver_free(c->solver);
    c->solver = NULL;
    c->colptr = c->rowind = c->seqpos = NULL;
    c->seqval = NULL;
    c->nseq = 0;
    if (w->cur == e) {
        w->cur = -1;
        w->solver = NULL;
    }
    /* The arena grows to the largest solver built in this entry and then stops allocating: a
     * step allocates nothing of cdyn's after warm-up even while the active set changes among
     * more sets than are kept (KLU's own memory is SuiteSparse's). */
    if (cdyn_arena_reset(&c->arena) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory (solver arena)");
    if (sparse && w->full_h != w->f.h) {
        if (ncp_full_order(s, w, x0, w->f.h) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory (ordering)");
        w->full_h = w->f.h;
        w->prof->orderings++;
    }
    if (sparse) {
        if (ncp_pattern(s, w, &w->f, w->x0, w->y, &c->arena.as) != 0)
            return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory (pattern)");
        c->colptr = w->colptr;
        c->rowind = w->rowind;
        c->seqpos = w->seqpos;
        c->seqval = w->seqval;
        c->nseq = w->nseq;
        ncp_restrict_order(s, w);
        w->prof->analyses++;
    }
    w->mcp.colptr = sparse ? c->colptr : NULL;
    w->mcp.rowind = sparse ? c->rowind : NULL;
    /* The solver outlives the step: its memory comes from the entry's arena, not the step's. */
    cdyn_mcp_options o = s->opts.mcp;
    o.allocator = &c->arena.as;
    const cdyn_status st = cdyn_mcp_solver_create_ordered(&w->mcp, &o, sparse ? w->order : NULL,
                                                          &c->solver, r);
    if (st != CDYN_OK)
        return st;
    c->k = w->f.k;
    c->ny = w->f.ny;
    memcpy(c->key, w->key, (size_t)w->f.k * sizeof(int));
    c->order_h = w->full_h;
    return CDYN_OK;
}

/* A solver for the current rows and laws: a kept one (made for the same problem structure: the
 * same pattern and order, so the same answers as a new one), else a new one. */
cdyn_status ncp_solver(cdyn_stepper *s, ncp_ws *w, const cdyn_state *x0, cdyn_report *r)
{
    const int sparse = s->opts.backend == CDYN_BACKEND_FB_SPARSE;
    w->mcp.n = w->f.ny;
    w->mcp.lower = w->f.lower;
    w->mcp.upper = w->f.upper;
    w->mcp.F = cb_F;
    w->mcp.jac = sparse ? NULL : cb_J;
    w->mcp.jac_sparse = sparse ? cb_J_sparse : NULL;
    w->mcp.ctx = w;
    w->clock++;
    int e = ncp_find(w, sparse);
    if (e >= 0 && e != w->cur)
        cdyn_mcp_solver_forget(w->kept[e].solver); /* KLU's pivots chosen afresh, as by a new
                                                      solver: the answers do not depend on
                                                      what the entry solved before */
    if (e < 0) {
        e = ncp_victim(w);
        const cdyn_status st = ncp_build(s, w, e, x0, r);
        if (st != CDYN_OK)
            return st;
    }
    w->kept[e].used = w->clock;
    ncp_use(w, e, sparse);
    return CDYN_OK;
}
