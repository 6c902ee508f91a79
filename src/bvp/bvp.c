/* cdyn_bvp_solve: the implicit compliant step (step/implicit_ncp_form.h) described to the
 * whole-trajectory engine (bvp_engine.h), every contact row in every step. Each step's Jacobian
 * blocks come in the step's own sparse pattern: the positions the step's assembly writes
 * (ncp_form_jac, listed once), then its values in the same order at every evaluation. */
#include "cdyn/bvp.h"

#include "bvp/bvp_engine.h"
#include "core/memory.h"
#include "core/report.h"
#include "step/implicit_derivs.h"
#include "step/implicit_ncp_form.h"

#include <math.h>
#include <string.h>

void cdyn_bvp_defaults(cdyn_bvp_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->N = 100;
    cdyn_step_defaults(&o->step, CDYN_SCHEME_IMPLICIT_NCP);
    o->tau = NULL;
    o->use_guess = 0;
    o->grid_continuation = 1;
    o->shoot_segments = 1;
}

static int state_nd(const cdyn_model *m)
{
    return cdyn_model_dim(m) == 2 ? 2 : 3;
}

int cdyn_bvp_state_size(const cdyn_model *m)
{
    if (m == NULL)
        return -1;
    return cdyn_model_nq(m) + cdyn_model_nv(m) + state_nd(m) * cdyn_model_ncontact(m);
}

void cdyn_bvp_state_pack(const cdyn_model *m, const cdyn_state *s, double *x)
{
    if (m == NULL || s == NULL || x == NULL)
        return;
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nd = state_nd(m);
    memcpy(x, s->q, (size_t)nq * sizeof(double));
    memcpy(x + nq, s->v, (size_t)nv * sizeof(double));
    for (int i = 0; i < s->nc; i++)
        for (int d = 0; d < nd; d++)
            x[nq + nv + i * nd + d] = s->delta[3 * i + d];
}

typedef struct bvp_ctx {
    ncp_form f;
    /* options.step.fd_jacobian: the blocks by central differences of F (the oracle), dense, then
     * written in the order of the listed pattern (first occurrences; repeats get 0) */
    int fd;
    double *Jy, *Jx, *work;   /* ny ny, ny nx, 3 ny */
    const int *yi, *yj, *xi, *xj;
    const unsigned char *yfirst, *xfirst;
    int nyy, nxx;
} bvp_ctx;

/* Central differences of F in y (into Jy) and in x_prev (into Jx), dense. */
static int fd_blocks(bvp_ctx *c, const double *xprev, const double *y)
{
    ncp_form *f = &c->f;
    const int ny = f->ny, nx = f->nx;
    double *v = c->work, *Fp = v + ny, *Fm = Fp + ny;
    for (int blk = 0; blk < 2; blk++) {
        const int n = blk == 0 ? ny : nx;
        const double *base = blk == 0 ? y : xprev;
        double *J = blk == 0 ? c->Jy : c->Jx;
        memcpy(v, base, (size_t)n * sizeof(double));
        for (int j = 0; j < n; j++) {
            const double eps = 1e-6 * fmax(1.0, fabs(base[j]));
            v[j] = base[j] + eps;
            if (ncp_form_F(f, blk == 0 ? xprev : v, blk == 0 ? v : y, Fp) != 0)
                return 1;
            v[j] = base[j] - eps;
            if (ncp_form_F(f, blk == 0 ? xprev : v, blk == 0 ? v : y, Fm) != 0)
                return 1;
            v[j] = base[j];
            for (int i = 0; i < ny; i++)
                J[i + (size_t)j * ny] = (Fp[i] - Fm[i]) / (2 * eps);
        }
    }
    return 0;
}

static int ops_F(void *ctx, int step, const double *xprev, const double *y, double *F)
{
    (void)step;
    bvp_ctx *c = ctx;
    return ncp_form_F(&c->f, xprev, y, F);
}

/* The values in the order of the listed pattern (step_pattern). */
static int ops_J(void *ctx, int step, const double *xprev, const double *y, double *jy, double *jx)
{
    (void)step;
    bvp_ctx *c = ctx;
    if (c->fd) {
        if (fd_blocks(c, xprev, y) != 0)
            return 1;
        const size_t ny = (size_t)c->f.ny;
        for (int t = 0; t < c->nyy; t++)
            jy[t] = c->yfirst[t] ? c->Jy[c->yi[t] + c->yj[t] * ny] : 0.0;
        for (int t = 0; t < c->nxx; t++)
            jx[t] = c->xfirst[t] ? c->Jx[c->xi[t] + c->xj[t] * ny] : 0.0;
        return 0;
    }
    ncp_sink sy = {NCP_SINK_SEQ, NULL, 0, jy, NULL, NULL, 0, NULL, NULL, 0};
    ncp_sink sx = {NCP_SINK_SEQ, NULL, 0, jx, NULL, NULL, 0, NULL, NULL, 0};
    return ncp_form_jac(&c->f, xprev, y, &sy, &sx);
}

/* The step's pattern: the positions ncp_form_jac writes at (x0, y) into (yi, yj) and (xi, xj)
 * when they are not NULL, their counts into *ny_ and *nx_. 0, or 1 when the model cannot be
 * evaluated there. */
static int step_pattern(bvp_ctx *c, const double *x0, const double *y, int *yi, int *yj,
                        size_t *nyy, int *xi, int *xj, size_t *nxx)
{
    ncp_sink sy = {NCP_SINK_LIST, NULL, 0, NULL, NULL, NULL, 0, yi, yj, 0};
    ncp_sink sx = {NCP_SINK_LIST, NULL, 0, NULL, NULL, NULL, 0, xi, xj, 0};
    if (ncp_form_jac(&c->f, x0, y, &sy, &sx) != 0)
        return 1;
    *nyy = sy.n;
    *nxx = sx.n;
    return 0;
}

/* cdyn_bvp_param_kind and cdyn_param_kind share their values (param_rhs converts). */
_Static_assert(CDYN_BVP_PARAM_MU == (int)CDYN_PARAM_MU &&
                   CDYN_BVP_PARAM_STIFFNESS_N == (int)CDYN_PARAM_STIFFNESS_N &&
                   CDYN_BVP_PARAM_STIFFNESS_T == (int)CDYN_PARAM_STIFFNESS_T &&
                   CDYN_BVP_PARAM_DAMPING_N == (int)CDYN_PARAM_DAMPING_N &&
                   CDYN_BVP_PARAM_DAMPING_T == (int)CDYN_PARAM_DAMPING_T &&
                   CDYN_BVP_PARAM_GEOM_POS == (int)CDYN_PARAM_GEOM_POS &&
                   CDYN_BVP_PARAM_GEOM_ROT == (int)CDYN_PARAM_GEOM_ROT &&
                   CDYN_BVP_PARAM_GEOM_SIZE == (int)CDYN_PARAM_GEOM_SIZE &&
                   CDYN_BVP_PARAM_GEOM_VERTEX == (int)CDYN_PARAM_GEOM_VERTEX,
               "the BVP's parameter kinds are cdyn_param_kind's");

/* dF/dp (the engine's rows: nx + N ny) for the model parameter prm at the solution z: each
 * step's rows from the step's own parameter derivative (implicit_param_derivs.c) after an
 * evaluation of its Jacobian at (x_{l-1}, y_l), which leaves the model, its derivatives and the
 * friction QP's rows there; the boundary rows do not depend on p. */
static cdyn_status param_rhs(bvp_ctx *c, const cdyn_bvp_param *prm, const double *z, int N,
                             const cdyn_allocator *a, double *dF, cdyn_report *r)
{
    ncp_form *f = &c->f;
    const int nx = f->nx, ny = f->ny;
    const cdyn_param p = {(cdyn_param_kind)prm->kind, prm->pair, prm->component};
    memset(dF, 0, (size_t)nx * sizeof(double));
    for (int l = 1; l <= N; l++) {
        const double *y = z + nx + (size_t)(l - 1) * ny;
        const double *xprev = l == 1 ? z : y - ny;
        ncp_sink count = {NCP_SINK_LIST, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, 0};
        if (ncp_form_jac(f, xprev, y, &count, NULL) != 0)
            return cdyn_fail(r, CDYN_ENUMERIC, "bvp: the step residual cannot be evaluated "
                             "for a parameter sensitivity");
        const cdyn_status st =
            ncp_param_columns(f, xprev, y, 1, &p, a, dF + nx + (size_t)(l - 1) * ny, r);
        if (st != CDYN_OK)
            return st;
    }
    return CDYN_OK;
}

static cdyn_status check_traj(const cdyn_model *m, int N, cdyn_state **traj, int use_guess,
                              cdyn_report *r)
{
    if (traj == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: traj is NULL");
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    for (int l = 0; l <= (use_guess ? N : 0); l++) {
        const cdyn_state *s = traj[l];
        if (s == NULL || s->nq != nq || s->nv != nv || s->nc != nc)
            return cdyn_fail(r, CDYN_EINVAL, "bvp: traj[%d] is NULL or of another model", l);
        for (int j = 0; j < nq; j++)
            if (!isfinite(s->q[j]))
                return cdyn_fail(r, CDYN_EINVAL, "bvp: traj[%d].q holds NaN or Inf", l);
        for (int j = 0; j < nv; j++)
            if (!isfinite(s->v[j]))
                return cdyn_fail(r, CDYN_EINVAL, "bvp: traj[%d].v holds NaN or Inf", l);
        for (int j = 0; j < 3 * nc; j++)
            if (!isfinite(s->delta[j]) || !isfinite(s->lambda[j]))
                return cdyn_fail(r, CDYN_EINVAL, "bvp: traj[%d] holds NaN or Inf", l);
    }
    for (int l = 0; l <= N; l++)
        if (traj[l] == NULL || traj[l]->nq != nq || traj[l]->nv != nv || traj[l]->nc != nc)
            return cdyn_fail(r, CDYN_EINVAL, "bvp: traj[%d] is NULL or of another model", l);
    return CDYN_OK;
}

/* Write the solution z into the states. */
static void unpack(const bvp_ctx *c, const double *z, int N, double h, cdyn_state **traj)
{
    const ncp_form *f = &c->f;
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k, nx = f->nx, ny = f->ny;
    for (int l = 0; l <= N; l++) {
        cdyn_state *s = traj[l];
        const double *x = l == 0 ? z : z + nx + (size_t)(l - 1) * ny;
        s->t = l * h;
        memcpy(s->q, x, (size_t)nq * sizeof(double));
        memcpy(s->v, x + nq, (size_t)nv * sizeof(double));
        cdyn_model_normalize_q(f->model, s->q, NULL);
        memset(s->delta, 0, 3 * (size_t)s->nc * sizeof(double));
        for (int i = 0; i < k; i++)
            for (int d = 0; d < nd; d++)
                s->delta[3 * i + d] = x[nq + nv + i * nd + d];
        if (l == 0)
            continue; /* lambda and modes of the start are the caller's */
        double lmax = 0;
        for (int i = 0; i < k; i++)
            lmax = fmax(lmax, x[nx + i * nd]);
        memset(s->lambda, 0, 3 * (size_t)s->nc * sizeof(double));
        for (int i = 0; i < k; i++) {
            double lt = 0;
            for (int d = 0; d < nd; d++) {
                s->lambda[3 * i + d] = x[nx + i * nd + d];
                if (d > 0)
                    lt = hypot(lt, x[nx + i * nd + d]);
            }
            const double ln = x[nx + i * nd], b = x[nx + k * nd + i];
            /* sliding: the NCP rows' multiplier, or the friction QP's force on the cone */
            const int slip = ncp_row_qp(f, i) ? lt >= (1 - 1e-6) * f->mu[i] * ln && lt > 0
                                              : b > 1e-9 * fmax(1.0, lmax);
            s->mode[i] = !(ln > 1e-9 * lmax) ? CDYN_MODE_FREE
                         : slip              ? CDYN_MODE_SLIP
                                             : CDYN_MODE_STICK;
        }
    }
}

static cdyn_status solve_direct(const cdyn_model *m, const cdyn_bvp_options *opts,
                                const cdyn_bvp_conditions *bc, cdyn_state **traj,
                                cdyn_bvp_report *report);

static void free_states(cdyn_state **s, int n)
{
    for (int l = 0; s != NULL && l < n; l++)
        cdyn_state_free(s[l]);
}

/* fine[k] = the coarse trajectory linearly interpolated at t = k T / Nf (states 0..Nf). */
static void interpolate(cdyn_state **coarse, int Nc, cdyn_state **fine, int Nf, double h)
{
    for (int k = 0; k <= Nf; k++) {
        const double sx = (double)k * Nc / Nf;
        int l = (int)floor(sx);
        if (l >= Nc)
            l = Nc - 1;
        const double a = sx - l;
        cdyn_state *x = fine[k];
        const cdyn_state *p = coarse[l], *q = coarse[l + 1];
        for (int j = 0; j < x->nq; j++)
            x->q[j] = (1 - a) * p->q[j] + a * q->q[j];
        for (int j = 0; j < x->nv; j++)
            x->v[j] = (1 - a) * p->v[j] + a * q->v[j];
        for (int j = 0; j < 3 * x->nc; j++) {
            x->delta[j] = (1 - a) * p->delta[j] + a * q->delta[j];
            x->lambda[j] = (1 - a) * p->lambda[j] + a * q->lambda[j];
        }
        for (int j = 0; j < x->nc; j++)
            x->mode[j] = a < 0.5 ? p->mode[j] : q->mode[j];
        x->t = k * h;
    }
}

/* Continuation in the grid: the problem on a grid four times coarser (recursively, same T and
 * conditions), interpolated, is the guess for this one; returns CDYN_ENOCONV (leaving traj as it
 * was) when the coarse solve or the final one fails, so the caller falls back to the IVP guess. */
static cdyn_status solve_by_grid(const cdyn_model *m, const cdyn_bvp_options *opts,
                                 const cdyn_bvp_conditions *bc, cdyn_state **traj,
                                 cdyn_bvp_report *rep)
{
    const int N = opts->N, Nc = (N + 3) / 4;
    const cdyn_allocator *a = opts->step.mcp.allocator;
    cdyn_state **c = cdyn_mem_array(a, (size_t)Nc + 1, sizeof *c);
    cdyn_state **f = cdyn_mem_array(a, (size_t)N + 1, sizeof *f);
    cdyn_status st = c != NULL && f != NULL ? CDYN_OK : CDYN_ENOMEM;
    if (c != NULL)
        memset(c, 0, ((size_t)Nc + 1) * sizeof *c);
    if (f != NULL)
        memset(f, 0, ((size_t)N + 1) * sizeof *f);
    for (int l = 0; st == CDYN_OK && l <= N; l++) {
        st = cdyn_state_create(m, a, &f[l], NULL);
        if (st == CDYN_OK && l <= Nc)
            st = cdyn_state_create(m, a, &c[l], NULL);
    }
    if (st == CDYN_OK)
        st = cdyn_state_copy(c[0], traj[0], NULL);
    cdyn_bvp_report rc;
    memset(&rc, 0, sizeof rc);
    if (st == CDYN_OK) {
        cdyn_bvp_options oc = *opts;
        oc.N = Nc;
        oc.step.h = opts->step.h * N / Nc;
        oc.nsens = 0;
        oc.nparam = 0;
        st = cdyn_bvp_solve(m, &oc, bc, c, &rc);
    }
    if (st == CDYN_OK) {
        interpolate(c, Nc, f, N, opts->step.h);
        cdyn_bvp_options of = *opts;
        of.use_guess = 1;
        st = solve_direct(m, &of, bc, f, rep);
        rep->guess_iterations += rc.solver.iterations + rc.guess_iterations;
    }
    if (st == CDYN_OK)
        for (int l = 0; l <= N; l++)
            cdyn_state_copy(traj[l], f[l], NULL);
    free_states(c, Nc + 1);
    free_states(f, N + 1);
    cdyn_mem_free(a, c);
    cdyn_mem_free(a, f);
    return st;
}

cdyn_status cdyn_bvp_solve(const cdyn_model *m, const cdyn_bvp_options *opts,
                           const cdyn_bvp_conditions *bc, cdyn_state **traj,
                           cdyn_bvp_report *report)
{
    if (m != NULL && opts != NULL && bc != NULL && traj != NULL && !opts->use_guess &&
        opts->grid_continuation && opts->N >= 50 && check_traj(m, opts->N, traj, 0, NULL) == 0) {
        cdyn_bvp_report rg;
        if (solve_by_grid(m, opts, bc, traj, &rg) == CDYN_OK) {
            if (report != NULL)
                *report = rg;
            return CDYN_OK;
        }
    }
    return solve_direct(m, opts, bc, traj, report);
}

static cdyn_status solve_direct(const cdyn_model *m, const cdyn_bvp_options *opts,
                                const cdyn_bvp_conditions *bc, cdyn_state **traj,
                                cdyn_bvp_report *report)
{
    cdyn_bvp_report local;
    cdyn_bvp_report *rep = report != NULL ? report : &local;
    memset(rep, 0, sizeof *rep);
    cdyn_report *r = &rep->solver;
    cdyn_report_clear(r, "bvp");
    if (m == NULL || opts == NULL || bc == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: NULL model, options or conditions");
    const int N = opts->N;
    if (N < 1)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: N = %d steps, need N >= 1", N);
    const double h = opts->step.h;
    if (!(h > 0) || !isfinite(h) || !(opts->step.gamma >= 0) || !isfinite(opts->step.gamma))
        return cdyn_fail(r, CDYN_EINVAL, "bvp: h = %g and gamma = %g must be finite, h > 0, "
                         "gamma >= 0", h, opts->step.gamma);
    int fb, lb;
    const int nfric = cdyn_model_joint_friction_count(m, &fb);
    const int nlim = cdyn_model_joint_limit_count(m, &lb);
    if (nfric > 0 || nlim > 0) /* joint damping is in the implicit step's h(q, v) */
        return cdyn_fail(r, CDYN_ENOTSUP,
                         "bvp: body %d has joint %s: the implicit compliant step does not take "
                         "joint friction or limits yet",
                         nfric > 0 ? fb : lb, nfric > 0 ? "friction" : "limits");
    cdyn_status st = check_traj(m, N, traj, opts->use_guess, r);
    if (st != CDYN_OK)
        return st;
    const int nv = cdyn_model_nv(m);
    if (opts->nsens < 0 || (opts->nsens > 0 && (opts->sens_which == NULL || opts->sens == NULL)))
        return cdyn_fail(r, CDYN_EINVAL, "bvp: nsens = %d with NULL sens_which or sens",
                         opts->nsens);
    if (opts->nparam < 0 ||
        (opts->nparam > 0 && (opts->params == NULL || opts->param_sens == NULL)))
        return cdyn_fail(r, CDYN_EINVAL, "bvp: nparam = %d with NULL params or param_sens",
                         opts->nparam);
    for (int j = 0; j < opts->nparam; j++) {
        const cdyn_param p = {(cdyn_param_kind)opts->params[j].kind, opts->params[j].pair,
                              opts->params[j].component};
        if ((st = ncp_params_check(m, 1, &p, "bvp", j, r)) != CDYN_OK)
            return st;
    }
    if (opts->tau != NULL)
        for (int j = 0; j < nv; j++)
            if (!isfinite(opts->tau[j]))
                return cdyn_fail(r, CDYN_EINVAL, "bvp: tau holds NaN or Inf");

    const cdyn_allocator *a = opts->step.mcp.allocator;
    const int nc = cdyn_model_ncontact(m), nd = state_nd(m);
    const int nq = cdyn_model_nq(m);
    const size_t ny = (size_t)nq + nv + (size_t)nc * (2 * nd + 1);
    const size_t nx = (size_t)nq + nv + (size_t)nc * nd;
    bvp_ctx c;
    memset(&c, 0, sizeof c);
    cdyn_data *data = NULL;
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 0; /* the step works on the sparse matrices */
    dopt.allocator = a;
    int *rows = NULL, *ti = NULL;
    double *dbl = NULL, *z = NULL, *fdbuf = NULL;
    unsigned char *fdfirst = NULL;
    bvp_engine *e = NULL;
    if ((st = cdyn_data_create(m, &dopt, &data, r)) != CDYN_OK)
        return st;
    rows = cdyn_mem_array(a, 2 * (size_t)nc + 1, sizeof(int));
    const size_t nd2 = (size_t)nc * nd * nd;
    const size_t ndbl = (size_t)nc + 2 * nd2 + 3 * ny + ncp_form_scratch(nq, nv, nc, nd);
    dbl = cdyn_mem_array(a, ndbl, sizeof(double));
    if (rows == NULL || dbl == NULL) {
        st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
        goto done;
    }
    int *qp_rows = rows + nc;
    for (int i = 0; i < nc; i++)
        rows[i] = i;
    double *p = dbl;
    double *mu = p;
    p += nc;
    double *A = p;
    p += nd2;
    double *Ch = p;
    p += nd2;
    c.f.lower = p, p += ny;
    c.f.upper = p, p += ny;
    c.f.scratch = p, p += ncp_form_scratch(nq, nv, nc, nd);
    double *ypat = p;
    ncp_form_setup(&c.f, m, data, nc, rows, mu, A, Ch, h, opts->step.gamma);
    c.f.tau = opts->tau;
    c.f.scale_normal = 1;
    c.f.friction_qp = opts->step.friction_qp != 0;
    if (c.f.friction_qp) /* rows the QP cannot take keep the NCP rows (as the stepper) */
        ncp_form_qp_rows(&c.f, qp_rows);
    c.f.qp_rows = qp_rows;

    /* The step's pattern, listed at the start state (its structure does not depend on it). */
    size_t nyy = 0, nxx = 0;
    cdyn_bvp_state_pack(m, traj[0], ypat);
    memset(ypat + nx, 0, (ny - nx) * sizeof(double));
    if (step_pattern(&c, ypat, ypat, NULL, NULL, &nyy, NULL, NULL, &nxx) != 0) {
        st = cdyn_fail(r, CDYN_EINVAL, "bvp: the model cannot be evaluated at traj[0]");
        goto done;
    }
    ti = cdyn_mem_array(a, 2 * (nyy + nxx) + 1, sizeof(int));
    if (ti == NULL) {
        st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
        goto done;
    }
    int *tj = ti + nyy, *ti2 = tj + nyy, *tj2 = ti2 + nxx;
    step_pattern(&c, ypat, ypat, ti, tj, &nyy, ti2, tj2, &nxx);
    if (opts->step.fd_jacobian) {
        c.fd = 1;
        c.nyy = (int)nyy;
        c.nxx = (int)nxx;
        c.yi = ti, c.yj = tj, c.xi = ti2, c.xj = tj2;
        fdbuf = cdyn_mem_array(a, ny * ny + ny * nx + 3 * ny + ny * ny, sizeof(double));
        if (fdbuf == NULL) {
            st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
            goto done;
        }
        c.Jy = fdbuf, c.Jx = fdbuf + ny * ny, c.work = c.Jx + ny * nx;
        /* first occurrences of each position, for the values written in the pattern's order */
        unsigned char *seen = (unsigned char *)(void *)(c.work + 3 * ny); /* ny ny bytes */
        unsigned char *first = cdyn_mem_alloc(a, nyy + nxx + 1);
        if (first == NULL) {
            st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
            goto done;
        }
        fdfirst = first;
        memset(seen, 0, ny * ny);
        for (size_t t = 0; t < nyy; t++) {
            first[t] = !seen[ti[t] + tj[t] * ny];
            seen[ti[t] + tj[t] * ny] = 1;
        }
        memset(seen, 0, ny * ny);
        for (size_t t = 0; t < nxx; t++) {
            first[nyy + t] = !seen[ti2[t] + tj2[t] * ny];
            seen[ti2[t] + tj2[t] * ny] = 1;
        }
        c.yfirst = first, c.xfirst = first + nyy;
    }
    bvp_step_ops ops = {(int)nx, (int)ny, c.f.lower, c.f.upper, (int)nyy, ti, tj,
                        (int)nxx, ti2, tj2, ops_F, ops_J, &c};
    bvp_spec spec = {N, bc->fixed0, bc->fixedN, bc->value0, bc->valueN, bc->nuser, bc->user,
                     bc->user_ctx, bc->lower0, bc->upper0};
    cdyn_mcp_options mo = opts->step.mcp;
    if ((st = bvp_engine_create(&ops, &spec, &mo, &e, r)) != CDYN_OK)
        goto done;
    rep->unknowns = bvp_engine_size(e);
    rep->nonzeros = bvp_engine_nnz(e);
    z = cdyn_mem_array(a, (size_t)rep->unknowns, sizeof(double));
    if (z == NULL) {
        st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
        goto done;
    }
    /* The start: traj[0]; each step's y from the guess, or by the IVP. */
    cdyn_bvp_state_pack(m, traj[0], z);
    if (opts->use_guess) {
        for (int l = 1; l <= N; l++) {
            double *y = z + nx + (size_t)(l - 1) * ny;
            cdyn_bvp_state_pack(m, traj[l], y);
            for (int i = 0; i < nc; i++) {
                for (int d = 0; d < nd; d++)
                    y[nx + i * nd + d] = traj[l]->lambda[3 * i + d];
                y[nx + nc * nd + i] = 0.0;
            }
        }
    } else {
        /* The IVP by the stepper itself (its start values and retries make impacts converge),
         * from traj[0]; the friction multipliers from the friction rows' balance
         * mu lambda_n s + beta lambda_T / rho = 0. */
        cdyn_step_options so = opts->step;
        so.mcp.progress = NULL; /* the progress line is the whole trajectory's, not each step's */
        so.scheme = CDYN_SCHEME_IMPLICIT_NCP;
        so.backend = CDYN_BACKEND_AUTO;
        if (so.max_halvings < 4)
            so.max_halvings = 4;
        cdyn_stepper *stp = NULL;
        cdyn_state *x = NULL;
        cdyn_step_report sr;
        st = cdyn_stepper_create(m, &so, &stp, r);
        if (st == CDYN_OK)
            st = cdyn_state_create(m, a, &x, r);
        if (st == CDYN_OK)
            st = cdyn_state_copy(x, traj[0], r);
        for (int l = 1; l <= N && st == CDYN_OK; l++) {
            st = cdyn_step(stp, opts->tau, x, &sr);
            rep->guess_iterations += sr.solver.iterations;
            if (st != CDYN_OK) {
                cdyn_fail(r, st, "bvp: the IVP guess failed at step %d: %s", l, sr.solver.message);
                break;
            }
            double *y = z + nx + (size_t)(l - 1) * ny;
            cdyn_bvp_state_pack(m, x, y);
            cdyn_eval(m, data, x->q, x->v, CDYN_EVAL_CONTACTS, NULL);
            const double *yp = l == 1 ? z : y - ny;
            double *gv = ypat; /* Gamma_d v of every row, 3 nc <= 3 ny */
            memset(gv, 0, 3 * (size_t)nc * sizeof(double));
            for (int d = 1; d < nd; d++) {
                cdyn_csc J;
                cdyn_data_jacobian_csc(data, (cdyn_dir)d, &J);
                for (int j = 0; j < nv; j++)
                    for (int p2 = J.colptr[j]; p2 < J.colptr[j + 1]; p2++)
                        gv[3 * J.rowind[p2] + d] += J.values[p2] * x->v[j];
            }
            for (int i = 0; i < nc; i++) {
                double lt2 = 0, s2 = 0;
                for (int d = 0; d < nd; d++) {
                    y[nx + i * nd + d] = x->lambda[3 * i + d];
                    if (d == 0)
                        continue;
                    const double sd = (x->delta[3 * i + d] - yp[nq + nv + i * nd + d]) / h +
                                      gv[3 * i + d];
                    lt2 += x->lambda[3 * i + d] * x->lambda[3 * i + d];
                    s2 += sd * sd;
                }
                const double rho = sqrt(lt2 + opts->step.gamma * opts->step.gamma);
                y[nx + nc * nd + i] = lt2 > 0 && !ncp_row_qp(&c.f, i)
                                          ? mu[i] * x->lambda[3 * i] * sqrt(s2) * rho / sqrt(lt2)
                                          : 0.0; /* the friction QP pins beta at 0 */
            }
        }
        cdyn_state_free(x);
        cdyn_stepper_free(stp);
        if (st != CDYN_OK)
            goto done;
    }
    st = bvp_engine_solve(e, z, r);
    rep->continuation_steps = bvp_engine_continuation_steps(e);
    if (st == CDYN_OK && opts->nsens > 0) {
        double *dz = cdyn_mem_array(a, (size_t)rep->unknowns * opts->nsens, sizeof(double));
        cdyn_report sr;
        if (dz == NULL)
            st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory (sensitivities)");
        else if ((st = bvp_engine_sensitivity(e, z, opts->nsens, opts->sens_which, dz, &sr)) !=
                 CDYN_OK)
            cdyn_fail(r, st, "%s", sr.message);
        else
            for (int j = 0; j < opts->nsens; j++)
                for (int l = 0; l <= N; l++) {
                    const double *col = dz + (size_t)j * rep->unknowns;
                    const double *xl = l == 0 ? col : col + nx + (size_t)(l - 1) * ny;
                    memcpy(opts->sens + ((size_t)j * (N + 1) + l) * nx, xl, nx * sizeof(double));
                }
        cdyn_mem_free(a, dz);
    }
    if (st == CDYN_OK && opts->nparam > 0) {
        const size_t nu = (size_t)rep->unknowns;
        double *buf = cdyn_mem_array(a, 2 * nu * opts->nparam + 2 * ny, sizeof(double));
        cdyn_report sr;
        if (buf == NULL) {
            st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory (parameter sensitivities)");
        } else {
            double *dF = buf, *dz = buf + nu * opts->nparam;
            for (int j = 0; j < opts->nparam && st == CDYN_OK; j++)
                st = param_rhs(&c, &opts->params[j], z, N, a, dF + nu * j, r);
            if (st == CDYN_OK &&
                (st = bvp_engine_sensitivity_rhs(e, z, opts->nparam, dF, dz, &sr)) != CDYN_OK)
                cdyn_fail(r, st, "%s", sr.message);
            for (int j = 0; st == CDYN_OK && j < opts->nparam; j++)
                for (int l = 0; l <= N; l++) {
                    const double *col = dz + (size_t)j * nu;
                    const double *xl = l == 0 ? col : col + nx + (size_t)(l - 1) * ny;
                    memcpy(opts->param_sens + ((size_t)j * (N + 1) + l) * nx, xl,
                           nx * sizeof(double));
                }
        }
        cdyn_mem_free(a, buf);
    }
    if (st == CDYN_OK)
        unpack(&c, z, N, h, traj);
done:
    cdyn_mem_free(a, fdbuf);
    cdyn_mem_free(a, fdfirst);
    bvp_engine_free(e);
    cdyn_mem_free(a, z);
    cdyn_mem_free(a, ti);
    cdyn_mem_free(a, dbl);
    cdyn_mem_free(a, rows);
    cdyn_data_free(data);
    return st;
}
