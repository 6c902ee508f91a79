/* cdyn_design_minimize and cdyn_design_sweep (cdyn/design.h): projected quasi-Newton over box
 * bounds. The variables at a bound whose gradient pushes outward are held; BFGS acts on the
 * others; the step is projected onto the box and halved (Armijo on the projected step) until the
 * cost decreases enough (Bertsekas' projected Newton, with a BFGS matrix). */
#include "cdyn/design.h"

#include "core/memory.h"
#include "core/report.h"
#include "design/batch.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void cdyn_design_defaults(cdyn_design_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->max_iter = 100;
    o->tol = 1e-8;
    o->gradient = CDYN_DESIGN_GRAD_CENTRAL;
    o->fd_step = 1e-6;
    o->threads = 1;
}

/* opts, or the defaults when NULL, into o; checked. */
static cdyn_status take_options(const cdyn_design_options *opts, cdyn_design_options *o,
                                cdyn_report *r)
{
    if (opts != NULL)
        *o = *opts;
    else
        cdyn_design_defaults(o);
    if (o->max_iter < 0 || !(o->tol >= 0) || !(o->fd_step > 0) || !isfinite(o->fd_step) ||
        o->threads < 1 || o->threads > 1024 || o->gradient < CDYN_DESIGN_GRAD_CENTRAL ||
        o->gradient > CDYN_DESIGN_GRAD_USER)
        return cdyn_fail(r, CDYN_EINVAL, "design: bad options (max_iter %d >= 0, tol %g >= 0, "
                         "fd_step %g > 0, threads %d in 1..1024, gradient %d)", o->max_iter,
                         o->tol, o->fd_step, o->threads, (int)o->gradient);
    return CDYN_OK;
}

typedef struct dwork {
    int n;
    cdyn_design_objective fn;
    void *ctx;
    const double *lo, *hi;
    const cdyn_design_options *o;
    double *pts, *vals; /* 2n points of n, 2n values */
    int *ok;
    int evaluations, failed;
} dwork;

/* f and the gradient at p; with known, *f already holds f(p) and is not evaluated again (the
 * differences only). 0, or nonzero when f or a difference failed. */
static int value_and_gradient(dwork *w, const double *p, double *f, double *g, int known)
{
    const int n = w->n;
    if (w->o->gradient == CDYN_DESIGN_GRAD_USER) {
        w->evaluations++;
        int fail = w->fn(w->ctx, 0, p, f, g) != 0 || !isfinite(*f);
        for (int i = 0; i < n && !fail; i++)
            fail = !isfinite(g[i]);
        w->failed += fail;
        return fail;
    }
    /* the differences, with f itself as point 0 of the batch */
    const int central = w->o->gradient == CDYN_DESIGN_GRAD_CENTRAL;
    const int m = 1 + (central ? 2 : 1) * n;
    double *h = w->vals + m; /* n steps, after the values */
    memcpy(w->pts, p, (size_t)n * sizeof(double));
    for (int i = 0; i < n; i++) {
        double hi = w->o->fd_step * fmax(1.0, fabs(p[i]));
        /* inside the bounds: a one-sided step where the box is too narrow on one side */
        double *plus = w->pts + (size_t)(1 + i) * n;
        memcpy(plus, p, (size_t)n * sizeof(double));
        if (p[i] + hi > w->hi[i])
            hi = -hi;
        plus[i] = p[i] + hi;
        h[i] = hi;
        if (central) {
            double *minus = w->pts + (size_t)(1 + n + i) * n;
            memcpy(minus, p, (size_t)n * sizeof(double));
            minus[i] = p[i] - hi;
            if (minus[i] < w->lo[i] || minus[i] > w->hi[i])
                minus[i] = p[i]; /* no room: one-sided */
        }
    }
    const int skip = known != 0; /* point 0 is p itself */
    if (skip)
        w->vals[0] = *f, w->ok[0] = 1;
    w->failed += design_batch(n, w->fn, w->ctx, m - skip, w->pts + (size_t)skip * n,
                              w->vals + skip, w->ok + skip, w->o->threads, w->o->allocator);
    w->evaluations += m - skip;
    if (!w->ok[0])
        return 1;
    *f = w->vals[0];
    for (int i = 0; i < n; i++) {
        const double fp = w->vals[1 + i];
        if (!w->ok[1 + i])
            return 1;
        if (central && w->pts[(size_t)(1 + n + i) * n + i] != p[i] && w->ok[1 + n + i])
            g[i] = (fp - w->vals[1 + n + i]) / (2 * h[i]);
        else
            g[i] = (fp - *f) / h[i];
    }
    return 0;
}

/* f at p, and the user's gradient into g when g is not NULL (then asked for at once: an
 * accepted trial point needs no second call). */
static double eval_f(dwork *w, const double *p, int *fail, double *g)
{
    double f = NAN;
    w->evaluations++;
    *fail = w->fn(w->ctx, 0, p, &f, g) != 0 || !isfinite(f);
    for (int i = 0; g != NULL && i < w->n && !*fail; i++)
        *fail = !isfinite(g[i]);
    w->failed += *fail;
    return f;
}

/* Held variables: at a bound with the gradient pushing outward. Returns |projected gradient|. */
static double held_set(int n, const double *p, const double *g, const double *lo,
                       const double *hi, int *held)
{
    double pg = 0;
    for (int i = 0; i < n; i++) {
        held[i] = (p[i] <= lo[i] && g[i] > 0) || (p[i] >= hi[i] && g[i] < 0);
        if (!held[i])
            pg = fmax(pg, fabs(g[i]));
    }
    return pg;
}

cdyn_status cdyn_design_minimize(int n, cdyn_design_objective fn, void *ctx, const double *lo,
                                 const double *hi, double *p, const cdyn_design_options *opts,
                                 cdyn_design_result *result, cdyn_report *report)
{
    cdyn_report_clear(report, "design-projected-bfgs");
    cdyn_design_result local;
    cdyn_design_result *res = result != NULL ? result : &local;
    memset(res, 0, sizeof *res);
    res->f = NAN;
    if (n < 1 || fn == NULL || lo == NULL || hi == NULL || p == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "design: n = %d must be >= 1; objective, bounds and "
                         "start must not be NULL", n);
    /* Sizes before anything is read or allocated: 1 + 2n points of n values, an n-by-n matrix
       (issue 18: 1 + 2n and n * n were computed in int). Indices stay int, so 1 + 2n must fit;
       the workspace sums below then fit in size_t wherever n * n does. */
    if (n > (INT_MAX - 1) / 2 || cdyn_mem_matrix_len((size_t)n, (size_t)n + 10) == 0 ||
        cdyn_mem_matrix_len((size_t)(1 + 2 * n), (size_t)n + 2) == 0)
        return cdyn_fail(report, CDYN_ETOOBIG, "design: n = %d parameters is too large", n);
    cdyn_design_options o;
    cdyn_status st = take_options(opts, &o, report);
    if (st != CDYN_OK)
        return st;
    for (int i = 0; i < n; i++)
        if (!isfinite(lo[i]) || !isfinite(hi[i]) || !(lo[i] <= hi[i]) || !isfinite(p[i]))
            return cdyn_fail(report, CDYN_EINVAL, "design: component %d: bounds [%g, %g] must be "
                             "finite with lower <= upper, and the start %g finite", i, lo[i],
                             hi[i], p[i]);
    const int m = 1 + 2 * n;
    const size_t nd = (size_t)m * n + 2 * (size_t)m + (size_t)n * n + 8 * (size_t)n;
    double *dbl = cdyn_mem_array(o.allocator, nd, sizeof(double));
    int *ints = cdyn_mem_array(o.allocator, (size_t)m + n, sizeof(int));
    if (dbl == NULL || ints == NULL) {
        cdyn_mem_free(o.allocator, dbl);
        cdyn_mem_free(o.allocator, ints);
        return cdyn_fail(report, CDYN_ENOMEM, "design: out of memory");
    }
    dwork w = {n, fn, ctx, lo, hi, &o, dbl, dbl + (size_t)m * n, ints, 0, 0};
    double *H = w.vals + 2 * m, *x = H + (size_t)n * n, *g = x + n, *d = g + n, *xt = d + n;
    double *gt = xt + n, *s = gt + n, *y = s + n, *Hy = y + n;
    int *held = ints + m;
    for (int i = 0; i < n; i++) {
        x[i] = fmin(fmax(p[i], lo[i]), hi[i]);
        res->projected_start |= x[i] != p[i];
    }
    double f;
    if (value_and_gradient(&w, x, &f, g, 0) != 0) {
        st = cdyn_fail(report, CDYN_ENUMERIC, "design: the objective cannot be evaluated (or "
                       "differenced) at the start");
        goto done;
    }
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        H[i] = i % (n + 1) == 0;
    double pg = held_set(n, x, g, lo, hi, held);
    st = CDYN_ENOCONV;
    const char *why = "the iteration limit was reached";
    while (pg > o.tol && res->iterations < o.max_iter) {
        res->iterations++;
        /* d = -H g on the free variables (held ones stay) */
        double slope = 0;
        for (int i = 0; i < n; i++) {
            d[i] = 0;
            if (held[i])
                continue;
            for (int j = 0; j < n; j++)
                if (!held[j])
                    d[i] -= H[i + (size_t)j * n] * g[j];
            slope += g[i] * d[i];
        }
        if (!(slope < 0)) { /* not a descent direction: restart from the gradient */
            for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
                H[i] = i % (n + 1) == 0;
            for (int i = 0; i < n; i++)
                d[i] = held[i] ? 0 : -g[i];
        }
        /* the first step no longer than the box is wide */
        double t = 1, width = 0, dn = 0;
        for (int i = 0; i < n; i++) {
            width = fmax(width, hi[i] - lo[i]);
            dn = fmax(dn, fabs(d[i]));
        }
        if (dn > width && width > 0)
            t = width / dn;
        double ft = INFINITY;
        int accepted = 0;
        for (int half = 0; half < 40 && !accepted; half++, t *= 0.5) {
            double dec = 0;
            for (int i = 0; i < n; i++) {
                xt[i] = fmin(fmax(x[i] + t * d[i], lo[i]), hi[i]);
                dec += g[i] * (xt[i] - x[i]);
            }
            int fail;
            ft = eval_f(&w, xt, &fail, o.gradient == CDYN_DESIGN_GRAD_USER ? gt : NULL);
            accepted = !fail && ft <= f + 1e-4 * dec && ft < f;
        }
        if (!accepted) {
            /* when the full step promises less than the cost's rounding, x is as good as the
             * arithmetic can tell: converged */
            double promise = 0;
            for (int i = 0; i < n; i++)
                promise += g[i] * (fmin(fmax(x[i] + d[i], lo[i]), hi[i]) - x[i]);
            if (fabs(promise) <= 8 * DBL_EPSILON * fmax(fabs(f), DBL_MIN)) {
                pg = 0;
                cdyn_report_method(report, "design-projected-bfgs (flat to rounding)");
                break;
            }
            why = "the line search found no decrease (a rough or noisy cost?)";
            break;
        }
        if (o.gradient != CDYN_DESIGN_GRAD_USER && value_and_gradient(&w, xt, &ft, gt, 1) != 0) {
            why = "the gradient failed at an accepted point";
            memcpy(x, xt, (size_t)n * sizeof(double));
            f = ft;
            break;
        }
        /* BFGS update of the inverse Hessian when the curvature is positive */
        double sy = 0, yy = 0, ss = 0;
        for (int i = 0; i < n; i++) {
            s[i] = xt[i] - x[i], y[i] = gt[i] - g[i];
            sy += s[i] * y[i], yy += y[i] * y[i], ss += s[i] * s[i];
        }
        if (sy > 1e-12 * sqrt(ss * yy)) {
            double yHy = 0;
            for (int i = 0; i < n; i++) {
                Hy[i] = 0;
                for (int j = 0; j < n; j++)
                    Hy[i] += H[i + (size_t)j * n] * y[j];
                yHy += y[i] * Hy[i];
            }
            /* H += (1 + y'Hy/sy) s s'/sy - (Hy s' + s y'H)/sy */
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    H[i + (size_t)j * n] += (1 + yHy / sy) * s[i] * s[j] / sy -
                                            (Hy[i] * s[j] + s[i] * Hy[j]) / sy;
        }
        memcpy(x, xt, (size_t)n * sizeof(double));
        memcpy(g, gt, (size_t)n * sizeof(double));
        f = ft;
        pg = held_set(n, x, g, lo, hi, held);
    }
    if (pg <= o.tol) {
        st = CDYN_OK;
    } else {
        st = cdyn_fail(report, CDYN_ENOCONV, "design: %s; |projected gradient| %.3g > tol %g "
                       "after %d iterations", why, pg, o.tol, res->iterations);
    }
    memcpy(p, x, (size_t)n * sizeof(double));
    res->f = f;
    res->pg_norm = held_set(n, x, g, lo, hi, held);
done:
    res->evaluations = w.evaluations;
    res->failed = w.failed;
    if (report != NULL) {
        report->iterations = res->iterations;
        report->evaluations = w.evaluations;
        report->residual = res->pg_norm;
    }
    cdyn_mem_free(o.allocator, dbl);
    cdyn_mem_free(o.allocator, ints);
    return st;
}

cdyn_status cdyn_design_sweep(int n, cdyn_design_objective fn, void *ctx, int npoints,
                              const double *points, double *values, int *ok,
                              const cdyn_design_options *opts, cdyn_report *report)
{
    cdyn_report_clear(report, "design-sweep");
    if (n < 1 || npoints < 0 || fn == NULL || (npoints > 0 && (points == NULL || values == NULL)))
        return cdyn_fail(report, CDYN_EINVAL, "design sweep: n = %d >= 1, npoints = %d >= 0, "
                         "objective, points and values not NULL", n, npoints);
    cdyn_design_options o;
    cdyn_status st = take_options(opts, &o, report);
    if (st != CDYN_OK)
        return st;
    int *mine = ok;
    if (mine == NULL && npoints > 0 &&
        (mine = cdyn_mem_array(o.allocator, (size_t)npoints, sizeof(int))) == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "design sweep: out of memory");
    const int failed = npoints > 0 ? design_batch(n, fn, ctx, npoints, points, values, mine,
                                                  o.threads, o.allocator)
                                   : 0;
    if (mine != ok)
        cdyn_mem_free(o.allocator, mine);
    if (report != NULL) {
        report->evaluations = npoints;
        if (failed > 0)
            snprintf(report->message, sizeof report->message, "design sweep: %d of %d "
                     "evaluations failed", failed, npoints);
    }
    return CDYN_OK;
}
