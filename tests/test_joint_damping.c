/* Viscous joint damping (issue 20 item 3): cdyn_body_desc.damping d >= 0 adds the generalized
 * force -d v_j to the joint's dof, as part of h(q, v); every scheme takes it without a stability
 * limit on h (implicitly, or in BAUMGARTE by a Strang splitting with the exact damping flow).
 * Against closed forms and differences:
 *  - the builder refuses NaN, Inf, negative values and damping or friction on FREE and FIXED
 *    joints, with a message; body_info and cdyn_model_joint_damping report what was given;
 *  - the bias of a damped model minus the undamped one's is d v exactly; d id/dv (analytic)
 *    against central differences of id in v on a damped revolute-prismatic-revolute chain;
 *  - a damped pendulum at small angle: each scheme's step is a linear map z -> Phi z of
 *    (theta, thetadot), so theta_n obeys a two-term recurrence whose coefficients are fitted from
 *    the trajectory; its root modulus |z| gives the decay rate -ln|z|/h, compared with the
 *    scheme's own discrete closed form (below) to 1e-6 relative and with the continuous
 *    sigma = d / (2 I_O) within the scheme's first-order error;
 *  - a damped prismatic slider without other forces: v_n = v0 (m / (m + h d))^n exactly in the
 *    implicit and the rigid schemes (backward Euler of m vdot = -d v), and the instantaneous
 *    problem's vdot = (tau - d v) / m;
 *  - the stiff limit d h / I_O = 385: no blow-up, energy never grows, the creeping speed
 *    -k theta / d within the scheme's I_O / (h d) (BAUMGARTE: as asked, without halvings);
 *  - BAUMGARTE's splitting: the linear pendulum against the scheme's 2x2 map (below) to 1e-10,
 *    its error against the continuous closed form of order 2 from three step sizes; a slider
 *    at h d / m = 100 and 1e4 in one step each with v+ = e^(-h d / m) v; a
 *    damped arm whose first joint rests on its stop: the damping half steps keep the stop's
 *    rate at 0 (no approach velocity into the closed stop); three prismatic joints (two damped,
 *    coupled through M) against exp(-t M^-1 D) and, stiff, the undamped dof's momentum; an arm's
 *    tip sliding on the ground keeps its gap within the undamped run's;
 *  - joint friction is refused by every scheme but the pyramid LCP (CDYN_ENOTSUP, naming the
 *    body; the pyramid's joint friction: tests/test_joint_friction.c).
 *
 * Closed forms of the linearized pendulum I thetaddot + d thetadot + k theta = 0 (I = I_O, the
 * inertia about the pivot, k = m g l):
 *   implicit NCP (backward Euler in q and v): v+ (I + h d + h^2 k) = I v - h k theta, theta+ =
 *     theta + h v+, so det Phi = I / (I + h d + h^2 k) = |z|^2 for the complex pair of roots;
 *   rigid schemes ((M + h D)(v+ - v) = -h (k theta + d v), theta+ = theta + h v+): det Phi =
 *     I / (I + h d);
 *   BAUMGARTE (balanced Strang splitting with c = -k theta_n, the undamped force at the step's
 *     start: the exact flow of I vdot = -d v + c over h/2, RK4 of I thetaddot = -k theta - c
 *     over h, the flow over h/2 again): with a = e^(-h d / (2 I)) and R = R(h A0), R(X) = 1 + X
 *     + X^2/2 + X^3/6 + X^4/24, A0 = [0 1; -k/I 0] (RK4 is affine-invariant: from (theta_n, v1)
 *     it moves theta - theta_n = 0 and v1 by R):
 *       v1 = a v - (1 - a) k theta / d,  theta+ = theta + R01 v1,
 *       v+ = a R11 v1 - (1 - a) k theta / d;
 *     det Phi = a^2 R11 + a (1 - a) R01 k / d = e^(-2 sigma h) (1 + (omega_0 h)^2 sigma h / 4 +
 *     ...), so rate = sigma - sigma (omega_0 h)^2 / 8 + O(h^3). */
#include <float.h>
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
#include "support.h"

static const double G = 9.81; /* the builder's default gravity */

/* ---- models -------------------------------------------------------------------------------- */

/* Planar pendulum: a revolute joint at the origin, the body's centre of mass l below the pivot
 * (hanging at theta = 0), mass m, Izz about the centre of mass. */
#define PM 1.0
#define PL 0.5
#define PIZZ 0.01
static double pend_inertia(void)
{
    return PIZZ + PM * PL * PL; /* I_O */
}

static cdyn_model *pendulum(double damping, double friction)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_REVOLUTE;
    d.mass = PM;
    d.com[1] = -PL;
    d.inertia[2] = PIZZ;
    d.damping = damping;
    d.friction = friction;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_body(b, &d, NULL, &r), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* Spatial revolute-prismatic-revolute chain hanging from the ground, each joint damped. */
static cdyn_model *chain(const double damping[3])
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[3];
    const cdyn_joint_type jt[3] = {CDYN_JOINT_REVOLUTE, CDYN_JOINT_PRISMATIC,
                                   CDYN_JOINT_REVOLUTE};
    for (int k = 0; k < 3; ++k) {
        cdyn_body_desc_defaults(&l[k]);
        l[k].joint = jt[k];
        l[k].axis[0] = 0.3 * k;
        l[k].axis[1] = 1.0;
        l[k].axis[2] = 0.2;
        l[k].frame.pos[0] = 0.2;
        l[k].frame.pos[2] = -0.1 * k;
        l[k].mass = 1.0 + 0.5 * k;
        l[k].com[0] = 0.1;
        l[k].com[2] = -0.05;
        l[k].inertia[0] = 0.02;
        l[k].inertia[1] = 0.03;
        l[k].inertia[2] = 0.025;
        l[k].inertia[3] = 0.001;
        l[k].damping = damping[k];
    }
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 3, l, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* ---- builder -------------------------------------------------------------------------------- */

static void expect_refused(cdyn_builder *b, const cdyn_body_desc *d, const char *word)
{
    cdyn_report r;
    int id = 12345;
    assert_int_equal(cdyn_builder_add_body(b, d, &id, &r), CDYN_EINVAL);
    assert_int_equal(id, 12345);
    if (strstr(r.message, word) == NULL)
        fail_msg("message '%s' does not name '%s'", r.message, word);
}

static void test_builder_checks(void **state)
{
    (void)state;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(NULL, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    assert_true(d.damping == 0.0 && d.friction == 0.0);
    d.joint = CDYN_JOINT_REVOLUTE;
    d.mass = 1;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.1;
    const double bad[3] = {NAN, -1e-3, INFINITY};
    for (int k = 0; k < 3; ++k) {
        cdyn_body_desc e = d;
        e.damping = bad[k];
        expect_refused(b, &e, "damping");
        e = d;
        e.friction = bad[k];
        expect_refused(b, &e, "friction");
    }
    cdyn_body_desc f = d;
    f.joint = CDYN_JOINT_FREE;
    f.damping = 0.5;
    expect_refused(b, &f, "FREE");
    f.joint = CDYN_JOINT_FIXED;
    f.damping = 0;
    f.friction = 0.5;
    expect_refused(b, &f, "FIXED");
    /* a chain is all or nothing and names the link */
    cdyn_body_desc links[2] = {d, d};
    links[1].damping = -2;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, links, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "link 1"));
    assert_non_null(strstr(r.message, "damping"));
    /* accepted values are reported */
    d.damping = 0.7;
    d.friction = 0.2;
    int id;
    assert_int_equal(cdyn_builder_add_body(b, &d, &id, NULL), CDYN_OK);
    assert_int_equal(id, 0);
    cdyn_body_desc p = d;
    p.joint = CDYN_JOINT_PRISMATIC;
    p.parent = 0;
    p.damping = 3;
    p.friction = 0;
    assert_int_equal(cdyn_builder_add_body(b, &p, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_body_info bi;
    assert_int_equal(cdyn_model_body_info(m, 0, &bi), CDYN_OK);
    assert_true(bi.damping == 0.7 && bi.friction == 0.2);
    assert_int_equal(cdyn_model_body_info(m, 1, &bi), CDYN_OK);
    assert_true(bi.damping == 3 && bi.friction == 0);
    double dd[2];
    assert_int_equal(cdyn_model_joint_damping(m, dd), 2);
    assert_true(dd[0] == 0.7 && dd[1] == 3);
    int first = 7;
    assert_int_equal(cdyn_model_joint_friction_count(m, &first), 1);
    assert_int_equal(first, 0);
    assert_int_equal(cdyn_model_joint_damping(NULL, dd), 0);
    assert_int_equal(cdyn_model_joint_friction_count(NULL, &first), 0);
    assert_int_equal(first, -1);
    cdyn_model_free(m);
    cdyn_builder_free(b);
}

/* ---- model: bias and derivatives ------------------------------------------------------------- */

static void eval_bias(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                      double *h)
{
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
    memcpy(h, cdyn_data_bias(d), 3 * sizeof(double));
}

static void test_bias_and_derivative(void **state)
{
    (void)state;
    const double damp[3] = {0.3, 2.0, 0.05}, none[3] = {0, 0, 0};
    cdyn_model *m = chain(damp), *m0 = chain(none);
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 1;
    cdyn_data *d = NULL, *d0 = NULL;
    assert_int_equal(cdyn_data_create(m, &dopt, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_create(m0, &dopt, &d0, NULL), CDYN_OK);
    test_rng rng;
    test_rng_seed(&rng, 20);
    double worst = 0;
    for (int sample = 0; sample < 10; ++sample) {
        double q[3], v[3], a[3], h[3], h0[3];
        for (int i = 0; i < 3; ++i) {
            q[i] = test_rng_range(&rng, -1, 1);
            v[i] = test_rng_range(&rng, -2, 2);
            a[i] = test_rng_range(&rng, -3, 3);
        }
        eval_bias(m, d, q, v, h);
        eval_bias(m0, d0, q, v, h0);
        for (int i = 0; i < 3; ++i) /* the same RNEA, plus d v: rounding of one addition */
            assert_true(fabs(h[i] - h0[i] - damp[i] * v[i]) <= 1e-14 * (1 + fabs(h[i])));
        /* d id/dv against central differences of id = M a + h in v (from cdyn_eval's dense
         * outputs, not the derivative code) */
        assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
        assert_int_equal(cdyn_eval_derivatives(m, d, a, NULL, NULL, NULL), CDYN_OK);
        double Dv[9], Dq[9], id[3];
        memcpy(Dv, cdyn_data_id_dv(d), sizeof Dv);
        memcpy(Dq, cdyn_data_id_dq(d), sizeof Dq);
        memcpy(id, cdyn_data_inverse_dynamics(d), sizeof id);
        const double step = 1e-6;
        for (int j = 0; j < 3; ++j) {
            double idp[3], idm[3];
            for (int s = 0; s < 2; ++s) {
                double vv[3];
                memcpy(vv, v, sizeof vv);
                vv[j] += s == 0 ? step : -step;
                assert_int_equal(cdyn_eval(m, d, q, vv, CDYN_EVAL_ALL, NULL), CDYN_OK);
                const double *M = cdyn_data_mass(d), *hb = cdyn_data_bias(d);
                double *out = s == 0 ? idp : idm;
                for (int i = 0; i < 3; ++i) {
                    out[i] = hb[i];
                    for (int k = 0; k < 3; ++k)
                        out[i] += M[i + 3 * k] * a[k];
                }
            }
            for (int i = 0; i < 3; ++i) {
                const double fd = (idp[i] - idm[i]) / (2 * step);
                worst = fmax(worst, fabs(fd - Dv[i + 3 * j]) / (1 + fabs(Dv[i + 3 * j])));
            }
        }
        /* id itself and d id/dq: the undamped chain's d/dq is unchanged (damping does not
         * depend on q), its id shifted by d v */
        assert_int_equal(cdyn_eval(m0, d0, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
        assert_int_equal(cdyn_eval_derivatives(m0, d0, a, NULL, NULL, NULL), CDYN_OK);
        for (int i = 0; i < 3; ++i) {
            assert_true(fabs(id[i] - cdyn_data_inverse_dynamics(d0)[i] - damp[i] * v[i]) <=
                        1e-13 * (1 + fabs(id[i])));
            for (int j = 0; j < 3; ++j) {
                assert_true(Dq[i + 3 * j] == cdyn_data_id_dq(d0)[i + 3 * j]);
                const double dv0 = cdyn_data_id_dv(d0)[i + 3 * j];
                assert_true(fabs(Dv[i + 3 * j] - dv0 - (i == j ? damp[i] : 0.0)) <=
                            1e-14 * (1 + fabs(dv0)));
            }
        }
    }
    print_message("d id/dv of the damped chain against central differences: %.2e\n", worst);
    assert_true(worst <= 1e-7);
    cdyn_data_free(d);
    cdyn_data_free(d0);
    cdyn_model_free(m);
    cdyn_model_free(m0);
}

/* ---- the damped pendulum --------------------------------------------------------------------- */

static cdyn_stepper *make_stepper(const cdyn_model *m, cdyn_scheme scheme, double h)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    o.h = h;
    cdyn_stepper *s = NULL;
    cdyn_report r;
    const cdyn_status st = cdyn_stepper_create(m, &o, &s, &r);
    if (st != CDYN_OK)
        fail_msg("%s: %s", cdyn_scheme_str(scheme), r.message);
    return s;
}

/* The decay rate of the scheme's linear map from n steps of theta: least squares for
 * theta_{k+2s} = a theta_{k+s} + b theta_k with a stride of s steps (s h = 0.01 s, so that
 * theta_{k+s} and theta_k are not nearly equal, which would make the fit ill-conditioned);
 * the roots of z^2 - a z - b are the s-th powers of the map's, |z|^2 = -b for a complex pair,
 * rate = -ln(-b) / (2 s h). */
static double measured_rate(const cdyn_model *m, cdyn_scheme scheme, double h, int n,
                            double theta0)
{
    cdyn_stepper *s = make_stepper(m, scheme, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[0] = theta0;
    double *th = malloc(sizeof(double) * (size_t)(n + 1));
    assert_non_null(th);
    th[0] = theta0;
    for (int k = 0; k < n; ++k) {
        cdyn_step_report sr;
        const cdyn_status st = cdyn_step(s, NULL, x, &sr);
        if (st != CDYN_OK)
            fail_msg("%s step %d: %s", cdyn_scheme_str(scheme), k, sr.solver.message);
        th[k + 1] = x->q[0];
    }
    const int st = (int)lround(0.01 / h) > 1 ? (int)lround(0.01 / h) : 1;
    double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;
    for (int k = 0; k + 2 * st <= n; ++k) {
        const double x1 = th[k + st], x2 = th[k], y = th[k + 2 * st];
        s11 += x1 * x1;
        s12 += x1 * x2;
        s22 += x2 * x2;
        r1 += x1 * y;
        r2 += x2 * y;
    }
    const double det = s11 * s22 - s12 * s12;
    const double b = (s11 * r2 - s12 * r1) / det;
    free(th);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    assert_true(b < 0);
    return -0.5 * log(-b) / (h * st);
}

/* BAUMGARTE's step map of the linear damped pendulum (the header), column-major 2x2 on
 * (theta, thetadot). */
static void split_map(double h, double d, double Io, double k, double Phi[4])
{
    /* R = 1 + X + X^2/2 + X^3/6 + X^4/24 with X = h A0 (Horner: R := 1 + X R / p) */
    const double X[4] = {0, -h * k / Io, h, 0};
    double R[4] = {1, 0, 0, 1};
    for (int p = 4; p >= 1; --p) {
        const double t0 = X[0] * R[0] + X[2] * R[1], t1 = X[1] * R[0] + X[3] * R[1];
        const double t2 = X[0] * R[2] + X[2] * R[3], t3 = X[1] * R[2] + X[3] * R[3];
        R[0] = 1 + t0 / p;
        R[1] = t1 / p;
        R[2] = t2 / p;
        R[3] = 1 + t3 / p;
    }
    const double a = exp(-h * d / (2 * Io)), R01 = R[2], R11 = R[3], kd = (1 - a) * k / d;
    /* v1 = a v - kd theta; theta+ = theta + R01 v1; v+ = a R11 v1 - kd theta */
    Phi[0] = 1 - R01 * kd;
    Phi[2] = R01 * a;
    Phi[1] = -a * R11 * kd - kd;
    Phi[3] = a * R11 * a;
}

/* The decay rate of a 2x2 map with a complex pair of eigenvalues: -ln(det) / (2 h). */
static double map_rate(const double Phi[4], double h)
{
    const double tr = Phi[0] + Phi[3], det = Phi[0] * Phi[3] - Phi[1] * Phi[2];
    assert_true(tr * tr < 4 * det); /* complex */
    return -0.5 * log(det) / h;
}

static void test_pendulum_decay(void **state)
{
    (void)state;
    const double d = 0.1, Io = pend_inertia(), k = PM * G * PL;
    const double sigma = d / (2 * Io), w0sq = k / Io;
    cdyn_model *m = pendulum(d, 0);
    const cdyn_scheme schemes[5] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP,
                                    CDYN_SCHEME_CONE_STEP, CDYN_SCHEME_COULOMB_STEP,
                                    CDYN_SCHEME_BAUMGARTE};
    const double hs[2] = {1e-2, 1e-3};
    print_message("damped pendulum: I_O = %.4g, d = %g, k = m g l = %.4g, sigma = d / (2 I_O) = "
                  "%.8f 1/s\n",
                  Io, d, k, sigma);
    for (int hi = 0; hi < 2; ++hi) {
        const double h = hs[hi];
        for (int sc = 0; sc < 5; ++sc) {
            const int n = (int)(4.0 / h); /* 4 s: about 2.8 periods */
            const double rate = measured_rate(m, schemes[sc], h, n, 1e-4);
            double discrete, bound;
            if (schemes[sc] == CDYN_SCHEME_IMPLICIT_NCP) {
                discrete = 0.5 * log1p((h * d + h * h * k) / Io) / h;
                bound = h * (w0sq / 2 + sigma * sigma); /* 1/2 ln(1 + x) <= x / 2 ... */
            } else if (schemes[sc] == CDYN_SCHEME_BAUMGARTE) {
                double Phi[4];
                split_map(h, d, Io, k, Phi);
                discrete = map_rate(Phi, h);
                bound = sigma * w0sq * h * h / 4; /* twice the leading sigma (w0 h)^2 / 8 */
            } else {
                discrete = 0.5 * log1p(h * d / Io) / h;
                bound = h * sigma * sigma; /* 1/2 ln(1 + 2 h sigma) = sigma - h sigma^2 + ... */
            }
            print_message("  %-13s h = %-6g rate %.8f  discrete closed form %.8f (rel %.1e)  "
                          "sigma %.8f (diff %.2e, bound %.2e)\n",
                          cdyn_scheme_str(schemes[sc]), h, rate, discrete,
                          fabs(rate - discrete) / discrete, sigma, fabs(rate - sigma), bound);
            assert_true(fabs(rate - discrete) <= 1e-6 * discrete);
            assert_true(fabs(discrete - sigma) <= bound);
        }
    }
    cdyn_model_free(m);
}

/* A prismatic slider (spatial, horizontal axis: gravity does not act along it). */
static cdyn_model *slider(double mass, double d)
{
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(NULL, &b, NULL), CDYN_OK);
    cdyn_body_desc bd;
    cdyn_body_desc_defaults(&bd);
    bd.joint = CDYN_JOINT_PRISMATIC;
    bd.axis[0] = 1;
    bd.axis[2] = 0;
    bd.mass = mass;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 0.1;
    bd.damping = d;
    assert_int_equal(cdyn_builder_add_body(b, &bd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* The slider with v0 = 1: v_n = v0 (m / (m + h d))^n exactly for backward Euler of
 * m vdot = -d v. */
static void test_slider_exact(void **state)
{
    (void)state;
    const double mass = 2.0, d = 5.0, h = 0.01;
    cdyn_model *m = slider(mass, d);
    const cdyn_scheme schemes[4] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP,
                                    CDYN_SCHEME_CONE_STEP, CDYN_SCHEME_COULOMB_STEP};
    for (int sc = 0; sc < 4; ++sc) {
        cdyn_stepper *s = make_stepper(m, schemes[sc], h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->v[0] = 1.0;
        double worst = 0, pos = 0, vexp = 1.0;
        for (int k = 0; k < 200; ++k) {
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
            vexp *= mass / (mass + h * d);
            pos += h * vexp;
            worst = fmax(worst, fabs(x->v[0] - vexp) + fabs(x->q[0] - pos));
        }
        print_message("slider, %-13s: |v - v0 (m/(m + h d))^n| + |x - sum h v| <= %.1e over 200 "
                      "steps\n",
                      cdyn_scheme_str(schemes[sc]), worst);
        /* the implicit scheme solves to its Newton tolerance, the rigid ones exactly */
        assert_true(worst <= 1e-9);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    /* the instantaneous problem takes the damping through h: vdot = (tau - d v) / m */
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 1;
    cdyn_data *data = NULL;
    assert_int_equal(cdyn_data_create(m, &dopt, &data, NULL), CDYN_OK);
    const double q = 0.3, v = 1.5, tau = 2.0;
    double vdot = 0;
    cdyn_instant_result res;
    memset(&res, 0, sizeof res);
    res.vdot = &vdot;
    cdyn_report r;
    assert_int_equal(cdyn_instant_solve(m, data, &q, &v, &tau, NULL, &res, &r), CDYN_OK);
    print_message("instant: vdot = %.17g, (tau - d v) / m = %.17g\n", vdot, (tau - d * v) / mass);
    assert_true(fabs(vdot - (tau - d * v) / mass) <= 1e-15);
    cdyn_data_free(data);
    cdyn_model_free(m);
}

/* The stiff limit: d h / I_O = 385. An explicit treatment would blow up (|1 - h d / I| >> 1);
 * backward Euler and M + h D creep towards theta = 0 at about -k theta / d, and so does
 * BAUMGARTE's balanced splitting (its half steps relax v to c / d = -k sin(theta_n) / d within
 * e^(-192); the step is taken as asked, without halvings). */
static void test_stiff_limit(void **state)
{
    (void)state;
    const double d = 1e4, h = 0.01, Io = pend_inertia(), k = PM * G * PL;
    cdyn_model *m = pendulum(d, 0);
    const cdyn_scheme schemes[5] = {CDYN_SCHEME_IMPLICIT_NCP, CDYN_SCHEME_PYRAMID_LCP,
                                    CDYN_SCHEME_CONE_STEP, CDYN_SCHEME_COULOMB_STEP,
                                    CDYN_SCHEME_BAUMGARTE};
    for (int sc = 0; sc < 5; ++sc) {
        cdyn_stepper *s = make_stepper(m, schemes[sc], h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = 0.5;
        x->v[0] = 3.0; /* a kick against the damper */
        double energy = 0.5 * Io * 9.0 + k * (1 - cos(0.5)), creep = 0;
        for (int n = 0; n < 1000; ++n) {
            const double th = x->q[0];
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
            if (schemes[sc] == CDYN_SCHEME_BAUMGARTE)
                assert_int_equal(sr.halvings, 0);
            assert_true(isfinite(x->q[0]) && isfinite(x->v[0]));
            const double e = 0.5 * Io * x->v[0] * x->v[0] + k * (1 - cos(x->q[0]));
            assert_true(e <= energy * (1 + 1e-12));
            energy = e;
            assert_true(x->q[0] > 0 && x->q[0] <= 0.5 + h * 3.0);
            if (n >= 10) { /* after the kick is gone: v = -k sin(theta) / d to I / (h d), and
                            * theta moves at that speed */
                const double slow = k * sin(th) / d;
                creep = fmax(creep, fabs(x->v[0] + slow) / slow);
                creep = fmax(creep, fabs((x->q[0] - th) / h + slow) / slow);
            }
        }
        print_message("stiff damping, %-13s: creep speed (v and dtheta/h) within %.2e of "
                      "-k sin(theta)/d (bound 2 (I/(h d) + h k/d) = %.2e)\n",
                      cdyn_scheme_str(schemes[sc]), creep, 2 * (Io / (h * d) + h * k / d));
        assert_true(creep <= 2 * (Io / (h * d) + h * k / d));
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    cdyn_model_free(m);
}

/* ---- BAUMGARTE: the split damping ------------------------------------------------------- */

/* The linear damped pendulum (theta0 = 1e-6: sin theta = theta to 2e-13) from rest over T = 2 s:
 * against the scheme's map Phi (the header, split_map) to 1e-10; and
 * against the continuous closed form theta = theta0 e^(-sigma t) (cos wd t + sigma / wd sin wd t)
 * at h, h/2, h/4: Strang's splitting with exact sub-flows is second order (its error expansion
 * has even powers only; RK4's own O(h^4) is below), so log2(e(h) / e(h/2)) = 2 + O(h^2). */
static void test_baumgarte_split_order(void **state)
{
    (void)state;
    const double d = 1.0, Io = pend_inertia(), k = PM * G * PL, T = 2.0, th0 = 1e-6;
    const double w0sq = k / Io, w0 = sqrt(w0sq), sigma = d / (2 * Io);
    const double wd = sqrt(w0sq - sigma * sigma);
    const double th_T = th0 * exp(-sigma * T) * (cos(wd * T) + sigma / wd * sin(wd * T));
    const double v_T = -th0 * exp(-sigma * T) * w0sq / wd * sin(wd * T);
    cdyn_model *m = pendulum(d, 0);
    double err[3];
    for (int hi = 0; hi < 3; ++hi) {
        const double h = 0.01 / (1 << hi);
        const int n = (int)lround(T / h);
        cdyn_stepper *s = make_stepper(m, CDYN_SCHEME_BAUMGARTE, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = th0;
        for (int i = 0; i < n; ++i)
            assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        double Phi[4];
        split_map(h, d, Io, k, Phi);
        double z[2] = {th0, 0};
        for (int i = 0; i < n; ++i) {
            const double z0 = Phi[0] * z[0] + Phi[2] * z[1], z1 = Phi[1] * z[0] + Phi[3] * z[1];
            z[0] = z0;
            z[1] = z1;
        }
        const double map = fabs(x->q[0] - z[0]) + fabs(x->v[0] - z[1]) / w0;
        err[hi] = fabs(x->q[0] - th_T) + fabs(x->v[0] - v_T) / w0;
        print_message("baumgarte split, h = %-7g: |z - Phi^n z0| = %.2e, error against the "
                      "continuous closed form %.3e (theta0 = %g)\n",
                      h, map, err[hi], th0);
        assert_true(map <= 1e-10 * th0);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
    }
    const double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
    print_message("baumgarte split: observed orders %.4f, %.4f\n", p1, p2);
    assert_true(fabs(p1 - 2) <= 0.05 && fabs(p2 - 2) <= 0.05);
    cdyn_model_free(m);
}

/* The damping half steps are the exact flow of m vdot = -d v: on a slider without other forces
 * (c = 0) a step maps v to e^(-h d / m) v and x to x + h e^(-h d / (2 m)) v (the undamped RK4
 * piece moves it at the half step's speed), at any h: at h d / m = 100 and 1e4 the step is taken
 * as asked (no halvings) and |v| never grows. The flow is v + (e^(-x) - 1) v, so its rounding is
 * relative to |v| before the step: 4 eps |v0|. (The stiff pendulum: test_stiff_limit.) */
static void test_baumgarte_stiff(void **state)
{
    (void)state;
    const double mass = 2.0, h = 0.01, ratio[2] = {100, 1e4};
    for (int c = 0; c < 2; ++c) {
        cdyn_model *m = slider(mass, ratio[c] * mass / h);
        cdyn_stepper *s = make_stepper(m, CDYN_SCHEME_BAUMGARTE, h); /* max_halvings 8 */
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->v[0] = 1.0;
        double vexp = 1.0, qexp = 0.0, worst = 0.0;
        for (int n = 0; n < 5; ++n) {
            const double vprev = x->v[0];
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
            assert_int_equal(sr.halvings, 0);
            assert_int_equal(sr.substeps, 1);
            qexp += h * exp(-0.5 * ratio[c]) * vexp;
            vexp *= exp(-ratio[c]);
            worst = fmax(worst, fabs(x->v[0] - vexp));
            assert_true(fabs(x->v[0] - vexp) <= 4 * DBL_EPSILON);
            assert_true(fabs(x->q[0] - qexp) <= 4 * DBL_EPSILON * h * (n + 1));
            assert_true(fabs(x->v[0]) <= fabs(vprev));
        }
        print_message("baumgarte slider, h d / m = %g: one step each, |v - e^(-n h d/m)| <= %.1e, "
                      "x = %.17g (closed form %.17g)\n",
                      ratio[c], worst, x->q[0], qexp);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
    }
}

/* A planar two-link arm whose first joint rests on its lower stop (q1 = 0.3 = lower: gravity
 * presses it there) while the damped second joint swings: M couples the joints, so an
 * unconstrained damping flow M vdot = -D v would give joint 1 a velocity into the stop; the
 * half steps' flow keeps the rate of the rows in CONTACT (here v1 = 0), and the undamped RK4
 * pieces hold it at 0 (gap 0, rate 0: the Baumgarte terms vanish), so v1 and q1 - 0.3 stay at
 * rounding, for d = 0.5 and 5e3 N m s (h d / I_2 = 0.019 and 185, I_2 = 0.27 kg m^2 about its
 * joint). Without the projection the first case drifts by 7e-2. */
static void test_baumgarte_closed_stop(void **state)
{
    (void)state;
    const double h = 0.01, ds[2] = {0.5, 5e3};
    for (int c = 0; c < 2; ++c) {
        cdyn_builder_options bo;
        cdyn_builder_defaults(&bo, 2);
        cdyn_builder *b = NULL;
        assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
        cdyn_body_desc l[2];
        for (int i = 0; i < 2; ++i) {
            cdyn_body_desc_defaults(&l[i]);
            l[i].joint = CDYN_JOINT_REVOLUTE;
            l[i].mass = 1.0;
            l[i].com[1] = -0.5;
            l[i].inertia[2] = 0.02;
        }
        l[0].limited = 1;
        l[0].lower = 0.3;
        l[0].upper = 2.0;
        l[1].frame.pos[1] = -1.0;
        l[1].damping = ds[c];
        assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, NULL, NULL), CDYN_OK);
        cdyn_model *m = NULL;
        assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
        cdyn_builder_free(b);
        cdyn_stepper *s = make_stepper(m, CDYN_SCHEME_BAUMGARTE, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = 0.3;
        x->v[1] = -1.0; /* the damping torque on joint 2 then presses joint 1 into its stop */
        double worst = 0, lmin = INFINITY;
        for (int n = 0; n < 200; ++n) {
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
            assert_int_equal(sr.halvings, 0);
            assert_true(x->limit_mode[0] != CDYN_LIMIT_FREE);
            lmin = fmin(lmin, x->limit_lambda[0]);
            worst = fmax(worst, fabs(x->v[0]) + fabs(x->q[0] - 0.3));
        }
        print_message("baumgarte, arm on its stop, d = %g: |v1| + |q1 - lower| <= %.1e over 200 "
                      "steps, stop force >= %.3g, v2 = %.3g\n",
                      ds[c], worst, lmin, x->v[1]);
        assert_true(worst <= 1e-12);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
    }
}

/* Three prismatic joints in series along non-orthogonal axes, no gravity: M is constant and
 * h_RNEA = 0, so the ODE is M vdot = -D v with D = diag(d, 0, 3 d) (two damped dofs coupled
 * through M, one undamped: the flow's 2 x 2 eigenproblem and its selection P). The split is then
 * exact in v at any h: v_n = exp(-n h M^-1 D) v0, and x_n = x0 + sum_k h exp(-(k + 1/2) h
 * M^-1 D) v0 (the undamped piece moves at the half step's speed). Checked against the test's
 * own Taylor series of the exponential (d = 1: |h M^-1 D| < 0.1), and at d = 1e5 (h trace(M^-1 D)
 * ~ 1e3) against the exact invariant and limit: M vdot = -D v keeps the undamped dof's momentum
 * p_1 = (M v)_1, and the damped velocities die, so one step gives v = (0, p_1 / M_11, 0). */
static void expm3(const double A[9], double E[9]) /* Taylor to 30 terms, |A| < 0.5 */
{
    double term[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, next[9];
    memcpy(E, term, sizeof term);
    for (int k = 1; k <= 30; ++k) {
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                double sum = 0;
                for (int l = 0; l < 3; ++l)
                    sum += A[i + 3 * l] * term[l + 3 * j];
                next[i + 3 * j] = sum / k;
            }
        memcpy(term, next, sizeof term);
        for (int e = 0; e < 9; ++e)
            E[e] += term[e];
    }
}

static void test_baumgarte_coupled_flow(void **state)
{
    (void)state;
    const double h = 0.01, dd[2] = {1.0, 1e5}, v0[3] = {1.0, -0.5, 2.0};
    const double axes[3][3] = {{1, 0, 0}, {0.6, 0.8, 0}, {0.2, 0.3, 0.9}}; /* normalized by the
                                                                              builder */
    for (int c = 0; c < 2; ++c) {
        cdyn_builder_options bo;
        cdyn_builder_defaults(&bo, 3);
        bo.gravity[2] = 0;
        cdyn_builder *b = NULL;
        assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
        cdyn_body_desc l[3];
        for (int i = 0; i < 3; ++i) {
            cdyn_body_desc_defaults(&l[i]);
            l[i].joint = CDYN_JOINT_PRISMATIC;
            memcpy(l[i].axis, axes[i], sizeof axes[i]);
            l[i].mass = 1.0 + 0.5 * i;
            l[i].inertia[0] = l[i].inertia[1] = l[i].inertia[2] = 0.1;
        }
        l[0].damping = dd[c];
        l[2].damping = 3 * dd[c];
        assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 3, l, NULL, NULL), CDYN_OK);
        cdyn_model *m = NULL;
        assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
        cdyn_builder_free(b);
        cdyn_data_options dopt;
        cdyn_data_defaults(&dopt);
        dopt.dense = 1;
        cdyn_data *data = NULL;
        assert_int_equal(cdyn_data_create(m, &dopt, &data, NULL), CDYN_OK);
        const double q0[3] = {0, 0, 0};
        assert_int_equal(cdyn_eval(m, data, q0, v0, CDYN_EVAL_ALL, NULL), CDYN_OK);
        double M[9];
        memcpy(M, cdyn_data_mass(data), sizeof M);
        const double p1 = M[1] * v0[0] + M[4] * v0[1] + M[7] * v0[2];
        cdyn_stepper *s = make_stepper(m, CDYN_SCHEME_BAUMGARTE, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        memcpy(x->v, v0, sizeof v0);
        double worst = 0, mom = 0;
        if (c == 0) {
            /* K = h M^-1 D from the 3 x 3 inverse (adjugate) of M */
            const double det = M[0] * (M[4] * M[8] - M[7] * M[5]) -
                               M[3] * (M[1] * M[8] - M[7] * M[2]) +
                               M[6] * (M[1] * M[5] - M[4] * M[2]);
            double Mi[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    const int r0 = (j + 1) % 3, r1 = (j + 2) % 3, c0 = (i + 1) % 3,
                              c1 = (i + 2) % 3;
                    Mi[i + 3 * j] = (M[r0 + 3 * c0] * M[r1 + 3 * c1] -
                                     M[r0 + 3 * c1] * M[r1 + 3 * c0]) / det;
                }
            const double D[3] = {dd[c], 0, 3 * dd[c]};
            double Ah[9], Af[9], Eh[9], Ef[9];
            for (int i = 0; i < 3; ++i)
                for (int j = 0; j < 3; ++j) {
                    Af[i + 3 * j] = -h * Mi[i + 3 * j] * D[j];
                    Ah[i + 3 * j] = 0.5 * Af[i + 3 * j];
                }
            expm3(Ah, Eh);
            expm3(Af, Ef);
            double v[3], q[3] = {0, 0, 0};
            memcpy(v, v0, sizeof v);
            for (int n = 0; n < 10; ++n) {
                assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
                double vh[3], vn[3];
                for (int i = 0; i < 3; ++i) {
                    vh[i] = Eh[i] * v[0] + Eh[i + 3] * v[1] + Eh[i + 6] * v[2];
                    vn[i] = Ef[i] * v[0] + Ef[i + 3] * v[1] + Ef[i + 6] * v[2];
                }
                for (int i = 0; i < 3; ++i) {
                    q[i] += h * vh[i];
                    v[i] = vn[i];
                    /* rounding: a few ulps of |v0| (= 2) per step in v, of |x| + h |v0| in x */
                    assert_true(fabs(x->v[i] - v[i]) <= 4 * (n + 1) * DBL_EPSILON * 2);
                    assert_true(fabs(x->q[i] - q[i]) <=
                                4 * (n + 1) * DBL_EPSILON * (fabs(q[i]) + 2 * h));
                    worst = fmax(worst, fabs(x->v[i] - v[i]) + fabs(x->q[i] - q[i]) / h);
                }
                mom = fmax(mom, fabs(M[1] * x->v[0] + M[4] * x->v[1] + M[7] * x->v[2] - p1));
            }
            print_message("baumgarte, 3 prismatic joints, d = %g: |v - exp(-n h M^-1 D) v0| + "
                          "|x - closed form| / h <= %.1e, |(M v)_1 - p_1| <= %.1e\n",
                          dd[c], worst, mom);
        } else {
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
            assert_int_equal(sr.halvings, 0);
            mom = fabs(M[1] * x->v[0] + M[4] * x->v[1] + M[7] * x->v[2] - p1);
            worst = fabs(x->v[0]) + fabs(x->v[1] - p1 / M[4]) + fabs(x->v[2]);
            /* trace(M^-1 D) >= d / M_00 + 3 d / M_22 ((M^-1)_ii >= 1 / M_ii) */
            print_message("baumgarte, 3 prismatic joints, d = %g (h trace(M^-1 D) > %.0f): one "
                          "step to v = (0, p_1 / M_11, 0) within %.1e, |(M v)_1 - p_1| = %.1e\n",
                          dd[c], h * dd[c] * (1 / M[0] + 3 / M[8]), worst, mom);
            assert_true(worst <= 3 * 4 * DBL_EPSILON * 2); /* a few ulps of |v0| each */
        }
        /* a few ulps of |M_1.| |v0| per step */
        assert_true(mom <= 8 * DBL_EPSILON * (fabs(M[1]) + M[4] + fabs(M[7])) * 2 * (c ? 1 : 10));
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_data_free(data);
        cdyn_model_free(m);
    }
}

/* A planar two-link arm (pivot 0.2 m above the ground line) whose tip disk (radius 0.03) rests on
 * the ground and slides there, frictionless, as gravity folds the arm; both joints damped. The
 * contact row stays in CONTACT and its gap at 0 to the scheme's own truncation: the damping half
 * steps keep the row's rate (and do not move q), so the gap of the damped runs stays within that
 * of the undamped run of the same scene, while an unprojected half step gives the tip an
 * approach velocity each step (the gap then drifts to 8e-3 m at d = (0.05, 0.02)). */
static cdyn_model *arm_on_ground(double d0, double d1)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc l[2];
    for (int i = 0; i < 2; ++i) {
        cdyn_body_desc_defaults(&l[i]);
        l[i].joint = CDYN_JOINT_REVOLUTE;
        l[i].mass = i == 0 ? 0.3 : 0.2;
        l[i].com[0] = 0.075;
        l[i].inertia[2] = i == 0 ? 6e-4 : 4e-4;
    }
    l[0].frame.pos[1] = 0.2;
    l[1].frame.pos[0] = 0.15;
    l[0].damping = d0;
    l[1].damping = d1;
    int ids[2], gl, gt;
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 2, l, ids, NULL), CDYN_OK);
    cdyn_geom_desc line, tip;
    cdyn_geom_desc_defaults(&line);
    cdyn_geom_desc_defaults(&tip);
    tip.body = ids[1];
    tip.type = CDYN_GEOM_CIRCLE;
    tip.size[0] = 0.03;
    tip.frame.pos[0] = 0.15;
    assert_int_equal(cdyn_builder_add_geom(b, &line, &gl, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &tip, &gt, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gl;
    pd.geom_b = gt;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

static void test_baumgarte_sliding_tip(void **state)
{
    (void)state;
    const double h = 0.01, dd[3][2] = {{0, 0}, {0.05, 0.02}, {50, 20}};
    /* the tip's centre 0.03 above the ground: 0.2 + 0.15 sin a1 + 0.15 sin(a1 + q2) = 0.03 */
    const double a1 = -0.8, a12 = asin((0.03 - 0.2) / 0.15 - sin(a1));
    double undamped = 0;
    for (int c = 0; c < 3; ++c) {
        cdyn_model *m = arm_on_ground(dd[c][0], dd[c][1]);
        cdyn_data_options dopt;
        cdyn_data_defaults(&dopt);
        dopt.dense = 1;
        cdyn_data *data = NULL;
        assert_int_equal(cdyn_data_create(m, &dopt, &data, NULL), CDYN_OK);
        cdyn_stepper *s = make_stepper(m, CDYN_SCHEME_BAUMGARTE, h);
        cdyn_state *x = NULL;
        assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
        x->q[0] = a1;
        x->q[1] = a12 - a1;
        double worst = 0;
        for (int n = 0; n < 100; ++n) {
            cdyn_step_report sr;
            assert_int_equal(cdyn_step(s, NULL, x, &sr), CDYN_OK);
            assert_int_equal(sr.halvings, 0);
            assert_int_equal(x->mode[0], CDYN_MODE_CONTACT);
            assert_int_equal(cdyn_eval(m, data, x->q, x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
            worst = fmax(worst, fabs(cdyn_data_gap(data)[0]));
        }
        print_message("baumgarte, arm tip sliding on the ground, d = (%g, %g): |gap| <= %.2e m "
                      "over 1 s, q = (%.4f, %.4f), lambda_n = %.4g N\n",
                      dd[c][0], dd[c][1], worst, x->q[0], x->q[1], x->lambda[0]);
        if (c == 0)
            undamped = worst;
        else
            assert_true(worst <= fmax(undamped, 1e-15));
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_data_free(data);
        cdyn_model_free(m);
    }
}

/* ---- joint friction: refused -------------------------------------------------------------- */

static void test_friction_refused(void **state)
{
    (void)state;
    cdyn_model *m = pendulum(0.1, 0.3);
    for (int sc = 0; sc <= CDYN_SCHEME_COULOMB_STEP; ++sc) {
        if (sc == CDYN_SCHEME_PYRAMID_LCP)
            continue; /* takes it: tests/test_joint_friction.c */
        cdyn_step_options o;
        cdyn_step_defaults(&o, (cdyn_scheme)sc);
        cdyn_stepper *s = (cdyn_stepper *)&o; /* must be reset to NULL */
        cdyn_report r;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, &r), CDYN_ENOTSUP);
        assert_null(s);
        assert_non_null(strstr(r.message, "body 0"));
        assert_non_null(strstr(r.message, "friction"));
        assert_non_null(strstr(r.message, cdyn_scheme_str((cdyn_scheme)sc)));
    }
    /* the BVP builds the implicit step itself: it refuses too */
    cdyn_bvp_options bo;
    cdyn_bvp_defaults(&bo);
    bo.N = 2;
    bo.use_guess = 1;
    cdyn_bvp_conditions bc;
    memset(&bc, 0, sizeof bc);
    cdyn_bvp_report br;
    assert_int_equal(cdyn_bvp_solve(m, &bo, &bc, NULL, &br), CDYN_ENOTSUP);
    assert_non_null(strstr(br.solver.message, "body 0 has joint friction"));
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builder_checks),  cmocka_unit_test(test_bias_and_derivative),
        cmocka_unit_test(test_pendulum_decay),  cmocka_unit_test(test_slider_exact),
        cmocka_unit_test(test_stiff_limit),     cmocka_unit_test(test_baumgarte_stiff),
        cmocka_unit_test(test_baumgarte_split_order), cmocka_unit_test(test_baumgarte_closed_stop),
        cmocka_unit_test(test_baumgarte_coupled_flow), cmocka_unit_test(test_baumgarte_sliding_tip),
        cmocka_unit_test(test_friction_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
