/* The Buffo–Maciel formulation: the circular friction cone at rolling contacts as a mixed
 * nonlinear complementarity problem in x = (lam_n, lam_T, beta), solved by box-constrained merit
 * minimization or FB-Newton. docs/theory.md (instantaneous contact problem), Sec. 5:
 *
 *   lam_n,c >= 0   _|_  a_n,c                                          >= 0
 *   lam_d,c free:       mu_c lam_n,c a_d,c + (beta_c + a_n,c) lam_d,c   = 0   (d = t, o)
 *   beta_c >= 0    _|_  mu_c lam_n,c - |lam_T,c| + beta_c a_n,c         >= 0
 *
 * for rolling contacts with mu > 0 (the others have only lam_n; sliding ones carry
 * lam_T = mu~ lam_n), with a = D C x + g0. The a_n terms vanish at every solution with
 * lam_n > 0 (there a_n = 0); at a breaking contact they force lam_T = 0 and beta = 0, which
 * keeps the solution isolated (beta would be arbitrary without them). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "step/instant_problem.h"

typedef struct cone_ctx {
    const inst_problem *p;
    inst_cone_work *wk;
    int n;
} cone_ctx;

static int beta_index(const inst_problem *p, int rf)
{
    return p->nc + p->nrf * p->ntan + rf;
}

static int tan_index(const inst_problem *p, int rf, int d)
{
    return p->nc + rf * p->ntan + d - 1;
}

/* a = g0 + DC x. */
static void accelerations(const cone_ctx *cx, const double *x)
{
    const inst_problem *p = cx->p;
    memcpy(cx->wk->a, p->g0, (size_t)p->mall * sizeof(double));
    cdyn_dense_gemv(p->mall, cx->n, 1.0, cx->wk->DC, p->mall, x, 1.0, cx->wk->a);
}

static double norm_t(const inst_problem *p, int r, const double *x)
{
    double s = 0.0;
    for (int d = 1; d < p->nd; ++d)
        s += x[tan_index(p, r, d)] * x[tan_index(p, r, d)];
    return sqrt(s);
}

static int cone_F(void *ctx, const double *x, double *F)
{
    const cone_ctx *cx = ctx;
    const inst_problem *p = cx->p;
    const double *a = cx->wk->a;
    const int nd = p->nd;
    accelerations(cx, x);
    for (int c = 0; c < p->nc; ++c) {
        const double an = a[c * nd];
        F[c] = an;
        const int r = p->rf[c];
        if (r < 0)
            continue;
        const int jb = beta_index(p, r);
        const double mu = p->mu[c];
        for (int d = 1; d < nd; ++d) {
            const int jt = tan_index(p, r, d);
            F[jt] = mu * x[c] * a[c * nd + d] + (x[jb] + an) * x[jt];
        }
        F[jb] = mu * x[c] - norm_t(p, r, x) + x[jb] * an;
    }
    return 0;
}

/* dF/dx; at lam_T = 0 the element 0 of the subdifferential of |lam_T| is used. */
static int cone_J(void *ctx, const double *x, double *J)
{
    const cone_ctx *cx = ctx;
    const inst_problem *p = cx->p;
    const double *a = cx->wk->a, *DC = cx->wk->DC;
    const int nd = p->nd, n = cx->n, mall = p->mall;
    accelerations(cx, x);
    memset(J, 0, (size_t)n * (size_t)n * sizeof(double));
    for (int c = 0; c < p->nc; ++c) {
        const double *dn = DC + c * nd; /* row c*nd of DC, stride mall */
        for (int j = 0; j < n; ++j)
            J[c + (size_t)j * (size_t)n] = dn[(size_t)j * (size_t)mall];
        const int r = p->rf[c];
        if (r < 0)
            continue;
        const int jb = beta_index(p, r);
        const double mu = p->mu[c], an = a[c * nd], nt = norm_t(p, r, x);
        for (int d = 1; d < nd; ++d) {
            const int jt = tan_index(p, r, d);
            const double *dt = DC + c * nd + d;
            for (int j = 0; j < n; ++j)
                J[jt + (size_t)j * (size_t)n] =
                    mu * x[c] * dt[(size_t)j * (size_t)mall] + x[jt] * dn[(size_t)j * (size_t)mall];
            J[jt + (size_t)c * (size_t)n] += mu * a[c * nd + d];
            J[jt + (size_t)jt * (size_t)n] += x[jb] + an;
            J[jt + (size_t)jb * (size_t)n] += x[jt];
            J[jb + (size_t)jt * (size_t)n] = nt > 0.0 ? -x[jt] / nt : 0.0;
        }
        for (int j = 0; j < n; ++j)
            J[jb + (size_t)j * (size_t)n] += x[jb] * dn[(size_t)j * (size_t)mall];
        J[jb + (size_t)c * (size_t)n] += mu;
        J[jb + (size_t)jb * (size_t)n] += an;
    }
    return 0;
}

/* x -> lam_f: lam_n (with mu~ lam_n at sliding contacts) and lam_T; beta has no column. */
static void build_map(const inst_problem *p, inst_map *C, int n)
{
    const int nd = p->nd, nt = p->ntan;
    C->n = n;
    for (int j = 0; j < n; ++j)
        C->cnt[j] = 0;
    for (int c = 0; c < p->nc; ++c) {
        int e = 0;
        C->idx[c * nd] = c * nd;
        C->val[c * nd] = 1.0;
        ++e;
        if (p->rf[c] < 0)
            for (int d = 1; d <= nt; ++d)
                if (p->mut[c * nt + d - 1] != 0.0) {
                    C->idx[c * nd + e] = c * nd + d;
                    C->val[c * nd + e] = p->mut[c * nt + d - 1];
                    ++e;
                }
        C->cnt[c] = e;
        if (p->rf[c] < 0)
            continue;
        for (int d = 1; d <= nt; ++d) {
            const int j = tan_index(p, p->rf[c], d);
            C->cnt[j] = 1;
            C->idx[j * nd] = c * nd + d;
            C->val[j * nd] = 1.0;
        }
    }
}

/* The linear starts: every touching contact keeps a_n = 0 and, with `tangential`, every rolling
 * one with friction a_T = 0 (a square linear system in lam_n, and lam_T); lam_n clipped at 0,
 * the other unknowns 0. All zeros when the system is singular or ill-conditioned. */
static void linear_start(const inst_problem *p, inst_cone_work *wk, int n, int tangential)
{
    const int n0 = tangential ? p->nc + p->nrf * p->ntan : p->nc, mall = p->mall, nd = p->nd;
    memset(wk->x, 0, (size_t)n * sizeof(double));
    int k = 0;
    for (int c = 0; c < p->nc; ++c)
        for (int d = 0; d < nd; ++d) {
            if (d > 0 && (p->rf[c] < 0 || !tangential))
                continue;
            for (int j = 0; j < n0; ++j)
                wk->S[k + (size_t)j * (size_t)n0] = wk->DC[c * nd + d + (size_t)j * (size_t)mall];
            wk->srhs[k] = -p->g0[c * nd + d];
            ++k;
        }
    const double anorm = cdyn_dense_norm1(n0, n0, wk->S, n0);
    if (cdyn_dense_lu(n0, wk->S, n0, wk->ipiv) != CDYN_OK)
        return;
    if (!(cdyn_dense_lu_rcond(n0, wk->S, n0, anorm, wk->rwork, wk->ipiv + n0) > 1e-12))
        return;
    cdyn_dense_lu_solve(0, n0, wk->S, n0, wk->ipiv, 1, wk->srhs, n0);
    /* the unknowns are in the order of x: normals first, then the tangential forces */
    for (int j = 0; j < n0; ++j)
        wk->x[j] = wk->srhs[j];
    for (int c = 0; c < p->nc; ++c)
        wk->x[c] = fmax(wk->x[c], 0.0);
}

static void start_point(const inst_problem *p, inst_cone_work *wk, int n, cdyn_instant_start s)
{
    if (s == CDYN_INSTANT_START_ZERO)
        memset(wk->x, 0, (size_t)n * sizeof(double));
    else
        linear_start(p, wk, n, s == CDYN_INSTANT_START_ROLLING);
}

cdyn_status cdyn_inst_cone(const inst_problem *p, const cdyn_instant_options *o, inst_cone_work *wk,
                           double *lamf, cdyn_instant_result *res, double *residual, cdyn_report *r)
{
    const int n = cdyn_inst_cone_size(p), mall = p->mall;
    build_map(p, &wk->C, n);
    for (int j = 0; j < n; ++j) { /* DC = D C */
        double *col = wk->DC + (size_t)j * (size_t)mall;
        memset(col, 0, (size_t)mall * sizeof(double));
        for (int e = 0; e < wk->C.cnt[j]; ++e)
            for (int i = 0; i < mall; ++i)
                col[i] += p->D[i + (size_t)wk->C.idx[j * p->nd + e] * (size_t)mall] *
                          wk->C.val[j * p->nd + e];
    }
    for (int j = 0; j < n; ++j) {
        const int free_var = j >= p->nc && j < p->nc + p->nrf * p->ntan;
        wk->lo[j] = free_var ? -INFINITY : 0.0;
        wk->up[j] = INFINITY;
    }
    cone_ctx cx = {p, wk, n};
    cdyn_mcp mcp;
    memset(&mcp, 0, sizeof mcp);
    mcp.n = n;
    mcp.lower = wk->lo;
    mcp.upper = wk->up;
    mcp.F = cone_F;
    mcp.jac = cone_J;
    mcp.ctx = &cx;
    /* The chosen start; with ncp_retry the others (rolling, normal, zero) after a failure. */
    static const cdyn_instant_start order[3] = {CDYN_INSTANT_START_ROLLING,
                                                CDYN_INSTANT_START_NORMAL, CDYN_INSTANT_START_ZERO};
    cdyn_status st = CDYN_OK;
    cdyn_report sr;
    int iterations = 0;
    for (int attempt = 0; attempt < (o->ncp_retry ? 3 : 1); ++attempt) {
        cdyn_instant_start s = o->ncp_start;
        if (attempt > 0) { /* the (attempt)-th start of `order` other than ncp_start */
            int k = 0;
            for (int i = 0; i < 3; ++i)
                if (order[i] != o->ncp_start && ++k == attempt)
                    s = order[i];
        }
        start_point(p, wk, n, s);
        if (o->ncp_solver == CDYN_INSTANT_BOX_MERIT) {
            cdyn_box_merit_options bo = o->box_merit;
            if (bo.allocator == NULL)
                bo.allocator = o->allocator;
            st = cdyn_box_merit_solve(&mcp, &bo, wk->x, &sr);
        } else {
            cdyn_mcp_options fo = o->fb_newton;
            if (fo.allocator == NULL)
                fo.allocator = o->allocator;
            st = cdyn_mcp_solve(&mcp, &fo, wk->x, &sr);
        }
        iterations += sr.iterations;
        if (st == CDYN_OK || st == CDYN_ENOMEM || st == CDYN_EINVAL)
            break;
    }
    if (r)
        r->iterations = iterations;
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "%s: %s", sr.method, sr.message);
    cdyn_inst_map_apply(p, &wk->C, wk->x, lamf);
    *residual = sr.residual;
    res->size = n;
    res->combinations = res->feasible = res->distinct = 1;
    res->pmatrix = -1;
    res->determinate = -1;
    return CDYN_OK;
}
