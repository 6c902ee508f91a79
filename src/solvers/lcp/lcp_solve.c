/* The default LCP entry point: Lemke, then Lemke with other covering vectors, then (small n)
 * enumeration of complementary bases. A ray of Lemke's method only proves infeasibility for
 * copositive-plus M; for other matrices (bimatrix games, friction pyramids with round-off) a
 * different covering vector follows a different path and often reaches a solution. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/lcp/lcp_internal.h"

#define N_ALT_COVERINGS 3

void cdyn_lcp_defaults(cdyn_lcp_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    cdyn_lemke_defaults(&opts->lemke);
    opts->try_alternate_covering = 1;
    opts->try_enumeration = 1;
    opts->try_fb_newton = 1;
}

/* Alternate covering vectors, all positive: two tilted ramps (they break the symmetry of ones
 * that makes many ties) and one weighted by |q| (the most violated rows are covered first). */
static void alt_covering(int variant, int n, const double *q, double *d)
{
    for (int i = 0; i < n; ++i) {
        const double t = (double)i / n;
        d[i] = variant == 0 ? 1.0 + t : variant == 1 ? 2.0 - t : 1.0 + fabs(q[i]);
    }
}

static int retryable(cdyn_status st)
{
    return st == CDYN_ERAY || st == CDYN_ENUMERIC || st == CDYN_ENOCONV || st == CDYN_EINACCURATE;
}

/* Finish the caller's report from the last attempt's (sub: the caller's own report, or a local one
 * when the caller passed NULL), keeping the summed pivot count. */
static cdyn_status conclude(cdyn_report *sub, const char *method, int pivots)
{
    cdyn_report_method(sub, method);
    sub->iterations = pivots;
    return sub->status;
}

/* Tie bands tried (relative to the caller's tie_tol) before the alternate coverings when Lemke's
 * answer failed the certificate: exact ties, and a band three decades narrower. */
#define N_NARROW_TIES 2

/* Enumeration candidates tried against the certificate. */
#define N_ENUM_CANDIDATES 4

/* The fallback chain's state: the best point that failed the certificate so far (it goes to the
 * caller with CDYN_EINACCURATE when nothing passes). */
typedef struct chain {
    const cdyn_lcp *lcp;
    double tol;
    double *zt, *wt;   /* scratch for one candidate */
    double *zc;        /* scratch for its cleaned copy */
    double *bz, *bw;   /* the best candidate */
    double best_ratio; /* its violation (INFINITY: none) and residual */
    double best_res;
    const char *best_method;
} chain;

/* Certify the candidate z (n values): CDYN_OK with the certified point in zt, wt and its residual
 * in *res, else CDYN_EINACCURATE (kept when it is the best so far). */
static cdyn_status try_candidate(chain *c, const double *z, const char *method, double *res)
{
    const int n = c->lcp->n;
    const double ratio = cdyn_lcp_certify_clean(c->lcp, z, c->tol, c->zc, c->zt, c->wt, res, NULL);
    if (ratio <= c->tol)
        return CDYN_OK;
    if (ratio < INACCURATE_MAX && ratio < c->best_ratio) {
        memcpy(c->bz, c->zt, sizeof(double) * (size_t)n);
        memcpy(c->bw, c->wt, sizeof(double) * (size_t)n);
        c->best_ratio = ratio;
        c->best_res = *res;
        c->best_method = method;
    }
    return CDYN_EINACCURATE;
}

/* The basic solution of basis (basis[i]: z_i basic): M_BB z_B = -q_B by LU with one step of
 * iterative refinement, z_N = 0, into z. CDYN_ESINGULAR, CDYN_ENOMEM. */
static cdyn_status polish(const chain *c, const cdyn_lcp_options *o, const int *basis, double *z)
{
    const int n = c->lcp->n;
    int k = 0;
    for (int i = 0; i < n; ++i)
        k += basis[i] != 0;
    const double *M = c->lcp->M, *q = c->lcp->q;
    double *A = cdyn_mem_array(o->lemke.allocator, (size_t)k * k + 3 * (size_t)k + 1, sizeof(double));
    int *idx = cdyn_mem_array(o->lemke.allocator, 2 * (size_t)k + 1, sizeof(int));
    if (A == NULL || idx == NULL) {
        cdyn_mem_free(o->lemke.allocator, A);
        cdyn_mem_free(o->lemke.allocator, idx);
        return CDYN_ENOMEM;
    }
    double *x = A + (size_t)k * k, *r = x + k, *LUc = r + k;
    (void)LUc;
    int *ipiv = idx + k;
    for (int i = 0, t = 0; i < n; ++i)
        if (basis[i])
            idx[t++] = i;
    for (int b = 0; b < k; ++b) {
        for (int a = 0; a < k; ++a)
            A[a + (size_t)b * k] = M[idx[a] + (size_t)idx[b] * n];
        x[b] = -q[idx[b]];
    }
    cdyn_status st = k > 0 ? cdyn_dense_lu(k, A, k, ipiv) : CDYN_OK;
    if (st == CDYN_OK && k > 0) {
        cdyn_dense_lu_solve(0, k, A, k, ipiv, 1, x, k);
        /* refinement: r = -q_B - M_BB x in long double */
        for (int a = 0; a < k; ++a) {
            long double acc = -(long double)q[idx[a]];
            for (int b = 0; b < k; ++b)
                acc -= (long double)M[idx[a] + (size_t)idx[b] * n] * x[b];
            r[a] = (double)acc;
        }
        cdyn_dense_lu_solve(0, k, A, k, ipiv, 1, r, k);
        for (int a = 0; a < k; ++a)
            x[a] += r[a];
    }
    if (st == CDYN_OK) {
        memset(z, 0, (size_t)n * sizeof(double));
        for (int a = 0; a < k; ++a)
            z[idx[a]] = x[a];
    }
    cdyn_mem_free(o->lemke.allocator, A);
    cdyn_mem_free(o->lemke.allocator, idx);
    return st;
}

/* The last stage: FB-Newton (semismooth, globalized) from z = 0, its answer certified as every
 * other; when it lands near the solution but fails the componentwise test (rows whose scale is
 * tiny next to the absolute residual), Lemke warm-started on the complementary basis FB-Newton
 * found (z_i > w_i) solves that basis exactly, with refinement. Degenerate pyramids on which
 * every pivoting path above ends on a ray or a wrong basis are solved here. zs: 2 n doubles of
 * scratch (and n ints after them). Returns st unchanged when nothing passed. */
static cdyn_status fb_stage(chain *c, const cdyn_lcp_options *o, double *zs, double *z, double *w,
                            cdyn_report *sub, const char **method, int *pivots, cdyn_status st)
{
    const int n = c->lcp->n;
    const size_t nz = (size_t)n;
    double *zf = zs, *wf = zs + nz;
    int *basis = (int *)(void *)(zs + 2 * nz);
    cdyn_mcp_options mo;
    cdyn_mcp_defaults(&mo);
    mo.allocator = o->lemke.allocator;
    memset(zf, 0, nz * sizeof(double));
    cdyn_report fr;
    double res;
    for (int attempt = 0; attempt < 2; ++attempt) {
        /* from 0, then once more from its answer with a tolerance a thousand times tighter */
        const cdyn_status sf = cdyn_lcp_fb_newton(c->lcp, &mo, zf, wf, &fr);
        if (sf != CDYN_OK && sf != CDYN_EINACCURATE)
            return st;
        /* entries at the level of rounding (64 eps of the largest) are zeros FB-Newton's smooth
           path only approaches: with mu = 0 a friction row's slack is -(sum of such entries) */
        double zmax = 0;
        for (int i = 0; i < n; ++i)
            zmax = fmax(zmax, fabs(zf[i]));
        for (int i = 0; i < n; ++i)
            if (zf[i] <= 64 * DBL_EPSILON * zmax)
                zf[i] = 0.0;
        if (try_candidate(c, zf, "fb-newton", &res) == CDYN_OK) {
            memcpy(z, c->zt, nz * sizeof(double));
            memcpy(w, c->wt, nz * sizeof(double));
            cdyn_report_clear(sub, "fb-newton");
            sub->residual = res;
            *method = "fb-newton";
            return CDYN_OK;
        }
        mo.tol = fmax(1e-3 * fr.residual, DBL_MIN);
    }
    /* The basis FB-Newton found, its degenerate rows (z_i at the level of the residual) nonbasic */
    const double floor = 10.0 * fr.residual;
    for (int i = 0; i < n; ++i)
        basis[i] = zf[i] > wf[i] && zf[i] > floor;
    if (polish(c, o, basis, zf) == CDYN_OK && try_candidate(c, zf, "fb-newton", &res) == CDYN_OK) {
        memcpy(z, c->zt, nz * sizeof(double));
        memcpy(w, c->wt, nz * sizeof(double));
        cdyn_report_clear(sub, "fb-newton");
        sub->residual = res;
        *method = "fb-newton+polish";
        return CDYN_OK;
    }
    cdyn_lemke_options lo = o->lemke;
    lo.warm_basis = basis;
    cdyn_report_clear(sub, "lemke");
    const cdyn_status sl = cdyn_lemke_validated(c->lcp, &lo, c->zt, c->wt, NULL, sub);
    *pivots += sub->iterations;
    if (sl != CDYN_OK)
        return st;
    memcpy(z, c->zt, nz * sizeof(double));
    memcpy(w, c->wt, nz * sizeof(double));
    *method = "fb-newton+lemke";
    return CDYN_OK;
}

cdyn_status cdyn_lcp_solve(const cdyn_lcp *lcp, const cdyn_lcp_options *opts, double *z, double *w,
                           cdyn_report *report)
{
    return cdyn_lcp_solve_basis(lcp, opts, z, w, NULL, NULL, report);
}

cdyn_status cdyn_lcp_solve_basis(const cdyn_lcp *lcp, const cdyn_lcp_options *opts, double *z,
                                 double *w, int *basis, int *have_basis, cdyn_report *report)
{
    if (have_basis != NULL)
        *have_basis = 0;
    cdyn_report_clear(report, "lemke");
    cdyn_lcp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_lcp_defaults(&o);
    cdyn_status st = cdyn_lcp_validate(lcp, NULL, report);
    if (st != CDYN_OK)
        return st;
    if (z == NULL || w == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "output %s is NULL", z == NULL ? "z" : "w");
    const int n = lcp->n;

    /* Every attempt writes straight into the caller's report (cleared above): on the common
       path, Lemke succeeding at once, nothing is copied. */
    cdyn_report local;
    cdyn_report *sub = report;
    if (sub == NULL) {
        sub = &local;
        cdyn_report_clear(sub, "lemke");
    }
    /* The first attempt writes z and w on CDYN_OK and on CDYN_EINACCURATE (its best point). */
    st = cdyn_lemke_validated(lcp, &o.lemke, z, w, basis, sub);
    int pivots = sub->iterations;
    if (st == CDYN_OK && have_basis != NULL)
        *have_basis = basis != NULL;
    if (!retryable(st) || !(o.try_alternate_covering || o.try_fb_newton ||
                            (o.try_enumeration && n <= CDYN_LCP_SMALL_N)))
        return st;

    const size_t nz = (size_t)n;
    /* covering, candidate, cleaned copy, best (z, w), enumeration's candidates (at least 3 n for
       the FB-Newton stage: z, w and a basis) */
    double *d = cdyn_mem_array(o.lemke.allocator, (6 + N_ENUM_CANDIDATES) * nz, sizeof(double));
    if (d == NULL) {
        if (st == CDYN_EINACCURATE) { /* z, w already hold the first attempt's point */
            cdyn_fail(sub, CDYN_EINACCURATE,
                      "Lemke's answer fails the certificate (z, w hold it) and the fallbacks "
                      "could not run: out of memory");
            return conclude(sub, "lemke", pivots);
        }
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the fallback workspace");
    }
    chain c = {lcp,        o.lemke.tol > 0.0 ? o.lemke.tol : 1e-10,
               d + nz,     d + 2 * nz,
               d + 5 * nz, d + 3 * nz,
               d + 4 * nz, INFINITY,
               NAN,        NULL};
    double *zs = d + 6 * nz; /* enumeration's candidates */
    int committed = 0;       /* z, w hold the first attempt's inaccurate point */
    if (st == CDYN_EINACCURATE) {
        double res;
        try_candidate(&c, z, "lemke", &res);
        committed = 1;
    }
    const char *method = "lemke";
    if (o.try_alternate_covering) {
        cdyn_lemke_options lo = o.lemke;
        lo.warm_basis = NULL;
        /* First the caller's covering vector cold with narrower tie bands: the tie band of the
           ratio test treats data noise (q_i = -2e-16 next to entries of 1e-2) as 0, and can
           end on a basis whose solution fails the certificate by exactly that noise. */
        static const double narrow_ties[N_NARROW_TIES] = {0.0, 1e-3};
        for (int v = -N_NARROW_TIES; v < N_ALT_COVERINGS && retryable(st); ++v) {
            if (v < 0) {
                if (o.lemke.tie_tol == 0.0 || (st != CDYN_EINACCURATE && st != CDYN_ENUMERIC))
                    continue;
                lo.tie_tol = narrow_ties[v + N_NARROW_TIES] * o.lemke.tie_tol;
                method = "lemke-narrow-ties";
            } else {
                lo.tie_tol = o.lemke.tie_tol;
                lo.covering = d;
                alt_covering(v, n, lcp->q, d);
                method = "lemke-alt-covering";
            }
            cdyn_report_clear(sub, "lemke");
            st = cdyn_lemke_validated(lcp, &lo, c.zt, c.wt, NULL, sub);
            pivots += sub->iterations;
            if (st == CDYN_OK) {
                memcpy(z, c.zt, sizeof(double) * nz);
                memcpy(w, c.wt, sizeof(double) * nz);
            } else if (st == CDYN_EINACCURATE) {
                double res;
                memcpy(zs, c.zt, sizeof(double) * nz); /* try_candidate overwrites zt */
                try_candidate(&c, zs, method, &res);
            }
        }
    }
    if (retryable(st) && o.try_enumeration && n <= CDYN_LCP_SMALL_N) {
        int count = 0, singular = 0;
        cdyn_report er;
        cdyn_status se = cdyn_lcp_enumerate_ex(lcp, zs, N_ENUM_CANDIDATES, &count, &singular,
                                               o.lemke.allocator, &er);
        if (se != CDYN_OK && !committed) { /* only ENOMEM can happen here */
            cdyn_mem_free(o.lemke.allocator, d);
            *sub = er;
            return conclude(sub, "enumeration", pivots);
        }
        if (se != CDYN_OK) { /* z, w hold a point: it is handed out below */
            count = 0;
            snprintf(er.message, sizeof er.message, "enumeration: out of memory");
        }
        /* Enumeration's feasibility test is norm-wise (lcp.h); each basic solution must pass
           the certificate itself. */
        const int tried = count < N_ENUM_CANDIDATES ? count : N_ENUM_CANDIDATES;
        for (int k = 0; k < tried; ++k) {
            double res;
            if (try_candidate(&c, zs + (size_t)k * nz, "enumeration", &res) == CDYN_OK) {
                memcpy(z, c.zt, sizeof(double) * nz);
                memcpy(w, c.wt, sizeof(double) * nz);
                cdyn_report_clear(sub, "enumeration");
                sub->residual = res;
                method = "enumeration";
                st = CDYN_OK;
                break;
            }
        }
        if (st == CDYN_OK) {
        } else if (se != CDYN_OK) {
            memcpy(sub->message, er.message, sizeof sub->message);
        } else if (count > 0) {
            snprintf(sub->message, sizeof sub->message,
                     "Lemke failed and none of enumeration's basic solutions passes the "
                     "certificate");
        } else if (singular == 0) {
            cdyn_report_clear(sub, "enumeration");
            cdyn_fail(sub, CDYN_ENOSOLUTION,
                      "no complementary basis is feasible and none is singular: no solution "
                      "(a numerical conclusion, not proven)");
            method = "enumeration";
            st = CDYN_ENOSOLUTION;
        } else {
            snprintf(sub->message, sizeof sub->message,
                     "Lemke failed and enumeration found no basic solution (%d singular bases "
                     "skipped, so a solution may still exist)",
                     singular);
        }
    }
    if (retryable(st) && o.try_fb_newton)
        st = fb_stage(&c, &o, zs, z, w, sub, &method, &pivots, st);
    if (st != CDYN_OK && (committed || (st != CDYN_EINFEASIBLE && c.best_ratio < INFINITY))) {
        /* Nothing passed: the best point, with what the last attempt said. */
        char why[CDYN_REPORT_TEXT];
        memcpy(why, sub->message, sizeof why);
        memcpy(z, c.bz, sizeof(double) * nz);
        memcpy(w, c.bw, sizeof(double) * nz);
        method = c.best_method;
        cdyn_report_clear(sub, method);
        sub->residual = c.best_res;
        cdyn_fail(sub, CDYN_EINACCURATE,
                  "no answer passed the componentwise certificate; z, w hold the best (largest "
                  "violation %.3g of its row's scale; last attempt: %.150s)",
                  c.best_ratio, why);
    }
    cdyn_mem_free(o.lemke.allocator, d);
    return conclude(sub, method, pivots);
}
