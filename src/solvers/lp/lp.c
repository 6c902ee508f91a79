/* Public LP entry points: argument checks around the simplex engine (simplex.c). */
#include "cdyn/lp.h"

#include <math.h>
#include <stddef.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/lp/simplex.h"

static cdyn_status check_lp(const cdyn_lp *lp, int need_c, const cdyn_lp_options *opts,
                            cdyn_report *r)
{
    if (lp == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "lp: NULL problem");
    if (lp->m < 0 || lp->n < 1)
        return cdyn_fail(r, CDYN_EINVAL, "lp: need m >= 0 and n >= 1 (got m = %d, n = %d)", lp->m,
                         lp->n);
    if ((size_t)lp->m * (size_t)lp->n > (size_t)1 << 28)
        return cdyn_fail(r, CDYN_ETOOBIG, "lp: %d-by-%d is too large for a dense solver", lp->m,
                         lp->n);
    if (lp->m > 0 && (lp->A == NULL || lp->b == NULL))
        return cdyn_fail(r, CDYN_EINVAL, "lp: NULL A or b");
    if (need_c && lp->c == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "lp: NULL c");
    if (lp->m > 0 && !cdyn_dense_all_finite(lp->m * lp->n, lp->A))
        return cdyn_fail(r, CDYN_EINVAL, "lp: A has a NaN or infinite entry");
    if (lp->m > 0 && !cdyn_dense_all_finite(lp->m, lp->b))
        return cdyn_fail(r, CDYN_EINVAL, "lp: b has a NaN or infinite entry");
    if (need_c && !cdyn_dense_all_finite(lp->n, lp->c))
        return cdyn_fail(r, CDYN_EINVAL, "lp: c has a NaN or infinite entry");
    if (opts != NULL) {
        if ((unsigned)opts->rule > (unsigned)CDYN_LP_RULE_TEXTBOOK)
            return cdyn_fail(r, CDYN_EINVAL, "lp: unknown pivoting rule %d", (int)opts->rule);
        if (isnan(opts->feas_tol) || isnan(opts->opt_tol) || isnan(opts->pivot_tol) ||
            opts->feas_tol >= 1.0 || opts->opt_tol >= 1.0 || opts->pivot_tol >= 1.0)
            return cdyn_fail(r, CDYN_EINVAL, "lp: tolerances must be below 1 (0: default)");
    }
    return CDYN_OK;
}

cdyn_status cdyn_lp_solve(const cdyn_lp *lp, const cdyn_lp_options *opts, double *x, double *dual,
                          int *basis, double *objective, cdyn_report *report)
{
    cdyn_report_clear(report, "simplex");
    cdyn_status st = check_lp(lp, 1, opts, report);
    if (st != CDYN_OK)
        return st;
    if (x == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "lp: NULL x");
    cdyn_splx *s = NULL;
    st = cdyn_splx_create(lp->m, lp->n, lp->A, lp->b, opts, 0, &s);
    if (st != CDYN_OK)
        return cdyn_fail(report, st, "lp: out of memory");
    st = cdyn_splx_phase1(s, report);
    if (st == CDYN_OK)
        st = cdyn_splx_minimize(s, lp->c, report);
    if (st == CDYN_OK) {
        double res = cdyn_splx_residual(s);
        double scale = 1.0;
        for (int i = 0; i < lp->m; ++i)
            scale = fmax(scale, fabs(lp->b[i]));
        for (int j = 0; j < lp->n; ++j)
            scale = fmax(scale, fabs(lp->c[j]));
        if (report != NULL)
            report->residual = res;
        if (!(res <= 1e-6 * scale))
            st = cdyn_fail(report, CDYN_ENUMERIC,
                           "lp: optimal basis fails the accuracy check "
                           "(residual %.3g)",
                           res);
    }
    if (st == CDYN_OK) {
        cdyn_splx_point(s, x);
        if (dual != NULL)
            cdyn_splx_duals(s, dual);
        if (basis != NULL)
            cdyn_splx_get_basis(s, basis);
        if (objective != NULL) {
            double f = 0.0;
            for (int j = 0; j < lp->n; ++j)
                f += lp->c[j] * x[j];
            *objective = f;
        }
    }
    cdyn_splx_free(s);
    if (report != NULL)
        report->status = st;
    return st;
}

cdyn_status cdyn_lp_adjacent(const cdyn_lp *lp, const int *basis, const cdyn_lp_options *opts,
                             int max_vertices, double *vertices, int *count, cdyn_report *report)
{
    cdyn_report_clear(report, "simplex-adjacent");
    cdyn_status st = check_lp(lp, 0, opts, report);
    if (st != CDYN_OK)
        return st;
    if ((lp->m > 0 && basis == NULL) || count == NULL || max_vertices < 0 ||
        (max_vertices > 0 && vertices == NULL))
        return cdyn_fail(report, CDYN_EINVAL,
                         "lp: NULL basis, count or vertices, or "
                         "max_vertices < 0");
    cdyn_splx *s = NULL;
    st = cdyn_splx_create(lp->m, lp->n, lp->A, lp->b, opts, max_vertices, &s);
    if (st != CDYN_OK)
        return cdyn_fail(report, st, "lp: out of memory");
    if (cdyn_splx_set_basis(s, basis) != CDYN_OK) {
        cdyn_splx_free(s);
        return cdyn_fail(report, CDYN_EINVAL,
                         "lp: the basis is invalid, singular or not primal feasible");
    }
    int partial = 0, k = cdyn_splx_adjacent(s, &partial);
    for (int v = 0; v < k; ++v) {
        const double *p = cdyn_splx_neighbor(s, v);
        for (int j = 0; j < lp->n; ++j)
            vertices[(size_t)v * lp->n + j] = p[j];
    }
    *count = k;
    if (partial)
        (void)cdyn_fail(report, CDYN_OK, "lp: adjacency list partial (a limit was reached)");
    cdyn_splx_free(s);
    return CDYN_OK;
}
