/* Minimize f(y) = 1/2 ||R(y)||^2 over the box lo <= y <= up (docs/theory.md §3).
 * Each iteration, with g = J_R^T R and the projected gradient pg = ||P(y - g) - y||_inf:
 *   1. stop when the MCP's natural residual is <= tol (a solution), or when the scaled
 *      projected gradient ||P(y - g / (||J_R||_1 ||R||_2)) - y||_inf is <= gtol (a stationary
 *      point that is not a solution);
 *   2. Gauss–Newton phase (option newton): variables within eps = min(active_eps, pg) of a bound
 *      whose gradient points outward are moved onto it (Bertsekas' epsilon-active set); the
 *      others get the Levenberg–Marquardt step of the linearized residual with the shift
 *      mu D, mu = nu min(1, ||R||), D = diag(J_I^T J_I) (Marquardt's scaling): mu -> 0 with the
 *      residual, so the step becomes Newton's near a zero-residual solution, and nu (>= lm_mu)
 *      adapts like a trust radius.
 *      Monotone Armijo backtracking along the projection arc P(y + t d);
 *   3. otherwise (no descent direction, or no acceptable step) a spectral projected
 *      gradient step d = P(y - lambda g) - y with the Barzilai–Borwein length lambda, the
 *      nonmonotone Armijo reference of Grippo–Lampariello–Lucidi (largest of the last
 *      nonmonotone_memory merit values) and safeguarded quadratic backtracking
 *      (Birgin–Martínez–Raydan, SPG2).
 * Trial points where F cannot be evaluated count as points of no decrease. */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/boxmerit/box_merit_internal.h"

/* Spectral step-length safeguards of Birgin–Martínez–Raydan. */
#define BM_LAMBDA_MIN 1e-30
#define BM_LAMBDA_MAX 1e30
/* Largest Levenberg–Marquardt weight nu (the shift is nu min(1, ||R||) diag(J_I^T J_I)). */
#define BM_NU_MAX 1.0
/* When no step decreases f, the point counts as stationary (to rounding) if the scaled
   projected gradient is below this; otherwise the end is "stagnation". */
#define BM_STAGNATION_RATIO 1e-6
/* Floor of the Marquardt scaling, relative to the largest diagonal entry of J_I^T J_I. */
#define BM_DIAG_FLOOR 1e-8
/* Cholesky attempts with mu, 100 mu, ... when the reduced matrix is not numerically positive
   definite. */
#define BM_SHIFT_TRIES 6

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

static double clamp(double v, double lo, double up) { return fmin(up, fmax(lo, v)); }

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

/* F at the x part of y and the residual; *f = merit. Nonzero when F fails or anything is not
   finite. */
static int eval_point(bm_work *w, const double *y, double *F, double *R, double *f)
{
    ++w->nfev;
    if (w->p->F(w->p->ctx, y, F) != 0 || !cdyn_dense_all_finite(w->n, F))
        return 1;
    cdyn_bm_residual(&w->lay, y, F, R, NULL, NULL);
    *f = 0.5 * dot(w->m, R, R);
    return !isfinite(*f);
}

/* ||P(y - g / scale) - y||_inf (scale > 0). */
static double projected_gradient(const bm_work *w, double scale)
{
    double pg = 0.0;
    for (int i = 0; i < w->N; ++i)
        pg = fmax(pg, fabs(clamp(w->y[i] - w->g[i] / scale, w->lo[i], w->up[i]) - w->y[i]));
    return pg;
}

/* F'(x) into w->Jd (dense), J_R into w->JR and g = J_R^T R. CDYN_OK or CDYN_ENUMERIC. */
static cdyn_status linearize(bm_work *w)
{
    const int n = w->n;
    if (cdyn_mcp_jac_eval(w->p, w->o->jacobian_fd, &w->fd, w->y, w->F, &w->J, &w->nfev, &w->njev,
                          NULL) != CDYN_OK)
        return CDYN_ENUMERIC;
    if (w->J.sparse) {
        memset(w->Jd, 0, (size_t)n * (size_t)n * sizeof(double));
        for (int j = 0; j < n; ++j)
            for (int k = w->J.colptr[j]; k < w->J.colptr[j + 1]; ++k)
                w->Jd[w->J.rowind[k] + (size_t)j * n] = w->J.values[k];
    }
    cdyn_bm_residual(&w->lay, w->y, w->F, w->R, w->da, w->db);
    cdyn_bm_jacobian(&w->lay, w->y, w->Jd, w->da, w->db, w->JR);
    cdyn_dense_gemv_t(w->m, w->N, 1.0, w->JR, w->m, w->R, 0.0, w->g);
    return CDYN_OK;
}

/* Gauss–Newton / Levenberg–Marquardt direction into w->d (see the file comment). Returns 1 when
   d is a descent direction (g^T d < 0; the line search along the projection arc judges how
   good), else 0. */
static int newton_direction(bm_work *w, double pg)
{
    const int N = w->N, m = w->m;
    const double eps = fmin(w->o->active_eps, pg);
    /* Slack merit only: a product row (x_i - l_i) w_i has a vanishing gradient at a degenerate
       pair (both factors 0), where Gauss–Newton alone converges linearly and stalls at
       products ~ eps, i.e. factors ~ sqrt(eps). Variables within delta = sqrt(||R||_inf) of a
       bound are therefore put on it whatever the sign of their gradient (an identification
       radius in the spirit of Facchinei–Fischer–Kanzow: it shrinks slower than the distance to
       the solution, so near a solution it separates zero from nonzero components). The FB
       residual keeps a nonsingular generalized Jacobian at such points and does not need it. */
    const double delta = w->lay.kind == CDYN_BOX_MERIT_SLACK
                             ? fmin(w->o->active_eps, sqrt(cdyn_dense_norm_inf(m, w->R)))
                             : 0.0;
    int k = 0;
    for (int i = 0; i < N; ++i) {
        w->d[i] = 0.0;
        if (w->lo[i] == w->up[i])
            continue;
        const double dl = w->y[i] - w->lo[i], du = w->up[i] - w->y[i];
        if ((dl <= eps && w->g[i] > 0.0) || (dl > 0.0 && dl <= delta))
            w->d[i] = -dl;
        else if ((du <= eps && w->g[i] < 0.0) || (du > 0.0 && du <= delta))
            w->d[i] = du;
        else
            w->freeidx[k++] = i;
    }
    if (k > 0) {
        /* Free part: minimize ||R + J_A d_A + J_I d_I||^2 + mu ||d_I||^2, i.e.
           (J_I^T J_I + mu I) d_I = -J_I^T (R + J_A d_A). */
        memcpy(w->r1, w->R, (size_t)m * sizeof(double));
        cdyn_dense_gemv(m, N, 1.0, w->JR, m, w->d, 1.0, w->r1);
        cdyn_dense_gemv_t(m, N, -1.0, w->JR, m, w->r1, 0.0, w->v);
        cdyn_dense_gemm(1, 0, N, N, m, 1.0, w->JR, m, w->JR, m, 0.0, w->G, N);
        double scale = 0.0;
        for (int a = 0; a < k; ++a) {
            const int i = w->freeidx[a];
            scale = fmax(scale, w->G[i + (size_t)i * N]);
        }
        if (!(scale > 0.0) || !isfinite(scale))
            return 0; /* J_I = 0: the linearization says nothing about the free variables */
        /* Marquardt's scaling: mu D with D = diag(J_I^T J_I) (floored at 1e-8 of its largest
           entry so that a zero column still gets a shift) treats variables of very different
           scales alike - here x and the slacks, or a variable pinned against a product row. */
        double mu = w->nu * fmin(1.0, sqrt(2.0 * w->f));
        int factored = 0;
        for (int attempt = 0; attempt < BM_SHIFT_TRIES && !factored; ++attempt) {
            for (int b = 0; b < k; ++b) {
                const size_t jb = (size_t)w->freeidx[b];
                for (int a = b; a < k; ++a)
                    w->C[a + (size_t)b * k] = w->G[w->freeidx[a] + jb * N];
                w->C[b + (size_t)b * k] += mu * fmax(w->G[jb + jb * N], BM_DIAG_FLOOR * scale);
            }
            if (cdyn_dense_chol(k, w->C, k) == CDYN_OK)
                factored = 1;
            else
                mu = (mu > 0.0) ? 100.0 * mu : 1e-12;
        }
        if (!factored)
            return 0;
        for (int a = 0; a < k; ++a)
            w->rhs[a] = w->v[w->freeidx[a]];
        cdyn_dense_chol_solve(k, w->C, k, 1, w->rhs, k);
        for (int a = 0; a < k; ++a)
            w->d[w->freeidx[a]] = w->rhs[a];
    }
    if (!cdyn_dense_all_finite(N, w->d))
        return 0;
    return dot(N, w->g, w->d) < 0.0;
}

/* Backtracking along the projection arc y(t) = P(y + t d), t = 1, 1/2, ...; accepts
   f(y(t)) <= fref + sigma g^T (y(t) - y). Result in yt/Ft/Rt, merit in *ft. */
static int search_arc(bm_work *w, double fref, double *ft, int *trials, int *failed, int *full)
{
    const cdyn_box_merit_options *o = w->o;
    double t = 1.0;
    for (int k = 0; k <= o->max_backtracks; ++k, t *= 0.5) {
        *full = k == 0;
        double gdt = 0.0;
        int moved = 0;
        for (int i = 0; i < w->N; ++i) {
            w->yt[i] = clamp(w->y[i] + t * w->d[i], w->lo[i], w->up[i]);
            gdt += w->g[i] * (w->yt[i] - w->y[i]);
            moved |= w->yt[i] != w->y[i];
        }
        if (!moved)
            return 0;
        if (!(gdt < 0.0))
            continue; /* the projection bent the step uphill; a shorter one bends less */
        ++*trials;
        if (eval_point(w, w->yt, w->Ft, w->Rt, ft)) {
            ++*failed;
            continue;
        }
        if (*ft <= fref + o->armijo_sigma * gdt)
            return 1;
    }
    return 0;
}

/* Spectral projected gradient step (SPG2 of Birgin–Martínez–Raydan): d = P(y - lambda g) - y is
   feasible, so y + t d stays in the box for t in [0, 1]; t shrinks by safeguarded quadratic
   interpolation. */
static int search_spg(bm_work *w, double lambda, double fref, double *ft, int *trials, int *failed)
{
    const cdyn_box_merit_options *o = w->o;
    const int N = w->N;
    for (int i = 0; i < N; ++i)
        w->d[i] = clamp(w->y[i] - lambda * w->g[i], w->lo[i], w->up[i]) - w->y[i];
    const double gd = dot(N, w->g, w->d);
    if (!(gd < 0.0))
        return 0;
    double t = 1.0;
    for (int k = 0; k <= o->max_backtracks; ++k) {
        for (int i = 0; i < N; ++i)
            w->yt[i] = clamp(w->y[i] + t * w->d[i], w->lo[i], w->up[i]);
        ++*trials;
        if (eval_point(w, w->yt, w->Ft, w->Rt, ft)) {
            ++*failed;
            t *= 0.5;
            continue;
        }
        if (*ft <= fref + o->armijo_sigma * t * gd)
            return 1;
        /* Minimizer of the quadratic through f(y), slope gd and f(y + t d); the denominator is
           positive because the Armijo test failed and fref >= f. */
        const double tq = 0.5 * t * t * (-gd) / (*ft - w->f - t * gd);
        t = (tq >= 0.1 * t && tq <= 0.5 * t) ? tq : 0.5 * t;
    }
    return 0;
}

static void fill(const bm_work *w, cdyn_report *r, int it, double nat)
{
    if (r != NULL) {
        r->iterations = it;
        r->evaluations = w->nfev + w->njev;
        r->residual = nat;
    }
}

cdyn_status cdyn_bm_iterate(bm_work *w, cdyn_report *r)
{
    const cdyn_box_merit_options *o = w->o;
    const int n = w->n, N = w->N, M = o->nonmonotone_memory;
    ++w->nfev;
    if (w->p->F(w->p->ctx, w->y, w->F) != 0 || !cdyn_dense_all_finite(n, w->F)) {
        fill(w, r, 0, NAN);
        return cdyn_fail(r, CDYN_EINVAL,
                         "F failed or returned NaN/Inf at the starting point (projected onto the "
                         "box)");
    }
    cdyn_bm_init_slacks(&w->lay, w->F, w->y);
    cdyn_bm_residual(&w->lay, w->y, w->F, w->R, NULL, NULL);
    w->f = 0.5 * dot(w->m, w->R, w->R);
    if (!isfinite(w->f)) {
        fill(w, r, 0, NAN);
        return cdyn_fail(r, CDYN_EINVAL, "the merit function overflows at the starting point");
    }
    double nat = cdyn_mcp_natural_residual(n, w->l, w->u, w->y, w->F);
    w->nu = o->lm_mu;
    w->hist[0] = w->f;
    for (int k = 1; k < M; ++k)
        w->hist[k] = -INFINITY;

    for (int it = 0;; ++it) {
        fill(w, r, it, nat);
        if (nat <= o->tol)
            return CDYN_OK;
        if (it >= o->max_iter)
            return cdyn_fail(r, CDYN_ENOCONV,
                             "iteration limit (%d) reached; natural residual %.3g > tol %.3g, "
                             "merit %.3g",
                             o->max_iter, nat, o->tol, w->f);
        if (linearize(w) != CDYN_OK) {
            if (it == 0)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "Jacobian evaluation failed or returned NaN/Inf at the starting "
                                 "point");
            return cdyn_fail(r, CDYN_ENUMERIC,
                             "Jacobian evaluation failed or returned NaN/Inf at iteration %d", it);
        }
        /* Stationarity: the projected gradient of g / gscale, with gscale = ||J_R||_1 ||R||_2
           the largest g = J_R^T R could be at this residual. At a solution with a
           well-conditioned J_R the scaled gradient stays near 1/cond(J_R); at a stationary
           point that is not a solution it tends to 0 (to rounding). Scaling before projecting
           matters: the plain ||P(y - g) - y|| is capped by the distance to the bounds, which
           says nothing about stationarity when g is large. */
        const double pg = projected_gradient(w, 1.0);
        const double gscale = cdyn_dense_norm1(w->m, N, w->JR, w->m) * sqrt(2.0 * w->f);
        const double pgrel = gscale > 0.0 ? projected_gradient(w, gscale) : 0.0;
        if (pgrel <= o->gtol)
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stationary point of the merit function that is not a solution "
                             "(merit %.3g, scaled projected gradient %.3g, natural residual %.3g)",
                             w->f, pgrel, nat);

        /* Barzilai–Borwein length from the last step s and the gradient change. */
        double lambda = 1.0 / pg;
        if (it > 0) {
            double ss = 0.0, sz = 0.0;
            for (int i = 0; i < N; ++i) {
                ss += w->s[i] * w->s[i];
                sz += w->s[i] * (w->g[i] - w->gprev[i]);
            }
            if (sz > 0.0)
                lambda = ss / sz;
        }
        lambda = clamp(lambda, BM_LAMBDA_MIN, BM_LAMBDA_MAX);

        double fref = w->hist[0];
        for (int k = 1; k < M; ++k)
            fref = fmax(fref, w->hist[k]);
        double ft = 0.0;
        int trials = 0, failed = 0, ok = 0;
        if (o->newton && newton_direction(w, pg)) {
            int full = 0;
            ok = search_arc(w, w->f, &ft, &trials, &failed, &full);
            /* Adapt the Levenberg–Marquardt weight like a trust radius: a full step lets it
               fall back towards lm_mu (Newton-like), a shortened or failed one raises it (a
               shorter, more gradient-like step next time). */
            w->nu = (ok && full) ? fmax(o->lm_mu, 0.1 * w->nu) : fmin(BM_NU_MAX, 10.0 * w->nu);
        }
        if (!ok)
            ok = search_spg(w, lambda, fref, &ft, &trials, &failed);
        if (!ok) {
            if (trials > 0 && failed == trials)
                return cdyn_fail(r, CDYN_ENUMERIC,
                                 "F failed or returned NaN/Inf (or the merit overflowed) at all %d "
                                 "line-search trial points of iteration %d",
                                 trials, it);
            if (pgrel <= BM_STAGNATION_RATIO)
                return cdyn_fail(r, CDYN_ENOCONV,
                                 "stationary point of the merit function that is not a solution "
                                 "(to rounding: no decrease possible at iteration %d; merit "
                                 "%.3g, scaled projected gradient %.3g, natural residual %.3g)",
                                 it, w->f, pgrel, nat);
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stagnation: no sufficient decrease along the Gauss-Newton or the "
                             "projected-gradient direction at iteration %d (merit %.3g, "
                             "scaled projected gradient %.3g, natural residual %.3g)",
                             it, w->f, pgrel, nat);
        }
        for (int i = 0; i < N; ++i)
            w->s[i] = w->yt[i] - w->y[i];
        swap(&w->g, &w->gprev);
        swap(&w->y, &w->yt);
        swap(&w->F, &w->Ft);
        swap(&w->R, &w->Rt);
        w->f = ft;
        w->hist[(it + 1) % M] = ft;
        nat = cdyn_mcp_natural_residual(n, w->l, w->u, w->y, w->F);
    }
}
