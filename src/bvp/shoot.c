/* cdyn_bvp_shoot: single or multiple shooting. The unknowns are the free start components s and,
 * with M > 1 segments, the full states S_1 .. S_{M-1} where segments 1 .. M-1 start. Each segment
 * is an IVP with its exact sensitivities, both from cdyn_bvp_solve on the problem whose start is
 * fixed entirely (its IVP guess is already its solution; the sensitivities are the implicit
 * function theorem on the converged trajectory). Newton's method on the continuity rows
 * x_end(k) - S_{k+1} and the end conditions x_N[fixed] - value_N, projected on the start bounds
 * and damped by halving until the residual's largest entry decreases. */
#include "cdyn/bvp.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/linsys.h"

#include <math.h>
#include <string.h>

void cdyn_bvp_state_unpack(const cdyn_model *m, const double *x, cdyn_state *s)
{
    if (m == NULL || x == NULL || s == NULL)
        return;
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
    int nx, N, M, nfree, nend, nz;
    int *free_idx, *end_idx, *all_fixed, *all_idx, *bound; /* bound: M + 1 segment limits */
    double *x0, *xe, *sens;
    cdyn_bvp_report inner;
} shoot_ws;

/* The start state of segment k from the unknowns z = (s, S_1, ..., S_{M-1}) into x. */
static void segment_start(const shoot_ws *w, int k, const double *z, double *x)
{
    if (k == 0) {
        memcpy(x, w->bc->value0, (size_t)w->nx * sizeof(double));
        for (int j = 0; j < w->nfree; j++)
            x[w->free_idx[j]] = z[j];
    } else {
        memcpy(x, z + w->nfree + (size_t)(k - 1) * w->nx, (size_t)w->nx * sizeof(double));
    }
}

/* Segment k's IVP from its start in z into w->traj (its steps), the end state into w->xe and,
 * when sens is nonzero, its sensitivities to the segment's start unknowns into w->sens. */
static cdyn_status run_segment(shoot_ws *w, int k, const double *z, int sens, int *iters)
{
    const int l0 = w->bound[k], Nk = w->bound[k + 1] - l0;
    segment_start(w, k, z, w->x0);
    /* q, v, delta from the start; lambda stays: the first step's warm start */
    cdyn_bvp_state_unpack(w->m, w->x0, w->traj[l0]);
    cdyn_bvp_conditions c;
    memset(&c, 0, sizeof c);
    c.fixed0 = w->all_fixed;
    c.value0 = w->x0;
    cdyn_bvp_options o = *w->opts;
    o.N = Nk;
    o.use_guess = 0;
    o.grid_continuation = 0;
    o.nparam = 0;
    o.nsens = sens ? (k == 0 ? w->nfree : w->nx) : 0;
    o.sens_which = k == 0 ? w->free_idx : w->all_idx;
    o.sens = w->sens;
    const cdyn_status st = cdyn_bvp_solve(w->m, &o, &c, w->traj + l0, &w->inner);
    *iters += w->inner.solver.iterations + w->inner.guess_iterations;
    if (st == CDYN_OK)
        cdyn_bvp_state_pack(w->m, w->traj[l0 + Nk], w->xe);
    return st;
}

/* The M segments' IVPs from z into w->traj, the residuals R (nz: the continuity rows
 * x_end(k) - S_{k+1} for k < M - 1, then the end conditions) and, when J is not NULL, their
 * Jacobian (nz x nz, column-major) from each segment's exact sensitivities. */
static cdyn_status shoot_eval(shoot_ws *w, const double *z, double *R, double *J, int *iters)
{
    const int nx = w->nx, M = w->M, nz = w->nz, nf = w->nfree;
    if (J != NULL)
        memset(J, 0, (size_t)nz * nz * sizeof(double));
    for (int k = 0; k < M; k++) {
        const cdyn_status st = run_segment(w, k, z, J != NULL, iters);
        if (st != CDYN_OK)
            return st;
        const int Nk = w->bound[k + 1] - w->bound[k];
        const int np = k == 0 ? nf : nx; /* the segment's start unknowns */
        const int col0 = k == 0 ? 0 : nf + (k - 1) * nx;
        const int r0 = k < M - 1 ? k * nx : (M - 1) * nx; /* continuity rows, or the end's */
        const int nr = k < M - 1 ? nx : w->nend;
        for (int r = 0; r < nr; r++) {
            const int i = k < M - 1 ? r : w->end_idx[r];
            R[r0 + r] = w->xe[i] - (k < M - 1 ? z[nf + (size_t)k * nx + i] : w->bc->valueN[i]);
            if (J == NULL)
                continue;
            for (int j = 0; j < np; j++)
                J[r0 + r + (size_t)(col0 + j) * nz] =
                    w->sens[((size_t)j * (Nk + 1) + Nk) * nx + i];
            if (k < M - 1)
                J[r0 + r + (size_t)(nf + k * nx + i) * nz] = -1.0;
        }
    }
    return CDYN_OK;
}

static double norm_inf(int n, const double *x)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* z + t d into out, the free start components projected on their bounds. */
static void project(const shoot_ws *w, const double *z, const double *d, double t, double *out)
{
    for (int k = 0; k < w->nz; k++)
        out[k] = z[k] + t * d[k];
    for (int k = 0; k < w->nfree; k++) {
        const int i = w->free_idx[k];
        if (w->bc->lower0 != NULL && out[k] < w->bc->lower0[i])
            out[k] = w->bc->lower0[i];
        if (w->bc->upper0 != NULL && out[k] > w->bc->upper0[i])
            out[k] = w->bc->upper0[i];
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
    for (int l = 0; l <= N; l++)
        if (traj[l] == NULL || traj[l]->nq != cdyn_model_nq(m) ||
            traj[l]->nv != cdyn_model_nv(m) || traj[l]->nc != cdyn_model_ncontact(m))
            return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: traj[%d] is NULL or of another "
                             "model", l);
    const int M = opts->shoot_segments > 1 ? opts->shoot_segments : 1;
    if (M > N)
        return cdyn_fail(r, CDYN_EINVAL, "bvp shooting: %d segments for %d steps", M, N);
    const cdyn_allocator *a = opts->step.allocator;
    shoot_ws w;
    memset(&w, 0, sizeof w);
    w.m = m, w.opts = opts, w.bc = bc, w.traj = traj;
    w.nx = nx, w.N = N, w.M = M, w.nfree = nfree, w.nend = nend;
    const int nz = nfree + (M - 1) * nx;
    w.nz = nz;
    int maxseg = 0;
    for (int k = 0; k < M; k++) {
        const int len = (int)((long)(k + 1) * N / M - (long)k * N / M);
        maxseg = len > maxseg ? len : maxseg;
    }
    const int np = M > 1 ? nx : nfree;
    const size_t nints = 4 * (size_t)nx + 2 * (size_t)nfree + M + 9;
    const size_t ndbl = 2 * (size_t)nx + (size_t)np * (maxseg + 1) * nx + 5 * (size_t)nz + 8;
    int *ip = cdyn_mem_array(a, nints, sizeof(int));
    double *dp = cdyn_mem_array(a, ndbl, sizeof(double));
    /* The Newton matrix J lives in the layer's buffer (dense LU; no condition test: a zero
       pivot or a non-finite J ends the iteration, as below). */
    cdyn_linsys *lu = NULL;
    cdyn_status st = CDYN_OK;
    if (nz > 0) {
        cdyn_linsys_spec spec = cdyn_linsys_spec_default(CDYN_LINSYS_DENSE_LU, nz, a);
        spec.rcond_min = 0.0;
        st = cdyn_linsys_create(&spec, &lu, NULL);
    }
    if (ip == NULL || dp == NULL || st != CDYN_OK) {
        cdyn_mem_free(a, ip);
        cdyn_mem_free(a, dp);
        cdyn_linsys_free(lu);
        return cdyn_fail(r, CDYN_ENOMEM, "bvp shooting: out of memory");
    }
    w.free_idx = ip, w.end_idx = ip + nfree, w.all_fixed = ip + 2 * nfree;
    w.all_idx = w.all_fixed + nx, w.bound = w.all_idx + nx;
    for (int i = 0, f = 0, e = 0; i < nx; i++) {
        w.all_fixed[i] = 1;
        w.all_idx[i] = i;
        if (!bc->fixed0[i])
            w.free_idx[f++] = i;
        if (bc->fixedN[i])
            w.end_idx[e++] = i;
    }
    for (int k = 0; k <= M; k++)
        w.bound[k] = (int)((long)k * N / M);
    w.x0 = dp;
    w.xe = w.x0 + nx;
    w.sens = w.xe + nx;
    double *z = w.sens + (size_t)np * (maxseg + 1) * nx;
    double *R = z + nz, *d = R + nz, *trial = d + nz, *Rt = trial + nz;
    /* nz == 0: no Newton matrix, but a non-NULL J still asks shoot_eval for the sensitivities */
    double *J = lu != NULL ? cdyn_linsys_values(lu) : z;

    /* the start: traj[0]'s free components, projected on the bounds; the segments' starts from
     * one IVP through them (all continuity rows hold at first) */
    cdyn_bvp_state_pack(m, traj[0], w.x0);
    for (int k = 0; k < nfree; k++)
        z[k] = w.x0[w.free_idx[k]];
    memset(d, 0, (size_t)nz * sizeof(double));
    project(&w, z, d, 0.0, z);
    int iters = 0, newton = 0;
    for (int k = 0; k + 1 < M && st == CDYN_OK; k++) {
        /* segment k from the start found so far gives S_{k+1} */
        st = run_segment(&w, k, z, 0, &iters);
        memcpy(z + nfree + (size_t)k * nx, w.xe, (size_t)nx * sizeof(double));
    }
    const double tol = opts->step.mcp.tol > 0 ? opts->step.mcp.tol : 1e-10;
    const double scale = fmax(1.0, norm_inf(nx, bc->valueN));
    if (st == CDYN_OK)
        st = shoot_eval(&w, z, R, J, &iters);
    double g = st == CDYN_OK ? norm_inf(nz, R) : INFINITY;
    const int max_newton = 50;
    while (st == CDYN_OK && g > tol * scale && newton < max_newton) {
        newton++;
        /* Newton direction: J d = -R (LU; a singular J ends the iteration) */
        for (int k = 0; k < nz; k++)
            d[k] = -R[k];
        if (cdyn_linsys_factor(lu, J, NULL) != CDYN_OK) {
            st = cdyn_fail(r, CDYN_ESINGULAR, "bvp shooting: the end conditions do not depend "
                           "on the free start components (singular sensitivity, iteration %d)",
                           newton);
            break;
        }
        cdyn_linsys_solve(lu, 0, 1, d, NULL); /* no test to fail without rcond_min */
        double t = 1.0, gt = INFINITY;
        for (int half = 0; half < 30; half++, t *= 0.5) {
            project(&w, z, d, t, trial);
            const cdyn_status sa = shoot_eval(&w, trial, Rt, NULL, &iters);
            if (sa == CDYN_ENOMEM) { /* not a failed trial: the call cannot go on */
                st = sa;
                break;
            }
            gt = sa == CDYN_OK ? norm_inf(nz, Rt) : INFINITY;
            if (gt < (1 - 1e-4 * t) * g)
                break;
        }
        if (st != CDYN_OK)
            break;
        if (!(gt < g)) {
            /* no decrease along the projected direction: at a bound, no solution inside */
            int at_bound = 0;
            for (int k = 0; k < nfree; k++) {
                const int i = w.free_idx[k];
                at_bound |= (bc->lower0 != NULL && z[k] <= bc->lower0[i]) ||
                            (bc->upper0 != NULL && z[k] >= bc->upper0[i]);
            }
            st = at_bound ? cdyn_fail(r, CDYN_ENOSOLUTION, "bvp shooting: stalled at a start "
                                      "bound with the end conditions missed by %.3g", g)
                          : cdyn_fail(r, CDYN_ENOCONV, "bvp shooting: no decrease of the "
                                      "residual %.3g at iteration %d", g, newton);
            break;
        }
        memcpy(z, trial, (size_t)nz * sizeof(double));
        st = shoot_eval(&w, z, R, J, &iters);
        g = st == CDYN_OK ? norm_inf(nz, R) : INFINITY;
    }
    if (st == CDYN_OK && g > tol * scale)
        st = cdyn_fail(r, CDYN_ENOCONV, "bvp shooting: %d Newton iterations, conditions "
                       "missed by %.3g", newton, g);
    else if (st != CDYN_OK && r->status == CDYN_OK)
        cdyn_fail(r, st, "bvp shooting: %s", w.inner.solver.message);
    /* the segments' times run from 0: the whole trajectory's */
    for (int l = 0; l <= N; l++)
        traj[l]->t = l * opts->step.h;
    r->iterations = newton;
    r->evaluations = iters;
    r->residual = g;
    rep->unknowns = nz;
    rep->nonzeros = nz * nz;
    cdyn_mem_free(a, ip);
    cdyn_mem_free(a, dp);
    cdyn_linsys_free(lu);
    return st;
}
