/* The baumgarte scheme (Bortoff's Baumgarte contact with the FREE / CONTACT / BALLISTIC state
 * machine) against closed forms:
 *  - free fall: RK4 is exact for a constant acceleration, so the parabola holds to rounding;
 *  - a spinning free body: the quaternion of a constant world angular velocity in closed form,
 *    within the Taylor remainder of RK4 for the linear ODE edot = 1/2 (0, w) (x) e;
 *  - the first impact of a dropped ball at sqrt(2H/g), located to options.event_tol;
 *  - the paper's bouncing ball: with alpha1 = 0 each bounce raises the apex by the same
 *    amount, derived below from the conserved contact energy; with the damping of the paper's
 *    Modelica listing the ball comes to rest at h = 0 with lambda = m g;
 *  - in CONTACT the gap follows the linear ODE hddot + alpha1 hdot + alpha0 h = 0 in closed
 *    form, here for a tilted box on one corner (three dofs), with the fourth order of RK4;
 *  - dependent rows in CONTACT (a pair declared twice) share the load evenly;
 *  - failures: a failed step leaves the state bit-identical; bad options and bad alphas.
 * Every expected value is derived in the comment next to it. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "step_scenes.h"
#include "support.h"

static const double G = 9.81; /* the builder's default gravity */

#define ASSERT_NEAR(a, b, tol)                                                                     \
    do {                                                                                           \
        const double a_ = (a), b_ = (b);                                                           \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            print_error("%s = %.17g, expected %.17g (tol %g)\n", #a, a_, b_, (double)(tol));       \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

static int verbose(void)
{
    return getenv("CDYN_TEST_VERBOSE") != NULL;
}

/* ---- models ------------------------------------------------------------------------------ */


static cdyn_stepper *stepper(const cdyn_model *m, double h, double event_tol)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.h = h;
    o.event_tol = event_tol;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    const cdyn_status st = cdyn_stepper_create(m, &o, &s, &r);
    if (st != CDYN_OK)
        print_error("%s\n", r.message);
    assert_int_equal(st, CDYN_OK);
    assert_int_equal(cdyn_stepper_options(s)->backend, CDYN_BACKEND_DIRECT);
    return s;
}

static cdyn_state *state(const cdyn_model *m)
{
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    return x;
}

static void step_ok(cdyn_stepper *s, cdyn_state *x, cdyn_step_report *rep)
{
    const cdyn_status st = cdyn_step(s, NULL, x, rep);
    if (st != CDYN_OK)
        print_error("t = %g: %s\n", x->t, rep->solver.message);
    assert_int_equal(st, CDYN_OK);
}

/* ---- free motion ------------------------------------------------------------------------- */

/* Free fall with an upward start: h(t) = H + v0 t - g t^2 / 2, v(t) = v0 - g t. RK4 integrates a
 * constant acceleration exactly (its stages are exact for polynomials of degree <= 4), so only
 * rounding remains: a few ulps of |h| <= 1.2 per step, 20 steps: 1e-13 covers it. */
static void free_fall_is_the_parabola(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 1.0, 1e6};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    cdyn_stepper *s = stepper(m, 0.01, 1e-9);
    cdyn_state *x = state(m);
    const double H = 1.0, v0 = 0.5;
    x->q[0] = H;
    x->v[0] = v0;
    for (int k = 1; k <= 20; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
        const double t = 0.01 * k;
        ASSERT_NEAR(x->t, t, 1e-15);
        ASSERT_NEAR(x->q[0], H + v0 * t - 0.5 * G * t * t, 1e-13);
        ASSERT_NEAR(x->v[0], v0 - G * t, 1e-13);
        assert_int_equal(x->mode[0], CDYN_MODE_FREE);
        assert_true(x->lambda[0] == 0.0);
        assert_int_equal(rep.events, 0);
        assert_int_equal(rep.nactive, 0);
        assert_string_equal(rep.solver.method, "baumgarte-direct");
        assert_true(rep.solver.iterations > 0);
    }
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* A spatial sphere without gravity spinning at w = (0, 0, 2) rad/s (world axes): w stays
 * constant (a sphere has isotropic inertia) and e(t) = (cos(w t / 2), 0, 0, sin(w t / 2)).
 * edot = A e with ||A|| = |w| / 2 = 1 per second; RK4's local error is the Taylor remainder
 * <= (||A|| h)^5 / 120 = 8.3e-13 at h = 0.01, so 100 steps stay below 1e-10. The step renormalizes
 * the quaternion: |e| = 1 to rounding. */
static void spinning_body_quaternion(void **unused)
{
    (void)unused;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    memset(bo.gravity, 0, sizeof bo.gravity);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 2.0;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.008;
    int id = 0;
    assert_int_equal(cdyn_builder_add_body(b, &d, &id, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);

    cdyn_stepper *s = stepper(m, 0.01, 1e-9);
    cdyn_state *x = state(m);
    x->v[5] = 2.0;
    for (int k = 1; k <= 100; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
    }
    const double *e = x->q + 3;
    ASSERT_NEAR(e[0], cos(1.0), 1e-10);
    ASSERT_NEAR(e[3], sin(1.0), 1e-10);
    ASSERT_NEAR(e[1], 0.0, 1e-15);
    ASSERT_NEAR(e[2], 0.0, 1e-15);
    ASSERT_NEAR(sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3]), 1.0,
                4 * DBL_EPSILON);
    ASSERT_NEAR(x->v[5], 2.0, 1e-14);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* ---- events ------------------------------------------------------------------------------ */

/* A ball dropped from H hits at t_e = sqrt(2H/g) = 0.45152 s (H = 1), inside the step
 * (0.45, 0.46] of h = 0.01 and 8.5e-3 s away from its end, so sampling the gap at step ends
 * would be off by that much. With alpha = 0 the constraint keeps hddot = 0 after the event
 * (lambda = m g exactly), so the velocity at the end of the step is the impact velocity
 * -g t_e: t_e = -v / g. The bisection puts the switch in [t_e, t_e + event_tol], and RK4 is
 * exact on both pieces (constant accelerations): |t_e(measured) - t_e| <= event_tol + rounding.
 * Two tolerances show that the located time follows options.event_tol. */
static void first_impact_time(void **unused)
{
    (void)unused;
    const double alpha[3] = {0.0, 0.0, 0.0};
    const double tols[2] = {1e-9, 1e-5};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    for (int c = 0; c < 2; ++c) {
        cdyn_stepper *s = stepper(m, 0.01, tols[c]);
        cdyn_state *x = state(m);
        const double H = 1.0, te = sqrt(2.0 * H / G);
        x->q[0] = H;
        cdyn_step_report rep;
        do
            step_ok(s, x, &rep);
        while (x->mode[0] == CDYN_MODE_FREE && x->t < 1.0);
        assert_int_equal(x->mode[0], CDYN_MODE_CONTACT);
        assert_int_equal(rep.events, 1);
        assert_int_equal(rep.nactive, 1);
        ASSERT_NEAR(x->t, 0.46, 1e-15);
        const double te_measured = -x->v[0] / G;
        if (verbose())
            print_message("event_tol %g: t_e = %.15f, exact %.15f, error %.3g\n", tols[c],
                          te_measured, te, te_measured - te);
        assert_true(te_measured >= te - 1e-12);
        assert_true(te_measured <= te + tols[c] + 1e-12);
        ASSERT_NEAR(x->lambda[0], G, 1e-12);
        /* The gap at the switch is H - g t_e^2 / 2 (slightly below 0); then it falls linearly. */
        ASSERT_NEAR(x->q[0],
                    H - 0.5 * G * te_measured * te_measured -
                        G * te_measured * (x->t - te_measured),
                    1e-12);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* Run the bouncing ball from rest at H for n steps of h. Records, per flight after a contact,
 * the apex q + v^2 / (2g) (exact in free flight, where the energy is conserved and RK4 exact),
 * the number of CONTACT -> BALLISTIC switches and the time of the last mode change. */
typedef struct bounce_log {
    double apex[64];
    int napex;
    int bounces;
    double t_last_event;
} bounce_log;

static void bounce(const double alpha[3], double H, double h, int n, cdyn_state **out,
                   bounce_log *log)
{
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    cdyn_stepper *s = stepper(m, h, 1e-9);
    cdyn_state *x = state(m);
    x->q[0] = H;
    memset(log, 0, sizeof *log);
    int prev = CDYN_MODE_FREE, counted = 1; /* the drop's own flight is not a bounce */
    for (int k = 0; k < n; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
        if (rep.events > 0)
            log->t_last_event = x->t;
        const int mode = x->mode[0];
        if (prev == CDYN_MODE_CONTACT && mode != CDYN_MODE_CONTACT)
            log->bounces++;
        if (mode == CDYN_MODE_CONTACT)
            counted = 0;
        if (mode == CDYN_MODE_FREE && !counted && log->napex < 64) {
            log->apex[log->napex++] = x->q[0] + x->v[0] * x->v[0] / (2.0 * G);
            counted = 1;
        }
        prev = mode;
    }
    *out = x;
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* Bortoff Fig. 3 (alpha0 = 100, alpha1 = 0, alpha2 = 1e6; m = 1, dropped from q = 1): the apex
 * grows. In CONTACT with alpha1 = 0, hddot = -alpha0 h - alpha2 h^3 conserves
 * E_c = hdot^2 / 2 + U(h), U = alpha0 h^2 / 2 + alpha2 h^4 / 4. The ball enters at h = 0 with
 * hdot^2 = 2 g A (A the previous apex) and leaves when lambda = m (g - alpha0 h - alpha2 h^3)
 * reaches 0, at the root h_e of alpha0 h + alpha2 h^3 = g, with hdot_e^2 = 2 g A - 2 U(h_e); it
 * then flies to h_e + hdot_e^2 / (2g). So every bounce adds the same
 *     dA = h_e - U(h_e) / g   (= 0.0139 m),
 * the energy the multiplier's gravity term m g puts in while h > 0 (paper, Sec. 2). The error
 * comes from RK4 in the stiff contact phase (omega h up to ~0.14 at h = 1e-3), where the energy
 * error of RK4 per step is O((omega h)^6); halving h must shrink it about 2^4 = 16-fold or more
 * (fourth order in the phase of the exit), which the test checks instead of trusting a bound. */
static double apex_gain(const double alpha[3])
{
    double he = G / alpha[0]; /* Newton on alpha0 h + alpha2 h^3 - g from above (convex) */
    for (int k = 0; k < 60; ++k)
        he -= (alpha[0] * he + alpha[2] * he * he * he - G) / (alpha[0] + 3 * alpha[2] * he * he);
    const double U = 0.5 * alpha[0] * he * he + 0.25 * alpha[2] * he * he * he * he;
    return he - U / G;
}

static void apex_grows_without_damping(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 0.0, 1e6};
    const double dA = apex_gain(alpha);
    assert_true(dA > 0.013 && dA < 0.015);
    double err[2] = {0, 0};
    for (int c = 0; c < 2; ++c) {
        const double h = c == 0 ? 1e-3 : 5e-4;
        cdyn_state *x = NULL;
        bounce_log log;
        bounce(alpha, 1.0, h, (int)lround(6.0 / h), &x, &log);
        assert_true(log.napex >= 5); /* flights of ~0.9-1 s each in 6 s */
        for (int k = 0; k < log.napex; ++k) {
            assert_true(log.apex[k] > (k == 0 ? 1.0 : log.apex[k - 1])); /* growth */
            err[c] = fmax(err[c], fabs(log.apex[k] - (1.0 + (k + 1) * dA)));
        }
        if (verbose())
            print_message("h %g: %d apexes, last %.9f, dA %.9f, max error %.3g\n", h, log.napex,
                          log.apex[log.napex - 1], dA, err[c]);
        cdyn_state_free(x);
    }
    assert_true(err[0] < 0.01 * dA);
    assert_true(err[1] <= err[0] / 8.0);
}

/* Bortoff's bouncing ball with damping comes to rest: h -> 0, lambda -> m g (Fig. 2 and the
 * DESIGN table). With the paper's listing (alpha0 = 100, alpha1 = 20, alpha2 = 1e6) the linear
 * part s^2 + 20 s + 100 = (s + 10)^2 is critically damped: once the ball stays in CONTACT,
 * |h| decays like (1 + 10 t) e^{-10 t} (the cubic term only adds stiffness near h = 0's
 * neighbourhood), so 8 s after the last event the motion is below rounding. At rest
 * hddot = 0 gives lambda = m g exactly; what remains is the rounding of vdot (~ a few eps g)
 * divided by alpha0: |h| ~ 1e-17. Tolerances: |h| <= 1e-14 m, |hdot| <= 1e-13 m/s,
 * |lambda - m g| <= 1e-12 m g.
 * (Fig. 2's caption gives alpha1 = 1 with rest after four bounces; with alpha1 = 1 this model
 * instead settles into steady bouncing: see docs/examples.md.) */
static void damped_ball_comes_to_rest(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 20.0, 1e6};
    cdyn_state *x = NULL;
    bounce_log log;
    bounce(alpha, 1.0, 1e-3, 10000, &x, &log);
    if (verbose())
        print_message("bounces %d, last event at %.3f s, h %.3g, lambda - mg %.3g\n", log.bounces,
                      log.t_last_event, x->q[0], x->lambda[0] - G);
    assert_true(log.bounces >= 1);
    assert_true(log.t_last_event < 2.0);
    assert_int_equal(x->mode[0], CDYN_MODE_CONTACT);
    ASSERT_NEAR(x->q[0], 0.0, 1e-14);
    ASSERT_NEAR(x->v[0], 0.0, 1e-13);
    ASSERT_NEAR(x->lambda[0], G, 1e-12 * G);
    cdyn_state_free(x);
}

/* ---- constraint dynamics in CONTACT ------------------------------------------------------ */

/* A planar free box (half-extents a x b, mass m) standing on a corner near its balance angle
 * atan(a / b), pressed 2 mm into the ground, sliding at 0.5 m/s and turning away from balance
 * at 0.3 rad/s. The corner's row is in CONTACT and, with alpha2 = 0, its gap obeys
 * hddot + alpha1 hdot + alpha0 h = 0 whatever the box does (the other rows stay FREE and lambda
 * stays positive: checked). With s = alpha1 / 2 and w_d^2 = alpha0 - s^2:
 *     h(t) = e^{-s t} (h0 cos w_d t + (hdot0 + s h0) / w_d sin w_d t),  hdot0 = Gamma_n v0.
 * This exercises M, the bias, Gamma_n and (dGamma_n/dt) v of a rotating body. RK4 has order 4:
 * the error must drop about 16-fold from h to h/2 (asserted: between 12 and 20). */
static double box_gap_error(double h, double T, double *lambda_min)
{
    const double a = 0.2, b = 0.1, mass = 1.5, theta0 = 1.1, h0 = -0.002;
    const double alpha[3] = {100.0, 4.0, 0.0};
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *bd = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &bd, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = mass;
    d.inertia[2] = mass * (a * a + b * b) / 3.0;
    int id = 0, gp = 0, gr = 0, pid = 0;
    assert_int_equal(cdyn_builder_add_body(bd, &d, &id, NULL), CDYN_OK);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    assert_int_equal(cdyn_builder_add_geom(bd, &g, &gp, NULL), CDYN_OK);
    g.body = id;
    g.type = CDYN_GEOM_RECTANGLE;
    g.size[0] = a;
    g.size[1] = b;
    assert_int_equal(cdyn_builder_add_geom(bd, &g, &gr, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gp;
    p.geom_b = gr;
    memcpy(p.baumgarte, alpha, sizeof p.baumgarte);
    assert_int_equal(cdyn_builder_add_contact_pair(bd, &p, &pid, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(bd, &m, NULL), CDYN_OK);
    cdyn_builder_free(bd);
    assert_int_equal(cdyn_model_ncontact(m), 4);

    /* Lowest corner of the box turned by theta0 about its centre: (-a, -b) for
     * 0 < theta0 < pi / 2, at height y - a sin(theta0) - b cos(theta0) = h0. */
    cdyn_state *x = state(m);
    x->q[0] = 0.0;
    x->q[1] = h0 + a * sin(theta0) + b * cos(theta0);
    x->q[2] = theta0;
    x->v[0] = 0.5;
    x->v[2] = -0.3;
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &data, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, data, x->q, x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    int row = -1;
    for (int i = 0; i < 4; ++i)
        if (cdyn_data_gap(data)[i] < 0.0)
            row = i;
    assert_true(row >= 0);
    ASSERT_NEAR(cdyn_data_gap(data)[row], h0, 1e-15);
    double hdot0 = 0.0;
    for (int j = 0; j < 3; ++j)
        hdot0 += cdyn_data_jacobian(data, CDYN_DIR_N)[row + 4 * j] * x->v[j];

    cdyn_stepper *s = stepper(m, h, 1e-9);
    const double sd = 0.5 * alpha[1], wd = sqrt(alpha[0] - sd * sd);
    double err = 0.0;
    *lambda_min = INFINITY;
    const int n = (int)lround(T / h);
    for (int k = 0; k < n; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
        for (int i = 0; i < 4; ++i)
            assert_int_equal(x->mode[i], i == row ? CDYN_MODE_CONTACT : CDYN_MODE_FREE);
        assert_int_equal(rep.nactive, 1);
        assert_true(rep.solver.residual < 1e-9); /* the enforced equation, m/s^2 */
        *lambda_min = fmin(*lambda_min, x->lambda[3 * row]);
        assert_int_equal(cdyn_eval(m, data, x->q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        const double t = x->t;
        const double exact =
            exp(-sd * t) * (h0 * cos(wd * t) + (hdot0 + sd * h0) / wd * sin(wd * t));
        err = fmax(err, fabs(cdyn_data_gap(data)[row] - exact));
    }
    if (verbose())
        print_message("box after %g s: x %.4f, theta %.4f, hdot0 %.3g\n", T, x->q[0], x->q[2],
                      hdot0);
    cdyn_data_free(data);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return err;
}

static void contact_gap_follows_linear_ode(void **unused)
{
    (void)unused;
    double lmin1 = 0, lmin2 = 0;
    const double e1 = box_gap_error(0.02, 0.4, &lmin1);
    const double e2 = box_gap_error(0.01, 0.4, &lmin2);
    if (verbose())
        print_message("gap error %.3g (h = 0.02), %.3g (h = 0.01), ratio %.2f; min lambda %.3g\n",
                      e1, e2, e1 / e2, lmin2);
    assert_true(lmin1 > 0.0 && lmin2 > 0.0);
    /* RK4's phase error on the oscillator alone is w T (w h)^4 / 120 |h0| = 7e-9 (w = 10 / s);
     * h(q) is nonlinear in the rotating box's q, so allow a factor of ~15 above it. The order
     * check below is the sharper test. */
    assert_true(e2 < 1e-7);
    assert_true(e1 / e2 > 12.0 && e1 / e2 < 20.0);
}

/* ---- failures ---------------------------------------------------------------------------- */

/* The same disk-ground pair declared twice: two identical rows in CONTACT make
 * W = Gamma M^-1 Gamma^T singular, and the multipliers are W's minimum-norm solution, which
 * splits the load evenly. A ball resting on the ground (h = hdot = 0, so the constraint asks
 * hddot = 0): lambda_1 + lambda_2 = m g by equilibrium, and by symmetry each is m g / 2. */
static void dependent_rows_share_the_load(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 1.0, 1e6};
    cdyn_model *m = scene_prismatic_ball(alpha, 2.0, 0.05, 2);
    cdyn_stepper *s = stepper(m, 1e-3, 1e-9);
    cdyn_state *x = state(m);
    x->q[0] = 0.0;
    for (int k = 0; k < 10; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
        assert_int_equal(rep.nactive, 2);
    }
    ASSERT_NEAR(x->lambda[0], G, 1e-12);
    ASSERT_NEAR(x->lambda[3], G, 1e-12);
    ASSERT_NEAR(x->q[0], 0.0, 1e-15);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* A contact far too stiff for the step: alpha0 = 1e200 on a ball pressed 1 mm into the ground
 * overflows within the first RK4 stages (accelerations ~ 1e197, then alpha0 times positions
 * ~ 1e192), so the step fails with CDYN_ENUMERIC, and the state is bit-identical. */
static void failed_step_leaves_state(void **unused)
{
    (void)unused;
    const double alpha[3] = {1e200, 0.0, 0.0};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    cdyn_stepper *s = stepper(m, 1e-2, 1e-9);
    cdyn_state *x = state(m), *copy = state(m);
    x->t = 0.25;
    x->q[0] = -0.001;
    x->v[0] = -2.0;
    x->lambda[0] = 1.5;
    x->delta[1] = 0.25;
    x->mode[0] = CDYN_MODE_CONTACT;
    assert_int_equal(cdyn_state_copy(copy, x, NULL), CDYN_OK);
    cdyn_step_report rep;
    const cdyn_status st = cdyn_step(s, NULL, x, &rep);
    if (st != CDYN_ENUMERIC)
        print_error("%s\n", rep.solver.message);
    assert_int_equal(st, CDYN_ENUMERIC);
    assert_int_equal(rep.solver.status, CDYN_ENUMERIC);
    assert_true(strstr(rep.solver.message, "non-finite") != NULL);
    assert_true(x->t == copy->t);
    assert_memory_equal(x->q, copy->q, sizeof(double));
    assert_memory_equal(x->v, copy->v, sizeof(double));
    assert_memory_equal(x->lambda, copy->lambda, 3 * sizeof(double));
    assert_memory_equal(x->delta, copy->delta, 3 * sizeof(double));
    assert_memory_equal(x->mode, copy->mode, sizeof(int));
    cdyn_state_free(copy);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

static void bad_options_and_alphas(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 1.0, 1e6};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    cdyn_step_options o;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    const double bad_tol[3] = {0.0, -1e-9, NAN};
    for (int k = 0; k < 3; ++k) {
        cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
        o.event_tol = bad_tol[k];
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &r), CDYN_EINVAL);
        assert_null(s);
        assert_true(strstr(r.message, "event_tol") != NULL);
    }
    /* Only the direct backend fits. */
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.backend = CDYN_BACKEND_LEMKE;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &r), CDYN_EINVAL);
    assert_null(s);
    cdyn_model_free(m);

    /* Negative or non-finite alphas never reach the scheme: the builder refuses them. */
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 1.0;
    d.inertia[2] = 0.01;
    int id = 0, gp = 0, gc = 0, pid = 0;
    assert_int_equal(cdyn_builder_add_body(b, &d, &id, NULL), CDYN_OK);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    assert_int_equal(cdyn_builder_add_geom(b, &g, &gp, NULL), CDYN_OK);
    g.body = id;
    g.type = CDYN_GEOM_CIRCLE;
    g.size[0] = 0.1;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &gc, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gp;
    p.geom_b = gc;
    for (int k = 0; k < 3; ++k) {
        p.baumgarte[k] = k == 2 ? INFINITY : -1.0;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &pid, &r), CDYN_EINVAL);
        assert_true(strstr(r.message, "baumgarte") != NULL);
        p.baumgarte[k] = 0.0;
    }
    cdyn_builder_free(b);
}

/* After cdyn_stepper_create nothing is allocated, events included. */
static void no_allocation_after_create(void **unused)
{
    (void)unused;
    const double alpha[3] = {100.0, 20.0, 1e6};
    cdyn_model *m = scene_prismatic_ball(alpha, 1.0, 0.05, 1);
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.h = 1e-3;
    o.allocator = &fa.allocator;
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = state(m);
    x->q[0] = 0.2;
    const int before = fa.allocations;
    int events = 0;
    for (int k = 0; k < 1000; ++k) {
        cdyn_step_report rep;
        step_ok(s, x, &rep);
        events += rep.events;
    }
    assert_true(events >= 2);
    assert_int_equal(fa.allocations, before);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    assert_int_equal(fa.live, 0);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_fall_is_the_parabola),
        cmocka_unit_test(spinning_body_quaternion),
        cmocka_unit_test(first_impact_time),
        cmocka_unit_test(apex_grows_without_damping),
        cmocka_unit_test(damped_ball_comes_to_rest),
        cmocka_unit_test(contact_gap_follows_linear_ode),
        cmocka_unit_test(dependent_rows_share_the_load),
        cmocka_unit_test(failed_step_leaves_state),
        cmocka_unit_test(bad_options_and_alphas),
        cmocka_unit_test(no_allocation_after_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
