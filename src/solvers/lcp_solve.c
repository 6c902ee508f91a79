/* The default LCP entry point: Lemke, then Lemke with other covering vectors, then (small n)
 * enumeration of complementary bases. A ray of Lemke's method only proves infeasibility for
 * copositive-plus M; for other matrices (bimatrix games, friction pyramids with round-off) a
 * different covering vector follows a different path and often reaches a solution. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/lcp_internal.h"

#define N_ALT_COVERINGS 3

void cdyn_lcp_defaults(cdyn_lcp_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    cdyn_lemke_defaults(&opts->lemke);
    opts->try_alternate_covering = 1;
    opts->try_enumeration = 1;
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
    return st == CDYN_ERAY || st == CDYN_ENUMERIC || st == CDYN_ENOCONV;
}

/* Finish the caller's report from the last attempt's (sub: the caller's own report, or a local one
 * when the caller passed NULL), keeping the summed pivot count. */
static cdyn_status conclude(cdyn_report *sub, const char *method, int pivots)
{
    cdyn_report_method(sub, method);
    sub->iterations = pivots;
    return sub->status;
}

cdyn_status cdyn_lcp_solve(const cdyn_lcp *lcp, const cdyn_lcp_options *opts, double *z, double *w,
                           cdyn_report *report)
{
    cdyn_report_clear(report, "lemke");
    cdyn_lcp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_lcp_defaults(&o);
    double mnorm = 0.0;
    cdyn_status st = cdyn_lcp_validate(lcp, &mnorm, report);
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
    st = cdyn_lemke_validated(lcp, mnorm, &o.lemke, z, w, NULL, sub);
    int pivots = sub->iterations;
    if (!retryable(st) ||
        !(o.try_alternate_covering || (o.try_enumeration && n <= CDYN_LCP_SMALL_N)))
        return st;

    double *d = cdyn_mem_array(o.lemke.allocator, 2 * (size_t)n, sizeof(double));
    if (d == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the fallback workspace");
    double *zs = d + n;
    const char *method = "lemke";
    if (o.try_alternate_covering) {
        method = "lemke-alt-covering";
        cdyn_lemke_options lo = o.lemke;
        lo.covering = d;
        lo.warm_basis = NULL;
        for (int v = 0; v < N_ALT_COVERINGS && retryable(st); ++v) {
            alt_covering(v, n, lcp->q, d);
            cdyn_report_clear(sub, "lemke");
            st = cdyn_lemke_validated(lcp, mnorm, &lo, z, w, NULL, sub);
            pivots += sub->iterations;
        }
    }
    if (retryable(st) && o.try_enumeration && n <= CDYN_LCP_SMALL_N) {
        int count = 0, singular = 0;
        cdyn_report er;
        cdyn_status se =
            cdyn_lcp_enumerate_ex(lcp, zs, 1, &count, &singular, o.lemke.allocator, &er);
        if (se != CDYN_OK) { /* only ENOMEM can happen here */
            cdyn_mem_free(o.lemke.allocator, d);
            *sub = er;
            return conclude(sub, "enumeration", pivots);
        }
        if (count > 0) {
            /* w = M z + q with rounding negatives set to 0 as Lemke does, into the covering
             * workspace (no longer needed): the caller's z and w change only on success. */
            const double tol = o.lemke.tol > 0.0 ? o.lemke.tol : 1e-10;
            const double scale =
                fmax(cdyn_dense_norm_inf(n, lcp->q), mnorm * cdyn_dense_norm_inf(n, zs));
            double *ws = d;
            memcpy(ws, lcp->q, sizeof(double) * (size_t)n);
            cdyn_dense_gemv(n, n, 1.0, lcp->M, n, zs, 1.0, ws);
            for (int i = 0; i < n; ++i)
                if (ws[i] < 0.0 && ws[i] >= -tol * scale)
                    ws[i] = 0.0;
            /* Enumeration stores small negatives of z as 0; with a huge M that can move w far
             * from the basic solution's, so the stored z must pass the success test itself
             * (enumeration's feasibility tolerance is 1e-10). */
            const double res = cdyn_lcp_residual(lcp, zs);
            int finite = 1; /* overflow gives infinite scale and residual: no solution */
            for (int i = 0; i < n; ++i)
                finite &= isfinite(zs[i]) && isfinite(ws[i]);
            if (finite && res <= fmax(tol, 1e-10) * scale) {
                memcpy(z, zs, sizeof(double) * (size_t)n);
                memcpy(w, ws, sizeof(double) * (size_t)n);
                cdyn_report_clear(sub, "enumeration");
                sub->residual = res;
                method = "enumeration";
            } else {
                snprintf(sub->message, sizeof sub->message,
                         "Lemke failed and enumeration's basic solution fails the success test "
                         "(residual %.3g)",
                         res);
            }
        } else if (singular == 0) {
            cdyn_report_clear(sub, "enumeration");
            cdyn_fail(sub, CDYN_ENOSOLUTION,
                      "no complementary basis is feasible and none is singular: no solution");
            method = "enumeration";
        } else {
            snprintf(sub->message, sizeof sub->message,
                     "Lemke failed and enumeration found no basic solution (%d singular bases "
                     "skipped, so a solution may still exist)",
                     singular);
        }
    }
    cdyn_mem_free(o.lemke.allocator, d);
    return conclude(sub, method, pivots);
}
