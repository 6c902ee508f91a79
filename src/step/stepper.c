/* The stepper: options, the scheme/backend table, and the driver that validates a state, halves
 * failing steps and commits a step only when it succeeded. */
#include "step/step_internal.h"

#include "core/memory.h"
#include "core/report.h"
#include "solvers/coneqp/coneqp_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"
#include "solvers/lcp/lcp_internal.h"
#include "solvers/mcp/mcp_internal.h"

#include <math.h>
#include <string.h>

#define BIT(b) (1u << (b))

/* The backend table: one row per scheme, in cdyn_scheme order. */
static const step_scheme *const schemes[] = {
    [CDYN_SCHEME_IMPLICIT_NCP] = &cdyn_scheme_implicit_ncp,
    [CDYN_SCHEME_PYRAMID_LCP] = &cdyn_scheme_pyramid_lcp,
    [CDYN_SCHEME_CONE_STEP] = &cdyn_scheme_cone_step,
    [CDYN_SCHEME_BAUMGARTE] = &cdyn_scheme_baumgarte,
    [CDYN_SCHEME_COULOMB_STEP] = &cdyn_scheme_coulomb_step,
};
#define NSCHEMES ((int)(sizeof schemes / sizeof schemes[0]))

const char *cdyn_scheme_str(cdyn_scheme scheme)
{
    if ((int)scheme >= 0 && (int)scheme < NSCHEMES)
        return schemes[scheme]->name;
    return "unknown scheme";
}

const char *cdyn_step_backend_str(cdyn_step_backend backend)
{
    switch (backend) {
    case CDYN_BACKEND_AUTO: return "auto";
    case CDYN_BACKEND_LEMKE: return "lemke";
    case CDYN_BACKEND_FB_DENSE: return "fb-dense";
    case CDYN_BACKEND_FB_SPARSE: return "fb-sparse";
    case CDYN_BACKEND_CONEQP: return "coneqp";
    case CDYN_BACKEND_DIRECT: return "direct";
    case CDYN_BACKEND_FC3D: return "fc3d";
    }
    return "unknown backend";
}

void cdyn_step_defaults(cdyn_step_options *o, cdyn_scheme scheme)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    o->scheme = scheme;
    o->backend = CDYN_BACKEND_AUTO;
    o->h = 0.01;
    o->max_halvings = 8;
    o->gamma = 1e-4;
    o->friction_qp = 1;
    o->sparse_above = 200;
    o->fd_jacobian = 0;
    o->continuation = 4;
    cdyn_mcp_defaults(&o->mcp);
    o->directions = 4;
    o->bound = CDYN_PYRAMID_DIAMOND;
    o->restitution = 0;
    cdyn_lcp_defaults(&o->lcp);
    cdyn_coneqp_defaults(&o->coneqp);
    cdyn_fc3d_defaults(&o->fc3d);
    o->coneqp.check_psd = 0; /* W = J M^-1 J' is positive semidefinite by construction */
    o->event_tol = 1e-9;
    o->max_penetration = 0.1;
    o->allocator = NULL;
}

/* The nested solver options, each by its solver's own check (step.h promises refusal at
 * creation: before, mcp.tol = NaN or fc3d.tol = -1 made every step fail instead; issue 18). All
 * are checked whatever the backend, so a stepper never carries options that cannot run. */
static cdyn_status check_solver_options(const cdyn_step_options *o, cdyn_report *r)
{
    cdyn_status st = cdyn_mcp_check_options(&o->mcp, r);
    const char *which = "mcp";
    if (st == CDYN_OK) {
        which = "lcp.lemke";
        st = cdyn_lemke_check_options(&o->lcp.lemke, 0, r);
    }
    if (st == CDYN_OK) {
        which = "coneqp";
        st = cdyn_coneqp_check_options(&o->coneqp, r);
    }
    if (st == CDYN_OK) {
        which = "fc3d";
        cdyn_fc3d_options fo = o->fc3d;
        cdyn_fc3d_report fr;
        st = fc3d_check_options(&fo, &fr);
        if (st != CDYN_OK)
            return cdyn_fail(r, st, "cdyn_stepper_create: options.fc3d: %s", fr.message);
    }
    if (st != CDYN_OK && r != NULL) {
        char msg[CDYN_REPORT_TEXT];
        memcpy(msg, r->message, sizeof msg);
        cdyn_fail(r, st, "cdyn_stepper_create: options.%s: %.200s", which, msg);
    }
    return st;
}

static cdyn_status check_options(const cdyn_step_options *o, cdyn_report *r)
{
    if ((int)o->scheme < 0 || (int)o->scheme >= NSCHEMES)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: unknown scheme %d", (int)o->scheme);
    if ((int)o->backend < 0 || (int)o->backend > CDYN_BACKEND_FC3D)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: unknown backend %d",
                         (int)o->backend);
    if (!(o->h > 0) || !isfinite(o->h))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: h = %g must be finite and > 0",
                         o->h);
    if (o->max_halvings < 0 || o->max_halvings > 20)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: max_halvings = %d not in 0..20",
                         o->max_halvings);
    if (o->continuation < 0 || o->continuation > 10)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: continuation = %d not in 0..10",
                         o->continuation);
    if (!(o->gamma >= 0) || !isfinite(o->gamma))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: gamma = %g must be finite, >= 0",
                         o->gamma);
    if (!(o->event_tol > 0) || !isfinite(o->event_tol))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: event_tol = %g must be > 0",
                         o->event_tol);
    if (!(o->max_penetration > 0))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: max_penetration = %g must be > 0",
                         o->max_penetration);
    if (o->sparse_above < 0)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_stepper_create: sparse_above = %d < 0",
                         o->sparse_above);
    return check_solver_options(o, r);
}

cdyn_status cdyn_stepper_create(const cdyn_model *model, const cdyn_step_options *opts,
                                cdyn_stepper **out, cdyn_report *report)
{
    cdyn_report_clear(report, "stepper");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_stepper_create: out is NULL");
    *out = NULL;
    if (model == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_stepper_create: model is NULL");
    cdyn_step_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    cdyn_status st = check_options(&o, report);
    if (st != CDYN_OK)
        return st;
    const step_scheme *sc = schemes[o.scheme];
    int fbody;
    const int nfric = cdyn_model_joint_friction_count(model, &fbody);
    if (nfric > 0 && o.scheme != CDYN_SCHEME_PYRAMID_LCP)
        return cdyn_fail(report, CDYN_ENOTSUP,
                         "cdyn_stepper_create: body %d has joint friction (%d bodies in all): "
                         "the %s scheme does not take joint friction yet, the pyramid-lcp "
                         "scheme does (docs/api.md, \"Joint damping and friction\")",
                         fbody, nfric, sc->name);

    cdyn_stepper *s = cdyn_mem_alloc(o.allocator, sizeof *s);
    if (s == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_stepper_create: out of memory");
    memset(s, 0, sizeof *s);
    s->model = model;
    s->scheme = sc;
    s->nq = cdyn_model_nq(model);
    s->nv = cdyn_model_nv(model);
    s->nc = cdyn_model_ncontact(model);
    s->dim = cdyn_model_dim(model);
    s->opts = o;
    if (o.backend == CDYN_BACKEND_AUTO)
        s->opts.backend = sc->pick(s);
    if (!(sc->backends & BIT(s->opts.backend))) {
        cdyn_fail(report, CDYN_EINVAL, "cdyn_stepper_create: the %s scheme cannot use the %s backend",
                  sc->name, cdyn_step_backend_str(s->opts.backend));
        cdyn_mem_free(o.allocator, s);
        return CDYN_EINVAL;
    }
    /* The backends allocate per solve from the arena, which stops allocating after warm-up. */
    cdyn_arena_init(&s->arena, o.allocator);
    s->opts.mcp.allocator = &s->arena.as;
    s->opts.lcp.lemke.allocator = &s->arena.as;
    s->opts.coneqp.allocator = &s->arena.as;
    s->opts.fc3d.allocator = &s->arena.as;

    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    /* Every scheme but Baumgarte works on the sparse matrices (src/step/contact_space.c,
     * implicit_ncp*.c): dense copies of M and the Jacobians would cost n_v^2 and 3 n_c n_v
     * doubles (24 GB for the 1000-sphere pile's 504 500 pairs). */
    dopt.dense = o.scheme == CDYN_SCHEME_BAUMGARTE;
    dopt.allocator = o.allocator;
    st = cdyn_data_create(model, &dopt, &s->data, report);
    if (st == CDYN_OK)
        st = lim_rows_create(model, o.allocator, &s->lim, report);
    if (st == CDYN_OK)
        st = cdyn_state_create(model, o.allocator, &s->a, report);
    if (st == CDYN_OK)
        st = cdyn_state_create(model, o.allocator, &s->b, report);
    if (st == CDYN_OK)
        st = sc->create(s, report);
    if (st != CDYN_OK) {
        s->ws = NULL; /* create frees its own workspace on failure */
        cdyn_stepper_free(s);
        return st;
    }
    cdyn_report_clear(report, "stepper");
    *out = s;
    return CDYN_OK;
}

void cdyn_stepper_free(cdyn_stepper *s)
{
    if (s == NULL)
        return;
    if (s->ws != NULL)
        s->scheme->destroy(s);
    cdyn_state_free(s->a);
    cdyn_state_free(s->b);
    cdyn_data_free(s->data);
    lim_rows_free(&s->lim, s->opts.allocator);
    substeps_free(s);
    cdyn_arena_destroy(&s->arena);
    const cdyn_allocator *a = s->opts.allocator;
    cdyn_mem_free(a, s);
}

const cdyn_step_options *cdyn_stepper_options(const cdyn_stepper *s)
{
    return s != NULL ? &s->opts : NULL;
}

static int all_finite(int n, const double *x)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static cdyn_status check_state(const cdyn_stepper *s, const double *tau, const cdyn_state *x,
                               cdyn_report *r)
{
    if (x == NULL || x->q == NULL || x->v == NULL || x->delta == NULL || x->lambda == NULL ||
        x->mode == NULL || (x->nl > 0 && (x->limit_delta == NULL || x->limit_lambda == NULL ||
                                          x->limit_mode == NULL)))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_step: NULL state or state array");
    if (x->nq != s->nq || x->nv != s->nv || x->nc != s->nc || x->nl != s->lim.n)
        return cdyn_fail(r, CDYN_EINVAL,
                         "cdyn_step: the state's sizes (nq %d, nv %d, nc %d, nl %d) are not the "
                         "model's (%d, %d, %d, %d)", x->nq, x->nv, x->nc, x->nl, s->nq, s->nv,
                         s->nc, s->lim.n);
    if (!isfinite(x->t) || !all_finite(s->nq, x->q) || !all_finite(s->nv, x->v) ||
        !all_finite(3 * s->nc, x->delta) || !all_finite(3 * s->nc, x->lambda) ||
        !all_finite(x->nl, x->limit_delta) || !all_finite(x->nl, x->limit_lambda))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_step: the state holds NaN or Inf");
    for (int i = 0; i < s->nc; i++)
        if (x->mode[i] < CDYN_MODE_FREE || x->mode[i] > CDYN_MODE_BALLISTIC)
            return cdyn_fail(r, CDYN_EINVAL, "cdyn_step: mode[%d] = %d is not a contact mode", i,
                             x->mode[i]);
    for (int i = 0; i < x->nl; i++)
        if (x->limit_mode[i] < CDYN_LIMIT_FREE || x->limit_mode[i] > CDYN_LIMIT_AT_UPPER)
            return cdyn_fail(r, CDYN_EINVAL,
                             "cdyn_step: limit_mode[%d] = %d is not a limit mode", i,
                             x->limit_mode[i]);
    if (tau != NULL && !all_finite(s->nv, tau))
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_step: tau holds NaN or Inf");
    /* A quaternion far from unit norm is a wrong state; cdyn_eval says which. */
    cdyn_status st = cdyn_eval(s->model, s->data, x->q, x->v, 0u, r);
    if (st != CDYN_OK)
        return st;
    return CDYN_OK;
}

/* Failures a smaller step may cure. */
static int retryable(cdyn_status st)
{
    return st == CDYN_ENOCONV || st == CDYN_ENUMERIC || st == CDYN_ERAY ||
           st == CDYN_ENOSOLUTION;
}

/* The compliant and Baumgarte schemes fill the limit rows' state themselves; the rigid schemes'
 * modes are read off the positions (limit_rows.h). */
static int scheme_reports_limits(cdyn_scheme sc)
{
    return sc == CDYN_SCHEME_IMPLICIT_NCP || sc == CDYN_SCHEME_BAUMGARTE;
}

cdyn_status step_advance(cdyn_stepper *s, const double *tau, int k, const cdyn_state *x0,
                         cdyn_state *x1, cdyn_step_report *rep)
{
    if (cdyn_arena_reset(&s->arena) != 0)
        return cdyn_fail(&rep->solver, CDYN_ENOMEM, "cdyn_step: out of memory (arena)");
    const int own_limits = scheme_reports_limits(s->opts.scheme);
    if (!own_limits && x1->nl > 0) /* written where they act */
        memset(x1->limit_lambda, 0, (size_t)x1->nl * sizeof(double));
    const cdyn_status st = s->scheme->advance(s, tau, ldexp(s->opts.h, -k), x0, x1, rep);
    if (st == CDYN_OK && !own_limits)
        lim_modes_from_position(&s->lim, x1);
    return st;
}

/* The interval h from x0 in substeps, the result in *res (one of s->a, s->b). The first try is
 * the whole step; a (sub)step that fails is retried at half its length, down to
 * h / 2^max_halvings, from the same state; after two successes in a row the length doubles again
 * where the time reached allows it (a multiple of twice the length), so that a stiff moment
 * costs short substeps only while it lasts. Once a try has failed, the successful substeps are
 * recorded for cdyn_step_derivatives (substep_derivs.h). */
static cdyn_status substeps(cdyn_stepper *s, const double *tau, const cdyn_state *x0,
                            cdyn_state **res, cdyn_step_report *rep)
{
    const int kmax = s->opts.max_halvings;
    const long end = 1L << kmax; /* the step in units of its shortest substep */
    const cdyn_state *cur = x0;
    cdyn_state *next = s->a;
    long pos = 0;
    int k = 0, streak = 0;
    while (pos < end) {
        const cdyn_status st = step_advance(s, tau, k, cur, next, rep);
        rep->solves++;
        if (st != CDYN_OK) {
            if (!retryable(st) || k >= kmax) {
                rep->substeps = 1 << rep->halvings;
                return st;
            }
            if (rep->halvings == 0)
                substeps_begin(s, tau);
            k++;
            streak = 0;
            rep->halvings = k > rep->halvings ? k : rep->halvings;
            continue;
        }
        if (rep->halvings > 0)
            substeps_keep(s, cur, k);
        const long len = end >> k;
        pos += len;
        /* the time from the start, not accumulated, so that the substeps land on t + h */
        next->t = x0->t + s->opts.h * (double)pos / (double)end;
        rep->substeps++;
        cur = next;
        next = next == s->a ? s->b : s->a;
        if (++streak >= 2 && k > 0 && pos % (2 * len) == 0)
            k--, streak = 0;
    }
    *res = (cdyn_state *)cur;
    return CDYN_OK;
}

cdyn_status cdyn_step(cdyn_stepper *s, const double *tau, cdyn_state *state,
                      cdyn_step_report *report)
{
    cdyn_step_report local;
    cdyn_step_report *rep = report != NULL ? report : &local;
    memset(rep, 0, sizeof *rep);
    cdyn_report_clear(&rep->solver, "step");
    if (s == NULL)
        return cdyn_fail(&rep->solver, CDYN_EINVAL, "cdyn_step: stepper is NULL");
    rep->h = s->opts.h;
    s->last_substeps = 0;
    cdyn_status st = check_state(s, tau, state, &rep->solver);
    if (st != CDYN_OK)
        return st;
    cdyn_state *res = NULL;
    st = substeps(s, tau, state, &res, rep);
    rep->solver.status = st;
    if (st != CDYN_OK)
        return st;
    cdyn_state_copy(state, res, NULL);
    s->last_substeps = rep->substeps;
    return CDYN_OK;
}
