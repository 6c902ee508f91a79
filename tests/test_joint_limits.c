/* Joint limits (issue 20 item 2) in every scheme. The implicit scheme's compliant stops and
 * Baumgarte's stabilized rows are checked by the tests after test_refused (their own comments
 * give the closed forms and bounds), with the limit rows' state, recorder columns and memory.
 * The rigid schemes: the pyramid LCP, the cone step and the Coulomb step (there
 * as blocks with mu = 0 of their one-step problems, whose conditions are the same row): per
 * finite end of a limited
 * joint a row 0 <= p ⊥ g' v+ + gap / h >= 0 (g = +e_j at lower, gap = q_j - lower; g = -e_j at
 * upper, gap = upper - q_j), a rigid inelastic stop, so that q+_j = q_j + h v+_j stays within
 * the limits at every step end: exactly for one limited dof (the row's own velocity), to the
 * solver's accuracy in a chain. Checks:
 *  - the builder refuses bad limits (limited not 0/1, NaN, lower > upper, an end at the wrong
 *    infinity, limits on FREE or FIXED joints); body_info reports them;
 *  - a vertical slider falling onto its lower limit: free fall (the scheme's discrete form
 *    q_n = -h^2 g n (n + 1) / 2) until the step whose free motion would cross the limit, at
 *    t* = sqrt(2 |lower| / g) within h; then at the limit exactly, at rest;
 *  - a joint started beyond its limit is put back in one step;
 *  - a pendulum swinging against a limit and a double pendulum with both joints limited, 10^4
 *    steps each: no violation beyond rounding, no drift;
 *  - a pendulum held by gravity against its limit rests there;
 *  - Newton restitution at a limit (pyramid LCP): the rebound speed in closed form, no energy
 *    gain in a bouncing sequence;
 *  - joint rows coupled with a contact (an arm with limits and elbow friction dragging its tip
 *    on the floor, 10^4 steps): limits and the floor hold; Lemke and FB-Newton agree;
 *  - the BVP and the instantaneous problem refuse limits (CDYN_ENOTSUP); the per-step
 *    derivatives take them (checked in test_limit_derivs.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "step/implicit_limits.h"
#include "support.h"

static const double G = 9.81; /* the builder's default gravity */

static cdyn_body_desc revolute(double lower, double upper)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_REVOLUTE;
    d.mass = 1;
    d.com[1] = -0.5; /* hanging at q = 0 (planar) */
    d.inertia[2] = 0.01;
    d.limited = 1;
    d.lower = lower;
    d.upper = upper;
    return d;
}

static cdyn_model *build(int dim, int n, const cdyn_body_desc *d)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_report r;
    if (cdyn_builder_add_chain(b, CDYN_GROUND, n, d, NULL, &r) != CDYN_OK)
        fail_msg("%s", r.message);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* The schemes that take limits, and the accuracy of their one-step solvers: Lemke's answers are
 * exact to rounding, the cone step's interior point and the Coulomb step's frictional contact
 * solver certify their problems to about 1e-9 and 1e-10 (relative; options.coneqp, .fc3d),
 * which a limit row's velocity carries into q as h times that. */
#define NS 3
static const cdyn_scheme SCHEMES[NS] = {CDYN_SCHEME_PYRAMID_LCP, CDYN_SCHEME_CONE_STEP,
                                        CDYN_SCHEME_COULOMB_STEP};
static const double TOL[NS] = {1e-15, 1e-9, 1e-9};

static cdyn_stepper *stepper_with(const cdyn_model *m, const cdyn_step_options *o)
{
    cdyn_stepper *s = NULL;
    cdyn_report r;
    if (cdyn_stepper_create(m, o, &s, &r) != CDYN_OK)
        fail_msg("%s", r.message);
    return s;
}

static cdyn_stepper *stepper(const cdyn_model *m, double h, cdyn_scheme scheme)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    o.h = h;
    return stepper_with(m, &o);
}

static void step_ok(cdyn_stepper *s, cdyn_state *x, int k)
{
    cdyn_step_report sr;
    if (cdyn_step(s, NULL, x, &sr) != CDYN_OK)
        fail_msg("step %d: %s", k, sr.solver.message);
}

static void expect_refused(const cdyn_body_desc *d, const char *word)
{
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(NULL, &b, NULL), CDYN_OK);
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_body(b, d, NULL, &r), CDYN_EINVAL);
    if (strstr(r.message, word) == NULL)
        fail_msg("message '%s' lacks '%s'", r.message, word);
    cdyn_builder_free(b);
}

static void test_builder(void **state)
{
    (void)state;
    cdyn_body_desc d = revolute(-1, 1);
    d.inertia[0] = d.inertia[1] = 0.01;
    cdyn_body_desc e = d;
    e.limited = 2;
    expect_refused(&e, "limited = 2");
    const double bad[4][2] = {{NAN, 1}, {-1, NAN}, {1, -1}, {INFINITY, INFINITY}};
    for (int k = 0; k < 4; ++k) {
        e = d;
        e.lower = bad[k][0];
        e.upper = bad[k][1];
        expect_refused(&e, "joint limits");
    }
    e = d;
    e.limit_restitution = 1.5;
    expect_refused(&e, "limit_restitution = 1.5");
    e.limit_restitution = NAN;
    expect_refused(&e, "limit_restitution");
    e = d;
    e.limited = 0;
    e.limit_restitution = 0.5;
    expect_refused(&e, "without limits");
    e = d;
    e.joint = CDYN_JOINT_FREE;
    expect_refused(&e, "FREE");
    e = d;
    e.joint = CDYN_JOINT_FIXED;
    expect_refused(&e, "FIXED");
    /* accepted: open ends, lower = upper, and reported */
    cdyn_body_desc ok[2] = {revolute(-INFINITY, 0.5), revolute(0.2, 0.2)};
    cdyn_model *m = build(2, 2, ok);
    cdyn_body_info bi;
    assert_int_equal(cdyn_model_body_info(m, 0, &bi), CDYN_OK);
    assert_true(bi.limited == 1 && bi.lower == -INFINITY && bi.upper == 0.5);
    int first = -2;
    assert_int_equal(cdyn_model_joint_limit_count(m, &first), 2);
    assert_int_equal(first, 0);
    cdyn_model_free(m);
    cdyn_body_desc none = revolute(0, 0);
    none.limited = 0;
    m = build(2, 1, &none);
    assert_int_equal(cdyn_model_body_info(m, 0, &bi), CDYN_OK);
    assert_true(bi.limited == 0 && bi.lower == -INFINITY && bi.upper == INFINITY);
    assert_int_equal(cdyn_model_joint_limit_count(m, &first), 0);
    assert_int_equal(first, -1);
    cdyn_model_free(m);
}

/* A vertical prismatic slider (planar, axis y) with a lower limit. */
static cdyn_model *vertical_slider(double mass, double lower)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_PRISMATIC;
    d.axis[0] = 0;
    d.axis[1] = 1;
    d.axis[2] = 0;
    d.mass = mass;
    d.inertia[2] = 0.01;
    d.limited = 1;
    d.lower = lower;
    d.upper = INFINITY;
    return build(2, 1, &d);
}

/* The slider (2 kg) falling onto lower = -0.3. */
static void slider_lands(int sc)
{
    const double lower = -0.3, h = 0.002;
    cdyn_model *m = vertical_slider(2, lower);
    cdyn_stepper *s = stepper(m, h, SCHEMES[sc]);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    double q = 0, v = 0, worst = 0;
    int landed = -1;
    for (int k = 0; k < 1000; ++k) {
        step_ok(s, x, k);
        /* the scheme's closed form: free fall while q + h (v - h g) >= lower, else the row
         * stops it at the limit within the step */
        const double vf = v - h * G;
        if (q + h * vf >= lower) {
            v = vf;
            q += h * v;
        } else {
            v = (lower - q) / h;
            q = lower;
            if (landed < 0)
                landed = k;
            v = k == landed ? v : 0.0;
        }
        worst = fmax(worst, fabs(x->q[0] - q) + h * fabs(x->v[0] - v));
    }
    const double tstar = sqrt(2 * fabs(lower) / G), tland = (landed + 1) * h;
    print_message("slider, %s: lands in step %d (t = %.4f s, t* = sqrt(2 |lower| / g) = %.4f "
                  "s), closed form within %.1e, final q - lower = %.1e, v = %.1e\n",
                  cdyn_scheme_str(SCHEMES[sc]), landed, tland, tstar, worst, x->q[0] - lower,
                  x->v[0]);
    assert_true(fabs(tland - tstar) <= h);
    assert_true(worst <= (sc ? TOL[sc] : 1e-12));
    assert_true(fabs(x->q[0] - lower) <= TOL[sc] && fabs(x->v[0]) <= TOL[sc] / h);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

static void test_slider_lands(void **state)
{
    (void)state;
    for (int sc = 0; sc < NS; ++sc)
        slider_lands(sc);
}

/* Started 0.2 rad beyond the upper limit: back at the limit after one step. */
static void test_put_back(void **state)
{
    (void)state;
    cdyn_body_desc d = revolute(-0.4, 0.4);
    cdyn_model *m = build(2, 1, &d);
    for (int sc = 0; sc < NS; ++sc) {
        cdyn_stepper *s = stepper(m, 0.01, SCHEMES[sc]);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = 0.6;
        step_ok(s, x, 0);
        print_message("put back, %s: q = %.17g after one step (upper 0.4)\n",
                      cdyn_scheme_str(SCHEMES[sc]), x->q[0]);
        assert_true(x->q[0] <= 0.4 + TOL[sc] && x->q[0] >= 0.4 - 0.01 * 0.01 * G);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* The largest violation of the limits of every dof over n steps from q0. */
static double swing(const cdyn_model *m, int sc, const double *q0, int n, double h,
                    double *qmin, double *qmax)
{
    cdyn_stepper *s = stepper(m, h, SCHEMES[sc]);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const int nv = cdyn_model_nv(m);
    memcpy(x->q, q0, (size_t)nv * sizeof(double));
    double viol = 0;
    for (int j = 0; j < nv; ++j)
        qmin[j] = qmax[j] = q0[j];
    for (int k = 0; k < n; ++k) {
        step_ok(s, x, k);
        for (int j = 0; j < nv; ++j) {
            cdyn_body_info bi;
            cdyn_model_body_info(m, j, &bi);
            viol = fmax(viol, fmax(bi.lower - x->q[j], x->q[j] - bi.upper));
            qmin[j] = fmin(qmin[j], x->q[j]);
            qmax[j] = fmax(qmax[j], x->q[j]);
        }
    }
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    return viol;
}

static void long_swings(int sc)
{
    /* one pendulum from 1.2 rad against its lower limit -1 */
    cdyn_body_desc d = revolute(-1.0, 1.3);
    cdyn_model *m = build(2, 1, &d);
    double q0 = 1.2, lo[2], hi[2];
    double viol = swing(m, sc, &q0, 10000, 0.01, lo, hi);
    print_message("pendulum, %s, 1e4 steps: largest violation %.1e, q in [%.6f, %.6f] (limits "
                  "-1, 1.3)\n",
                  cdyn_scheme_str(SCHEMES[sc]), viol, lo[0], hi[0]);
    assert_true(viol <= TOL[sc]);
    assert_true(lo[0] <= -1.0 + 1e-8); /* it did reach the limit */
    cdyn_model_free(m);
    /* a double pendulum, both joints limited */
    cdyn_body_desc c[2] = {revolute(-0.8, 0.8), revolute(-0.5, 0.5)};
    c[1].frame = cdyn_pose_planar(0, -1.0, 0);
    m = build(2, 2, c);
    const double q2[2] = {0.75, -0.4};
    viol = swing(m, sc, q2, 10000, 0.005, lo, hi);
    print_message("double pendulum, %s, 1e4 steps: largest violation %.1e, q1 in [%.4f, %.4f], "
                  "q2 in [%.4f, %.4f]\n",
                  cdyn_scheme_str(SCHEMES[sc]), viol, lo[0], hi[0], lo[1], hi[1]);
    assert_true(viol <= fmax(TOL[sc], 1e-12));
    assert_true(lo[0] <= -0.8 + 1e-8 || hi[0] >= 0.8 - 1e-8 || lo[1] <= -0.5 + 1e-8 ||
                hi[1] >= 0.5 - 1e-8);
    cdyn_model_free(m);
}

static void test_long_swings(void **state)
{
    (void)state;
    for (int sc = 0; sc < NS; ++sc)
        long_swings(sc);
}

/* Limits [0.3, 1] with gravity pulling towards 0: from 0.5 it falls onto 0.3 and stays, held
 * by the lower stop's force, which every scheme reports in limit_lambda: at rest it balances
 * gravity, lambda = h(q = 0.3, v = 0) (statics from the model's own bias term; the compliant
 * schemes to their solvers' accuracy, the rigid ones to their certificates: 1e-9 relative). */
static void test_rest_on_limit(void **state)
{
    (void)state;
    cdyn_body_desc d = revolute(0.3, 1.0);
    cdyn_model *m = build(2, 1, &d);
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &data, NULL), CDYN_OK);
    const double qrest = 0.3, vrest = 0.0;
    assert_int_equal(cdyn_eval(m, data, &qrest, &vrest, CDYN_EVAL_BIAS, NULL), CDYN_OK);
    const double hold = cdyn_data_bias(data)[0];
    cdyn_data_free(data);
    assert_true(hold > 0); /* gravity pulls towards 0, onto the lower stop */
    for (int sc = 0; sc < NS; ++sc) {
        cdyn_stepper *s = stepper(m, 0.01, SCHEMES[sc]);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = 0.5;
        for (int k = 0; k < 300; ++k)
            step_ok(s, x, k);
        print_message("rest, %s: q - lower = %.1e, v = %.1e after 3 s\n",
                      cdyn_scheme_str(SCHEMES[sc]), x->q[0] - 0.3, x->v[0]);
        /* the rigid schemes' modes are read off the positions (gap <= 1e-9) */
        assert_int_equal(x->limit_mode[0], CDYN_LIMIT_AT_LOWER);
        assert_int_equal(x->limit_mode[1], CDYN_LIMIT_FREE);
        assert_true(fabs(x->q[0] - 0.3) <= TOL[sc] && fabs(x->v[0]) <= fmax(TOL[sc], 1e-13));
        print_message("  holding force %.12g against statics %.12g (relative %.1e)\n",
                      x->limit_lambda[0], hold, fabs(x->limit_lambda[0] - hold) / hold);
        assert_true(fabs(x->limit_lambda[0] - hold) <= 1e-9 * hold);
        assert_true(fabs(x->limit_lambda[1]) <= 1e-9 * hold);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* Joint rows coupled with a contact: a planar two-link arm (limits on both joints, friction on
 * the elbow) whose tip disk (mu = 0.5) lands on the floor and is dragged by a shoulder torque;
 * 10^4 steps. The limits hold (1e-9: the LCP's accuracy in a chain) and the tip does not sink
 * (gap >= -1e-9: the contact's own row); Lemke and FB-Newton solve the same LCPs, so their
 * trajectories agree over the first 300 steps (while they are not yet apart by the chaos of
 * repeated impacts: 1e-6). The cone step (which refuses joint friction: the arm without it)
 * keeps the limits and the floor likewise, to its interior point's accuracy. */
static cdyn_model *arm_on_floor(double elbow_friction)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[2] = {revolute(-1.2, 0.3), revolute(-1.0, 1.5)};
    for (int k = 0; k < 2; ++k) {
        l[k].com[0] = 0.2;
        l[k].com[1] = 0;
    }
    l[1].frame = cdyn_pose_planar(0.4, 0, 0);
    l[1].friction = elbow_friction;
    int ids[2];
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, ids, NULL), CDYN_OK);
    cdyn_geom_desc floor, tip;
    cdyn_geom_desc_defaults(&floor);
    floor.frame = cdyn_pose_planar(0, -0.55, 0);
    cdyn_geom_desc_defaults(&tip);
    tip.body = ids[1];
    tip.type = CDYN_GEOM_CIRCLE;
    tip.frame = cdyn_pose_planar(0.4, 0, 0);
    tip.size[0] = 0.04;
    int gf, gt;
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gf;
    p.geom_b = gt;
    p.mu = 0.5;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void test_arm_on_floor(void **state)
{
    (void)state;
    cdyn_model *m = arm_on_floor(0.3);
    cdyn_stepper *s[2];
    cdyn_state *x[2];
    for (int be = 0; be < 2; ++be) {
        cdyn_step_options o;
        cdyn_step_defaults(&o, CDYN_SCHEME_PYRAMID_LCP);
        o.h = 0.002;
        o.backend = be ? CDYN_BACKEND_FB_DENSE : CDYN_BACKEND_LEMKE;
        cdyn_report r;
        if (cdyn_stepper_create(m, &o, &s[be], &r) != CDYN_OK)
            fail_msg("%s", r.message);
        assert_int_equal(cdyn_state_create(m, NULL, &x[be], NULL), CDYN_OK);
    }
    double viol = 0, deepest = 0, apart = 0, tau[2] = {0, 0};
    int touching = 0, at_limit = 0;
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    for (int k = 0; k < 10000; ++k) {
        tau[0] = 2.0 * sin(0.002 * k * 3.0); /* drags the tip back and forth */
        for (int be = 0; be < (k < 300 ? 2 : 1); ++be) {
            cdyn_step_report sr;
            if (cdyn_step(s[be], tau, x[be], &sr) != CDYN_OK)
                fail_msg("%s, step %d: %s", be ? "fb-dense" : "lemke", k, sr.solver.message);
        }
        if (k < 300)
            for (int j = 0; j < 2; ++j)
                apart = fmax(apart, fabs(x[0]->q[j] - x[1]->q[j]));
        const double lo[2] = {-1.2, -1.0}, hi[2] = {0.3, 1.5};
        for (int j = 0; j < 2; ++j) {
            viol = fmax(viol, fmax(lo[j] - x[0]->q[j], x[0]->q[j] - hi[j]));
            at_limit += fabs(x[0]->q[j] - lo[j]) < 1e-9 || fabs(x[0]->q[j] - hi[j]) < 1e-9;
        }
        assert_int_equal(cdyn_eval(m, d, x[0]->q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        deepest = fmin(deepest, cdyn_data_gap(d)[0]);
        touching += x[0]->lambda[0] > 0;
    }
    print_message("arm on the floor, 1e4 steps: limit violation %.1e (%d step-joints at a limit), "
                  "deepest gap %.1e (%d steps touching), Lemke vs FB-Newton over 300 steps %.1e\n",
                  viol, at_limit, deepest, touching, apart);
    assert_true(viol <= 1e-9);
    assert_true(deepest >= -1e-9);
    assert_true(touching > 100 && at_limit > 100);
    assert_true(apart <= 1e-6);
    for (int be = 0; be < 2; ++be) {
        cdyn_state_free(x[be]);
        cdyn_stepper_free(s[be]);
    }
    cdyn_model_free(m);
    /* the cone and Coulomb steps (no joint friction there: the same arm without it), limits and
     * floor */
    m = arm_on_floor(0.0);
    cdyn_data_free(d);
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    for (int si = 1; si < NS; ++si) {
        cdyn_stepper *sc = stepper(m, 0.002, SCHEMES[si]);
        cdyn_state *y = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &y, NULL), CDYN_OK);
        viol = deepest = 0;
        touching = at_limit = 0;
        for (int k = 0; k < 10000; ++k) {
            tau[0] = 2.0 * sin(0.002 * k * 3.0);
            cdyn_step_report sr;
            if (cdyn_step(sc, tau, y, &sr) != CDYN_OK)
                fail_msg("%s, step %d: %s", cdyn_scheme_str(SCHEMES[si]), k, sr.solver.message);
            const double lo[2] = {-1.2, -1.0}, hi[2] = {0.3, 1.5};
            for (int j = 0; j < 2; ++j) {
                viol = fmax(viol, fmax(lo[j] - y->q[j], y->q[j] - hi[j]));
                at_limit += fabs(y->q[j] - lo[j]) < 1e-8 || fabs(y->q[j] - hi[j]) < 1e-8;
            }
            assert_int_equal(cdyn_eval(m, d, y->q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
            deepest = fmin(deepest, cdyn_data_gap(d)[0]);
            touching += y->lambda[0] > 1e-6;
        }
        print_message("arm on the floor, %s, 1e4 steps: limit violation %.1e (%d step-joints at "
                      "a limit), deepest gap %.1e (%d steps touching)\n",
                      cdyn_scheme_str(SCHEMES[si]), viol, at_limit, deepest, touching);
        assert_true(viol <= 1e-9);
        assert_true(deepest >= -1e-9);
        assert_true(touching > 100 && at_limit > 100);
        cdyn_state_free(y);
        cdyn_stepper_free(sc);
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* Newton restitution at a limit (the pyramid LCP with options.restitution, the contacts' rule:
 * docs/theory.md, "Time stepping" Sec. 4): a slider on a horizontal rail (no force along it) at
 * v0 = 1 towards its upper limit leaves it at exactly -e v0 in the step that would cross it
 * (the rebound target e |u0| less a = max(0, u0 - u_free) = 0), e = 1 and 0.5; a vertical
 * slider dropped onto its lower limit with e = 0.5 never gains energy 1/2 m v^2 + m g q from one
 * step to the next and comes to rest on the limit. */
/* One limit struck in scheme sc (options.restitution): horizontal at 1 m/s with e (it must leave
 * at -e m/s, the step's forces taking nothing), or dropped 0.5 m vertically with e = 0.5 (it
 * bounces, never gains energy and comes to rest on the stop). Each scheme's accuracy TOL. */
static void limit_restitution(int sc, int vertical, double e_h)
{
        {
            const double e = vertical ? 0.5 : e_h, h = 0.01, mass = 2;
            cdyn_body_desc d;
            cdyn_body_desc_defaults(&d);
            d.joint = CDYN_JOINT_PRISMATIC;
            d.axis[0] = vertical ? 0 : 1;
            d.axis[1] = vertical ? 1 : 0;
            d.axis[2] = 0;
            d.mass = mass;
            d.inertia[2] = 0.01;
            d.limited = 1;
            d.lower = vertical ? -0.5 : -1;
            d.upper = vertical ? INFINITY : 0.055;
            d.limit_restitution = e;
            cdyn_model *m = build(2, 1, &d);
            cdyn_step_options o;
            cdyn_step_defaults(&o, SCHEMES[sc]);
            o.h = h;
            o.restitution = 1;
            cdyn_stepper *s = NULL;
            assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
            cdyn_state *x = NULL;
            assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
            if (!vertical) {
                x->v[0] = 1.0;
                int bounced = -1;
                for (int k = 0; k < 20; ++k) {
                    const double q0 = x->q[0];
                    step_ok(s, x, k);
                    if (bounced < 0 && x->v[0] < 0) {
                        bounced = k;
                        /* the step whose free motion crosses 0.055: q0 + h > 0.055 */
                        assert_true(q0 + h * 1.0 > 0.055 && q0 <= 0.055);
                        assert_true(fabs(x->v[0] + e) <= fmax(TOL[sc], 1e-15));
                    }
                    assert_true(x->q[0] <= 0.055 + fmax(TOL[sc], 1e-15));
                }
                print_message("%s, restitution e = %g: bounced in step %d, v = %.17g (closed "
                              "form -%g)\n",
                              cdyn_scheme_str(SCHEMES[sc]), e, bounced, x->v[0], e);
                assert_true(bounced == 5 && fabs(x->v[0] + e) <= fmax(TOL[sc], 1e-15));
            } else {
                double E = 0, worst = -INFINITY;
                int bounces = 0;
                for (int k = 0; k < 1000; ++k) {
                    const double v0 = x->v[0];
                    step_ok(s, x, k);
                    bounces += v0 < 0 && x->v[0] > 0;
                    const double En = 0.5 * mass * x->v[0] * x->v[0] + mass * G * x->q[0];
                    worst = fmax(worst, En - E);
                    E = En;
                    assert_true(x->q[0] >= -0.5 - fmax(TOL[sc], 1e-15));
                }
                print_message("%s, restitution e = 0.5, dropped 0.5 m: %d bounces, largest energy "
                              "gain per step %.1e J, final q - lower = %.1e, v = %.1e\n",
                              cdyn_scheme_str(SCHEMES[sc]), bounces, worst, x->q[0] + 0.5,
                              x->v[0]);
                assert_true(bounces >= 3);
                assert_true(worst <= fmax(1e-12, mass * G * TOL[sc]));
                assert_true(fabs(x->q[0] + 0.5) <= fmax(1e-12, TOL[sc]) &&
                            fabs(x->v[0]) <= fmax(1e-12, TOL[sc]));
            }
            cdyn_state_free(x);
            cdyn_stepper_free(s);
            cdyn_model_free(m);
        }
}

static void test_limit_restitution(void **state)
{
    (void)state;
    for (int sc = 0; sc < NS; ++sc)
        for (int vertical = 0; vertical < 2; ++vertical)
            for (int ie = 0; ie < (vertical ? 1 : 2); ++ie)
                limit_restitution(sc, vertical, ie ? 0.5 : 1.0);
}

/* ---- compliant stops in the implicit scheme (docs/theory.md, "Time stepping" Sec. 10) ---- */

/* A stop's force is certified through the dynamics row M (v - v0) - h (tau - bias) - h lambda,
 * whose residual FB-Newton brings below options.mcp.tol = 1e-10 (with the velocity's own,
 * as small): lambda to a few tol / h. */
#define LAMBDA_TOL(h) (5 * 1e-10 / (h))

static cdyn_stepper *implicit(const cdyn_model *m, double h, int fd, cdyn_step_backend backend)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = h;
    o.fd_jacobian = fd;
    o.backend = backend;
    return stepper_with(m, &o);
}

/* The deepest a stop of stiffness K is pressed by an impact of kinetic energy E while a load
 * f <= fmax presses it too: 1/2 K d^2 - fmax d <= E (the damping C and backward Euler only take
 * energy away), so d <= (fmax + sqrt(fmax^2 + 2 K E)) / K: the static deflection fmax / K plus
 * the energy's share. */
static double stop_depth_bound(double K, double fmax, double E)
{
    return (fmax + sqrt(fmax * fmax + 2 * K * E)) / K;
}

/* The slider (m = 2 kg) falling onto lower = -0.3 with the default limit_solref (tau = 0.02 s,
 * zeta = 1: K = m / tau^2 = 5000 N/m, C = 2 m / tau = 200 N s/m): backward Euler's free fall
 * v_n = -n h g, q_n = -h^2 g n (n + 1) / 2 (the rigid schemes' too) until the first step whose
 * free motion crosses the limit, which is the first with a force (mode AT_LOWER), at t* =
 * sqrt(2 |lower| / g) within h; the impact no deeper than the energy bound; at rest after 2 s at
 * the static deflection q = lower - m g / K = lower - g tau^2 with lambda = m g. */
static void test_implicit_slider(void **state)
{
    (void)state;
    const double lower = -0.3, h = 0.002, mass = 2, tau = CDYN_SOLREF_TIMECONST;
    const double K = mass / (tau * tau);
    cdyn_model *m = vertical_slider(mass, lower);
    cdyn_stepper *s = implicit(m, h, 0, CDYN_BACKEND_AUTO);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(x->nl, 1);
    double q = 0, v = 0, worst = 0, deepest = 0;
    int landed = -1;
    for (int k = 0; k < 1000; ++k) {
        step_ok(s, x, k);
        deepest = fmax(deepest, lower - x->q[0]);
        if (landed >= 0)
            continue;
        v -= h * G;
        q += h * v;
        if (x->limit_mode[0] == CDYN_LIMIT_AT_LOWER) {
            landed = k;
            assert_true(q < lower); /* the free motion crosses in this step */
            continue;
        }
        assert_int_equal(x->limit_mode[0], CDYN_LIMIT_FREE);
        assert_true(x->limit_lambda[0] == 0.0);
        worst = fmax(worst, fabs(x->q[0] - q) + h * fabs(x->v[0] - v));
    }
    const double tstar = sqrt(2 * fabs(lower) / G), tland = (landed + 1) * h;
    const double vimp = sqrt(2 * G * fabs(lower));
    const double bound = stop_depth_bound(K, mass * G, 0.5 * mass * vimp * vimp);
    const double qrest = lower - G * tau * tau;
    print_message("implicit slider: lands in step %d (t = %.4f s, t* = %.4f s), free fall within "
                  "%.1e; deepest %.4e m (bound %.4e); rest q - (lower - g tau^2) = %.1e, "
                  "lambda / m g - 1 = %.1e, v = %.1e\n",
                  landed, tland, tstar, worst, deepest, bound, x->q[0] - qrest,
                  x->limit_lambda[0] / (mass * G) - 1, x->v[0]);
    assert_true(fabs(tland - tstar) <= h);
    assert_true(worst <= 1e-12);
    assert_true(deepest <= bound);
    assert_true(fabs(x->q[0] - qrest) <= 1e-9);
    assert_true(fabs(x->limit_lambda[0] - mass * G) <= LAMBDA_TOL(h));
    assert_true(fabs(x->limit_delta[0] - G * tau * tau) <= 1e-9);
    assert_int_equal(x->limit_mode[0], CDYN_LIMIT_AT_LOWER);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* The pendulum (m = 1 kg, l = 0.5 m, I = 0.01 + m l^2 = 0.26 kg m^2 about the pivot; default
 * stops K = I / tau^2 = 650 N m/rad) over 10^4 steps of 10 ms:
 *  - from 1.2 rad against its lower limit -1: the deepest violation is within the energy bound
 *    with E = m g l (cos 1 - cos 1.2) (the impact's kinetic energy) and the gravity torque
 *    m g l as the load;
 *  - limits [0.3, 1.3] from 1.2: it falls onto 0.3 and rests at the static deflection, the root
 *    of K (0.3 - q) = m g l sin q, with lambda = m g l sin q, mode AT_LOWER, the upper FREE;
 *  - limits [-1, -0.3] from -0.5: it rests against the upper end likewise (AT_UPPER). */
static void test_implicit_swings(void **state)
{
    (void)state;
    const double mgl = 1.0 * G * 0.5, I = 0.26, tau = CDYN_SOLREF_TIMECONST, K = I / (tau * tau);
    cdyn_body_desc d = revolute(-1.0, 1.3);
    cdyn_model *m = build(2, 1, &d);
    cdyn_stepper *s = implicit(m, 0.01, 0, CDYN_BACKEND_AUTO);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 1.2;
    double viol = 0;
    int pressed = 0;
    for (int k = 0; k < 10000; ++k) {
        step_ok(s, x, k);
        viol = fmax(viol, fmax(-1.0 - x->q[0], x->q[0] - 1.3));
        pressed += x->limit_mode[0] == CDYN_LIMIT_AT_LOWER;
        assert_int_equal(x->limit_mode[1], CDYN_LIMIT_FREE);
    }
    const double bound = stop_depth_bound(K, mgl, mgl * (cos(1.0) - cos(1.2)));
    print_message("implicit pendulum, 1e4 steps: deepest violation %.4e rad (energy bound %.4e), "
                  "%d steps at the lower stop\n",
                  viol, bound, pressed);
    assert_true(viol > 0 && viol <= bound);
    assert_true(pressed > 0);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);

    const double lims[2][2] = {{0.3, 1.3}, {-1.0, -0.3}}, start[2] = {1.2, -0.5};
    for (int c = 0; c < 2; ++c) {
        d = revolute(lims[c][0], lims[c][1]);
        m = build(2, 1, &d);
        s = implicit(m, 0.01, 0, CDYN_BACKEND_AUTO);
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = start[c];
        for (int k = 0; k < 10000; ++k)
            step_ok(s, x, k);
        /* the stop: b = 0.3 (lower, gravity pushes q down) or -0.3 (upper, pushes q up) */
        const double b = c == 0 ? 0.3 : -0.3;
        double qs = b;
        for (int it = 0; it < 50; ++it) /* Newton on K (b - q) = m g l sin q (either end) */
            qs -= (K * (b - qs) - mgl * sin(qs)) / (-K - mgl * cos(qs));
        const int row = c == 0 ? 0 : 1;
        print_message("implicit pendulum on its %s stop: q - q_static = %.1e (deflection %.4e), "
                      "lambda - m g l |sin q| = %.1e, v = %.1e\n",
                      c == 0 ? "lower" : "upper", x->q[0] - qs, fabs(b - qs),
                      x->limit_lambda[row] - mgl * fabs(sin(qs)), x->v[0]);
        assert_true(fabs(x->q[0] - qs) <= 1e-10);
        assert_true(fabs(x->limit_lambda[row] - mgl * fabs(sin(qs))) <= LAMBDA_TOL(0.01));
        assert_int_equal(x->limit_mode[row],
                         c == 0 ? CDYN_LIMIT_AT_LOWER : CDYN_LIMIT_AT_UPPER);
        assert_int_equal(x->limit_mode[1 - row], CDYN_LIMIT_FREE);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
    }
}

/* The analytic Newton matrix with limit rows against central differences of the residual, in
 * two ways on the arm (both joints limited, its tip disk over the floor):
 *  - the matrices themselves (ncp_form_J against ncp_form_jac_fd, both row scalings) at a point
 *    with every stop and the contact pressed: to 1e-7 of the largest entry (the differences'
 *    truncation, O(eps^2) with eps = 1e-6 of each unknown, times the residual's curvature, and
 *    rounding 1e-16 F / eps: test_step_ncp.c's check);
 *  - whole steps with options.fd_jacobian (the oracle) against the analytic matrix, dense and
 *    sparse (KLU on the pattern listed with the limit rows), each taken from the same state,
 *    along 400 steps in which the shoulder strikes its lower stop and the tip the floor: the
 *    solutions of one problem to FB-Newton's tolerance, so to 1e-9 (test_step_fd.c: 1e-10 for
 *    contacts). */
static void test_implicit_jacobian(void **state)
{
    (void)state;
    cdyn_model *m = arm_on_floor(0);
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m);
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &data, NULL), CDYN_OK);
    lim_rows lr;
    ncp_limits L;
    assert_int_equal(lim_rows_create(m, NULL, &lr, NULL), CDYN_OK);
    assert_int_equal(ncp_limits_create(m, &lr, NULL, &L, NULL), CDYN_OK);
    assert_int_equal(lr.n, 4);
    for (int l = 0; l < 4; ++l)
        L.d0[l] = 0.001 * (l + 1);
    ncp_form f;
    int rows[1] = {0};
    double mu[1], A[9], Ch[9];
    const int nyf = nq + nv + 5 + 8; /* planar: delta, lambda (n, t), beta; 4 stops */
    double *lo = calloc(nyf, sizeof(double)), *up = calloc(nyf, sizeof(double));
    f.lower = lo;
    f.upper = up;
    f.scratch = calloc(ncp_form_scratch(nq, nv, 1, 2), sizeof(double));
    ncp_form_setup(&f, m, data, 1, rows, mu, A, Ch, 0.01, 1e-4);
    f.tau = NULL;
    f.friction_qp = 1;
    ncp_limits_attach(&f, &L);
    const int n = f.ny;
    assert_int_equal(n, nyf);
    /* q at (or beyond) the stops' values do not matter: the rows are smooth in y */
    double x0[4 + 2] = {-1.15, 0.2, -0.5, 0.3, 0.001, 0.002};
    double *y = calloc(n, sizeof(double)), *J = calloc((size_t)n * n, sizeof(double));
    double *Jd = calloc((size_t)n * n, sizeof(double));
    double *work = calloc(5 * (size_t)n, sizeof(double));
    const double yv[] = {-1.21, 0.25, -0.8, 0.6, 0.002, 0.001, 30, -2, 0, /* beta */
                         0.004, 0.003, 0.002, 0.001, 3, 2, 1, 0.5};
    memcpy(y, yv, sizeof yv);
    assert_int_equal((int)(sizeof yv / sizeof yv[0]), n);
    for (f.scale_normal = 0; f.scale_normal <= 1; f.scale_normal++) {
        assert_int_equal(ncp_form_J(&f, x0, y, J, NULL), 0);
        memset(Jd, 0, (size_t)n * n * sizeof(double));
        ncp_sink sk = {NCP_SINK_DENSE, Jd, n, NULL, NULL, NULL, 0, NULL, NULL, 0};
        assert_int_equal(ncp_form_jac_fd(&f, x0, y, &sk, work), 0);
        double worst = 0, big = 0;
        for (int i = 0; i < n * n; ++i) {
            worst = fmax(worst, fabs(J[i] - Jd[i]));
            big = fmax(big, fabs(J[i]));
        }
        print_message("implicit Newton matrix with 4 limit rows (scale_normal %d): analytic - "
                      "central differences %.1e, largest entry %.1e\n",
                      f.scale_normal, worst, big);
        assert_true(worst <= 1e-7 * big);
    }
    free(lo), free(up), free(f.scratch), free(y), free(J), free(Jd), free(work);
    ncp_limits_free(&L, NULL);
    lim_rows_free(&lr, NULL);
    cdyn_data_free(data);

    cdyn_stepper *s[3] = {implicit(m, 0.005, 0, CDYN_BACKEND_FB_DENSE),
                          implicit(m, 0.005, 1, CDYN_BACKEND_FB_DENSE),
                          implicit(m, 0.005, 0, CDYN_BACKEND_FB_SPARSE)};
    cdyn_state *x[3];
    for (int k = 0; k < 3; ++k)
        assert_int_equal(cdyn_state_create(m, NULL, &x[k], NULL), CDYN_OK);
    double dfd = 0, dsp = 0;
    int pressed = 0, touched = 0;
    for (int k = 0; k < 400; ++k) {
        cdyn_state_copy(x[1], x[0], NULL);
        cdyn_state_copy(x[2], x[0], NULL);
        for (int c = 0; c < 3; ++c)
            step_ok(s[c], x[c], k);
        for (int j = 0; j < nq; ++j) {
            dfd = fmax(dfd, fabs(x[1]->q[j] - x[0]->q[j]));
            dsp = fmax(dsp, fabs(x[2]->q[j] - x[0]->q[j]));
        }
        for (int l = 0; l < 4; ++l) {
            dfd = fmax(dfd, fabs(x[1]->limit_delta[l] - x[0]->limit_delta[l]));
            dsp = fmax(dsp, fabs(x[2]->limit_delta[l] - x[0]->limit_delta[l]));
            pressed += x[0]->limit_mode[l] != CDYN_LIMIT_FREE;
        }
        touched += x[0]->mode[0] != CDYN_MODE_FREE;
    }
    print_message("arm, 400 implicit steps (%d stop-steps pressed, %d floor steps): fd_jacobian - "
                  "analytic %.1e, sparse - dense %.1e\n",
                  pressed, touched, dfd, dsp);
    assert_true(pressed > 0 && touched > 0);
    assert_true(dfd <= 1e-9 && dsp <= 1e-9);
    for (int k = 0; k < 3; ++k) {
        cdyn_state_free(x[k]);
        cdyn_stepper_free(s[k]);
    }
    cdyn_model_free(m);
}

/* ---- Baumgarte-stabilized stops (docs/theory.md, "Time stepping" Sec. 6 and 10) ---- */

static cdyn_stepper *baumgarte(const cdyn_model *m, double h)
{
    return stepper(m, h, CDYN_SCHEME_BAUMGARTE);
}

/* The slider dropped onto lower = -0.3 (default limit_solref: alpha0 = 1/tau^2, alpha1 = 2/tau,
 * tau = 0.02 s, critically damped): free fall exact (RK4 is exact for a constant acceleration)
 * until the event, located at t* = sqrt(2 |lower| / g) inside the step that contains it (the
 * first with mode AT_LOWER); from there the gap follows h(t) = -u (t - t*) e^{-(t - t*)/tau}
 * with u = g t* (the stop's force m (h'' + g) stays positive: h'' >= -u e^{-3} / tau = -6.0 m/s^2
 * > -g), the deepest point u tau / e, sampled at step ends within 1/2 h''(tau) (h/2)^2 of it;
 * the error against that closed form falls at least 12-fold from h to h/2 (RK4: 16); at rest
 * at the limit with lambda = m g. */
static double bmg_slider(double h, int *landed, double *deepest, double *lam, double *qend)
{
    const double lower = -0.3, mass = 2, tau = CDYN_SOLREF_TIMECONST;
    const double tstar = sqrt(2 * fabs(lower) / G), u = G * tstar;
    cdyn_model *m = vertical_slider(mass, lower);
    cdyn_stepper *s = baumgarte(m, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    double err = 0;
    *landed = -1;
    *deepest = 0;
    const int n = (int)lround(2.0 / h);
    for (int k = 0; k < n; ++k) {
        step_ok(s, x, k);
        const double t = (k + 1) * h;
        if (*landed < 0 && x->limit_mode[0] == CDYN_LIMIT_AT_LOWER)
            *landed = k;
        const double qc = t < tstar ? -0.5 * G * t * t
                                    : lower - u * (t - tstar) * exp(-(t - tstar) / tau);
        err = fmax(err, fabs(x->q[0] - qc));
        *deepest = fmax(*deepest, lower - x->q[0]);
    }
    *lam = x->limit_lambda[0];
    *qend = x->q[0];
    assert_int_equal(x->limit_mode[0], CDYN_LIMIT_AT_LOWER);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    return err;
}

static void test_baumgarte_slider(void **state)
{
    (void)state;
    const double h = 0.002, mass = 2, tau = CDYN_SOLREF_TIMECONST;
    const double tstar = sqrt(2 * 0.3 / G), u = G * tstar, dmax = u * tau / exp(1.0);
    const double sag = 0.5 * (u * exp(-1.0) / tau) * (h / 2) * (h / 2);
    int landed, landed2;
    double deepest, lam, qend, d2, l2, q2;
    const double err = bmg_slider(h, &landed, &deepest, &lam, &qend);
    const double err2 = bmg_slider(h / 2, &landed2, &d2, &l2, &q2);
    print_message("baumgarte slider: lands in step %d ((k, k+1] h = (%.3f, %.3f] s, t* = %.4f s); "
                  "closed form within %.2e (h) and %.2e (h/2, ratio %.1f); deepest %.6f m "
                  "(u tau / e = %.6f, sampling %.1e); rest q - lower = %.1e, lambda / m g - 1 = "
                  "%.1e\n",
                  landed, landed * h, (landed + 1) * h, tstar, err, err2, err / err2, deepest,
                  dmax, sag, qend + 0.3, lam / (mass * G) - 1);
    assert_true(landed * h < tstar && tstar <= (landed + 1) * h);
    assert_true(err / err2 >= 12);
    assert_true(fabs(deepest - dmax) <= sag + err);
    assert_true(fabs(qend + 0.3) <= 1e-12 && fabs(lam / (mass * G) - 1) <= 1e-12);
}

/* The pendulum from 1.2 rad against its lower stop -1, 10^4 RK4 steps of 10 ms (RK4 keeps its
 * energy between strikes; it strikes the stop until the stop's damping has taken enough): in
 * contact the gap obeys h'' + alpha1 h' + alpha0 h
 * = 0 (one dof: the stop's torque enforces it whatever gravity does), critically damped, so a
 * strike at speed u goes u tau / e deep; u <= sqrt(2 E / I) with E = m g l (cos 1 - cos 1.2)
 * the kinetic energy of the first strike, as long as the swings do not gain energy, which is
 * checked (the energy at every step outside the stop at most E0 + 1e-6 J, RK4's drift over the
 * run at h ω = 0.04). Resting on the upper end of [-1, -0.3] from -0.5: AT_UPPER, q = -0.3 and
 * lambda = m g l sin 0.3. */
static void test_baumgarte_swings(void **state)
{
    (void)state;
    const double mgl = 1.0 * G * 0.5, I = 0.26, tau = CDYN_SOLREF_TIMECONST;
    cdyn_body_desc d = revolute(-1.0, 1.3);
    cdyn_model *m = build(2, 1, &d);
    cdyn_stepper *s = baumgarte(m, 0.01);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = 1.2;
    const double E0 = -mgl * cos(1.2);
    double viol = 0, gain = -INFINITY;
    int strikes = 0, was = CDYN_LIMIT_FREE;
    for (int k = 0; k < 10000; ++k) {
        step_ok(s, x, k);
        viol = fmax(viol, -1.0 - x->q[0]);
        strikes += was == CDYN_LIMIT_FREE && x->limit_mode[0] == CDYN_LIMIT_AT_LOWER;
        was = x->limit_mode[0];
        if (x->q[0] > -1.0 && was == CDYN_LIMIT_FREE)
            gain = fmax(gain, 0.5 * I * x->v[0] * x->v[0] - mgl * cos(x->q[0]) - E0);
        assert_int_equal(x->limit_mode[1], CDYN_LIMIT_FREE);
    }
    const double u = sqrt(2 * mgl * (cos(1.0) - cos(1.2)) / I), bound = u * tau / exp(1.0);
    print_message("baumgarte pendulum, 1e4 steps: %d strikes, deepest %.4e rad (u tau / e = %.4e), "
                  "largest energy gain %.1e J\n",
                  strikes, viol, bound, gain);
    assert_true(strikes > 1); /* repeated strikes (10: each damped strike takes energy) */
    assert_true(gain <= 1e-6);
    assert_true(viol > 0 && viol <= bound);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);

    d = revolute(-1.0, -0.3);
    m = build(2, 1, &d);
    s = baumgarte(m, 0.01);
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = -0.5;
    for (int k = 0; k < 1000; ++k)
        step_ok(s, x, k);
    print_message("baumgarte pendulum on its upper stop: q + 0.3 = %.1e, lambda / (m g l sin 0.3) "
                  "- 1 = %.1e\n",
                  x->q[0] + 0.3, x->limit_lambda[1] / (mgl * sin(0.3)) - 1);
    assert_int_equal(x->limit_mode[0], CDYN_LIMIT_FREE);
    assert_int_equal(x->limit_mode[1], CDYN_LIMIT_AT_UPPER);
    assert_true(fabs(x->q[0] + 0.3) <= 1e-12);
    assert_true(fabs(x->limit_lambda[1] / (mgl * sin(0.3)) - 1) <= 1e-12);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* Stops and a contact in one W: the arm (both joints limited) whose tip disk lands on the floor,
 * 10^4 Baumgarte steps of 2 ms without a failed step, so every stop and the floor within
 * options.max_penetration (0.1; check_depth fails a deeper step). Every row in CONTACT obeys its
 * own stabilized gap equation, so a strike from outside at joint speed u goes u tau / e deep:
 * printed with the largest step-end speed as an estimate (strikes inside a step may be faster,
 * and re-entries from inside start deeper: test_driven_swings bounds those for one dof). */
static void test_baumgarte_arm(void **state)
{
    (void)state;
    cdyn_model *m = arm_on_floor(0);
    cdyn_stepper *s = baumgarte(m, 0.002);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const double lo[2] = {-1.2, -1.0}, hi[2] = {0.3, 1.5};
    double viol = 0, vmax = 0;
    int pressed = 0, touched = 0;
    for (int k = 0; k < 10000; ++k) {
        step_ok(s, x, k);
        for (int j = 0; j < 2; ++j) {
            viol = fmax(viol, fmax(lo[j] - x->q[j], x->q[j] - hi[j]));
            vmax = fmax(vmax, fabs(x->v[j]));
        }
        for (int l = 0; l < 4; ++l)
            pressed += x->limit_mode[l] != CDYN_LIMIT_FREE;
        touched += x->mode[0] == CDYN_MODE_CONTACT;
    }
    const double estimate = vmax * CDYN_SOLREF_TIMECONST / exp(1.0);
    print_message("baumgarte arm, 1e4 steps: %d stop-steps, %d floor steps; deepest stop %.3e "
                  "(max |v_j| tau / e = %.3e)\n",
                  pressed, touched, viol, estimate);
    assert_true(pressed > 0 && touched > 0);
    assert_true(viol <= cdyn_stepper_options(s)->max_penetration);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* A pendulum (I = 0.26 kg m^2 about the pivot, m g l = 4.905 N m) released at theta0 = 0.02 rad
 * reaches its lower limit -0.01 when its free swing does, linearized (sin theta = theta to a
 * relative theta0^2 / 6: the crossing time to a relative theta0^2 = 4e-4, the margin used):
 *  - implicit (backward Euler, w = sqrt(m g l / I)): theta_n = theta0 rho^-n cos(n phi) with
 *    rho = sqrt(1 + (w h)^2), phi = atan(w h); the first step with a force is the first whose
 *    free theta_n < -0.01 (the linear swing crosses farther than theta0^3, which bounds the
 *    nonlinear swing's distance from it, from both step ends);
 *  - Baumgarte (RK4, event located inside the step): theta(t) = theta0 cos(w t), t* = acos(-1/2)
 *    / w; the first step with the row in CONTACT is the one containing t*. */
static void test_limit_reached_pendulum(void **state)
{
    (void)state;
    const double I = 0.26, w = sqrt(G * 0.5 / I), th0 = 0.02, lower = -0.01, h = 0.001;
    cdyn_body_desc d = revolute(lower, 1.0);
    cdyn_model *m = build(2, 1, &d);
    const double rho = sqrt(1 + w * w * h * h), phi = atan(w * h);
    int npred = 0;
    while (th0 * pow(rho, -npred) * cos(npred * phi) >= lower)
        npred++;
    const double tstar = acos(lower / th0) / w, margin = th0 * th0 * tstar;
    for (int sc = 0; sc < 2; ++sc) {
        cdyn_stepper *s = sc == 0 ? implicit(m, h, 0, CDYN_BACKEND_AUTO) : baumgarte(m, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = th0;
        int hit = 0; /* steps taken when the stop first acts */
        while (x->limit_mode[0] == CDYN_LIMIT_FREE && hit < 2000)
            step_ok(s, x, hit++);
        if (sc == 0) {
            /* the free swing's crossing is not within the linearization's margin of a step end */
            const double before = th0 * pow(rho, 1 - npred) * cos((npred - 1) * phi) - lower;
            const double after = lower - th0 * pow(rho, -npred) * cos(npred * phi);
            print_message("implicit pendulum reaches -0.01 in step %d, closed form step %d (%.4f "
                          "s; the linear swing %.1e above and %.1e below the limit at its ends, "
                          "theta0^3 = %.1e)\n", hit, npred, npred * h, before, after,
                          th0 * th0 * th0);
            assert_true(before > th0 * th0 * th0 && after > th0 * th0 * th0);
            assert_int_equal(hit, npred);
        } else {
            print_message("baumgarte pendulum reaches -0.01 in the step ending at %.4f s, t* = "
                          "%.6f s (margin %.1e s)\n", hit * h, tstar, margin);
            assert_true((hit - 1) * h < tstar + margin && tstar - margin <= hit * h);
        }
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* A locked joint (lower = upper = 0.4) started 0.05 rad beyond it, 500 steps of 10 ms: the
 * implicit scheme's lower stop carries the pendulum at the root of K (0.4 - q) = m g l sin q
 * (the upper one free: gravity pulls q below 0.4), lambda = m g l sin q; Baumgarte's rows (W
 * singular with both in CONTACT: the minimum-norm solution) bring it to q = 0.4 with lambda =
 * m g l sin 0.4 on the lower row. (Baumgarte fails a start deeper than max_penetration.) */
static void test_locked_joint(void **state)
{
    (void)state;
    const double mgl = G * 0.5, I = 0.26, tau = CDYN_SOLREF_TIMECONST, K = I / (tau * tau);
    cdyn_body_desc d = revolute(0.4, 0.4);
    cdyn_model *m = build(2, 1, &d);
    double qs = 0.4;
    for (int it = 0; it < 50; ++it)
        qs -= (K * (0.4 - qs) - mgl * sin(qs)) / (-K - mgl * cos(qs));
    for (int sc = 0; sc < 2; ++sc) {
        cdyn_stepper *s = sc == 0 ? implicit(m, 0.01, 0, CDYN_BACKEND_AUTO) : baumgarte(m, 0.01);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = 0.45;
        for (int k = 0; k < 500; ++k)
            step_ok(s, x, k);
        const double qw = sc == 0 ? qs : 0.4;
        print_message("locked joint, %s: q - q_rest = %.1e, lambda = (%.6f, %.6f), m g l sin q = "
                      "%.6f\n",
                      sc == 0 ? "implicit" : "baumgarte", x->q[0] - qw, x->limit_lambda[0],
                      x->limit_lambda[1], mgl * sin(qw));
        assert_true(fabs(x->q[0] - qw) <= 1e-10);
        assert_int_equal(x->limit_mode[0], CDYN_LIMIT_AT_LOWER);
        assert_int_equal(x->limit_mode[1], CDYN_LIMIT_FREE);
        assert_true(fabs(x->limit_lambda[0] - mgl * sin(qw)) <= (sc == 0 ? LAMBDA_TOL(0.01)
                                                                          : 1e-12));
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* Driven between its stops: the pendulum with limits [-0.5, 0.5] and a torque A sin(pi t) (A =
 * 6 N m > m g l sin 0.5 = 2.35 N m: it is pushed onto each stop every 2 s), 10^4 steps (implicit
 * 10 ms, 50 periods; Baumgarte 2 ms, 10 periods, where RK4's error in contact is 1e-7 of the
 * depth: test_baumgarte_slider). A strike comes at most at u = the largest step-end speed plus
 * h (A + m g l) / I (the most the free swing gains inside the step of the strike). Implicit: a
 * strike of kinetic energy E <= I u^2 / 2 under a load of at most m g l + A goes no deeper than
 * the energy bound (stop_depth_bound), for strikes from outside the stop (all of them: checked);
 * Baumgarte: the stabilized gap of one dof, entering CONTACT at (h0 <= 0, h0' = -u0), follows
 * h(t) = (h0 + (h0' + h0/tau) t) e^{-t/tau} >= h0 - u0 tau / e, so a strike goes at most
 * u tau / e deeper than where it began (h0 = 0 from outside; a row that left its stop while
 * still inside, BALLISTIC, strikes again at its shallowest point inside, no deeper than the last
 * step end before it). */
static void test_driven_swings(void **state)
{
    (void)state;
    const double mgl = G * 0.5, I = 0.26, tau = CDYN_SOLREF_TIMECONST, K = I / (tau * tau);
    const double A = 6;
    cdyn_body_desc d = revolute(-0.5, 0.5);
    cdyn_model *m = build(2, 1, &d);
    for (int sc = 0; sc < 2; ++sc) {
        const double h = sc == 0 ? 0.01 : 0.002;
        cdyn_stepper *s = sc == 0 ? implicit(m, h, 0, CDYN_BACKEND_AUTO) : baumgarte(m, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        double viol = 0, vmax = 0, gap[2] = {0.5, 0.5}, carry[2] = {0, 0}, excess = 0;
        int strikes[2] = {0, 0}, was[2] = {CDYN_LIMIT_FREE, CDYN_LIMIT_FREE}, reentries = 0;
        for (int k = 0; k < 10000; ++k) {
            const double tau_j = A * sin(acos(-1.0) * k * h);
            cdyn_step_report sr;
            if (cdyn_step(s, &tau_j, x, &sr) != CDYN_OK)
                fail_msg("step %d: %s", k, sr.solver.message);
            viol = fmax(viol, fmax(-0.5 - x->q[0], x->q[0] - 0.5));
            vmax = fmax(vmax, fabs(x->v[0]));
            for (int l = 0; l < 2; ++l) {
                const int strike = was[l] == CDYN_LIMIT_FREE && x->limit_mode[l] != CDYN_LIMIT_FREE;
                strikes[l] += strike;
                reentries += strike && gap[l] < 0; /* left the stop and struck again from inside */
                if (strike)
                    carry[l] = fmax(0.0, -gap[l]);
                was[l] = x->limit_mode[l];
                gap[l] = l == 0 ? x->q[0] + 0.5 : 0.5 - x->q[0];
                if (was[l] != CDYN_LIMIT_FREE)
                    excess = fmax(excess, -gap[l] - carry[l]);
            }
        }
        const double u = vmax + h * (A + mgl) / I;
        const double bound = sc == 0 ? stop_depth_bound(K, mgl + A, 0.5 * I * u * u)
                                     : u * tau / exp(1.0);
        const double measured = sc == 0 ? viol : excess; /* Baumgarte: below the strike's start */
        print_message("driven pendulum, %s, 1e4 steps: %d strikes on the lower stop, %d on the "
                      "upper (%d from inside), deepest %.4e rad, %s %.4e (bound %.4e with u = "
                      "%.3f rad/s)\n",
                      sc == 0 ? "implicit" : "baumgarte", strikes[0], strikes[1], reentries, viol,
                      sc == 0 ? "the same" : "below a strike's start", measured, bound, u);
        assert_true(strikes[0] >= 10 && strikes[1] >= 10); /* one or more each per period */
        if (sc == 0)
            assert_int_equal(reentries, 0);
        assert_true(measured <= bound);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* The limit rows' state, recorder columns, refusals and memory:
 *  - cdyn_model_limit_rows / _row (one row per finite end, lower before upper), mode names;
 *  - bad limit_solref refused by the builder; a state with a bad limit_mode or other limit rows
 *    refused by cdyn_step and cdyn_state_copy;
 *  - the recorder's limit columns (models without limits keep theirs: test_step.c);
 *  - a Baumgarte step whose stop is passed deeper than max_penetration fails with the state
 *    bit-identical;
 *  - implicit (dense, sparse) and Baumgarte steps with limits allocate nothing after warm-up,
 *    and every failed allocation at creation is a clean CDYN_ENOMEM. */
static void test_limit_state(void **state)
{
    (void)state;
    cdyn_body_desc c[2] = {revolute(-INFINITY, 0.8), revolute(-0.5, 0.5)};
    c[1].frame = cdyn_pose_planar(0, -1.0, 0);
    cdyn_model *m = build(2, 2, c);
    assert_int_equal(cdyn_model_limit_rows(m), 3);
    int body = -1, upper = -1;
    const int want[3][2] = {{0, 1}, {1, 0}, {1, 1}};
    for (int r = 0; r < 3; ++r) {
        assert_int_equal(cdyn_model_limit_row(m, r, &body, &upper), CDYN_OK);
        assert_true(body == want[r][0] && upper == want[r][1]);
    }
    assert_int_equal(cdyn_model_limit_row(m, 3, &body, &upper), CDYN_EINVAL);
    assert_int_equal(cdyn_model_limit_row(m, -1, NULL, NULL), CDYN_EINVAL);
    assert_string_equal(cdyn_limit_mode_str(CDYN_LIMIT_AT_UPPER), "upper");
    assert_string_equal(cdyn_limit_mode_str((cdyn_limit_mode)7), "unknown limit mode");
    cdyn_body_info bi;
    cdyn_model_body_info(m, 0, &bi);
    assert_true(bi.limit_solref[0] == CDYN_SOLREF_TIMECONST &&
                bi.limit_solref[1] == CDYN_SOLREF_DAMPRATIO);

    cdyn_body_desc e = revolute(-1, 1);
    e.inertia[0] = e.inertia[1] = 0.01; /* expect_refused builds a spatial model */
    const double bad[4][2] = {{-0.01, 1}, {0.01, 0}, {NAN, 1}, {0.01, INFINITY}};
    for (int k = 0; k < 4; ++k) {
        e.limit_solref[0] = bad[k][0];
        e.limit_solref[1] = bad[k][1];
        expect_refused(&e, "limit_solref");
    }
    e.limited = 0;
    e.limit_solref[0] = 0.01;
    e.limit_solref[1] = 1;
    expect_refused(&e, "without limits");

    cdyn_state *x = NULL, *y = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    assert_int_equal(x->nl, 3);
    cdyn_model *m1 = build(2, 1, c);
    assert_int_equal(cdyn_state_create(m1, NULL, &y, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_copy(y, x, NULL), CDYN_EINVAL);
    cdyn_stepper *s = stepper(m, 0.01, CDYN_SCHEME_PYRAMID_LCP);
    x->limit_mode[2] = 3;
    cdyn_step_report sr;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_EINVAL);
    assert_non_null(strstr(sr.solver.message, "limit_mode[2]"));
    x->limit_mode[2] = CDYN_LIMIT_FREE;
    x->limit_lambda[0] = NAN;
    assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_EINVAL);
    x->limit_lambda[0] = 0;
    assert_int_equal(cdyn_step(s, NULL, y, &sr), CDYN_EINVAL); /* another model's state */
    cdyn_stepper_free(s);

    const char *path = CDYN_TEST_OUT_DIR "/test_joint_limits.csv";
    cdyn_recorder *rec = NULL;
    assert_int_equal(cdyn_recorder_open(m, path, &rec, NULL), CDYN_OK);
    x->limit_lambda[1] = 0.25;
    x->limit_mode[1] = CDYN_LIMIT_AT_LOWER;
    assert_int_equal(cdyn_recorder_write(rec, x, NULL), CDYN_OK);
    assert_int_equal(cdyn_recorder_write(rec, y, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_recorder_close(rec, NULL), CDYN_OK);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "t,q0,q1,v0,v1,limit_delta0,limit_delta1,limit_delta2,"
                              "limit_lambda0,limit_lambda1,limit_lambda2,limit_mode0,"
                              "limit_mode1,limit_mode2\n");
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "0,0,0,0,0,0,0,0,0,0.25,0,0,1,0\n");
    fclose(f);
    remove(path);
    cdyn_state_free(y);
    cdyn_model_free(m1);

    /* Baumgarte's max_penetration covers the stops (rad here) */
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_BAUMGARTE);
    o.max_penetration = 1e-3;
    cdyn_report rep;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
    x->q[0] = 0.7;
    x->v[0] = 5;
    cdyn_state *keep = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &keep, NULL), CDYN_OK);
    cdyn_state_copy(keep, x, NULL);
    cdyn_status st = CDYN_OK;
    for (int k = 0; k < 10 && st == CDYN_OK; ++k) {
        cdyn_state_copy(keep, x, NULL);
        st = cdyn_step(s, NULL, x, &sr);
    }
    assert_int_equal(st, CDYN_EPENETRATION);
    assert_non_null(strstr(sr.solver.message, "upper limit of body 0"));
    assert_memory_equal(x->q, keep->q, 2 * sizeof(double));
    assert_memory_equal(x->limit_lambda, keep->limit_lambda, 3 * sizeof(double));
    assert_memory_equal(x->limit_mode, keep->limit_mode, 3 * sizeof(int));
    cdyn_stepper_free(s);
    cdyn_state_free(keep);

    /* memory: nothing after warm-up; clean failures at creation */
    const cdyn_scheme sch[3] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_IMPLICIT_NCP,
                                CDYN_SCHEME_BAUMGARTE};
    for (int k = 0; k < 3; ++k) {
        cdyn_step_defaults(&o, sch[k]);
        o.backend = k == 1 ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_AUTO;
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, -1);
        o.allocator = &fa.allocator;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_OK);
        const int at_create = fa.allocations;
        x->q[0] = 0.7;
        x->q[1] = 0.4;
        x->v[0] = 3;
        x->v[1] = -2;
        for (int i = 0; i < 3; i++)
            step_ok(s, x, i);
        const int warm = fa.allocations;
        int pressed = 0;
        for (int i = 0; i < 100; i++) {
            step_ok(s, x, i);
            pressed += x->limit_mode[0] != CDYN_LIMIT_FREE || x->limit_mode[1] != CDYN_LIMIT_FREE ||
                       x->limit_mode[2] != CDYN_LIMIT_FREE;
        }
        print_message("%s (%s) with limits: %d allocations at creation, %d in warm-up, %d after "
                      "(%d of 100 steps at a stop)\n",
                      cdyn_scheme_str(sch[k]),
                      cdyn_step_backend_str(cdyn_stepper_options(s)->backend),
                      at_create, warm - at_create, fa.allocations - warm, pressed);
        assert_int_equal(fa.allocations, warm);
        assert_true(pressed > 0);
        cdyn_stepper_free(s);
        assert_int_equal(fa.live, 0);
        for (int f2 = 0; f2 < at_create; f2++) {
            test_failing_alloc_init(&fa, f2);
            s = (cdyn_stepper *)&s;
            assert_int_equal(cdyn_stepper_create(m, &o, &s, &rep), CDYN_ENOMEM);
            assert_null(s);
            assert_int_equal(fa.live, 0);
        }
    }
    cdyn_state_free(x);
    cdyn_model_free(m);
}

static void test_refused(void **state)
{
    (void)state;
    cdyn_body_desc d = revolute(-1, 1);
    cdyn_model *m = build(2, 1, &d);
    /* the implicit step's per-step derivatives take limits (tests/test_limit_derivs.c): the
     * stops' deformations are state, nx = 2 n_v + 3 n_c + n_l, and the size without them is
     * refused */
    cdyn_stepper *si = implicit(m, 0.01, 0, CDYN_BACKEND_AUTO);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    step_ok(si, x, 0);
    double A[16];
    cdyn_step_deriv_report dr;
    assert_int_equal(cdyn_step_deriv_nx(si), 4);
    assert_int_equal(cdyn_step_derivatives(si, CDYN_DERIV_RELEASED, 2, 1, A, NULL, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(si, CDYN_DERIV_RELEASED, 4, 1, A, NULL, &dr),
                     CDYN_OK);
    cdyn_state_free(x);
    cdyn_stepper_free(si);
    /* nor do the BVP (which builds the implicit step itself) and the instantaneous problem */
    cdyn_bvp_options bo;
    cdyn_bvp_defaults(&bo);
    bo.N = 2;
    bo.use_guess = 1;
    cdyn_bvp_conditions bc;
    memset(&bc, 0, sizeof bc);
    cdyn_bvp_report br;
    assert_int_equal(cdyn_bvp_solve(m, &bo, &bc, NULL, &br), CDYN_ENOTSUP);
    assert_non_null(strstr(br.solver.message, "body 0 has joint limits"));
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 1;
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, &dopt, &data, NULL), CDYN_OK);
    const double q = 0, v = 0, tau = 0;
    cdyn_instant_result res;
    memset(&res, 0, sizeof res);
    cdyn_report r;
    assert_int_equal(cdyn_instant_solve(m, data, &q, &v, &tau, NULL, &res, &r), CDYN_ENOTSUP);
    assert_non_null(strstr(r.message, "body 0 has joint limits"));
    cdyn_data_free(data);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder),      cmocka_unit_test(test_slider_lands),
        cmocka_unit_test(test_put_back),     cmocka_unit_test(test_long_swings),
        cmocka_unit_test(test_rest_on_limit), cmocka_unit_test(test_arm_on_floor),
        cmocka_unit_test(test_limit_restitution), cmocka_unit_test(test_refused),
        cmocka_unit_test(test_implicit_slider), cmocka_unit_test(test_implicit_swings),
        cmocka_unit_test(test_implicit_jacobian), cmocka_unit_test(test_baumgarte_slider),
        cmocka_unit_test(test_baumgarte_swings), cmocka_unit_test(test_baumgarte_arm),
        cmocka_unit_test(test_limit_reached_pendulum), cmocka_unit_test(test_locked_joint),
        cmocka_unit_test(test_driven_swings),
        cmocka_unit_test(test_limit_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
