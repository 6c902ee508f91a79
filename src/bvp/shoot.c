/* cdyn_bvp_shoot: single shooting on the free start components. Each iterate is the IVP from
 * x_0 = (fixed values, s) together with its exact sensitivities dx_N/ds, both from
 * cdyn_bvp_solve on the problem whose start is fixed entirely (its IVP guess is already its
 * solution; the sensitivities are the implicit function theorem on the converged trajectory).
 * Newton's method on the end conditions G(s) = x_N[fixed] - value_N, projected on the start
 * bounds and damped by halving until |G| decreases. */
#include "cdyn/bvp.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

void cdyn_bvp_state_unpack(const cdyn_model *m, const double *x, cdyn_state *s)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m);
    const int nd = cdyn_model_dim(m) == 2 ? 2 : 3;
    memcpy(s->q, x, (size_t)nq * sizeof(double));
    memcpy(s->v, x + nq, (size_t)nv * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int d = 0; d < 3; d++)
            s->delta[3 * i + d] = d < nd ? x[nq + nv + i * nd + d] : 0.0;
}

typedef struct shoot_ws {
    const cdyn_model *m;
    const cdyn_bvp_options *opts;
    const cdyn_bvp_conditions *bc;
    cdyn_state **traj;
    int nx, N, nfree, nend;
    int *free_idx, *end_idx, *all_fixed;
    double *x0, *xe, *sens, *G, *J;
    cdyn_bvp_report inner;
} shoot_ws;

/* The IVP from the start with free components s: the trajectory into w->traj, G (nend) and, when
 * J is not NULL, dG/ds (nend x nfree, column-major). */
static cdyn_status shoot_eval(shoot_ws *w, const double *s, double *G, double *J, int *iters)
{
    const int nx = w->nx, N = w->N;
    memcpy(w->x0, w->bc->value0, (size_t)nx * sizeof(double));
    for (int k = 0; k < w->nfree; k++)
        w->x0[w->free_idx[k]] = s[k];
    /* q, v, delta from x_0; traj[0]'s lambda stays, the first step's warm start */
    cdyn_bvp_state_unpack(w->m, w->x0, w->traj[0]);
    cdyn_bvp_conditions c;
    memset(&c, 0, sizeof c);
    c.fixed0 = w->all_fixed;
    c.value0 = w->x0;
    cdyn_bvp_options o = *w->opts;
    o.use_guess = 0;
    o.grid_continuation = 0;
    o.nsens = J != NULL ? w->nfree : 0;
    o.sens_which = w->free_idx;
    o.sens = w->sens;
    cdyn_status st = cdyn_bvp_solve(w->m, &o, &c, w->traj, &w->inner);
    *iters += w->inner.solver.iterations + w->inner.guess_iterations;
    if (st != CDYN_OK)
        return st;
    cdyn_bvp_state_pack(w->m, w->traj[N], w->xe);
    for (int r = 0; r < w->nend; r++)
        G[r] = w->xe[w->end_idx[r]] - w->bc->valueN[w->end_idx[r]];
    if (J != NULL)
        for (int k = 0; k < w->nfree; k++)
            for (int r = 0; r < w->nend; r++)
                J[r + (size_t)k * w->nend] =
                    w->sens[((size_t)k * (N + 1) + N) * nx + w->end_idx[r]];
    return CDYN_OK;
}

static double norm_inf(int n, const double *x)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* s + t d projected on the bounds of the free components into out. */
static void project(const shoot_ws *w, const double *s, const double *d, double t, double *out)
{
    for (int k = 0; k < w->nfree; k++) {
        const int i = w->free_idx[k];
        double v = s[k] + t * d[k];
        if (w->bc->lower0 != NULL && v < w->bc->lower0[i])
            v = w->bc->lower0[i];
        if (w->bc->upper0 != NULL && v > w->bc->upper0[i])
            v = w->bc->upper0[i];
        out[k] = v;
    }
}

cdyn_status cdyn_bvp_shoot(const cdyn_model *m, const cdyn_bvp_options *opts,
                           const cdyn_bvp_conditions *bc, cdyn_state **traj,
                           cdyn_bvp_report *report)
{
    cdyn_bvp_report local;
    cdyn_bvp_report *rep = report != NULL ? report : &local;
    memset(rep, 0, sizeof *rep);
    cdyn_report *r = &rep->solver;
    cdyn_report_clear(r, "bvp-shooting");
    if (m == NULL || opts == NULL || bc == NULL || traj == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: NULL model, options, conditions or "
                         "trajectory");
    if (bc->nuser != 0)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: user rows are not supported (use "
                         "cdyn_bvp_solve)");
    if (bc->value0 == NULL || bc->fixed0 == NULL || bc->fixedN == NULL || bc->valueN == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: fixed0, value0, fixedN and valueN are "
                         "required");
    if (opts->N < 1)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: N = %d steps, need N >= 1", opts->N);
    const int nx = cdyn_bvp_state_size(m), N = opts->N;
    int nfree = 0, nend = 0;
    for (int i = 0; i < nx; i++) {
        nfree += !bc->fixed0[i];
        nend += bc->fixedN[i] != 0;
    }
    if (nfree != nend)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: %d free start components for %d end "
                         "conditions (they must match)", nfree, nend);
    for (int i = 0; i < nx; i++)
        if ((bc->fixed0[i] && !isfinite(bc->value0[i])) ||
            (bc->fixedN[i] && !isfinite(bc->valueN[i])))
            return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: a fixed value is NaN or Inf "
                             "(component %d)", i);
    const cdyn_allocator *a = opts->step.allocator;
    shoot_ws w;
    memset(&w, 0, sizeof w);
    w.m = m, w.opts = opts, w.bc = bc, w.traj = traj;
    w.nx = nx, w.N = N, w.nfree = nfree, w.nend = nend;
    const size_t nints = 3 * (size_t)nx + 2 * (size_t)nfree + 8;
    const size_t ndbl = 2 * (size_t)nx + (size_t)nfree * (N + 1) * nx + (size_t)nend +
                        (size_t)nend * nfree + 5 * (size_t)nfree + 8;
    int *ip = cdyn_mem_array(a, nints, sizeof(int));
    double *dp = cdyn_mem_array(a, ndbl, sizeof(double));
    if (ip == NULL || dp == NULL) {
        cdyn_mem_free(a, ip);
        cdyn_mem_free(a, dp);
        return cdyn_fail(r, CDYN_ENOMEM, "bvp shooting: out of memory");
    }
    w.free_idx = ip, w.end_idx = ip + nfree, w.all_fixed = ip + 2 * nfree;
    int *ipiv = w.all_fixed + nx;
    for (int i = 0, f = 0, e = 0; i < nx; i++) {
        w.all_fixed[i] = 1;
        if (!bc->fixed0[i])
            w.free_idx[f++] = i;
        if (bc->fixedN[i])
            w.end_idx[e++] = i;
    }
    w.x0 = dp;
    w.xe = w.x0 + nx;
    w.sens = w.xe + nx;
    w.G = w.sens + (size_t)nfree * (N + 1) * nx;
    w.J = w.G + nend;
    double *s = w.J + (size_t)nend * nfree, *d = s + nfree, *trial = d + nfree;
    double *Gt = trial + nfree, *best = Gt + nfree;

    /* the start: traj[0]'s free components, projected on the bounds */
    cdyn_bvp_state_pack(m, traj[0], w.x0);
    for (int k = 0; k < nfree; k++)
        s[k] = w.x0[w.free_idx[k]];
    memset(d, 0, (size_t)nfree * sizeof(double));
    project(&w, s, d, 0.0, s);
    const double tol = opts->step.mcp.tol > 0 ? opts->step.mcp.tol : 1e-10;
    const double scale = fmax(1.0, norm_inf(nx, bc->valueN));
    int iters = 0, newton = 0;
    cdyn_status st = shoot_eval(&w, s, w.G, w.J, &iters);
    double g = st == CDYN_OK ? norm_inf(nend, w.G) : INFINITY;
    memcpy(best, s, (size_t)nfree * sizeof(double));
    const int max_newton = 50;
    while (st == CDYN_OK && g > tol * scale && newton < max_newton) {
        newton++;
        /* Newton direction: J d = -G (LU; a singular J ends the iteration) */
        for (int k = 0; k < nend; k++)
            d[k] = -w.G[k];
        if (cdyn_dense_lu(nend, w.J, nend, ipiv) != CDYN_OK) {
            st = cdyn_fail(r, CDYN_ESINGULAR, "bvp shooting: the end conditions do not depend "
                           "on the free start components (singular sensitivity, iteration %d)",
                           newton);
            break;
        }
        cdyn_dense_lu_solve(0, nend, w.J, nend, ipiv, 1, d, nend);
        double t = 1.0, gt = INFINITY;
        cdyn_status sa = CDYN_ENOCONV;
        for (int half = 0; half < 30; half++, t *= 0.5) {
            project(&w, s, d, t, trial);
            sa = shoot_eval(&w, trial, Gt, NULL, &iters);
            gt = sa == CDYN_OK ? norm_inf(nend, Gt) : INFINITY;
            if (gt < (1 - 1e-4 * t) * g)
                break;
        }
        if (!(gt < g)) {
            /* no decrease along the projected direction: at a bound, no solution inside */
            int at_bound = 0;
            for (int k = 0; k < nfree; k++) {
                const int i = w.free_idx[k];
                at_bound |= (bc->lower0 != NULL && s[k] <= bc->lower0[i]) ||
                            (bc->upper0 != NULL && s[k] >= bc->upper0[i]);
            }
            st = at_bound ? cdyn_fail(r, CDYN_ENOSOLUTION, "bvp shooting: stalled at a start "
                                      "bound with the end conditions missed by %.3g", g)
                          : cdyn_fail(r, CDYN_ENOCONV, "bvp shooting: no decrease of the end "
                                      "miss %.3g at iteration %d", g, newton);
            break;
        }
        memcpy(s, trial, (size_t)nfree * sizeof(double));
        st = shoot_eval(&w, s, w.G, w.J, &iters);
        g = st == CDYN_OK ? norm_inf(nend, w.G) : INFINITY;
    }
    if (st == CDYN_OK && g > tol * scale)
        st = cdyn_fail(r, CDYN_ENOCONV, "bvp shooting: %d Newton iterations, end conditions "
                       "missed by %.3g", newton, g);
    else if (st != CDYN_OK && r->status == CDYN_OK)
        cdyn_fail(r, st, "bvp shooting: %s", w.inner.solver.message);
    r->iterations = newton;
    r->evaluations = iters;
    r->residual = g;
    rep->unknowns = w.inner.unknowns;
    rep->nonzeros = w.inner.nonzeros;
    cdyn_mem_free(a, ip);
    cdyn_mem_free(a, dp);
    return st;
}
