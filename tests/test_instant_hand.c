/* The instantaneous problem on the two hands of the examples:
 *   - the two-finger grasp with tau1 = tau2 is mirror-symmetric, so the forces are mirror
 *     images (lam_n1 = lam_n2, lam_t1 = -lam_t2: t turns with n), a_x = 0, alpha = 0;
 *   - every returned solution satisfies the equations it solves, checked directly from the
 *     model's public matrices: M vdot + h = tau + Gamma^T lam, 0 <= lam_n _|_ a_n >= 0, and the
 *     friction law of its mode (pyramid and cone, two-finger map and three-finger hand);
 *   - on the three-finger all-rolling mixed NCP, box-constrained merit minimization (both merit
 *     functions) and FB-Newton reach the same solution (independent solvers). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/cdyn.h"
#include "support.h"
#include "three_finger_model.h"
#include "two_finger_model.h"

#define MAXV 16
#define MAXC 3

typedef struct sol {
    double vdot[MAXV], lam[3][MAXC], acc[3][MAXC];
    cdyn_instant_mode mode[MAXC];
    cdyn_instant_result r;
    cdyn_status st;
} sol;

static void run(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                const double *tau, const cdyn_instant_options *o, sol *x)
{
    memset(x, 0, sizeof *x);
    x->r.vdot = x->vdot;
    x->r.lambda_n = x->lam[0];
    x->r.lambda_t = x->lam[1];
    x->r.lambda_o = x->lam[2];
    x->r.acc_n = x->acc[0];
    x->r.acc_t = x->acc[1];
    x->r.acc_o = x->acc[2];
    x->r.mode = x->mode;
    cdyn_report rep;
    x->st = cdyn_instant_solve(m, d, q, v, tau, o, &x->r, &rep);
    if (x->st != CDYN_OK)
        print_error("cdyn_instant_solve: %s\n", rep.message);
}

/* Check x against the equations at (q, v): Newton-Euler, Signorini, Coulomb (pyramid: per axis;
 * cone: the disk) with the mode. Relative tolerance tol on the scale of the terms. */
static void check_physics(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                          const double *tau, const sol *x, int cone, double tol)
{
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    const double *M = cdyn_data_mass(d), *h = cdyn_data_bias(d);
    double fscale = 1.0, ascale = 1.0;
    for (int c = 0; c < nc; ++c)
        for (int k = 0; k < 3; ++k) {
            fscale = fmax(fscale, fabs(x->lam[k][c]));
            ascale = fmax(ascale, fabs(x->acc[k][c]));
        }
    for (int i = 0; i < nv; ++i) { /* M vdot + h - tau - Gamma^T lam = 0 */
        double r = h[i] - tau[i], s = fabs(h[i]) + fabs(tau[i]);
        for (int j = 0; j < nv; ++j)
            r += M[i + j * nv] * x->vdot[j];
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < nc; ++c) {
                const double g = cdyn_data_jacobian(d, (cdyn_dir)k)[c + i * nc];
                r -= g * x->lam[k][c];
                s += fabs(g * x->lam[k][c]);
            }
        assert_true(fabs(r) <= tol * fmax(s, 1.0));
    }
    for (int c = 0; c < nc; ++c) {
        /* the reported accelerations are Gamma vdot + (dGamma/dt) v */
        for (int k = 0; k < 3; ++k) {
            double a = cdyn_data_jacobian_dot_v(d, (cdyn_dir)k)[c];
            for (int j = 0; j < nv; ++j)
                a += cdyn_data_jacobian(d, (cdyn_dir)k)[c + j * nc] * x->vdot[j];
            assert_true(fabs(a - x->acc[k][c]) <= tol * ascale);
        }
        const double ln = x->lam[0][c], an = x->acc[0][c];
        assert_true(ln >= -tol * fscale && an >= -tol * ascale);
        assert_true(fabs(ln * an) <= tol * fscale * ascale);
        cdyn_contact ct;
        cdyn_pair_info pi;
        cdyn_data_contact(d, c, &ct);
        cdyn_model_pair_info(m, ct.pair, &pi);
        const double mu = pi.mu, lt = x->lam[1][c], lo = x->lam[2][c];
        const double at = x->acc[1][c], ao = x->acc[2][c];
        if (cone)
            assert_true(hypot(lt, lo) <= mu * ln + tol * fscale);
        else
            assert_true(fabs(lt) <= mu * ln + tol * fscale && fabs(lo) <= mu * ln + tol * fscale);
        switch (x->mode[c]) {
        case CDYN_INSTANT_ROLL_ROLL:
            assert_true(fabs(at) <= 1e3 * tol * ascale && fabs(ao) <= 1e3 * tol * ascale);
            break;
        case CDYN_INSTANT_ROLL_SLIDE:
            if (cone) { /* lam_T = -mu lam_n a_T / |a_T| */
                const double s = hypot(at, ao);
                assert_true(fabs(lt + mu * ln * at / s) <= tol * fscale);
                assert_true(fabs(lo + mu * ln * ao / s) <= tol * fscale);
            } else { /* per axis: a sliding axis has its force at the bound, against it */
                const double aa[2] = {at, ao}, ll[2] = {lt, lo};
                for (int k = 0; k < 2; ++k)
                    if (fabs(aa[k]) > 1e3 * tol * ascale)
                        assert_true(fabs(ll[k] + mu * ln * (aa[k] > 0 ? 1 : -1)) <= tol * fscale);
            }
            break;
        case CDYN_INSTANT_ROLL_BREAK:
        case CDYN_INSTANT_SLIDE_BREAK:
            assert_true(fabs(ln) <= tol * fscale && hypot(lt, lo) <= tol * fscale);
            break;
        default:
            break;
        }
    }
}

static void cone_options(cdyn_instant_options *o, cdyn_instant_ncp_solver s, cdyn_box_merit_kind k,
                         cdyn_instant_start start)
{
    cdyn_instant_defaults(o);
    o->friction = CDYN_INSTANT_CONE;
    o->ncp_solver = s;
    o->box_merit.merit = k;
    o->ncp_start = start;
    o->ncp_retry = 0;
}

static void test_two_finger_symmetry(void **state)
{
    (void)state;
    const double mus[2] = {0.2, 0.4}, torques[4] = {0.0, 1.0, 2.0, 3.5};
    for (int k = 0; k < 2; ++k) {
        tw_grasp g;
        assert_int_equal(tw_build(mus[k], &g, NULL), CDYN_OK);
        for (int i = 0; i < 4; ++i)
            for (int cone = 0; cone < 2; ++cone) {
                double tau[TW_N];
                tw_torques(TW_TAU0, torques[i], torques[i], tau);
                cdyn_instant_options o;
                if (cone)
                    cone_options(&o, CDYN_INSTANT_FB_NEWTON, CDYN_BOX_MERIT_FB,
                                 CDYN_INSTANT_START_ROLLING);
                else
                    cdyn_instant_defaults(&o);
                sol x;
                run(g.model, g.data, g.q, g.v, tau, &o, &x);
                assert_int_equal(x.st, CDYN_OK);
                const double s = fmax(1.0, fabs(x.lam[0][0]));
                assert_true(fabs(x.lam[0][0] - x.lam[0][1]) <= 1e-9 * s);
                assert_true(fabs(x.lam[1][0] + x.lam[1][1]) <= 1e-9 * s);
                assert_true(fabs(x.vdot[0]) <= 1e-9 && fabs(x.vdot[2]) <= 1e-9);
                assert_true(fabs(x.vdot[3] + x.vdot[5]) <= 1e-9); /* mirrored joint rates */
                assert_true(fabs(x.vdot[4] + x.vdot[6]) <= 1e-9);
                assert_int_equal(x.mode[0], x.mode[1]);
                check_physics(g.model, g.data, g.q, g.v, tau, &x, cone, 1e-9);
            }
        tw_free(&g);
    }
}

/* Both formulations over a coarse map, with opening torques (breaking) included. */
static void test_two_finger_physics(void **state)
{
    (void)state;
    tw_grasp g;
    assert_int_equal(tw_build(0.3, &g, NULL), CDYN_OK);
    int modes_seen[6] = {0};
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j)
            for (int f = 0; f < 2; ++f) {
                double tau[TW_N];
                tw_torques(TW_TAU0, -3.0 + i, -3.0 + j, tau);
                cdyn_instant_options o;
                if (f)
                    cone_options(&o, CDYN_INSTANT_FB_NEWTON, CDYN_BOX_MERIT_FB,
                                 CDYN_INSTANT_START_ROLLING);
                else
                    cdyn_instant_defaults(&o);
                o.ncp_retry = 1;
                sol x;
                run(g.model, g.data, g.q, g.v, tau, &o, &x);
                assert_int_equal(x.st, CDYN_OK);
                check_physics(g.model, g.data, g.q, g.v, tau, &x, f, 1e-8);
                ++modes_seen[x.mode[0]];
                ++modes_seen[x.mode[1]];
            }
    /* the map has all three outcomes of a rolling contact */
    assert_true(modes_seen[CDYN_INSTANT_ROLL_ROLL] > 0);
    assert_true(modes_seen[CDYN_INSTANT_ROLL_SLIDE] > 0);
    assert_true(modes_seen[CDYN_INSTANT_ROLL_BREAK] > 0);
    tw_free(&g);
}

/* Box merit (FB and slack merits) against FB-Newton on the all-rolling mixed NCP of the
 * three-finger hand, from the frictionless start: the same forces and accelerations to 1e-8
 * (both stop at natural residual 1e-10). mu = 0.1 slips (on the cone), mu >= 0.3 rolls. */
static void test_three_finger_box_merit_vs_fb_newton(void **state)
{
    (void)state;
    const double mus[4] = {0.1, 0.3, 0.5, 1.0};
    for (int k = 0; k < 4; ++k) {
        tf_params p;
        tf_defaults(&p);
        p.mu = mus[k];
        tf_hand h;
        assert_int_equal(tf_build(&p, &h, NULL), CDYN_OK);
        double v[TF_NV] = {0}, tau[TF_NV];
        assert_int_equal(tf_squeeze_torques(&h, v, 10.0, tau, NULL), CDYN_OK);
        sol ref, x;
        cdyn_instant_options o;
        cone_options(&o, CDYN_INSTANT_FB_NEWTON, CDYN_BOX_MERIT_FB, CDYN_INSTANT_START_NORMAL);
        run(h.model, h.data, h.q, v, tau, &o, &ref);
        assert_int_equal(ref.st, CDYN_OK);
        check_physics(h.model, h.data, h.q, v, tau, &ref, 1, 1e-8);
        const cdyn_instant_mode want = k == 0 ? CDYN_INSTANT_ROLL_SLIDE : CDYN_INSTANT_ROLL_ROLL;
        for (int c = 0; c < 3; ++c)
            assert_int_equal(ref.mode[c], want);
        for (int kind = 0; kind < 2; ++kind) {
            cone_options(&o, CDYN_INSTANT_BOX_MERIT, (cdyn_box_merit_kind)kind,
                         CDYN_INSTANT_START_NORMAL);
            run(h.model, h.data, h.q, v, tau, &o, &x);
            assert_int_equal(x.st, CDYN_OK);
            for (int i = 0; i < TF_NV; ++i)
                assert_true(fabs(x.vdot[i] - ref.vdot[i]) <= 1e-8);
            for (int d = 0; d < 3; ++d)
                for (int c = 0; c < 3; ++c)
                    assert_true(fabs(x.lam[d][c] - ref.lam[d][c]) <= 1e-8);
            for (int c = 0; c < 3; ++c)
                assert_int_equal(x.mode[c], want);
        }
        /* the pyramid LCP satisfies its own (per-axis) law on the same state */
        cdyn_instant_defaults(&o);
        run(h.model, h.data, h.q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        check_physics(h.model, h.data, h.q, v, tau, &x, 0, 1e-8);
        tf_free(&h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_finger_symmetry),
        cmocka_unit_test(test_two_finger_physics),
        cmocka_unit_test(test_three_finger_box_merit_vs_fb_newton),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
