/* Per-step derivatives (cdyn/deriv.h) of models with joint limits. The oracle is cdyn_step itself:
 * every column of A = dx+/dx, B = dx+/dtau (and P = dx+/dp on the implicit scheme, from models
 * BUILT with the parameter moved) against central differences of whole steps (relative error
 * <= 1e-6), at states away from switches:
 *   - a pendulum resting on a stop (the stop held), both backends of the implicit scheme;
 *   - a 2-link chain swinging free between its stops (released; the implicit scheme's stops
 *     relax a deformation left from before: delta0_l's columns);
 *   - the chain's tip on the floor with the elbow on its stop or between its stops (a contact and
 *     a limit together), both friction laws and both backends, and the parameter columns;
 *   - a 12-link chain on a stop whose derivative system (72 unknowns) is factored by KLU;
 * and at a stop's switch (the free step ends exactly at the stop with no force: the model is
 * built with the bound where the free step ends) the one-sided derivative of each side against
 * the one-sided difference toward that side. The same scenes on the rigid schemes (pyramid LCP,
 * cone step, Coulomb step: a stop is then a rigid row, nx = 2 n_v). Bad input stays refused: the
 * sizes without the stops, and a rigid step whose stop took Newton restitution.
 * CDYN_TEST_VERBOSE=1 prints the measured errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "cdyn/deriv.h"
#include "deriv_support.h"
#include "model_support.h"
#include "support.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- a planar chain with limits, rebuilt for the parameter oracle ---- */

typedef struct chain_spec {
    int links;                  /* 1 (pendulum) or 2 */
    int contact;                /* the tip disk on the floor line */
    double lower[2], upper[2];  /* each joint's limits (both infinite: not limited) */
    double rest;                /* limit_restitution */
    double mu, K[2], C[2];      /* the pair: (normal, tangential) stiffness and damping */
    double line_y, tip[2], radius; /* floor offset, tip frame (x, y) on link 2, its radius */
} chain_spec;

/* Links of mass 0.3 and 0.2 and length 0.15 on a pivot 0.2 m above the floor line (as
 * deriv_support's two_link_chain); geometries: 0 the line, 1 the tip; pair 0. */
static chain_spec chain_defaults(int links, int contact)
{
    chain_spec c;
    memset(&c, 0, sizeof c);
    c.links = links;
    c.contact = contact;
    for (int i = 0; i < 2; i++) {
        c.lower[i] = -INFINITY;
        c.upper[i] = INFINITY;
    }
    c.mu = 0.3;
    c.K[0] = 2000;
    c.K[1] = 1500;
    c.C[0] = 15;
    c.C[1] = 10;
    c.tip[0] = 0.15;
    c.radius = 0.03;
    return c;
}

static cdyn_model *chain_build(const chain_spec *c)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_builder_create(&bo, &b, &rep), CDYN_OK);
    const double base[3] = {0, 0.2, 0}, p2[3] = {0.15, 0, 0}, z[3] = {0, 0, 1};
    const double com[3] = {0.075, 0, 0};
    cdyn_body_desc l[2] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, base, z, 0.3, com, 1e-4, 1e-4, 6e-4),
                           tm_joint(CDYN_JOINT_REVOLUTE, 0, p2, z, 0.2, com, 1e-4, 1e-4, 4e-4)};
    for (int i = 0; i < 2; i++)
        if (isfinite(c->lower[i]) || isfinite(c->upper[i])) {
            l[i].limited = 1;
            l[i].lower = c->lower[i];
            l[i].upper = c->upper[i];
            l[i].limit_restitution = c->rest;
        }
    int ids[2];
    if (cdyn_builder_add_chain(b, CDYN_GROUND, c->links, l, ids, &rep) != CDYN_OK)
        fail_msg("chain: %s", rep.message);
    if (c->contact) {
        int gl, gt, pair;
        cdyn_geom_desc line, tip = tm_geom(ids[c->links - 1], CDYN_GEOM_CIRCLE, c->radius, 0, 0);
        cdyn_geom_desc_defaults(&line);
        line.frame.pos[1] = c->line_y;
        tip.frame.pos[0] = c->tip[0];
        tip.frame.pos[1] = c->tip[1];
        assert_int_equal(cdyn_builder_add_geom(b, &line, &gl, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
        cdyn_contact_pair_desc pd;
        cdyn_contact_pair_desc_defaults(&pd);
        pd.geom_a = gl;
        pd.geom_b = gt;
        pd.mu = c->mu;
        pd.stiffness[0] = c->K[0];
        pd.stiffness[4] = pd.stiffness[8] = c->K[1];
        pd.damping[0] = c->C[0];
        pd.damping[4] = pd.damping[8] = c->C[1];
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, NULL), CDYN_OK);
    }
    cdyn_model *m = NULL;
    if (cdyn_builder_build(b, &m, &rep) != CDYN_OK)
        fail_msg("build: %s", rep.message);
    cdyn_builder_free(b);
    return m;
}

static cdyn_step_options options(cdyn_scheme scheme, int friction_qp, cdyn_step_backend backend)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    o.friction_qp = friction_qp;
    o.backend = backend;
    /* the oracle's central differences carry the solve's error / eps (test_step_derivs.c) */
    o.mcp.tol = 1e-12;
    /* the Coulomb and cone steps' iterative solvers to near rounding (test_rigid_derivs.c) */
    o.fc3d.tol = 1e-14;
    o.coneqp.tol_rel = 1e-14;
    o.coneqp.tol_abs = 1e-16;
    return o;
}

static cdyn_step_options rigid(cdyn_scheme scheme)
{
    return options(scheme, 0, CDYN_BACKEND_AUTO);
}

static const cdyn_scheme RIGID[3] = {CDYN_SCHEME_PYRAMID_LCP, CDYN_SCHEME_CONE_STEP,
                                     CDYN_SCHEME_COULOMB_STEP};

static const char *scheme_name(const cdyn_step_options *o)
{
    static char buf[96];
    snprintf(buf, sizeof buf, "%s%s%s", cdyn_scheme_str(o->scheme),
             o->scheme != CDYN_SCHEME_IMPLICIT_NCP ? ""
             : o->friction_qp                      ? " qp"
                                                   : " ncp",
             o->backend == CDYN_BACKEND_FB_SPARSE ? " sparse" : "");
    return buf;
}

static double worst_central = 0, worst_param = 0, worst_side = 0; /* for the printout */

static void expect_central(scene *sc, const char *what, const cdyn_step_options *o)
{
    char name[160];
    snprintf(name, sizeof name, "%s, %s", what, scheme_name(o));
    const double e = central_error(sc, 1e-6, name);
    worst_central = fmax(worst_central, e);
    if (!(e <= 1e-6))
        fail_msg("%s: relative error %.3g", name, e);
}

/* ---- away from switches ---- */

/* The pendulum (link 1 alone) pushed by gravity and a torque onto its lower stop at -0.5 rad,
 * resting there: the stop held. */
static void pendulum_on_stop(const cdyn_step_options *o)
{
    chain_spec c = chain_defaults(1, 0);
    c.lower[0] = -0.5;
    c.upper[0] = 1.0;
    scene sc;
    scene_open(&sc, chain_build(&c), o);
    assert_int_equal(sc.nl, 2);
    sc.x->q[0] = -0.5;
    sc.tau[0] = -0.02;
    settle(&sc, 40);
    assert_int_equal(sc.x->limit_mode[0], CDYN_LIMIT_AT_LOWER);
    assert_int_equal(sc.x->limit_mode[1], CDYN_LIMIT_FREE);
    assert_true(sc.x->limit_lambda[0] > 0.1);
    expect_central(&sc, "pendulum on its stop", o);
    scene_close(&sc);
}

/* The 2-link chain swinging between its stops (+-1 rad each), neither reached within the step;
 * the implicit scheme's stops carry deformations left from a contact before (limit_delta: they
 * relax by (C/h) / (K + C/h) per step). */
static void chain_free(const cdyn_step_options *o)
{
    chain_spec c = chain_defaults(2, 0);
    c.lower[0] = c.lower[1] = -1.0;
    c.upper[0] = c.upper[1] = 1.0;
    scene sc;
    scene_open(&sc, chain_build(&c), o);
    assert_int_equal(sc.nl, 4);
    sc.x->q[0] = 0.3;
    sc.x->q[1] = -0.2;
    sc.x->v[0] = 1.0;
    sc.x->v[1] = -0.5;
    sc.tau[1] = 0.01;
    if (o->scheme == CDYN_SCHEME_IMPLICIT_NCP)
        for (int l = 0; l < 4; l++)
            sc.x->limit_delta[l] = 1e-3 * (l + 1);
    expect_central(&sc, "2-link chain between stops", o);
    settle(&sc, 1); /* the step under test */
    for (int l = 0; l < 4; l++)
        assert_int_equal(sc.x->limit_mode[l], CDYN_LIMIT_FREE);
    scene_close(&sc);
}

/* The chain's tip on the floor line (the 2-link configuration of test_step_derivs' test_chain)
 * and the elbow's stops, three ways:
 *   ARM_PRESSED  the elbow torque holds the elbow on its upper stop while the tip presses on the
 *                floor and slides (both pairs held: a compliant scheme's scene; rigid rows
 *                would fix all of the arm's two dofs and more, their impulses not unique);
 *   ARM_SLIDING  the tip pressed and sliding, the elbow between its stops (+-1 rad away);
 *   ARM_LIFTED   the elbow held on its stop, the tip 6 mm above the floor (its row in the
 *                problem, open). */
enum { ARM_PRESSED, ARM_SLIDING, ARM_LIFTED };

static void arm_scene(scene *sc, const cdyn_step_options *o, chain_spec *c, int how)
{
    *c = chain_defaults(2, 1);
    double q[2] = {-M_PI / 4, 0};
    q[1] = -asin((0.2 - 0.03 + 0.15 * sin(q[0])) / 0.15) - q[0]; /* tip height 0 */
    c->lower[1] = q[1] - 1.0;
    c->upper[1] = q[1] + (how == ARM_SLIDING ? 1.0 : 0.0);
    scene_open(sc, chain_build(c), o);
    sc->x->q[0] = q[0] + (how == ARM_LIFTED ? 0.05 : 0.0);
    sc->x->q[1] = q[1];
    sc->x->v[0] = how == ARM_LIFTED ? 0.0 : how == ARM_SLIDING ? 0.5 : 0.3;
    sc->tau[0] = 0.05;
    sc->tau[1] = how == ARM_SLIDING ? -0.02 : 0.08;
    settle(sc, how == ARM_PRESSED ? 8 : how == ARM_SLIDING ? 5 : 0);
}

static void arm_on_floor(const cdyn_step_options *o, int how)
{
    static const char *const what[3] = {"arm pressed, elbow on stop", "arm sliding, elbow free",
                                        "arm lifted, elbow on stop"};
    scene sc;
    chain_spec c;
    arm_scene(&sc, o, &c, how);
    expect_central(&sc, what[how], o);
    settle(&sc, 1); /* the step under test: its modes */
    assert_int_equal(sc.x->limit_mode[1], how == ARM_SLIDING ? CDYN_LIMIT_FREE
                                                             : CDYN_LIMIT_AT_UPPER);
    assert_int_equal(sc.x->mode[0], how == ARM_LIFTED ? CDYN_MODE_FREE : CDYN_MODE_SLIP);
    scene_close(&sc);
}

/* ---- the parameter columns (implicit scheme): models built with the parameter moved ---- */

static void move(chain_spec *c, const cdyn_param *p, double e)
{
    switch (p->kind) {
    case CDYN_PARAM_MU: c->mu += e; break;
    case CDYN_PARAM_STIFFNESS_N: c->K[0] += e; break;
    case CDYN_PARAM_STIFFNESS_T: c->K[1] += e; break;
    case CDYN_PARAM_DAMPING_N: c->C[0] += e; break;
    case CDYN_PARAM_DAMPING_T: c->C[1] += e; break;
    case CDYN_PARAM_GEOM_POS:
        if (p->id == 0)
            c->line_y += e;
        else
            c->tip[p->component] += e;
        break;
    case CDYN_PARAM_GEOM_SIZE: c->radius += e; break;
    default: fail_msg("parameter kind %d not in this scene", (int)p->kind);
    }
}

static double value(const chain_spec *c, const cdyn_param *p)
{
    switch (p->kind) {
    case CDYN_PARAM_MU: return c->mu;
    case CDYN_PARAM_STIFFNESS_N: return c->K[0];
    case CDYN_PARAM_STIFFNESS_T: return c->K[1];
    case CDYN_PARAM_DAMPING_N: return c->C[0];
    case CDYN_PARAM_DAMPING_T: return c->C[1];
    default: return 0.0; /* geometry: steps in metres */
    }
}

/* x+ of the model c from x with sc's forces, relative to ref, into out (nx). */
static void param_step(const scene *sc, const chain_spec *c, const cdyn_step_options *o,
                       const cdyn_state *ref, double *out)
{
    cdyn_model *m = chain_build(c);
    cdyn_stepper *s = NULL;
    cdyn_state *y = NULL;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, o, &s, &rep), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &y, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_copy(y, sc->x, NULL), CDYN_OK);
    cdyn_step_report r;
    if (cdyn_step(s, sc->tau, y, &r) != CDYN_OK)
        fail_msg("parameter oracle step: %s", r.solver.message);
    const int nv = sc->nv;
    for (int i = 0; i < nv; i++) {
        out[i] = tangent_diff(m, y->q, ref->q, i);
        out[nv + i] = y->v[i] - ref->v[i];
    }
    for (int i = 0; i < 3 * sc->nc; i++)
        out[2 * nv + i] = y->delta[i] - ref->delta[i];
    for (int l = 0; l < sc->nl; l++)
        out[2 * nv + 3 * sc->nc + l] = y->limit_delta[l] - ref->limit_delta[l];
    cdyn_state_free(y);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

static void arm_params(const cdyn_step_options *o)
{
    scene sc;
    chain_spec c;
    arm_scene(&sc, o, &c, ARM_PRESSED);
    static const cdyn_param P[] = {
        {CDYN_PARAM_MU, 0, 0},       {CDYN_PARAM_STIFFNESS_N, 0, 0},
        {CDYN_PARAM_STIFFNESS_T, 0, 0}, {CDYN_PARAM_DAMPING_N, 0, 0},
        {CDYN_PARAM_DAMPING_T, 0, 0}, {CDYN_PARAM_GEOM_POS, 0, 1},
        {CDYN_PARAM_GEOM_POS, 1, 0}, {CDYN_PARAM_GEOM_POS, 1, 1},
        {CDYN_PARAM_GEOM_SIZE, 1, 0}};
    const int np = (int)(sizeof P / sizeof P[0]), nx = sc.nx;
    double *Pm = calloc((size_t)nx * np, sizeof(double));
    double *fp = malloc((size_t)nx * sizeof(double)), *fm = malloc((size_t)nx * sizeof(double));
    double *fd = malloc((size_t)nx * sizeof(double));
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_copy(x1, sc.x, NULL), CDYN_OK);
    cdyn_step_report r;
    assert_int_equal(cdyn_step(sc.s, sc.tau, x1, &r), CDYN_OK);
    cdyn_step_deriv_report dr;
    if (cdyn_step_param_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, sc.nv, NULL, NULL, np, P, Pm,
                                    &dr) != CDYN_OK)
        fail_msg("cdyn_step_param_derivatives: %s", dr.solver.message);
    assert_int_equal(dr.degenerate, 0);
    double worst = 0;
    for (int j = 0; j < np; j++) {
        /* as test_step_param_derivs.c: Richardson's (4 D(eps / 2) - D(eps)) / 3 of central
         * differences D, eps = 1e-2 max(1, |p|) for the contact parameters (they enter
         * rationally; their small columns need a large step), 1e-5 m for the geometry (far
         * below the contact's compression and the stop's) */
        const double eps = P[j].kind < CDYN_PARAM_GEOM_POS
                               ? 1e-2 * fmax(1.0, fabs(value(&c, &P[j])))
                               : 1e-5;
        memset(fd, 0, (size_t)nx * sizeof(double));
        for (int half = 0; half < 2; half++) {
            const double e = half ? 0.5 * eps : eps, wt = half ? 4.0 / 3.0 : -1.0 / 3.0;
            chain_spec cp = c, cm = c;
            move(&cp, &P[j], e);
            move(&cm, &P[j], -e);
            param_step(&sc, &cp, o, x1, fp);
            param_step(&sc, &cm, o, x1, fm);
            for (int i = 0; i < nx; i++)
                fd[i] += wt * (fp[i] - fm[i]) / (2 * e);
        }
        double err = 0, big = 0;
        for (int i = 0; i < nx; i++) {
            err = fmax(err, fabs(Pm[i + (size_t)j * nx] - fd[i]));
            big = fmax(big, fabs(fd[i]));
        }
        assert_true(big > 0);
        worst = fmax(worst, err / big);
        if (tm_verbose())
            printf("  param kind %d id %d comp %d: max|P| %.3g rel.err %.2e\n", (int)P[j].kind,
                   P[j].id, P[j].component, big, err / big);
    }
    if (tm_verbose())
        printf("arm parameters, %s: worst rel.err %.2e\n", scheme_name(o), worst);
    worst_param = fmax(worst_param, worst);
    assert_true(worst <= 1e-6);
    cdyn_state_free(x1);
    free(Pm);
    free(fp);
    free(fm);
    free(fd);
    scene_close(&sc);
}

/* ---- at a stop's switch: one-sided derivatives ---- */

/* The pendulum swinging toward its upper stop (or the lower one, side < 0), the stop's bound
 * placed exactly where the step ends without it: the limit's pair (force, gap) is at its switch.
 * Perturbations that move the end further from the stop leave it free (RELEASED); those toward
 * it close it (HELD: at the stop's law). For each input column that moves the end (|dg+/dx_j|
 * above 1e-3 of the largest), the derivative of each side against the second-order one-sided
 * difference toward that side. */
static void switch_sides(const cdyn_step_options *o, int upper)
{
    const double q0 = 0.1, v0 = upper ? 1.5 : -1.5;
    /* where the step ends without the stop (the stop far away) */
    chain_spec c = chain_defaults(1, 0);
    c.lower[0] = -3.0;
    c.upper[0] = 3.0;
    scene far;
    scene_open(&far, chain_build(&c), o);
    far.x->q[0] = q0;
    far.x->v[0] = v0;
    settle(&far, 1);
    const double qend = far.x->q[0];
    scene_close(&far);
    if (upper)
        c.upper[0] = qend;
    else
        c.lower[0] = qend;
    scene sc;
    scene_open(&sc, chain_build(&c), o);
    sc.x->q[0] = q0;
    sc.x->v[0] = v0;
    const int nx = sc.nx, nin = nx + sc.nv, l = upper ? 1 : 0;
    const double sg = upper ? -1.0 : 1.0; /* the gap's sign: g = sg (q - bound) */
    double *Ar = calloc((size_t)nx * nx, sizeof(double)), *Br = calloc((size_t)nx * sc.nv, 8);
    double *Ah = calloc((size_t)nx * nx, sizeof(double)), *Bh = calloc((size_t)nx * sc.nv, 8);
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
    cdyn_step_deriv_report rr, rh;
    derivs(&sc, CDYN_DERIV_HELD, x1, Ah, Bh, &rh);
    derivs(&sc, CDYN_DERIV_RELEASED, x1, Ar, Br, &rr);
    assert_int_equal(rr.degenerate, 1);
    assert_int_equal(rh.degenerate, 1);
    assert_int_equal(rh.forced_released, 0);
    assert_int_equal(rr.limit_row, l);
    assert_true(rr.limit_margin < 1e-9);
    double gmax = 0;
    for (int j = 0; j < nin; j++) {
        const double *col = j < nx ? Ar + (size_t)j * nx : Br + (size_t)(j - nx) * nx;
        gmax = fmax(gmax, fabs(col[0]));
    }
    double err_r = 0, err_h = 0, big = 0, side_gap = 0;
    int tested = 0;
    /* the bound sits where the free step ends to the solver's accuracy (about 1e-13): a
     * one-sided difference of step e is off by that offset / e (measured: 1e-6 relative at
     * e = 1e-7, 1e-8 at 1e-5), against the differences' O(e^2) */
    const double e = 1e-5;
    for (int j = 0; j < nin; j++) {
        const double *cr = j < nx ? Ar + (size_t)j * nx : Br + (size_t)(j - nx) * nx;
        const double *ch = j < nx ? Ah + (size_t)j * nx : Bh + (size_t)(j - nx) * nx;
        const double gj = sg * cr[0]; /* dg+/dx_j on the released side */
        for (int i = 0; i < nx; i++)
            side_gap = fmax(side_gap, fabs(cr[i] - ch[i]));
        if (fabs(gj) < 1e-3 * gmax)
            continue;
        tested++;
        const double s = gj > 0 ? 1.0 : -1.0;
        for (int i = 0; i < nx; i++) {
            const double dr = one_sided(&sc, x1, j, s * e, i);
            const double dh = one_sided(&sc, x1, j, -s * e, i);
            err_r = fmax(err_r, fabs(cr[i] - dr));
            err_h = fmax(err_h, fabs(ch[i] - dh));
            big = fmax(big, fmax(fabs(dr), fabs(dh)));
        }
    }
    const double worst = fmax(err_r, err_h) / big;
    worst_side = fmax(worst_side, worst);
    if (tm_verbose())
        printf("%s stop switch, %s: %d columns, rel.err released %.2e held %.2e, sides differ "
               "by %.3g (max %.3g)\n", upper ? "upper" : "lower", scheme_name(o), tested,
               err_r / big, err_h / big, side_gap, big);
    assert_true(tested >= 2);
    assert_true(side_gap > 1e-2 * big); /* the switch is real */
    assert_true(err_r / big <= 1e-6);
    assert_true(err_h / big <= 1e-6);
    cdyn_state_free(x1);
    free(Ar);
    free(Br);
    free(Ah);
    free(Bh);
    scene_close(&sc);
}

/* ---- the tests ---- */

static void test_implicit_pendulum(void **state)
{
    (void)state;
    cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, 1, CDYN_BACKEND_FB_DENSE);
    pendulum_on_stop(&o);
    o.backend = CDYN_BACKEND_FB_SPARSE;
    pendulum_on_stop(&o);
}

static void test_implicit_chain_free(void **state)
{
    (void)state;
    cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, 1, CDYN_BACKEND_FB_DENSE);
    chain_free(&o);
    o.backend = CDYN_BACKEND_FB_SPARSE;
    chain_free(&o);
}

static void test_implicit_arm(void **state)
{
    (void)state;
    for (int law = 0; law < 2; law++)
        for (int sp = 0; sp < 2; sp++) {
            cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, law,
                                          sp ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_FB_DENSE);
            for (int how = ARM_PRESSED; how <= ARM_LIFTED; how++)
                arm_on_floor(&o, how);
        }
}

static void test_implicit_params(void **state)
{
    (void)state;
    for (int law = 0; law < 2; law++)
        for (int sp = 0; sp < 2; sp++) {
            cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, law,
                                          sp ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_FB_DENSE);
            arm_params(&o);
        }
}

static void test_implicit_switch(void **state)
{
    (void)state;
    for (int sp = 0; sp < 2; sp++)
        for (int upper = 0; upper < 2; upper++) {
            cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, 1,
                                          sp ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_FB_DENSE);
            switch_sides(&o, upper);
        }
}

/* A hanging 12-link planar chain, each joint limited to +-0.3 rad and the first pushed toward
 * its stop: 72 unknowns coupled through M, one island above IFT_DENSE_MAX (64), so the sparse
 * backend's derivative factors it by KLU with the stops' entries on its pattern. */
static void test_implicit_long_chain(void **state)
{
    (void)state;
    enum { N = 12 };
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[N];
    const double p0[3] = {0, 0, 0}, p1[3] = {0.1, 0, 0}, z[3] = {0, 0, 1}, com[3] = {0.05, 0, 0};
    for (int i = 0; i < N; i++) {
        l[i] = tm_joint(CDYN_JOINT_REVOLUTE, 0, i == 0 ? p0 : p1, z, 0.1, com, 1e-5, 1e-5, 1e-4);
        l[i].limited = 1;
        l[i].lower = i == 0 ? -M_PI / 2 - 0.3 : -0.3;
        l[i].upper = i == 0 ? -M_PI / 2 + 0.3 : 0.3;
    }
    int ids[N];
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, N, l, ids, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, 1, CDYN_BACKEND_FB_SPARSE);
    scene sc;
    scene_open(&sc, m, &o);
    assert_int_equal(sc.nl, 2 * N);
    sc.x->q[0] = -M_PI / 2 + 0.3; /* on the first joint's upper stop */
    sc.tau[0] = 0.5;
    for (int i = 1; i < N; i++)
        sc.x->q[i] = 0.02 * (i % 3 - 1);
    settle(&sc, 3);
    expect_central(&sc, "12-link chain on a stop", &o);
    settle(&sc, 1);
    assert_int_equal(sc.x->limit_mode[1], CDYN_LIMIT_AT_UPPER);
    scene_close(&sc);
}

/* Bad input: the sizes without the stops' deformations, outputs unchanged. */
static void test_implicit_refusals(void **state)
{
    (void)state;
    cdyn_step_options o = options(CDYN_SCHEME_IMPLICIT_NCP, 1, CDYN_BACKEND_FB_DENSE);
    scene sc;
    chain_spec c;
    arm_scene(&sc, &o, &c, ARM_PRESSED);
    const int nx = sc.nx, nv = sc.nv;
    assert_int_equal(nx, 2 * nv + 3 * sc.nc + sc.nl);
    double *A = malloc((size_t)nx * nx * sizeof(double));
    for (int i = 0; i < nx * nx; i++)
        A[i] = 7.0;
    cdyn_step_deriv_report dr;
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx - sc.nl, nv, A, NULL,
                                           &dr),
                     CDYN_EINVAL);
    assert_non_null(strstr(dr.solver.message, "n_l"));
    for (int i = 0; i < nx * nx; i++)
        assert_true(A[i] == 7.0);
    free(A);
    scene_close(&sc);
}

/* The rigid schemes: the stop a rigid row (nx = 2 n_v). */
static void test_rigid_pendulum(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const cdyn_step_options o = rigid(RIGID[k]);
        pendulum_on_stop(&o);
    }
}

static void test_rigid_chain_free(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const cdyn_step_options o = rigid(RIGID[k]);
        chain_free(&o);
    }
}

static void test_rigid_arm(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        const cdyn_step_options o = rigid(RIGID[k]);
        arm_on_floor(&o, ARM_SLIDING);
        arm_on_floor(&o, ARM_LIFTED);
    }
}

static void test_rigid_switch(void **state)
{
    (void)state;
    /* not the cone step: its interior point ends an exactly degenerate pair at both members
     * about 1e-7 m/s (measured), above the switch's tolerance, and not on the switch (as
     * test_rigid_derivs' touchdown); its limit rows' code is the Coulomb step's */
    for (int k = 0; k < 3; k++)
        for (int upper = 0; upper < 2 && RIGID[k] != CDYN_SCHEME_CONE_STEP; upper++) {
            const cdyn_step_options o = rigid(RIGID[k]);
            switch_sides(&o, upper);
        }
}

/* Newton restitution at a stop in the step is refused (only then): the pendulum swinging into
 * its stop with limit_restitution 0.5 and options.restitution; the step after, resting (no
 * approach), is taken. The pyramid refuses options.restitution as a whole (its contacts'). */
static void test_rigid_restitution(void **state)
{
    (void)state;
    for (int k = 1; k < 3; k++) {
        cdyn_step_options o = rigid(RIGID[k]);
        o.restitution = 1;
        chain_spec c = chain_defaults(1, 0);
        c.lower[0] = -0.5;
        c.upper[0] = 1.0;
        c.rest = 0.5;
        scene sc;
        scene_open(&sc, chain_build(&c), &o);
        sc.x->q[0] = -0.49;
        sc.x->v[0] = -2.0;
        settle(&sc, 1);
        double A[16], B[4];
        for (int i = 0; i < 16; i++)
            A[i] = 7.0;
        cdyn_step_deriv_report dr;
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, sc.nx, sc.nv, A, B,
                                               &dr),
                         CDYN_ENOTSUP);
        assert_non_null(strstr(dr.solver.message, "Newton restitution"));
        for (int i = 0; i < 16; i++)
            assert_true(A[i] == 7.0);
        /* rebounding, then off the stop: a step without restitution at the stop is taken */
        assert_true(sc.x->v[0] > 0);
        settle(&sc, 1);
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, sc.nx, sc.nv, A, B,
                                               &dr),
                         CDYN_OK);
        scene_close(&sc);
    }
    cdyn_step_options o = rigid(CDYN_SCHEME_PYRAMID_LCP);
    o.restitution = 1;
    chain_spec c = chain_defaults(1, 0);
    c.lower[0] = -0.5;
    scene sc;
    scene_open(&sc, chain_build(&c), &o);
    settle(&sc, 1);
    double A[4];
    cdyn_step_deriv_report dr;
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, sc.nx, sc.nv, A, NULL,
                                           &dr),
                     CDYN_ENOTSUP);
    scene_close(&sc);
}

static void test_report(void **state)
{
    (void)state;
    if (tm_verbose())
        printf("worst relative errors: central (A, B) %.2e, parameters %.2e, one-sided %.2e\n",
               worst_central, worst_param, worst_side);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_implicit_pendulum), cmocka_unit_test(test_implicit_chain_free),
        cmocka_unit_test(test_implicit_arm),      cmocka_unit_test(test_implicit_params),
        cmocka_unit_test(test_implicit_switch),   cmocka_unit_test(test_implicit_long_chain),
        cmocka_unit_test(test_implicit_refusals),
        cmocka_unit_test(test_rigid_pendulum),    cmocka_unit_test(test_rigid_chain_free),
        cmocka_unit_test(test_rigid_arm),         cmocka_unit_test(test_rigid_switch),
        cmocka_unit_test(test_rigid_restitution),
        cmocka_unit_test(test_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
