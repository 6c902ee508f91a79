/* Test support: parameter scenes and the columns' oracle (param_support.h). The q rows of the
 * differences are read in tangent coordinates by H(q+) = cdyn_model_G_pinv (the convention
 * test_step_derivs checks independently). CDYN_TEST_VERBOSE=1 prints each column's error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model_support.h"
#include "param_support.h"

cdyn_model *build(const spec *sp)
{
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, sp->dim == 2 ? 2 : 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, &rep), CDYN_OK);
    for (int i = 0; i < sp->nbody; i++) {
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.mass = sp->mass[i];
        for (int k = 0; k < 3; k++)
            bd.inertia[k] = sp->inertia[i][k];
        int id;
        assert_int_equal(cdyn_builder_add_body(b, &bd, &id, &rep), CDYN_OK);
    }
    for (int i = 0; i < sp->ngeom; i++) {
        const gspec *g = &sp->geom[i];
        cdyn_geom_desc gd;
        cdyn_geom_desc_defaults(&gd);
        gd.body = g->body < 0 ? CDYN_GROUND : g->body;
        gd.type = g->type;
        double ea[4], eb[4];
        tm_qexp(g->turn, ea);
        tm_qexp(g->rot, eb);
        tm_qmul(ea, eb, gd.frame.quat);
        for (int k = 0; k < 3; k++) {
            gd.frame.pos[k] = g->pos[k];
            gd.size[k] = g->size[k];
        }
        gd.n_vertices = g->nvert;
        gd.vertices = g->nvert > 0 ? g->verts : NULL;
        int id;
        assert_int_equal(cdyn_builder_add_geom(b, &gd, &id, &rep), CDYN_OK);
    }
    for (int p = 0; p < sp->npair; p++) {
        cdyn_contact_pair_desc pd;
        cdyn_contact_pair_desc_defaults(&pd);
        pd.geom_a = sp->ga[p];
        pd.geom_b = sp->gb[p];
        pd.mu = sp->mu[p];
        pd.stiffness[0] = sp->K[p][0];
        pd.stiffness[4] = pd.stiffness[8] = sp->K[p][1];
        pd.damping[0] = sp->C[p][0];
        pd.damping[4] = pd.damping[8] = sp->C[p][1];
        if (sp->patch_n[p] > 1) {
            pd.patch_n = sp->patch_n[p];
            pd.patch_half_width = sp->patch_w[p];
        }
        int id;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &id, &rep), CDYN_OK);
    }
    cdyn_model *m = NULL;
    if (cdyn_builder_build(b, &m, &rep) != CDYN_OK)
        fail_msg("build: %s", rep.message);
    cdyn_builder_free(b);
    return m;
}

/* The scene with parameter p moved by e (the documented meaning of each kind). */
void move(spec *sp, const cdyn_param *p, double e)
{
    gspec *g = &sp->geom[p->id];
    switch (p->kind) {
    case CDYN_PARAM_MU: sp->mu[p->id] += e; break;
    case CDYN_PARAM_STIFFNESS_N: sp->K[p->id][0] += e; break;
    case CDYN_PARAM_STIFFNESS_T: sp->K[p->id][1] += e; break;
    case CDYN_PARAM_DAMPING_N: sp->C[p->id][0] += e; break;
    case CDYN_PARAM_DAMPING_T: sp->C[p->id][1] += e; break;
    case CDYN_PARAM_GEOM_POS: g->pos[p->component] += e; break;
    case CDYN_PARAM_GEOM_ROT: g->turn[p->component] += e; break;
    case CDYN_PARAM_GEOM_SIZE: g->size[p->component] += e; break;
    case CDYN_PARAM_GEOM_VERTEX: g->verts[p->component] += e; break;
    }
}

double value(const spec *sp, const cdyn_param *p)
{
    const gspec *g = &sp->geom[p->id];
    switch (p->kind) {
    case CDYN_PARAM_MU: return sp->mu[p->id];
    case CDYN_PARAM_STIFFNESS_N: return sp->K[p->id][0];
    case CDYN_PARAM_STIFFNESS_T: return sp->K[p->id][1];
    case CDYN_PARAM_DAMPING_N: return sp->C[p->id][0];
    case CDYN_PARAM_DAMPING_T: return sp->C[p->id][1];
    case CDYN_PARAM_GEOM_POS: return g->pos[p->component];
    case CDYN_PARAM_GEOM_ROT: return 0.0;
    case CDYN_PARAM_GEOM_VERTEX: return g->verts[p->component];
    default: return g->size[p->component];
    }
}

const double *spec_tau(const spec *sp)
{
    for (int i = 0; i < 6 * MAXB; i++)
        if (sp->tau[i] != 0.0)
            return sp->tau;
    return NULL;
}

void copy_state(cdyn_state *dst, const cdyn_state *src)
{
    memcpy(dst->q, src->q, (size_t)src->nq * sizeof(double));
    memcpy(dst->v, src->v, (size_t)src->nv * sizeof(double));
    memcpy(dst->delta, src->delta, 3 * (size_t)src->nc * sizeof(double));
    memcpy(dst->lambda, src->lambda, 3 * (size_t)src->nc * sizeof(double));
    memcpy(dst->mode, src->mode, (size_t)src->nc * sizeof(int));
    dst->t = src->t;
}

/* One step of the scene sp from x (a state of a model of the same sizes) into out. */
void oracle_step(const spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                 cdyn_state *out)
{
    cdyn_model *m = build(sp);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &s, &rep), CDYN_OK);
    copy_state(out, x);
    cdyn_step_report r;
    if (cdyn_step(s, spec_tau(sp), out, &r) != CDYN_OK)
        fail_msg("oracle step: %s", r.solver.message);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* P alone, and B alone, are the columns of the call that asks for A, B and P at once (each
 * output takes only its own right-hand sides). */
void same_with_A_B(cdyn_stepper *s, int nx, int nv, int np, const cdyn_param *params,
                   const double *P)
{
    double *A = malloc((size_t)nx * nx * sizeof(double)), *B = malloc((size_t)nx * nv * 8);
    double *P2 = malloc((size_t)nx * np * sizeof(double)), *B2 = malloc((size_t)nx * nv * 8);
    assert_int_equal(cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, A, B, np,
                                                 params, P2, NULL), CDYN_OK);
    assert_int_equal(cdyn_step_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, NULL, B2, NULL),
                     CDYN_OK);
    double scale = 0, diff = 0;
    for (int i = 0; i < nx * np; i++) {
        scale = fmax(scale, fabs(P2[i]));
        diff = fmax(diff, fabs(P2[i] - P[i]));
    }
    assert_true(diff <= 1e-14 * scale);
    scale = diff = 0;
    for (int i = 0; i < nx * nv; i++) {
        scale = fmax(scale, fabs(B[i]));
        diff = fmax(diff, fabs(B2[i] - B[i]));
    }
    assert_true(diff <= 1e-14 * scale);
    free(A);
    free(B);
    free(P2);
    free(B2);
}

/* The model's terms at (q, v) with the contact forces lam (3 n_c): gaps, Gamma_d v and
 * sum_d Gamma_d' lam_d, into t (n_c + 3 n_c + n_v). */
static void model_terms(const spec *sp, const double *q, const double *v, const double *lam,
                        double *t)
{
    cdyn_model *m = build(sp);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    memcpy(t, cdyn_data_gap(d), (size_t)nc * sizeof(double));
    memset(t + nc, 0, (3 * (size_t)nc + nv) * sizeof(double));
    for (int dir = 0; dir < 3; dir++) {
        const double *J = cdyn_data_jacobian(d, (cdyn_dir)dir);
        for (int j = 0; j < nv; j++)
            for (int i = 0; i < nc; i++) {
                t[nc + 3 * i + dir] += J[i + (size_t)j * nc] * v[j];
                t[4 * nc + j] += J[i + (size_t)j * nc] * lam[3 * i + dir];
            }
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* cdyn_eval_geom_derivatives for geometric parameter p at (q, v) against central differences
 * of the model's terms with the geometry moved (eps 1e-6): max |error| over all three outputs,
 * relative to the largest difference or, where the terms do not move (an arc turned about its
 * centre: the differences are rounding, 1e-10 of the terms), to the largest term. The model's
 * own check, below the step's. */
double check_model_terms(spec *sp, const cdyn_state *x, const cdyn_param *p)
{
    cdyn_model *m = build(sp);
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m), n = 4 * nc + nv;
    double *lam = malloc(3 * (size_t)nc * sizeof(double)), *an = calloc((size_t)n, 8);
    double *tp = malloc((size_t)n * sizeof(double)), *tm = malloc((size_t)n * sizeof(double));
    for (int i = 0; i < 3 * nc; i++)
        lam[i] = 1.0 + 0.5 * i; /* any forces: the term is linear in them */
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, x->q, x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    cdyn_report rep;
    if (cdyn_eval_geom_derivatives(m, d, (cdyn_geom_param)(p->kind - CDYN_PARAM_GEOM_POS),
                                   p->id, p->component, lam, NULL, an, an + nc, an + 4 * nc,
                                   &rep) != CDYN_OK)
        fail_msg("cdyn_eval_geom_derivatives: %s", rep.message);
    const double eps = 1e-6;
    move(sp, p, eps);
    model_terms(sp, x->q, x->v, lam, tp);
    move(sp, p, -2 * eps);
    model_terms(sp, x->q, x->v, lam, tm);
    move(sp, p, eps);
    double err = 0, big = 0;
    for (int i = 0; i < n; i++) {
        const double fd = (tp[i] - tm[i]) / (2 * eps);
        err = fmax(err, fabs(an[i] - fd));
        big = fmax(big, fmax(fabs(fd), fabs(tp[i])));
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
    free(lam);
    free(an);
    free(tp);
    free(tm);
    return big > 0 ? err / big : err;
}

/* The scene's parameter columns against central differences; x: the state before the step
 * (settled by the caller). Returns the worst column's relative error: max |P_j - FD_j| /
 * max |FD_j|. A column that stays below 1e-8 of the largest, both scaled by their parameters'
 * magnitudes max(1, |p|) (a parameter the step does not feel, e.g. a sphere turned about its
 * centre, or the sliding box's tangential damping: 1.5e-8 per N s/m, where the differences'
 * rounding is 2e-14 and its own relative error 1.5e-6 at the best eps), is measured against
 * that largest column instead. */
double check_params(spec *sp, const cdyn_step_options *o, const cdyn_state *x, int np,
                    const cdyn_param *params, const char *name)
{
    cdyn_model *m = build(sp);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &s, &rep), CDYN_OK);
    cdyn_state *x1 = NULL, *xp = NULL, *xm = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x1, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &xp, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &xm, NULL), CDYN_OK);
    copy_state(x1, x);
    cdyn_step_report r;
    assert_int_equal(cdyn_step(s, spec_tau(sp), x1, &r), CDYN_OK);
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    const int nx = cdyn_step_deriv_nx(s), ndelta = nx > 2 * nv ? 3 * nc : 0; /* implicit */
    double *P = calloc((size_t)nx * np, sizeof(double)), *fd = calloc((size_t)nx * np, 8);
    double *H = calloc((size_t)nv * nq, sizeof(double)), *dq = calloc((size_t)nq, 8);
    double *w = calloc((size_t)np, sizeof(double)); /* each parameter's scale max(1, |p|) */
    cdyn_step_deriv_report dr;
    const cdyn_status st = cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, NULL,
                                                       NULL, np, params, P, &dr);
    if (st != CDYN_OK)
        fail_msg("%s: cdyn_step_param_derivatives: %s", name, dr.solver.message);
    assert_int_equal(dr.degenerate, 0);
    same_with_A_B(s, nx, nv, np, params, P);
    assert_int_equal(cdyn_model_G_pinv(m, x1->q, H, NULL), CDYN_OK);
    double big = 0;
    for (int j = 0; j < np; j++) {
        /* The differences' error is O(eps^4) (Richardson) + (the steps' rounding) / eps. The
         * contact parameters enter smoothly (rationally) and the smallest columns (damping,
         * 1e-8 per N s/m) need a large eps; a geometric parameter must stay far below the
         * contact's compression (4e-4 m) not to cross a switch. */
        w[j] = fmax(1.0, fabs(value(sp, &params[j])));
        const double eps = (params[j].kind < CDYN_PARAM_GEOM_POS ? 1e-2 : 1e-5) * w[j];
        double *c = fd + (size_t)j * nx;
        memset(c, 0, (size_t)nx * sizeof(double));
        /* Richardson: (4 D(eps / 2) - D(eps)) / 3, D the central difference of step e */
        for (int half = 0; half < 2; half++) {
            const double e = half ? 0.5 * eps : eps, wt = half ? 4.0 / 3.0 : -1.0 / 3.0;
            move(sp, &params[j], e);
            oracle_step(sp, o, x, xp);
            move(sp, &params[j], -2 * e);
            oracle_step(sp, o, x, xm);
            move(sp, &params[j], e);
            for (int i = 0; i < nq; i++)
                dq[i] = (xp->q[i] - xm->q[i]) / (2 * e);
            for (int i = 0; i < nv; i++) {
                for (int l = 0; l < nq; l++)
                    c[i] += wt * H[i + (size_t)l * nv] * dq[l];
                c[nv + i] += wt * (xp->v[i] - xm->v[i]) / (2 * e);
            }
            for (int i = 0; i < ndelta; i++)
                c[2 * nv + i] += wt * (xp->delta[i] - xm->delta[i]) / (2 * e);
        }
        for (int i = 0; i < nx; i++)
            big = fmax(big, w[j] * fabs(c[i]));
    }
    double worst = 0;
    for (int j = 0; j < np; j++) {
        double err = 0, bj = 0;
        for (int i = 0; i < nx; i++) {
            err = fmax(err, fabs(P[i + (size_t)j * nx] - fd[i + (size_t)j * nx]));
            bj = fmax(bj, fabs(fd[i + (size_t)j * nx]));
        }
        if (params[j].kind >= CDYN_PARAM_GEOM_POS) {
            const double mt = check_model_terms(sp, x, &params[j]);
            if (tm_verbose())
                printf("%-22s param %d: the model's terms, rel.err %.2e\n", name, j, mt);
            worst = fmax(worst, mt);
        }
        const int felt = w[j] * bj >= 1e-8 * big;
        const double rel = err / (felt ? bj : big / w[j]);
        worst = fmax(worst, rel);
        if (tm_verbose())
            printf("%-22s param %d (kind %d, id %d, comp %d)  max|FD| %.3e  rel.err %.2e%s\n",
                   name, j, (int)params[j].kind, params[j].id, params[j].component, bj, rel,
                   felt ? "" : " (against the largest)");
    }
    if (tm_verbose())
        printf("%-22s %d columns, margins: normal %.3g, cone %.3g, slip %.3g  (%.1f us)\n", name,
               np, dr.normal_margin, dr.cone_margin, dr.slip_margin, 1e6 * dr.time);
    free(P);
    free(fd);
    free(H);
    free(dq);
    free(w);
    cdyn_state_free(x1);
    cdyn_state_free(xp);
    cdyn_state_free(xm);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return worst;
}

/* n steps of the scene from x in place. */
void spec_settle(const spec *sp, const cdyn_step_options *o, cdyn_state *x, int n)
{
    cdyn_model *m = build(sp);
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &s, &rep), CDYN_OK);
    for (int i = 0; i < n; i++) {
        cdyn_step_report r;
        if (cdyn_step(s, spec_tau(sp), x, &r) != CDYN_OK)
            fail_msg("settle step %d: %s", i, r.solver.message);
    }
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

cdyn_state *state_of(const spec *sp)
{
    cdyn_model *m = build(sp);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    cdyn_model_free(m);
    return x;
}

void add_body(spec *sp, double mass, double i0, double i1, double i2)
{
    assert_true(sp->nbody < MAXB);
    const int b = sp->nbody++;
    sp->mass[b] = mass;
    sp->inertia[b][0] = i0;
    sp->inertia[b][1] = i1;
    sp->inertia[b][2] = i2;
}

int add_geom(spec *sp, int body, cdyn_geom_type type, double s0, double s1, double s2)
{
    assert_true(sp->ngeom < MAXG);
    const int g = sp->ngeom++;
    memset(&sp->geom[g], 0, sizeof sp->geom[g]);
    sp->geom[g].body = body;
    sp->geom[g].type = type;
    sp->geom[g].size[0] = s0;
    sp->geom[g].size[1] = s1;
    sp->geom[g].size[2] = s2;
    return g;
}

void add_pair(spec *sp, int ga, int gb, double mu)
{
    assert_true(sp->npair < MAXG);
    const int p = sp->npair++;
    sp->ga[p] = ga;
    sp->gb[p] = gb;
    sp->mu[p] = mu;
    sp->K[p][0] = 2e4;
    sp->K[p][1] = 1e4;
    sp->C[p][0] = 60;
    sp->C[p][1] = 40;
}

/* Geometry 0 the ground plane, body 0 with geometry 1. */
spec on_plane(cdyn_geom_type type, double s0, double s1, double s2, double mass,
              const double *inertia, double mu)
{
    spec sp;
    memset(&sp, 0, sizeof sp);
    add_body(&sp, mass, inertia[0], inertia[1], inertia[2]);
    add_geom(&sp, -1, CDYN_GEOM_PLANE, 0, 0, 0);
    add_geom(&sp, 0, type, s0, s1, s2);
    add_pair(&sp, 0, 1, mu);
    return sp;
}

static const cdyn_param CONTACT[] = {
    {CDYN_PARAM_MU, 0, 0},        {CDYN_PARAM_STIFFNESS_N, 0, 0}, {CDYN_PARAM_STIFFNESS_T, 0, 0},
    {CDYN_PARAM_DAMPING_N, 0, 0}, {CDYN_PARAM_DAMPING_T, 0, 0}};

/* The contact parameters of pair 0 followed by the given geometric ones. */
int with_contact(const cdyn_param *geo, int ng, cdyn_param *out)
{
    memcpy(out, CONTACT, sizeof CONTACT);
    memcpy(out + 5, geo, (size_t)ng * sizeof(cdyn_param));
    return 5 + ng;
}

