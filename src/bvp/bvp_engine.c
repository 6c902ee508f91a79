#include "bvp/bvp_engine.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/linsys.h"
#include "solvers/mcp/mcp_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { SLOT_START = 0, SLOT_END = 1, SLOT_USER = 2 };

struct bvp_engine {
    bvp_step_ops ops;
    bvp_spec spec;
    const cdyn_allocator *alloc;
    int nx, ny, N, n;
    int *slot_kind, *slot_index; /* nx boundary slots: what row each holds */
    double *lower, *upper;       /* n */
    int nbnd;                    /* boundary triplets (first in the list) */
    int ntrip;
    cdyn_csc_assembly A;
    double *tx;                 /* ntrip triplet values */
    double *ures, *ujac;        /* user rows: nuser, nuser x 2 nx */
    cdyn_mcp mcp;
    cdyn_mcp_solver *solver;
    int failed_step;            /* the step whose callback failed last (for messages) */
    /* Continuation in the boundary data: the boundary rows are solved as
     * B(z) - (1 - s) b0 = 0, b0 = B(z_guess), s from 0 (the guess solves it) to 1. */
    double *b0; /* nx */
    double s;
    double *zt;    /* n: the trial of a continuation step */
    double *zsave; /* n: the caller's z, restored when the answer is refused */
    double solver_tol;
    int steps;  /* continuation steps taken in the last solve */
};

int bvp_engine_size(const bvp_engine *e)
{
    return e->n;
}

int bvp_engine_nnz(const bvp_engine *e)
{
    return e->A.colptr[e->n];
}

/* Column of the end state's component c, of step l's first unknown, of x_{l-1}'s first. */
static int col_end(const bvp_engine *e, int c)
{
    return e->nx + (e->N - 1) * e->ny + c;
}

static int col_step(const bvp_engine *e, int l)
{
    return e->nx + (l - 1) * e->ny;
}

static int col_prev(const bvp_engine *e, int l)
{
    return l == 1 ? 0 : e->nx + (l - 2) * e->ny;
}

static int engine_F(void *ctx, const double *z, double *F)
{
    bvp_engine *e = ctx;
    const int nx = e->nx;
    const double *xN = z + col_end(e, 0);
    if (e->spec.nuser > 0 &&
        e->spec.user(e->spec.user_ctx, z, xN, e->ures, NULL) != 0)
        return 1;
    for (int i = 0; i < nx; i++) {
        const int k = e->slot_index[i];
        switch (e->slot_kind[i]) {
        case SLOT_START: F[i] = z[k] - e->spec.value0[k]; break;
        case SLOT_END: F[i] = xN[k] - e->spec.valueN[k]; break;
        default: F[i] = e->ures[k]; break;
        }
        F[i] -= (1.0 - e->s) * e->b0[i];
    }
    for (int l = 1; l <= e->N; l++)
        if (e->ops.F(e->ops.ctx, l, z + col_prev(e, l), z + col_step(e, l), F + col_step(e, l)) !=
            0) {
            e->failed_step = l;
            return 1;
        }
    return 0;
}

static int engine_J(void *ctx, const double *z, double *values)
{
    bvp_engine *e = ctx;
    const int nx = e->nx;
    double *t = e->tx;
    if (e->spec.nuser > 0 &&
        e->spec.user(e->spec.user_ctx, z, z + col_end(e, 0), e->ures, e->ujac) != 0)
        return 1;
    /* boundary triplets in the order of bvp_engine_create */
    for (int i = 0; i < nx; i++) {
        if (e->slot_kind[i] != SLOT_USER) {
            *t++ = 1.0;
            continue;
        }
        const int k = e->slot_index[i], nu = e->spec.nuser;
        for (int c = 0; c < 2 * nx; c++)
            *t++ = e->ujac[k + (size_t)c * nu];
    }
    for (int l = 1; l <= e->N; l++) {
        if (e->ops.J(e->ops.ctx, l, z + col_prev(e, l), z + col_step(e, l), t, t + e->ops.njy) !=
            0) {
            e->failed_step = l;
            return 1;
        }
        t += e->ops.njy + e->ops.njx;
    }
    cdyn_csc_values_from_triplets(e->ntrip, e->A.map, e->tx, e->A.colptr[e->n], values);
    return 0;
}

void bvp_engine_free(bvp_engine *e)
{
    if (e == NULL)
        return;
    const cdyn_allocator *a = e->alloc;
    cdyn_mcp_solver_free(e->solver);
    cdyn_csc_assembly_free(&e->A);
    cdyn_mem_free(a, e->slot_kind);
    cdyn_mem_free(a, e->lower);
    cdyn_mem_free(a, e->tx);
    cdyn_mem_free(a, e->ures);
    cdyn_mem_free(a, e->b0);
    cdyn_mem_free(a, e);
}

static cdyn_status check_spec(const bvp_step_ops *ops, const bvp_spec *spec, cdyn_report *r)
{
    if (ops == NULL || spec == NULL || ops->F == NULL || ops->J == NULL || ops->lower == NULL ||
        ops->upper == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: NULL formulation, bounds or specification");
    if (ops->nx <= 0 || ops->ny < ops->nx)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: state size %d and step size %d", ops->nx, ops->ny);
    if (spec->N < 1)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: N = %d steps, need N >= 1", spec->N);
    if (spec->nuser < 0 || (spec->nuser > 0 && spec->user == NULL))
        return cdyn_fail(r, CDYN_EINVAL, "bvp: %d user rows without a callback", spec->nuser);
    int count = spec->nuser;
    for (int i = 0; i < ops->nx; i++) {
        const int f0 = spec->fixed0 != NULL && spec->fixed0[i];
        const int fN = spec->fixedN != NULL && spec->fixedN[i];
        if ((f0 && (spec->value0 == NULL || !isfinite(spec->value0[i]))) ||
            (fN && (spec->valueN == NULL || !isfinite(spec->valueN[i]))))
            return cdyn_fail(r, CDYN_EINVAL, "bvp: component %d is fixed without a finite value",
                             i);
        count += f0 + fN;
        const double lo = spec->lower0 != NULL ? spec->lower0[i] : -INFINITY;
        const double hi = spec->upper0 != NULL ? spec->upper0[i] : INFINITY;
        if (isnan(lo) || isnan(hi) || lo > hi)
            return cdyn_fail(r, CDYN_EINVAL, "bvp: bounds [%g, %g] of start component %d", lo, hi,
                             i);
    }
    if (count != ops->nx)
        return cdyn_fail(r, CDYN_EINVAL,
                         "bvp: %d boundary conditions (fixed at the start and end, and user rows) "
                         "for %d state components: the problem must have exactly as many",
                         count, ops->nx);
    return CDYN_OK;
}

cdyn_status bvp_engine_create(const bvp_step_ops *ops, const bvp_spec *spec,
                              const cdyn_mcp_options *opts, bvp_engine **out, cdyn_report *r)
{
    cdyn_report_clear(r, "bvp");
    if (out == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "bvp: out is NULL");
    *out = NULL;
    cdyn_status st = check_spec(ops, spec, r);
    if (st != CDYN_OK)
        return st;
    const int nx = ops->nx, ny = ops->ny, N = spec->N;
    const size_t n = (size_t)nx + (size_t)N * ny;
    size_t nbnd = 0;
    for (int i = 0; i < nx; i++)
        nbnd += (spec->fixed0 != NULL && spec->fixed0[i]) + (spec->fixedN != NULL && spec->fixedN[i]);
    nbnd += (size_t)spec->nuser * 2 * nx;
    const size_t ntrip = nbnd + (size_t)N * ((size_t)ops->njy + ops->njx);
    if (n > INT_MAX || ntrip > INT_MAX / 2)
        return cdyn_fail(r, CDYN_ETOOBIG, "bvp: %zu unknowns and %zu Jacobian entries are too "
                         "many for 32-bit indices", n, ntrip);
    const cdyn_allocator *a = opts != NULL ? opts->allocator : NULL;
    bvp_engine *e = cdyn_mem_alloc(a, sizeof *e);
    if (e == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
    memset(e, 0, sizeof *e);
    e->ops = *ops;
    e->spec = *spec;
    e->alloc = a;
    e->nx = nx;
    e->ny = ny;
    e->N = N;
    e->n = (int)n;
    e->nbnd = (int)nbnd;
    e->ntrip = (int)ntrip;
    e->slot_kind = cdyn_mem_array(a, 2 * (size_t)nx, sizeof(int));
    e->lower = cdyn_mem_array(a, 2 * n, sizeof(double));
    e->tx = cdyn_mem_array(a, ntrip, sizeof(double));
    const size_t nu = (size_t)spec->nuser;
    e->ures = cdyn_mem_array(a, nu + nu * 2 * nx + 1, sizeof(double));
    e->b0 = cdyn_mem_array(a, (size_t)nx + 2 * n, sizeof(double));
    e->s = 1.0;
    int *ti = cdyn_mem_array(a, ntrip, sizeof(int)), *tj = cdyn_mem_array(a, ntrip, sizeof(int));
    if (e->slot_kind == NULL || e->lower == NULL || e->tx == NULL || e->ures == NULL ||
        e->b0 == NULL || ti == NULL || tj == NULL) {
        cdyn_mem_free(a, ti);
        cdyn_mem_free(a, tj);
        bvp_engine_free(e);
        return cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
    }
    e->slot_index = e->slot_kind + nx;
    e->upper = e->lower + n;
    e->ujac = e->ures + nu;
    e->zt = e->b0 + nx;
    e->zsave = e->zt + n;
    e->solver_tol = opts != NULL ? opts->tol : 1e-10;
    memset(e->b0, 0, (size_t)nx * sizeof(double));

    /* Slots: fixed start components on their own slot, the rest in order of the end conditions
     * and the user rows. */
    int next = 0, k = 0;
    for (int i = 0; i < nx; i++)
        e->slot_kind[i] = -1;
    for (int i = 0; i < nx; i++)
        if (spec->fixed0 != NULL && spec->fixed0[i]) {
            e->slot_kind[i] = SLOT_START;
            e->slot_index[i] = i;
        }
    for (int c = 0; c < nx; c++)
        if (spec->fixedN != NULL && spec->fixedN[c]) {
            while (e->slot_kind[next] != -1)
                next++;
            e->slot_kind[next] = SLOT_END;
            e->slot_index[next] = c;
        }
    for (int u = 0; u < spec->nuser; u++) {
        while (e->slot_kind[next] != -1)
            next++;
        e->slot_kind[next] = SLOT_USER;
        e->slot_index[next] = u;
    }
    /* Triplets in the order engine_J writes their values. */
    for (int i = 0; i < nx; i++) {
        if (e->slot_kind[i] == SLOT_START) {
            ti[k] = i, tj[k++] = i;
        } else if (e->slot_kind[i] == SLOT_END) {
            ti[k] = i, tj[k++] = col_end(e, e->slot_index[i]);
        } else {
            for (int c = 0; c < 2 * nx; c++)
                ti[k] = i, tj[k++] = c < nx ? c : col_end(e, c - nx);
        }
    }
    for (int l = 1; l <= N; l++) {
        const int R = col_step(e, l), P = col_prev(e, l);
        for (int q = 0; q < ops->njy; q++)
            ti[k] = R + ops->jy_i[q], tj[k++] = R + ops->jy_j[q];
        for (int q = 0; q < ops->njx; q++)
            ti[k] = R + ops->jx_i[q], tj[k++] = P + ops->jx_j[q];
    }
    st = cdyn_csc_assembly_init(&e->A, (int)n, (int)n, (int)ntrip, ti, tj, a, r);
    cdyn_mem_free(a, ti);
    cdyn_mem_free(a, tj);
    if (st != CDYN_OK) {
        bvp_engine_free(e);
        return st;
    }
    for (int i = 0; i < nx; i++) {
        const int fixed = spec->fixed0 != NULL && spec->fixed0[i];
        e->lower[i] = !fixed && spec->lower0 != NULL ? spec->lower0[i] : -INFINITY;
        e->upper[i] = !fixed && spec->upper0 != NULL ? spec->upper0[i] : INFINITY;
    }
    for (int l = 1; l <= N; l++)
        for (int q = 0; q < ny; q++) {
            e->lower[col_step(e, l) + q] = ops->lower[q];
            e->upper[col_step(e, l) + q] = ops->upper[q];
        }
    e->mcp.n = (int)n;
    e->mcp.lower = e->lower;
    e->mcp.upper = e->upper;
    e->mcp.F = engine_F;
    e->mcp.colptr = e->A.colptr;
    e->mcp.rowind = e->A.rowind;
    e->mcp.jac_sparse = engine_J;
    e->mcp.ctx = e;
    st = cdyn_mcp_solver_create(&e->mcp, opts, &e->solver, r);
    if (st != CDYN_OK) {
        bvp_engine_free(e);
        return st;
    }
    cdyn_report_clear(r, "bvp");
    *out = e;
    return CDYN_OK;
}

/* Boundary residual B(z) (the rows without the shift) into b (nx); 0 on success. */
static int boundary_residual(bvp_engine *e, const double *z, double *b)
{
    const double s = e->s;
    e->s = 1.0;
    int fail = engine_F(e, z, e->zt) != 0; /* zt: n values of scratch */
    e->s = s;
    if (!fail)
        memcpy(b, e->zt, (size_t)e->nx * sizeof(double));
    return fail;
}

cdyn_status bvp_engine_solve(bvp_engine *e, double *z, cdyn_report *r)
{
    cdyn_report_clear(r, "bvp");
    e->failed_step = 0;
    e->steps = 0;
    /* Plain Newton on the whole problem first. */
    memcpy(e->zsave, z, (size_t)e->n * sizeof(double));
    e->s = 1.0;
    memset(e->b0, 0, (size_t)e->nx * sizeof(double));
    cdyn_report rr;
    cdyn_status st = cdyn_mcp_solver_solve(e->solver, &e->mcp, z, &rr);
    int iterations = rr.iterations;
    if (st == CDYN_ENOCONV && boundary_residual(e, z, e->b0) == 0) {
        /* Continuation from the guess, which solves the problem with the boundary residual
         * it has: s = 0 -> 1, steps doubled after a success and halved after a failure. */
        double *zc = cdyn_mem_array(e->alloc, (size_t)e->n, sizeof(double));
        if (zc == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
        memcpy(zc, z, (size_t)e->n * sizeof(double));
        double s = 0.0, ds = 0.25;
        char last[CDYN_REPORT_TEXT] = "";
        while (s < 1.0 && ds >= 1.0 / 4096) {
            e->s = fmin(1.0, s + ds);
            memcpy(e->zt, zc, (size_t)e->n * sizeof(double));
            st = cdyn_mcp_solver_solve(e->solver, &e->mcp, e->zt, &rr);
            iterations += rr.iterations;
            if (st == CDYN_OK) {
                memcpy(zc, e->zt, (size_t)e->n * sizeof(double));
                s = e->s;
                e->steps++;
                ds = fmin(2 * ds, 1.0);
            } else if (st == CDYN_ENOCONV) {
                snprintf(last, sizeof last, "%s", rr.message);
                ds /= 2;
            } else {
                break;
            }
        }
        if (st == CDYN_OK && s >= 1.0)
            memcpy(z, zc, (size_t)e->n * sizeof(double));
        else if (st == CDYN_OK || st == CDYN_ENOCONV)
            st = cdyn_fail(&rr, CDYN_ENOCONV,
                           "no solution found: continuation in the boundary conditions stalled "
                           "at s = %.4g of 1 (%d steps; last attempt: %.120s)",
                           s, e->steps, last);
        cdyn_mem_free(e->alloc, zc);
        e->s = 1.0;
    }
    /* A start bound that is active lets its paired condition hold as an inequality only: then
     * the MCP is solved but the boundary-value problem is not. */
    if (st == CDYN_OK) {
        double worst = 0.0;
        int worst_slot = -1;
        if (boundary_residual(e, z, e->b0) == 0)
            for (int i = 0; i < e->nx; i++)
                if (fabs(e->b0[i]) > worst) {
                    worst = fabs(e->b0[i]);
                    worst_slot = i;
                }
        if (worst_slot >= 0 && worst > e->solver_tol) {
            const int k = e->slot_index[worst_slot];
            st = cdyn_fail(&rr, CDYN_ENOSOLUTION,
                           "no solution within the bounds: start component %d is at its bound "
                           "and the %s %d paired with it misses by %.3g",
                           worst_slot, e->slot_kind[worst_slot] == SLOT_END ? "end component"
                                                                            : "user row",
                           k, worst);
            rr.residual = worst;
            memcpy(z, e->zsave, (size_t)e->n * sizeof(double));
        }
    }
    if (r != NULL) {
        *r = rr;
        r->iterations = iterations;
        cdyn_report_method(r, e->steps > 0 ? "bvp-continuation" : "bvp-newton");
        if (st != CDYN_OK && e->failed_step > 0) {
            size_t len = strlen(r->message);
            snprintf(r->message + len, sizeof r->message - len, " (last failing step: %d)",
                     e->failed_step);
        }
    }
    return st;
}

int bvp_engine_continuation_steps(const bvp_engine *e)
{
    return e->steps;
}

double bvp_engine_residual(bvp_engine *e, const double *z)
{
    double *F = cdyn_mem_array(e->alloc, (size_t)e->n, sizeof(double));
    if (F == NULL)
        return NAN;
    double res = engine_F(e, z, F) == 0 ? cdyn_mcp_residual(&e->mcp, z, F) : NAN;
    cdyn_mem_free(e->alloc, F);
    return res;
}

/* One step as an MCP in y for the IVP guess. */
typedef struct ivp_ctx {
    const bvp_step_ops *ops;
    int step;
    const double *xprev;
    double *jx;
    cdyn_csc_assembly *A;
    double *ty;
} ivp_ctx;

static int ivp_F(void *ctx, const double *y, double *F)
{
    ivp_ctx *c = ctx;
    return c->ops->F(c->ops->ctx, c->step, c->xprev, y, F);
}

static int ivp_J(void *ctx, const double *y, double *values)
{
    ivp_ctx *c = ctx;
    if (c->ops->J(c->ops->ctx, c->step, c->xprev, y, c->ty, c->jx) != 0)
        return 1;
    cdyn_csc_values_from_triplets(c->ops->njy, c->A->map, c->ty, c->A->colptr[c->ops->ny],
                                  values);
    return 0;
}

cdyn_status bvp_ivp_guess(const bvp_step_ops *ops, int N, const double *ystart,
                          const cdyn_mcp_options *opts, double *z, cdyn_report *r)
{
    cdyn_report_clear(r, "bvp-ivp");
    const cdyn_allocator *a = opts != NULL ? opts->allocator : NULL;
    cdyn_csc_assembly A;
    memset(&A, 0, sizeof A);
    cdyn_status st =
        cdyn_csc_assembly_init(&A, ops->ny, ops->ny, ops->njy, ops->jy_i, ops->jy_j, a, r);
    if (st != CDYN_OK)
        return st;
    double *ty = cdyn_mem_array(a, (size_t)ops->njy + ops->njx + 1, sizeof(double));
    cdyn_mcp_solver *solver = NULL;
    ivp_ctx c = {ops, 0, NULL, NULL, &A, ty};
    cdyn_mcp m = {0};
    m.n = ops->ny;
    m.lower = ops->lower;
    m.upper = ops->upper;
    if (m.lower == NULL || m.upper == NULL) {
        st = cdyn_fail(r, CDYN_EINVAL, "bvp-ivp: the formulation must give both bounds");
        goto done;
    }
    m.F = ivp_F;
    m.colptr = A.colptr;
    m.rowind = A.rowind;
    m.jac_sparse = ivp_J;
    m.ctx = &c;
    if (ty == NULL) {
        st = cdyn_fail(r, CDYN_ENOMEM, "bvp-ivp: out of memory");
        goto done;
    }
    c.jx = ty + ops->njy;
    if ((st = cdyn_mcp_solver_create(&m, opts, &solver, r)) != CDYN_OK)
        goto done;
    const int nx = ops->nx, ny = ops->ny;
    int iterations = 0;
    for (int l = 1; l <= N; l++) {
        double *y = z + nx + (size_t)(l - 1) * ny;
        memcpy(y, l == 1 ? ystart : y - ny, (size_t)ny * sizeof(double));
        c.step = l;
        c.xprev = l == 1 ? z : y - ny;
        if (l == 1)
            memcpy(y, z, (size_t)nx * sizeof(double)); /* start the state at x_0 */
        st = cdyn_mcp_solver_solve(solver, &m, y, r);
        iterations += r != NULL ? r->iterations : 0;
        if (st != CDYN_OK) {
            if (r == NULL)
                break;
            size_t len = strlen(r->message);
            snprintf(r->message + len, sizeof r->message - len, " (IVP step %d)", l);
            break;
        }
    }
    if (r != NULL)
        r->iterations = iterations;
done:
    cdyn_mcp_solver_free(solver);
    cdyn_mem_free(a, ty);
    cdyn_csc_assembly_free(&A);
    return st;
}

/* Both kinds of sensitivity: boundary values (which, dF/dp = -1 at a boundary slot) or general
 * parameters (dFdp given, n x np). */
static cdyn_status sensitivity(bvp_engine *e, const double *z, int np, const int *which,
                               const double *dFdp, double *dz, cdyn_report *r)
{
    cdyn_report_clear(r, "bvp-sensitivity");
    const int n = e->n, nx = e->nx, nnz = e->A.colptr[n];
    const cdyn_allocator *a = e->alloc;
    int *slots = cdyn_mem_array(a, (size_t)np + 1, sizeof(int));
    if (slots == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
    /* the rows (slots) whose residual depends on each boundary value, with dF/dp = -1 */
    for (int j = 0; which != NULL && j < np; j++) {
        const int c = which[j];
        int slot = -1;
        if (c >= 0 && c < nx && e->slot_kind[c] == SLOT_START)
            slot = c;
        for (int i = 0; c >= nx && c < 2 * nx && i < nx; i++)
            if (e->slot_kind[i] == SLOT_END && e->slot_index[i] == c - nx)
                slot = i;
        if (slot < 0) {
            cdyn_mem_free(a, slots);
            return cdyn_fail(r, CDYN_EINVAL, "bvp: sensitivity to component %d, which is not a "
                             "fixed start (0..%d) or end (%d..%d) value", c, nx - 1, nx,
                             2 * nx - 1);
        }
        slots[j] = slot;
    }
    double *F = cdyn_mem_array(a, 5 * (size_t)n + nnz + 2 * ((size_t)nnz + n), sizeof(double));
    int *ti = cdyn_mem_array(a, 2 * ((size_t)nnz + n), sizeof(int));
    cdyn_csc_assembly H;
    memset(&H, 0, sizeof H);
    cdyn_linsys *lu = NULL;
    cdyn_status st = CDYN_OK;
    if (F == NULL || ti == NULL) {
        st = cdyn_fail(r, CDYN_ENOMEM, "bvp: out of memory");
        goto done;
    }
    double *Phi = F + n, *da = Phi + n, *db = da + n, *rhs = db + n, *Jv = rhs + n;
    double *tx = Jv + nnz;
    int *tj = ti + nnz + n;
    e->s = 1.0;
    if (engine_F(e, z, F) != 0 || engine_J(e, z, Jv) != 0) {
        st = cdyn_fail(r, CDYN_ENUMERIC, "bvp: the formulation cannot be evaluated at z");
        goto done;
    }
    cdyn_mcp_fb_eval(n, e->lower, e->upper, z, F, 1.0, Phi, da, db);
    /* H = diag(db) J + diag(da) as triplets over J's pattern and the diagonal */
    int t = 0;
    for (int col = 0; col < n; col++)
        for (int p = e->A.colptr[col]; p < e->A.colptr[col + 1]; p++) {
            ti[t] = e->A.rowind[p];
            tj[t] = col;
            tx[t++] = db[e->A.rowind[p]] * Jv[p];
        }
    for (int i = 0; i < n; i++) {
        ti[t] = i;
        tj[t] = i;
        tx[t++] = da[i];
    }
    if ((st = cdyn_csc_assembly_init(&H, n, n, t, ti, tj, a, r)) != CDYN_OK)
        goto done;
    cdyn_csc_assembly_set_values(&H, tx);
    /* KLU with the pivot-growth check (AMD ordering), factored once for every parameter. */
    cdyn_linsys_spec spec = cdyn_linsys_spec_default(CDYN_LINSYS_KLU, n, a);
    spec.colptr = H.A.colptr;
    spec.rowind = H.A.rowind;
    spec.klu_check = CDYN_LINSYS_KLU_GROWTH;
    if ((st = cdyn_linsys_create(&spec, &lu, r)) != CDYN_OK ||
        (st = cdyn_linsys_factor(lu, H.A.values, r)) != CDYN_OK) {
        if (st == CDYN_ESINGULAR)
            cdyn_fail(r, st, "bvp: the Newton matrix at the solution is singular: no "
                      "sensitivities (a degenerate or non-isolated solution)");
        goto done;
    }
    for (int j = 0; j < np; j++) {
        if (which != NULL) {
            memset(rhs, 0, (size_t)n * sizeof(double));
            rhs[slots[j]] = db[slots[j]]; /* -db * dF/dp with dF/dp = -1 at the slot */
        } else {
            for (int i = 0; i < n; i++)
                rhs[i] = -db[i] * dFdp[i + (size_t)j * n];
        }
        memcpy(dz + (size_t)j * n, rhs, (size_t)n * sizeof(double));
        if ((st = cdyn_linsys_solve(lu, 0, 1, dz + (size_t)j * n, r)) != CDYN_OK)
            goto done;
    }
    cdyn_report_method(r, "bvp-sensitivity");
done:
    cdyn_linsys_free(lu);
    cdyn_csc_assembly_free(&H);
    cdyn_mem_free(a, ti);
    cdyn_mem_free(a, F);
    cdyn_mem_free(a, slots);
    return st;
}

cdyn_status bvp_engine_sensitivity(bvp_engine *e, const double *z, int np, const int *which,
                                   double *dz, cdyn_report *r)
{
    return sensitivity(e, z, np, which, NULL, dz, r);
}

cdyn_status bvp_engine_sensitivity_rhs(bvp_engine *e, const double *z, int np, const double *dFdp,
                                       double *dz, cdyn_report *r)
{
    return sensitivity(e, z, np, NULL, dFdp, dz, r);
}
