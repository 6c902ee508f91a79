/* Contact defaults (cdyn_contact_pair_desc_defaults, solref; docs/api.md "Contact defaults"):
 * a sphere dropped onto the plane with a pair built from its defaults is held up by every scheme
 * (on 8165326 the implicit scheme let it fall through the floor with K = C = 0 and the Baumgarte
 * scheme with gains 0, every step OK); the values the model resolves; explicit values kept. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "step_scenes.h"

static int verbose(void)
{
    return getenv("CDYN_TEST_VERBOSE") != NULL;
}

/* Dropped from 0.5 m (impact at v = sqrt(2 g 0.5) = 3.13 m/s), 2 s of h = 0.01 with the scheme's
 * defaults and the pair's. Bounds on the deepest gap, from the contact law:
 *   rigid schemes (pyramid, cone, Coulomb): the gap term keeps the gap >= 0 at step ends (the
 *     plane-sphere gap is linear in q): -1e-9 m;
 *   implicit compliant, K = m / tau^2, C = 2 m / tau (tau = 0.02, zeta = 1): the energy at the
 *     deepest point, 1/2 K d^2 <= 1/2 m v^2 + m g d (damping and backward Euler only take
 *     energy away), gives d <= g tau^2 + sqrt(g^2 tau^4 + v^2 tau^2) = 0.067 m; at rest the
 *     static sinking g tau^2 = 3.92 mm (K d = m g);
 *   Baumgarte, alpha = (1 / tau^2, 2 / tau, 0): in CONTACT the gap obeys h'' + 2 h' / tau +
 *     h / tau^2 = 0 from h = 0, h' = -v, whose deepest point is v tau / e <= v tau = 0.063 m;
 *     at rest h = 0 and lambda = m g. */
static void drop(cdyn_scheme scheme)
{
    const double r = 0.05, mass = 0.2, g = G_ACC, tau = 0.02; /* the default solref */
    const double v = sqrt(2 * g * 0.5);
    cdyn_model *m = scene_sphere(r, mass, 0.3);
    cdyn_stepper *s = scene_stepper(m, scheme, 0.01);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = r + 0.5;
    double deepest = INFINITY;
    for (int k = 0; k < 200; k++) {
        cdyn_step_report rep;
        const cdyn_status st = cdyn_step(s, NULL, x, &rep);
        if (st != CDYN_OK)
            fail_msg("%s, t = %g: %s", cdyn_scheme_str(scheme), x->t, rep.solver.message);
        deepest = fmin(deepest, x->q[2] - r);
    }
    const double gap = x->q[2] - r;
    if (verbose())
        print_message("%s: deepest %.3e m, final gap %.6e m, lambda_n %.9f (m g %.9f)\n",
                      cdyn_scheme_str(scheme), deepest, gap, x->lambda[0], mass * g);
    switch (scheme) {
    case CDYN_SCHEME_IMPLICIT_NCP:
        assert_true(deepest >= -(g * tau * tau + sqrt(pow(g * tau * tau, 2) + v * v * tau * tau)));
        assert_true(fabs(gap + g * tau * tau) < 1e-9);
        break;
    case CDYN_SCHEME_BAUMGARTE:
        assert_true(deepest >= -v * tau);
        assert_true(fabs(gap) < 1e-9);
        break;
    default:
        assert_true(deepest >= -1e-9);
        assert_true(fabs(gap) < 1e-9);
        break;
    }
    assert_true(fabs(x->v[2]) < 1e-6);
    assert_true(fabs(x->lambda[0] - mass * g) < 1e-6 * mass * g);
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

static void test_every_scheme_holds_a_dropped_sphere(void **unused)
{
    (void)unused;
    const cdyn_scheme schemes[5] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP,
                                    CDYN_SCHEME_CONE_STEP, CDYN_SCHEME_COULOMB_STEP,
                                    CDYN_SCHEME_BAUMGARTE};
    for (int k = 0; k < 5; k++)
        drop(schemes[k]);
}

/* Two free spheres (masses m1, m2) in 3D, or in 2D a wheel (circle of radius 0.1) on a fixed
 * axle (REVOLUTE at its centre) resting on the ground line, with pair desc pd (geoms filled
 * in). Returns the build status; *out the model. */
static cdyn_status build_pair(int wheel, double m1, double m2, cdyn_contact_pair_desc pd,
                              cdyn_model **out, cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, wheel ? 2 : 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    const double masses[2] = {m1, m2};
    int geom[2];
    for (int i = 0; i < (wheel ? 1 : 2); i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = masses[i];
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * masses[i] * 0.01;
        if (wheel) {
            d.joint = CDYN_JOINT_REVOLUTE;
            d.frame = cdyn_pose_planar(0.0, 0.1, 0.0);
        } else {
            d.frame.pos[0] = 0.3 * i;
        }
        int body;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
        cdyn_geom_desc gd;
        cdyn_geom_desc_defaults(&gd);
        gd.body = body;
        gd.type = wheel ? CDYN_GEOM_CIRCLE : CDYN_GEOM_SPHERE;
        gd.size[0] = 0.1;
        assert_int_equal(cdyn_builder_add_geom(b, &gd, &geom[i], NULL), CDYN_OK);
    }
    if (wheel) {
        cdyn_geom_desc gd;
        cdyn_geom_desc_defaults(&gd);
        assert_int_equal(cdyn_builder_add_geom(b, &gd, &geom[1], NULL), CDYN_OK);
    }
    pd.geom_a = geom[1];
    pd.geom_b = geom[0];
    int id;
    cdyn_status st = cdyn_builder_add_contact_pair(b, &pd, &id, rep);
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, out, rep);
    cdyn_builder_free(b);
    return st;
}

#define REL(a, b) (fabs((a) - (b)) <= 1e-12 * fabs(b))

/* The values the model resolves (cdyn_model_pair_info), against the formulas of model.h:
 * K = m_eff / (tau zeta)^2, C = 2 m_eff / tau, alpha = (1 / (tau zeta)^2, 2 / tau, 0); for a
 * sphere on the plane m_eff = m (its normal passes through the centre), for two free spheres
 * m1 m2 / (m1 + m2). Given values are kept; solref[0] = 0 keeps zeros; a bad solref and a pair
 * whose rows cannot move (a wheel on a fixed axle: its contact point moves along the ground)
 * are refused, the latter naming the pair. */
static void test_resolved_values(void **unused)
{
    (void)unused;
    cdyn_model *m = scene_sphere(0.05, 0.2, 0.3);
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    assert_true(pi.solref[0] == CDYN_SOLREF_TIMECONST && pi.solref[1] == CDYN_SOLREF_DAMPRATIO);
    assert_int_equal(pi.defaults, CDYN_PAIR_DEFAULT_COMPLIANCE | CDYN_PAIR_DEFAULT_BAUMGARTE);
    for (int i = 0; i < 9; i++) {
        assert_true(REL(pi.stiffness[i], i % 4 == 0 ? 0.2 / (0.02 * 0.02) : 0.0));
        assert_true(REL(pi.damping[i], i % 4 == 0 ? 2 * 0.2 / 0.02 : 0.0));
    }
    assert_true(REL(pi.baumgarte[0], 2500.0) && REL(pi.baumgarte[1], 100.0) && pi.baumgarte[2] == 0);
    cdyn_model_free(m);

    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0.05;
    pd.solref[1] = 0.5;
    cdyn_report rep;
    assert_int_equal(build_pair(0, 0.2, 0.6, pd, &m, &rep), CDYN_OK);
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    const double meff = 0.2 * 0.6 / 0.8;
    assert_true(REL(pi.stiffness[0], meff / (0.025 * 0.025)) && REL(pi.stiffness[8], pi.stiffness[0]));
    assert_true(REL(pi.damping[4], 2 * meff / 0.05));
    assert_true(REL(pi.baumgarte[0], 1 / (0.025 * 0.025)) && REL(pi.baumgarte[1], 40.0));
    cdyn_model_free(m);

    /* K given alone: K kept, C stays 0; the gains still come from solref */
    cdyn_contact_pair_desc_defaults(&pd);
    pd.stiffness[0] = 1e4;
    assert_int_equal(build_pair(0, 0.2, 0.6, pd, &m, &rep), CDYN_OK);
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    assert_int_equal(pi.defaults, CDYN_PAIR_DEFAULT_BAUMGARTE);
    assert_true(pi.stiffness[0] == 1e4 && pi.stiffness[4] == 0 && pi.damping[0] == 0);
    cdyn_model_free(m);

    /* no defaults */
    cdyn_contact_pair_desc_defaults(&pd);
    pd.solref[0] = 0;
    assert_int_equal(build_pair(0, 0.2, 0.6, pd, &m, &rep), CDYN_OK);
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    assert_int_equal(pi.defaults, 0);
    assert_true(pi.stiffness[0] == 0 && pi.damping[0] == 0 && pi.baumgarte[0] == 0);
    cdyn_model_free(m);

    const double bad[4][2] = {{-1, 1}, {NAN, 1}, {0.02, 0}, {0.02, NAN}};
    for (int k = 0; k < 4; k++) {
        cdyn_contact_pair_desc_defaults(&pd);
        pd.solref[0] = bad[k][0];
        pd.solref[1] = bad[k][1];
        m = NULL;
        assert_int_equal(build_pair(0, 0.2, 0.6, pd, &m, &rep), CDYN_EINVAL);
        assert_null(m);
        assert_non_null(strstr(rep.message, "solref"));
    }

    cdyn_contact_pair_desc_defaults(&pd);
    m = NULL;
    assert_int_equal(build_pair(1, 1.0, 0, pd, &m, &rep), CDYN_EINVAL);
    assert_null(m);
    assert_non_null(strstr(rep.message, "pair 0"));
    pd.stiffness[0] = 1e4; /* given: nothing to resolve */
    assert_int_equal(build_pair(1, 1.0, 0, pd, &m, &rep), CDYN_OK);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_scheme_holds_a_dropped_sphere),
        cmocka_unit_test(test_resolved_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
