/* The default frictional contact solver's chain of stages, and its options: a few Gauss–Seidel
 * sweeps to find the contact modes, semismooth Newton (Alart–Curnier, then Fischer–Burmeister;
 * each from the best point so far and from the caller's start) for the fast finish, and
 * Gauss–Seidel again, then Newton once more from its result, when Newton fails; when all of that
 * fails from a nonzero start, all of it once more from 0. The memory comes from the caller (the
 * solver object, fc3d_solver.c); the Newton stages share one workspace. */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"

void cdyn_fc3d_defaults(cdyn_fc3d_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->tol = 1e-10;
    opts->warm_sweeps = 2;
    cdyn_fc3d_nsgs_defaults(&opts->nsgs);
    cdyn_fc3d_newton_defaults(&opts->newton);
    opts->try_fb = 1;
    opts->fallback_nsgs = 1;
}

typedef struct chain {
    const fc3d_sys *sys;
    fc3d_newton_ws **nw;
    size_t bytes;
    double *x, *u, *best, *best_u; /* current point, and the best one of all stages */
    const double *start;           /* the caller's starting point */
    double best_res;
    const char *best_method;
} chain;

/* Remember the stage's point when it succeeded or is at least as good as the best so far. */
static void keep_best(chain *c, cdyn_status st, double res, const char *method)
{
    if (st == CDYN_OK || res <= c->best_res) {
        c->best_res = res;
        c->best_method = method;
        memcpy(c->best, c->x, c->bytes);
        memcpy(c->best_u, c->u, c->bytes);
    }
}

static void restart_from_best(chain *c)
{
    memcpy(c->x, c->best, c->bytes);
}

/* One Newton stage on the shared workspace, created at the first one (its failure is reported
 * as fc3d_newton_run reports it: with u and the residual of the start). */
static cdyn_status newton_stage(chain *c, const cdyn_fc3d_newton_options *nt, double *res,
                                cdyn_fc3d_report *rep)
{
    if (*c->nw == NULL) {
        fc3d_sys_velocity(c->sys, c->x, c->u);
        *res = fc3d_sys_residual(c->sys, c->x, c->u);
        cdyn_status st = fc3d_newton_ws_create(c->sys, nt, c->nw, rep);
        if (st != CDYN_OK)
            return st;
    }
    return fc3d_newton_ws_run(*c->nw, c->sys, nt, c->x, c->u, res, rep);
}

static cdyn_status run_chain(chain *c, const cdyn_fc3d_options *o, cdyn_fc3d_report *rep)
{
    const fc3d_sys *s = c->sys;
    double res;
    cdyn_status st = CDYN_ENOCONV;
    if (o->warm_sweeps > 0) {
        cdyn_fc3d_nsgs_options g = o->nsgs;
        g.max_sweeps = o->warm_sweeps;
        g.tol = o->tol;
        g.stall_ratio = 0.0;
        st = fc3d_nsgs_run(s, &g, c->x, c->u, &res, rep);
        keep_best(c, st, res, "nsgs");
        if (st == CDYN_OK)
            return st;
        restart_from_best(c);
    }
    cdyn_fc3d_newton_options nt = o->newton;
    nt.tol = o->tol;
    nt.formulation = CDYN_FC3D_ALART_CURNIER;
    st = newton_stage(c, &nt, &res, rep);
    keep_best(c, st, res, "newton-ac");
    if (st == CDYN_OK || st == CDYN_ENOMEM)
        return st;
    if (o->warm_sweeps > 0) {
        /* Gauss–Seidel's few sweeps can lead Newton astray (spheres-in-a-box: from zero,
           Alart–Curnier converges in 51 iterations, from the warm start it does not). */
        memcpy(c->x, c->start, c->bytes);
        st = newton_stage(c, &nt, &res, rep);
        keep_best(c, st, res, "newton-ac");
        if (st == CDYN_OK || st == CDYN_ENOMEM)
            return st;
    }
    if (o->try_fb) {
        restart_from_best(c);
        nt.formulation = CDYN_FC3D_FISCHER_BURMEISTER;
        st = newton_stage(c, &nt, &res, rep);
        keep_best(c, st, res, "newton-fb");
        if (st == CDYN_OK || st == CDYN_ENOMEM)
            return st;
        /* The warm start can lie in a basin where the merit has no descent to a solution
           (OneObject-i100000-499: Gauss–Seidel cycles there, FB from zero converges). */
        memcpy(c->x, c->start, c->bytes);
        st = newton_stage(c, &nt, &res, rep);
        keep_best(c, st, res, "newton-fb");
        if (st == CDYN_OK || st == CDYN_ENOMEM)
            return st;
    }
    if (o->fallback_nsgs) {
        restart_from_best(c);
        cdyn_fc3d_nsgs_options g = o->nsgs;
        g.tol = o->tol;
        st = fc3d_nsgs_run(s, &g, c->x, c->u, &res, rep);
        keep_best(c, st, res, "nsgs");
        if (st == CDYN_OK)
            return st;
        /* Gauss–Seidel may have moved to where Newton converges (the modes settled): Newton
           starts from its result, not from the best point, which is usually the Newton point
           that stalled (its residual is smaller than what 50 sweeps reach) — restarting there
           only repeated the stall (two contacts wedging a sphere, tests/test_fc3d.c). */
        nt.formulation = CDYN_FC3D_ALART_CURNIER;
        st = newton_stage(c, &nt, &res, rep);
        keep_best(c, st, res, "nsgs+newton-ac");
    }
    return st;
}

/* The last resort, when the chain failed from the caller's start (and from 0): Gauss–Seidel
 * from the caller's start `gs` without the stall test, and Newton–AC tried from its iterate
 * after every nsgs.max_sweeps sweeps, GS_ROUNDS times. Piles of spheres are hyperstatic (W
 * singular, the impulses not unique): there Newton stalled near 1e-4 from the warm start, from 0
 * and after the 50 sweeps of stage 4 (whose start, the best point, is a Newton iterate that
 * Gauss–Seidel first moves away from), while Gauss–Seidel's slow linear convergence reaches
 * Newton's basin after about 1500 sweeps (docs/theory.md, "Frictional contact problems", §5). */
#define GS_ROUNDS 4

static cdyn_status gs_newton_rounds(chain *c, const cdyn_fc3d_options *o, double *gs,
                                    cdyn_fc3d_report *rep)
{
    cdyn_fc3d_nsgs_options g = o->nsgs;
    g.tol = o->tol;
    g.stall_ratio = 0.0;
    cdyn_fc3d_newton_options nt = o->newton;
    nt.tol = o->tol;
    nt.formulation = CDYN_FC3D_ALART_CURNIER;
    cdyn_status st = CDYN_ENOCONV;
    for (int k = 0; k < GS_ROUNDS && g.max_sweeps > 0; k++) {
        double res;
        memcpy(c->x, gs, c->bytes);
        st = fc3d_nsgs_run(c->sys, &g, c->x, c->u, &res, rep);
        keep_best(c, st, res, "nsgs");
        if (st != CDYN_ENOCONV) /* solved, or a block that cannot be solved, or overflow */
            return st;
        memcpy(gs, c->x, c->bytes); /* Gauss–Seidel goes on from its own iterate */
        st = newton_stage(c, &nt, &res, rep);
        keep_best(c, st, res, "nsgs+newton-ac");
        if (st == CDYN_OK || st == CDYN_ENOMEM)
            return st;
    }
    return st;
}

static int all_zero(size_t len, const double *v)
{
    for (size_t k = 0; k < len; k++)
        if (v[k] != 0.0)
            return 0;
    return 1;
}

cdyn_status fc3d_chain_run(const fc3d_sys *sys, const cdyn_fc3d_options *o, double *mem,
                           fc3d_newton_ws **nw, double *x, double *u, double *res_abs,
                           cdyn_fc3d_report *rep)
{
    size_t m = 3 * (size_t)sys->n;
    memcpy(mem + 2 * m, x, m * sizeof(double));
    double *gs = mem + 3 * m; /* the caller's start, for the last resort */
    memcpy(gs, x, m * sizeof(double));
    /* The best point starts as the start itself, so that no stage ever restarts from memory
       that no stage wrote (a first stage that overflows records nothing better). */
    fc3d_sys_velocity(sys, x, u);
    chain c = {sys, nw, m * sizeof(double), x, u, mem, mem + m, mem + 2 * m,
               fc3d_sys_residual(sys, x, u), "fc3d"};
    memcpy(c.best, x, c.bytes);
    memcpy(c.best_u, u, c.bytes);
    if (!(c.best_res <= INFINITY)) /* NaN: any stage's finite residual is better */
        c.best_res = INFINITY;
    cdyn_status st = run_chain(&c, o, rep);
    if (st != CDYN_OK && st != CDYN_ENOMEM && !all_zero(m, c.start)) {
        /* The caller's start is a guess (the Coulomb step passes the last step's impulses):
           it can hold forces the problem no longer has — two contacts that wedged a sphere
           carried 60 times the force the next step needs, one of them separating — and from
           there no stage converged while from 0 one sweep does. The whole chain once more,
           from 0 (the best point is kept across both runs). */
        memset(mem + 2 * m, 0, c.bytes);
        memset(c.x, 0, c.bytes);
        st = run_chain(&c, o, rep);
    }
    if (st != CDYN_OK && st != CDYN_ENOMEM && o->fallback_nsgs)
        st = gs_newton_rounds(&c, o, gs, rep);
    memcpy(x, c.best, c.bytes);
    memcpy(u, c.best_u, c.bytes);
    *res_abs = c.best_res;
    fc3d_report_method(rep, c.best_method);
    return st;
}

cdyn_status fc3d_check_options(cdyn_fc3d_options *o, cdyn_fc3d_report *report)
{
    if (!(o->tol > 0.0) || !isfinite(o->tol) || o->warm_sweeps < 0)
        return fc3d_fail(report, CDYN_EINVAL, "options: tol > 0 and warm_sweeps >= 0 needed");
    o->nsgs.allocator = o->allocator;
    o->newton.allocator = o->allocator;
    o->nsgs.tol = o->newton.tol = o->tol;
    cdyn_status st = fc3d_nsgs_check_options(&o->nsgs, report);
    if (st == CDYN_OK)
        st = fc3d_newton_check_options(&o->newton, report);
    return st;
}
