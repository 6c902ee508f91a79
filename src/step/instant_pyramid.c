/* The Yashima–Yamaguchi formulation: for each sign combination of the rolling contacts'
 * tangential forces, the LCP (their eqs. 22, 26-28) in z = (lam_n, Delta), solved by Lemke;
 * a combination is feasible when its solution has Delta <= mu lam_n (eq. 23). The P-matrix test
 * of the chosen combination's matrix decides uniqueness (Sec. III.C). docs/theory.md
 * (instantaneous contact problem), Sec. 4. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "step/instant_problem.h"

/* Sign of the friction force of sign bit j in combination s: bit clear -> +1 (the +mu lam_n
 * side), set -> -1. */
static double sign_of(unsigned long s, int j)
{
    return ((s >> j) & 1ul) ? -1.0 : 1.0;
}

/* The maps of combination s: z -> lam_f (columns of the paper's W_mu) and the LCP rows
 * (w_i = rowsgn_i a_{rowk_i}: a_n for normals, -sigma a_d for the Delta rows). */
static void build_maps(const inst_problem *p, unsigned long s, inst_pyr_work *wk)
{
    const int nd = p->nd, nt = p->ntan, nc = p->nc;
    inst_map *C = &wk->C;
    for (int c = 0; c < nc; ++c) {
        int e = 0;
        C->idx[c * nd] = c * nd; /* lam_n */
        C->val[c * nd] = 1.0;
        ++e;
        for (int d = 1; d <= nt; ++d) {
            double coef;
            if (p->rf[c] >= 0) /* rolling: lam_d = sigma (mu lam_n - Delta) */
                coef = p->mu[c] * sign_of(s, p->rf[c] * nt + d - 1);
            else /* sliding (eq. 5), or rolling without friction */
                coef = p->mut[c * nt + d - 1];
            if (coef != 0.0) {
                C->idx[c * nd + e] = c * nd + d;
                C->val[c * nd + e] = coef;
                ++e;
            }
        }
        C->cnt[c] = e;
        wk->rowk[c] = c * nd;
        wk->rowsgn[c] = 1.0;
        if (p->rf[c] < 0)
            continue;
        for (int d = 1; d <= nt; ++d) {
            const int j = nc + p->rf[c] * nt + d - 1;
            const double sg = sign_of(s, p->rf[c] * nt + d - 1);
            C->cnt[j] = 1;
            C->idx[j * nd] = c * nd + d;
            C->val[j * nd] = -sg;
            wk->rowk[j] = c * nd + d;
            wk->rowsgn[j] = -sg;
        }
    }
}

/* A = R D C and b = R g0 (the paper's eqs. 27-28 in contact space). */
static void build_lcp(const inst_problem *p, const inst_pyr_work *wk, int m)
{
    const int nd = p->nd, mall = p->mall;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) {
            double s = 0.0;
            for (int e = 0; e < wk->C.cnt[j]; ++e)
                s += p->D[wk->rowk[i] + (size_t)wk->C.idx[j * nd + e] * (size_t)mall] *
                     wk->C.val[j * nd + e];
            wk->A[i + (size_t)j * (size_t)m] = wk->rowsgn[i] * s;
        }
    for (int i = 0; i < m; ++i)
        wk->b[i] = wk->rowsgn[i] * p->g0[wk->rowk[i]];
}

/* Eq. (23): 0 <= Delta_{c,d} <= mu_c lam_n,c (with slack tol |z|). */
static int feasible(const inst_problem *p, const double *z, double mode_tol)
{
    const int nt = p->ntan;
    const double tol = mode_tol * fmax(cdyn_dense_norm_inf(cdyn_inst_pyr_size(p), z), DBL_MIN);
    for (int c = 0; c < p->nc; ++c) {
        if (p->rf[c] < 0)
            continue;
        for (int d = 0; d < nt; ++d)
            if (z[p->nc + p->rf[c] * nt + d] > p->mu[c] * z[c] + tol)
                return 0;
    }
    return 1;
}

static int same_forces(int n, const double *a, const double *b, double tol)
{
    const double scale = fmax(fmax(cdyn_dense_norm_inf(n, a), cdyn_dense_norm_inf(n, b)), DBL_MIN);
    for (int i = 0; i < n; ++i)
        if (fabs(a[i] - b[i]) > tol * scale)
            return 0;
    return 1;
}

cdyn_status cdyn_inst_pyramid(const inst_problem *p, const cdyn_instant_options *o,
                              inst_pyr_work *wk, double *lamf, cdyn_instant_result *res,
                              double *residual, cdyn_report *r)
{
    const int m = cdyn_inst_pyr_size(p), k = p->nrf * p->ntan;
    const unsigned long ncomb = 1ul << k;
    cdyn_lcp_options lo = o->lcp;
    if (lo.lemke.allocator == NULL)
        lo.lemke.allocator = o->allocator;
    const cdyn_lcp lcp = {m, wk->A, wk->b};
    wk->C.n = m;
    int nfeas = 0, ndistinct = 0, pivots = 0;
    long first = -1;
    cdyn_status failure = CDYN_OK; /* a combination that failed for another reason than "no
                                      solution" */
    char why[CDYN_REPORT_TEXT] = "";
    for (unsigned long s = 0; s < ncomb; ++s) {
        build_maps(p, s, wk);
        build_lcp(p, wk, m);
        cdyn_report lr;
        const cdyn_status st = cdyn_lcp_solve(&lcp, &lo, wk->z, wk->w, &lr);
        pivots += lr.iterations;
        /* ENOMEM, and EINVAL (bad o->lcp options or a non-finite D, g0), would repeat in every
         * combination */
        if (st == CDYN_ENOMEM || st == CDYN_EINVAL)
            return cdyn_fail(r, st, "sign combination %lu: %s", s, lr.message);
        if (st != CDYN_OK) {
            if (st != CDYN_ERAY && st != CDYN_ENOSOLUTION && st != CDYN_EINFEASIBLE &&
                failure == CDYN_OK) {
                failure = st;
                memcpy(why, lr.message, sizeof why);
            }
            continue;
        }
        if (!feasible(p, wk->z, o->mode_tol))
            continue;
        ++nfeas;
        cdyn_inst_map_apply(p, &wk->C, wk->z, wk->lamf_try);
        int known = 0;
        for (int t = 0; t < ndistinct && t < wk->nstore; ++t)
            known |= same_forces(p->mall, wk->lamf_try, wk->store + (size_t)t * (size_t)p->mall,
                                 1e3 * o->mode_tol);
        if (!known) {
            if (ndistinct < wk->nstore)
                memcpy(wk->store + (size_t)ndistinct * (size_t)p->mall, wk->lamf_try,
                       (size_t)p->mall * sizeof(double));
            ++ndistinct;
        }
        if (first >= 0)
            continue;
        first = (long)s;
        memcpy(lamf, wk->lamf_try, (size_t)p->mall * sizeof(double));
        *residual = cdyn_lcp_residual(&lcp, wk->z);
        res->pmatrix = -1;
        if (o->check_pmatrix && m <= CDYN_LCP_SMALL_N) {
            int isp = 0;
            const cdyn_status ps = cdyn_lcp_is_pmatrix(m, wk->A, 0.0, &isp, o->allocator, NULL);
            if (ps == CDYN_ENOMEM)
                return cdyn_fail(r, ps, "P-matrix test: out of memory");
            if (ps == CDYN_OK)
                res->pmatrix = isp;
        }
    }
    if (r)
        r->iterations = pivots;
    if (first < 0) {
        if (failure != CDYN_OK)
            return cdyn_fail(r, failure,
                             "no feasible sign combination found; a combination's LCP failed: %s",
                             why);
        return cdyn_fail(r, CDYN_ENOSOLUTION,
                         "none of the %lu sign combinations has a solution with Delta <= mu "
                         "lam_n (eq. 23)",
                         ncomb);
    }
    res->size = m;
    res->combinations = (int)ncomb;
    res->feasible = nfeas;
    res->distinct = ndistinct;
    if (ndistinct > 1)
        res->determinate = 0;
    else
        res->determinate = res->pmatrix == 1 ? 1 : -1;
    return CDYN_OK;
}
