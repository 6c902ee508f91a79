/* Friction-cone QP: primal-dual interior-point iteration with Nesterov-Todd scaling and
 * Mehrotra's predictor-corrector (the coneqp scheme of Vandenberghe's CVXOPT notes, specialized
 * to a block-diagonal G and a primal-feasible start). docs/theory.md has the equations;
 * the comments name them.
 *
 * Primal iterates stay feasible by construction: s = h - G x is recomputed from x, so the only
 * residual driven to zero is the dual one, r_x = H x + c + G'z, and the gap s'z. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "solvers/coneqp/coneqp_internal.h"

#define LD CDYN_SOC_MAX

/* Wide neighborhood of the central path kept by the step (docs/theory.md section 5): every
 * cone's lambda_min^2 at least CQ_GAMMA times the mean gap per cone, the step shortened by
 * CQ_BACKTRACK until it holds. */
#define CQ_GAMMA 0.01
#define CQ_BACKTRACK 0.8

/* s_i := h_i - G_i x_i for every cone (BALL: s_0 = r). */
static void primal_slack(const cdyn_coneqp_solver *w, const double *x, double *s)
{
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        cdyn_cq_cone_from_x(c, x, s + c->co);
        if (c->kind == CQ_BALL)
            s[c->co] = c->r;
    }
}

static int all_interior(const cdyn_coneqp_solver *w, const double *v)
{
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m > 0 && !cdyn_soc_interior(c->m, v + c->co))
            return 0;
    }
    return 1;
}

void cdyn_cq_dual_vector(const cdyn_coneqp_solver *w, const double *hx, double *u)
{
    memset(u, 0, sizeof(double) * (size_t)w->n);
    for (int i = 0; i < w->nc; ++i)
        if (w->ct[i].m > 0)
            cdyn_cq_x_add_cone(&w->ct[i], w->z + w->ct[i].co, u);
    for (int j = 0; j < w->n; ++j)
        if (w->fixed[j])
            u[j] = hx[j] + w->p->c[j];
}

/* blk_i := G_i' W_i^{-2} G_i on contact i's variables, or G_i'G_i when identity != 0 (the
 * starting-point system). */
static void set_blocks(cdyn_coneqp_solver *w, int identity)
{
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        double *B = w->blk + 9 * i;
        memset(B, 0, 9 * sizeof(double));
        if (c->m == 0)
            continue;
        double W2[9] = {0};
        const double *Wi = w->Winv + 9 * i;
        for (int b = 0; b < c->m; ++b)
            for (int a = 0; a < c->m; ++a) {
                double t = 0.0;
                if (identity)
                    t = a == b;
                else
                    for (int k = 0; k < c->m; ++k)
                        t += Wi[a + LD * k] * Wi[k + LD * b];
                W2[a + LD * b] = t;
            }
        if (c->kind == CQ_BALL) { /* G_i = [0; -I]: the trailing block */
            for (int b = 1; b < c->m; ++b)
                for (int a = 1; a < c->m; ++a)
                    B[(a - 1) + 3 * (b - 1)] = W2[a + LD * b];
        } else { /* G_i = -diag(a, 1, 1) (RAY: -1 on x_n only) */
            for (int b = 0; b < c->m; ++b)
                for (int a = 0; a < c->m; ++a)
                    B[a + 3 * b] = (a == 0 ? c->a : 1.0) * W2[a + LD * b] * (b == 0 ? c->a : 1.0);
        }
    }
}

/* Factor the Newton matrix; when it is not numerically positive definite (an IPM's scaling
 * spans many orders of magnitude near the end), retry with a diagonal shift relative to its
 * largest diagonal entry. *shift receives the shift used. */
cdyn_status cdyn_cq_factor(cdyn_coneqp_solver *w, double *shift, cdyn_report *r)
{
    *shift = 0.0;
    cdyn_status st = cdyn_cq_kkt_factor(w, 0.0, r);
    if (st != CDYN_ESINGULAR)
        return st;
    double dmax = w->hdiag;
    for (int i = 0; i < w->nc; ++i)
        for (int a = 0; a < w->ct[i].nv; ++a)
            dmax = fmax(dmax, w->blk[9 * i + 4 * a]);
    dmax = fmax(dmax, DBL_MIN);
    for (double rel = 1e-13; rel <= 1e-7; rel *= 100.0) {
        *shift = rel * dmax;
        st = cdyn_cq_kkt_factor(w, *shift, r);
        if (st != CDYN_ESINGULAR)
            return st;
    }
    return cdyn_fail(r, CDYN_ENUMERIC,
                     "the Newton matrix is not positive definite, even shifted by %.3g", *shift);
}

/* out := K v with the unshifted Newton matrix (for iterative refinement). */
static void apply_k(const cdyn_coneqp_solver *w, const double *v, double *out)
{
    cdyn_cq_hmul(w->p, w->n, v, out);
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        const double *B = w->blk + 9 * i;
        for (int a = 0; a < c->nv; ++a)
            for (int b = 0; b < c->nv; ++b)
                out[c->vo + a] += B[a + 3 * b] * v[c->vo + b];
    }
    for (int j = 0; j < w->n; ++j)
        if (w->fixed[j])
            out[j] = w->fixdiag * v[j];
}

/* sol := K^{-1} rhs; with a shifted factor, two steps of iterative refinement against the
 * unshifted K recover the accuracy the shift cost. */
cdyn_status cdyn_cq_newton_solve(cdyn_coneqp_solver *w, double shift, const double *rhs,
                                 double *sol, cdyn_report *r)
{
    const size_t n = (size_t)w->n;
    memcpy(sol, rhs, n * sizeof(double));
    cdyn_status st = cdyn_cq_kkt_solve(w, sol, r);
    for (int it = 0; st == CDYN_OK && shift > 0.0 && it < 2; ++it) {
        apply_k(w, sol, w->res);
        for (size_t j = 0; j < n; ++j)
            w->res[j] = rhs[j] - w->res[j];
        st = cdyn_cq_kkt_solve(w, w->res, r);
        for (size_t j = 0; j < n && st == CDYN_OK; ++j)
            sol[j] += w->res[j];
    }
    return st;
}

/* rhs := -r_x - G'W^{-1} v for the cone vector v (= lambda <> b_s): the reduced right-hand
 * side of the Newton system (docs/theory.md section 4). */
static void reduced_rhs(cdyn_coneqp_solver *w, const double *v)
{
    for (int j = 0; j < w->n; ++j)
        w->rhs[j] = w->fixed[j] ? 0.0 : -w->rx[j];
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        double t[LD];
        cdyn_soc_matvec(c->m, w->Winv + 9 * i, v + c->co, t);
        cdyn_cq_x_add_cone(c, t, w->rhs); /* -G'(W^{-1} v) */
    }
}

/* Scaled steps from dx: ds~ = W^{-1}(-G dx), dz~ = v - ds~ (v = lambda <> b_s). */
static void scaled_steps(cdyn_coneqp_solver *w, const double *v, double *ds, double *dz)
{
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        double g[LD];
        cdyn_cq_cone_from_x(c, w->dx, g);
        cdyn_soc_matvec(c->m, w->Winv + 9 * i, g, ds + c->co);
        for (int k = 0; k < c->m; ++k)
            dz[c->co + k] = v[c->co + k] - ds[c->co + k];
    }
}

/* One Newton direction for the cone vector v = lambda <> b_s: dx from the reduced system, then
 * the scaled steps ds~, dz~. (Refining dx against the unreduced first block row did not change
 * iterations or attained accuracy on the test and benchmark problems; refinement is kept for
 * shifted factorizations only, in cdyn_cq_newton_solve.) */
static cdyn_status newton_step(cdyn_coneqp_solver *w, double shift, const double *v, double *ds,
                               double *dz, cdyn_report *r)
{
    reduced_rhs(w, v);
    const cdyn_status st = cdyn_cq_newton_solve(w, shift, w->rhs, w->dx, r);
    if (st == CDYN_OK)
        scaled_steps(w, v, ds, dz);
    return st;
}

/* Largest alpha with lambda + alpha ds, lambda + alpha dz in Q (scaled space). */
static double max_step(const cdyn_coneqp_solver *w, const double *ds, const double *dz)
{
    double a = INFINITY;
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        a = fmin(a, cdyn_soc_max_step(c->m, w->lam + c->co, ds + c->co));
        a = fmin(a, cdyn_soc_max_step(c->m, w->lam + c->co, dz + c->co));
    }
    return a;
}

static double cone_dot(const cdyn_coneqp_solver *w, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < w->nc; ++i)
        for (int k = 0; k < w->ct[i].m; ++k)
            s += a[w->ct[i].co + k] * b[w->ct[i].co + k];
    return s;
}

/* Starting point: the least-squares point of the W = I system, (H + G'G) x = -c, z = -s, then
 * shifted into the cones (CVXOPT's rule, per variant: full cones by raising x_n, disks by
 * pulling x_t to within half the radius). */
static cdyn_status start(cdyn_coneqp_solver *w, cdyn_report *r)
{
    const int n = w->n;
    set_blocks(w, 1);
    double shift;
    cdyn_status st = cdyn_cq_factor(w, &shift, r);
    if (st != CDYN_OK)
        return st;
    for (int j = 0; j < n; ++j)
        w->rx[j] = w->fixed[j] ? 0.0 : -w->p->c[j];
    st = cdyn_cq_newton_solve(w, shift, w->rx, w->x, r);
    if (st != CDYN_OK)
        return st;
    primal_slack(w, w->x, w->s);
    double tp = -INFINITY, td = -INFINITY, snorm = 1.0, znorm = 1.0;
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        double *s = w->s + c->co, *z = w->z + c->co;
        for (int k = 0; k < c->m; ++k)
            z[k] = -s[k];
        if (c->kind == CQ_BALL)
            z[0] = 0.0; /* -s_0 = -r would only measure the radius */
        const double t1 = c->m > 1 ? hypot(s[1], c->m > 2 ? s[2] : 0.0) : 0.0;
        if (c->kind != CQ_BALL) {
            tp = fmax(tp, t1 - s[0]);
            snorm = fmax(snorm, fmax(fabs(s[0]), t1));
        } else if (t1 > 0.5 * c->r) {
            for (int k = 0; k < c->nv; ++k)
                w->x[c->vo + k] *= 0.5 * c->r / t1;
        }
        td = fmax(td, t1 - z[0]);
        znorm = fmax(znorm, fmax(fabs(z[0]), t1));
    }
    if (tp >= -1e-8 * snorm)
        for (int i = 0; i < w->nc; ++i) {
            const cq_contact *c = &w->ct[i];
            if (c->m > 0 && c->kind != CQ_BALL)
                w->x[c->vo] += (1.0 + tp) / c->a;
        }
    if (td >= -1e-8 * znorm)
        for (int i = 0; i < w->nc; ++i)
            if (w->ct[i].m > 0)
                w->z[w->ct[i].co] += 1.0 + td;
    primal_slack(w, w->x, w->s);
    if (!all_interior(w, w->s) || !all_interior(w, w->z))
        return cdyn_fail(r, CDYN_ENUMERIC, "could not place the starting point inside the cones");
    return CDYN_OK;
}

/* Centrality of (s, z): min over cones of lambda_min^2 (the NT point's smallest eigenvalue,
 * squared) divided by the mean gap per cone s'z / #cones; 1 on the central path, 0 when a cone
 * reaches its boundary. */
static double centrality(const cdyn_coneqp_solver *w, const double *s, const double *z)
{
    const double gap = cone_dot(w, s, z);
    if (!(gap > 0.0))
        return 0.0;
    double lmin = INFINITY;
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m > 0)
            lmin = fmin(lmin, cdyn_soc_lambda_min_sq(c->m, s + c->co, z + c->co));
    }
    return lmin / (gap / w->ncones);
}

/* The trial point xt, zt, st = x, z, s after a step alpha along dx and W^{-1} dz~. */
static void trial_point(cdyn_coneqp_solver *w, double alpha)
{
    for (int j = 0; j < w->n; ++j)
        w->xt[j] = w->x[j] + alpha * w->dx[j];
    for (int i = 0; i < w->nc; ++i) {
        const cq_contact *c = &w->ct[i];
        if (c->m == 0)
            continue;
        double dz[LD];
        cdyn_soc_matvec(c->m, w->Winv + 9 * i, w->dz + c->co, dz);
        for (int a = 0; a < c->m; ++a)
            w->zt[c->co + a] = w->z[c->co + a] + alpha * dz[a];
    }
    primal_slack(w, w->xt, w->st);
}

static void swap(double **a, double **b)
{
    double *t = *a;
    *a = *b;
    *b = t;
}

cdyn_status cdyn_cq_ipm(cdyn_coneqp_solver *w, int *iters, cdyn_report *r)
{
    const cdyn_coneqp *p = w->p;
    const cdyn_coneqp_options *o = &w->opts;
    const int n = w->n;
    *iters = 0;
    if (w->ncones == 0) { /* every variable is fixed at 0 */
        memset(w->x, 0, sizeof(double) * (size_t)n);
        return CDYN_OK;
    }
    cdyn_status st = start(w, r);
    if (st != CDYN_OK)
        return st;

    int stalled = 0;
    for (int k = 0;; ++k) {
        *iters = k;
        /* Residuals at the current iterate. */
        cdyn_cq_hmul(p, n, w->x, w->hx);
        cdyn_cq_dual_vector(w, w->hx, w->res);
        /* Scale of the dual residual: the largest term in H x + c - u, including max|H_ij|
         * ||x||_inf, the size of the terms whose sum H x may cancel (its rounding floor). */
        double dres = 0.0, uscale = w->cmax, xhx = 0.0, cx = 0.0, xx = 0.0;
        for (int j = 0; j < n; ++j) {
            w->rx[j] = w->fixed[j] ? 0.0 : w->hx[j] + p->c[j] - w->res[j];
            dres = fmax(dres, fabs(w->rx[j]));
            uscale = fmax(uscale, fmax(fabs(w->hx[j]), fabs(w->res[j])));
            uscale = fmax(uscale, w->hmax * fabs(w->x[j]));
            xhx += w->x[j] * w->hx[j];
            cx += p->c[j] * w->x[j];
            xx += w->x[j] * w->x[j];
        }
        const double gap = cone_dot(w, w->s, w->z);
        double hz = 0.0;
        for (int i = 0; i < w->nc; ++i)
            if (w->ct[i].kind == CQ_BALL)
                hz += w->ct[i].r * w->z[w->ct[i].co];
        const double pobj = 0.5 * xhx + cx, dobj = -0.5 * xhx - hz;
        if (!isfinite(dres) || !isfinite(gap) || !isfinite(pobj))
            return cdyn_fail(r, CDYN_ENUMERIC, "NaN or Inf in the iterate (iteration %d)", k);
        if (dres <= o->tol_abs + o->tol_rel * uscale &&
            gap <= o->tol_abs + o->tol_rel * fmax(fabs(pobj), fabs(dobj)))
            return CDYN_OK;
        /* x in int K with x'Hx negligible and c'x < 0: the ray t x is (numerically) a
         * recession direction along which the objective falls without bound. */
        if (!w->disk && cx < -1e-9 * w->cmax * sqrt(xx) &&
            cx * cx * w->hmax >= 2e12 * w->cmax * w->cmax * fmax(xhx, 0.0))
            return cdyn_fail(r, CDYN_EUNBOUNDED,
                             "unbounded: x in the cone with c'x = %.3g and x'Hx = %.3g (||x|| = "
                             "%.3g): H is singular along a cone direction where c'x < 0",
                             cx, xhx, sqrt(xx));
        if (k >= o->max_iter)
            return cdyn_fail(r, CDYN_ENOCONV,
                             "iteration limit %d: dual residual %.3g, gap %.3g, ||x|| = %.3g%s",
                             o->max_iter, dres, gap, sqrt(xx),
                             xx > 1e20 ? " (x grows: the problem may be unbounded)" : "");
        if (stalled >= 3)
            return cdyn_fail(r, CDYN_ENOCONV,
                             "stalled (step lengths below 1e-10): dual residual %.3g, gap %.3g",
                             dres, gap);

        /* Nesterov-Todd scaling of every cone and the Newton matrix H + G'W^{-2}G. */
        for (int i = 0; i < w->nc; ++i) {
            const cq_contact *c = &w->ct[i];
            if (c->m > 0 && cdyn_soc_nt(c->m, w->s + c->co, w->z + c->co, w->W + 9 * i,
                                        w->Winv + 9 * i, w->lam + c->co) != 0)
                return cdyn_fail(r, CDYN_ENUMERIC, "iterate left the cone interior (contact %d)",
                                 i);
        }
        set_blocks(w, 0);
        double shift;
        if ((st = cdyn_cq_factor(w, &shift, r)) != CDYN_OK)
            return st;

        /* Predictor (affine) step: lambda <> b_s = -lambda. */
        for (int j = 0; j < w->mcap; ++j)
            w->tm[j] = -w->lam[j];
        if ((st = newton_step(w, shift, w->tm, w->dsa, w->dza, r)) != CDYN_OK)
            return st;
        const double aa = fmin(1.0, max_step(w, w->dsa, w->dza));
        const double ratio = 1.0 - aa + aa * aa * cone_dot(w, w->dsa, w->dza) / gap;
        const double sigma = pow(fmin(1.0, fmax(0.0, ratio)), 3.0);
        const double mu_c = gap / w->ncones;

        /* Corrector: lambda <> b_s = -lambda + lambda <> (sigma mu e - ds_a o dz_a). */
        for (int i = 0; i < w->nc; ++i) {
            const cq_contact *c = &w->ct[i];
            if (c->m == 0)
                continue;
            double q[LD], t[LD];
            cdyn_soc_prod(c->m, w->dsa + c->co, w->dza + c->co, q);
            for (int a = 0; a < c->m; ++a)
                q[a] = (a == 0 ? sigma * mu_c : 0.0) - q[a];
            cdyn_soc_div(c->m, w->lam + c->co, q, t);
            for (int a = 0; a < c->m; ++a)
                w->tm[c->co + a] = -w->lam[c->co + a] + t[a];
        }
        if ((st = newton_step(w, shift, w->tm, w->ds, w->dz, r)) != CDYN_OK)
            return st;
        double alpha = fmin(1.0, o->step_fraction * max_step(w, w->ds, w->dz));

        /* Update x and z; s follows from x. The step is shortened until the trial point is
         * inside the cones (rounding can put it on the boundary: halve) and inside the wide
         * neighborhood of the central path (CQ_BACKTRACK); an iterate already outside it
         * (the start) only has to keep half its centrality. Without the neighborhood,
         * Mehrotra's steps can cycle: on QPs the gap changes by alpha^2 dx'H dx besides
         * the linear decrease, and a sticking contact whose x_t sits on the boundary of its
         * cone, with u_t = H_tt x_t parallel to x_t (u_t -> 0 at the solution), was carried
         * to the mirror point -x_t and back, the gap halving and doubling forever
         * (tests/test_coneqp.c, test_cone_mehrotra_cycle). */
        const double need = fmin(CQ_GAMMA, 0.5 * centrality(w, w->s, w->z));
        for (int tries = 0;; ++tries) {
            trial_point(w, alpha);
            const int inside = all_interior(w, w->st) && all_interior(w, w->zt);
            if (inside && (centrality(w, w->st, w->zt) >= need || tries >= 60))
                break; /* after 60 tries: a tiny interior step (the stall test decides) */
            if (tries >= 60)
                return cdyn_fail(r, CDYN_ENUMERIC, "no step keeps the iterate inside the cones");
            alpha *= inside ? CQ_BACKTRACK : 0.5;
        }
        stalled = alpha < 1e-10 ? stalled + 1 : 0;
        swap(&w->x, &w->xt);
        swap(&w->z, &w->zt);
        swap(&w->s, &w->st);
    }
}
