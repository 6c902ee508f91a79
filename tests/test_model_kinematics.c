/* Configuration-space maps and forward kinematics of src/model/ against independent references:
 *  - G(q) against quaternion kinematics edot = 1/2 (0, w) (x) e, with the Hamilton product
 *    written out here (Song, Kumar & Pang's billiard-ball G; world-axis w);
 *  - the world-axis convention: integrating qdot = G v with constant w turns the body by
 *    R(t) = Rot(w/|w|, |w| t) R(0) (Rodrigues, written here);
 *  - G_pinv: H G = I; and for the gap of a sphere on a plane, dPsi/dq (central differences in
 *    the raw 7 coordinates, quaternion included) equals Gamma_n H;
 *  - body poses of the two-link arm against x = l1 cos q1 + l2 cos(q1 + q2), ...;
 *  - body velocities against central differences of the poses along q +- eps G v (error
 *    O(eps^2), see test_model_dynamics.c for the bound);
 *  - the documented quaternion policy and cdyn_model_normalize_q. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/model.h"
#include "model_support.h"
#include "support.h"

static cdyn_model *one_free_body(int with_plane)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_body_desc bd = tm_free_body(0.2, 2e-4, 2e-4, 2e-4);
    int body;
    assert_int_equal(cdyn_builder_add_body(b, &bd, &body, NULL), CDYN_OK);
    if (with_plane) {
        int gp, gs;
        cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
        /* a tilted plane so that every quaternion coordinate matters */
        plane.frame.quat[0] = cos(0.2);
        plane.frame.quat[1] = sin(0.2);
        cdyn_geom_desc sph = tm_geom(body, CDYN_GEOM_SPHERE, 0.05, 0, 0);
        sph.frame.pos[0] = 0.03; /* off the body origin: the gap depends on the orientation */
        assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_add_geom(b, &sph, &gs, NULL), CDYN_OK);
        cdyn_contact_pair_desc pd;
        cdyn_contact_pair_desc_defaults(&pd);
        pd.geom_a = gp;
        pd.geom_b = gs;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* r = a (x) b, Hamilton product, scalar first. */
static void qmul(const double *a, const double *b, double *r)
{
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void test_G_quaternion_kinematics(void **state)
{
    (void)state;
    cdyn_model *m = one_free_body(0);
    assert_int_equal(cdyn_model_nq(m), 7);
    assert_int_equal(cdyn_model_nv(m), 6);
    test_rng rng;
    test_rng_seed(&rng, 1);
    for (int trial = 0; trial < 10; ++trial) {
        double q[7], v[6], G[42], H[42], qd[7], ref[7];
        for (int i = 0; i < 7; ++i)
            q[i] = test_rng_range(&rng, -1, 1);
        for (int i = 0; i < 6; ++i)
            v[i] = test_rng_range(&rng, -5, 5);
        /* G uses the quaternion as given (no normalization) */
        assert_int_equal(cdyn_model_G(m, q, G, NULL), CDYN_OK);
        assert_int_equal(cdyn_model_qdot(m, q, v, qd, NULL), CDYN_OK);
        const double wq[4] = {0, v[3], v[4], v[5]};
        double prod[4];
        qmul(wq, q + 3, prod);
        for (int i = 0; i < 3; ++i)
            ref[i] = v[i];
        for (int i = 0; i < 4; ++i)
            ref[3 + i] = 0.5 * prod[i];
        for (int i = 0; i < 7; ++i) {
            double gv = 0;
            for (int j = 0; j < 6; ++j)
                gv += G[i + 7 * j] * v[j];
            assert_true(fabs(gv - ref[i]) < 1e-14 * 10);
            assert_true(fabs(qd[i] - ref[i]) < 1e-14 * 10);
        }
        /* H G = I */
        assert_int_equal(cdyn_model_G_pinv(m, q, H, NULL), CDYN_OK);
        for (int i = 0; i < 6; ++i)
            for (int j = 0; j < 6; ++j) {
                double s = 0;
                for (int k = 0; k < 7; ++k)
                    s += H[i + 6 * k] * G[k + 7 * j];
                assert_true(fabs(s - (i == j ? 1.0 : 0.0)) < 1e-13);
            }
    }
    /* The paper's matrix literally (Song, Kumar & Pang, Sec. IV.B), at q = (.., 1, 0, 0, 0):
     * rows 4..7 of G are [-q5 -q6 -q7; q4 q7 -q6; -q7 q4 q5; q6 -q5 q4] / 2. */
    const double q[7] = {0, 0, 0.05, 0.5, 0.5, -0.5, 0.5};
    double G[42];
    cdyn_model_G(m, q, G, NULL);
    const double q4 = q[3], q5 = q[4], q6 = q[5], q7 = q[6];
    const double P[4][3] = {{-q5, -q6, -q7}, {q4, q7, -q6}, {-q7, q4, q5}, {q6, -q5, q4}};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            assert_true(G[(3 + i) + 7 * (3 + j)] == 0.5 * P[i][j]);
    cdyn_model_free(m);
}

static void rodrigues(const double *w, double t, double *R)
{
    const double nw = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double a[3] = {w[0] / nw, w[1] / nw, w[2] / nw}, th = nw * t;
    const double c = cos(th), s = sin(th), k = 1 - c;
    const double K[9] = {0, a[2], -a[1], -a[2], 0, a[0], a[1], -a[0], 0};
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double K2 = 0;
            for (int l = 0; l < 3; ++l)
                K2 += K[i + 3 * l] * K[l + 3 * j];
            R[i + 3 * j] = (i == j ? 1.0 : 0.0) + s * K[i + 3 * j] + k * K2;
        }
}

static void test_world_angular_velocity(void **state)
{
    (void)state;
    cdyn_model *m = one_free_body(0);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    double q[7] = {0, 0, 0, cos(0.3), 0, sin(0.3), 0};
    const double v[6] = {0, 0, 0, 1.0, -2.0, 0.5};
    double R0[9], R1[9], Rw[9], ref[9];
    cdyn_eval(m, d, q, NULL, 0, NULL);
    cdyn_data_body_pose(d, 0, NULL, R0);
    /* RK4 on edot = G(e) w (linear in e for constant w): error ~ (h |w|)^4 T ~ 1e-10 */
    const double h = 1e-3, T = 0.5;
    for (int s = 0; s < (int)(T / h + 0.5); ++s) {
        double k[4][7], qt[7];
        cdyn_model_qdot(m, q, v, k[0], NULL);
        for (int st = 1; st < 4; ++st) {
            for (int i = 0; i < 7; ++i)
                qt[i] = q[i] + (st == 3 ? h : h / 2) * k[st - 1][i];
            cdyn_model_qdot(m, qt, v, k[st], NULL);
        }
        for (int i = 0; i < 7; ++i)
            q[i] += h / 6 * (k[0][i] + 2 * k[1][i] + 2 * k[2][i] + k[3][i]);
    }
    cdyn_eval(m, d, q, NULL, 0, NULL);
    cdyn_data_body_pose(d, 0, NULL, R1);
    rodrigues(v + 3, T, Rw);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            ref[i + 3 * j] = 0;
            for (int l = 0; l < 3; ++l)
                ref[i + 3 * j] += Rw[i + 3 * l] * R0[l + 3 * j];
        }
    assert_true(tm_maxdiff(9, R1, ref) < 1e-9);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

static void test_gap_gradient_via_G_pinv(void **state)
{
    (void)state;
    cdyn_model *m = one_free_body(1);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    /* a non-unit quaternion on purpose: everything uses its direction only */
    double q[7] = {0.1, 0.2, 0.3, 0.9, 0.3, -0.4, 0.2};
    double H[42], dpsi[7];
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    double Gn[6];
    for (int j = 0; j < 6; ++j)
        Gn[j] = cdyn_data_jacobian(d, CDYN_DIR_N)[j];
    cdyn_model_G_pinv(m, q, H, NULL);
    const double eps = 1e-6;
    for (int k = 0; k < 7; ++k) {
        double qp[7];
        memcpy(qp, q, sizeof(q));
        qp[k] += eps;
        cdyn_eval(m, d, qp, NULL, CDYN_EVAL_CONTACTS, NULL);
        const double gp = cdyn_data_gap(d)[0];
        qp[k] -= 2 * eps;
        cdyn_eval(m, d, qp, NULL, CDYN_EVAL_CONTACTS, NULL);
        dpsi[k] = (gp - cdyn_data_gap(d)[0]) / (2 * eps);
    }
    for (int k = 0; k < 7; ++k) {
        double s = 0;
        for (int j = 0; j < 6; ++j)
            s += Gn[j] * H[j + 6 * k];
        assert_true(fabs(s - dpsi[k]) < 1e-8);
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
}

static void test_arm_poses(void **state)
{
    (void)state;
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    const double l1 = 0.7, l2 = 0.5, p2[3] = {l1, 0, 0}, p3[3] = {l2, 0, 0}, ax[3] = {1, 0, 0};
    cdyn_body_desc links[3] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, NULL, 1, NULL, 0, 0, 0.1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, p2, NULL, 1, NULL, 0, 0, 0.1),
                               tm_joint(CDYN_JOINT_PRISMATIC, 0, p3, ax, 1, NULL, 0, 0, 0.1)};
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 3, links, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    const double q[3] = {0.4, -1.1, 0.25};
    cdyn_eval(m, d, q, NULL, 0, NULL);
    double p[3], R[9];
    cdyn_data_body_pose(d, 1, p, R);
    assert_true(fabs(p[0] - l1 * cos(q[0])) < 1e-15 && fabs(p[1] - l1 * sin(q[0])) < 1e-15);
    assert_true(fabs(R[0] - cos(q[0] + q[1])) < 1e-15 && fabs(R[1] - sin(q[0] + q[1])) < 1e-15);
    cdyn_data_body_pose(d, 2, p, R);
    const double L = l2 + q[2];
    assert_true(fabs(p[0] - (l1 * cos(q[0]) + L * cos(q[0] + q[1]))) < 1e-15);
    assert_true(fabs(p[1] - (l1 * sin(q[0]) + L * sin(q[0] + q[1]))) < 1e-15);
    assert_true(p[2] == 0.0);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* Body velocities against differences of the poses: vel = (o(+) - o(-)) / 2 eps and
 * [w]x = (R(+) - R(-)) / 2 eps R^T. */
static void check_body_velocities(const cdyn_model *m, const double *q, const double *v)
{
    const int nq = cdyn_model_nq(m), nb = cdyn_model_nbody(m);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    double *qp = malloc(sizeof(double) * nq), *qm = malloc(sizeof(double) * nq);
    const double eps = 1e-5;
    tm_step(m, q, v, eps, qp);
    tm_step(m, q, v, -eps, qm);
    for (int k = 0; k < nb; ++k) {
        double o[3], R[9], vel[3], w[3], op[3], Rp[9], om[3], Rm[9];
        cdyn_eval(m, d, q, v, 0, NULL);
        cdyn_data_body_pose(d, k, o, R);
        cdyn_data_body_velocity(d, k, vel, w);
        cdyn_eval(m, d, qp, NULL, 0, NULL);
        cdyn_data_body_pose(d, k, op, Rp);
        cdyn_eval(m, d, qm, NULL, 0, NULL);
        cdyn_data_body_pose(d, k, om, Rm);
        double W[9];
        for (int i = 0; i < 3; ++i) {
            assert_true(fabs((op[i] - om[i]) / (2 * eps) - vel[i]) < 1e-7);
            for (int j = 0; j < 3; ++j) {
                W[i + 3 * j] = 0;
                for (int l = 0; l < 3; ++l)
                    W[i + 3 * j] += (Rp[i + 3 * l] - Rm[i + 3 * l]) / (2 * eps) * R[j + 3 * l];
            }
        }
        assert_true(fabs(W[5] - w[0]) < 1e-7 && fabs(W[6] - w[1]) < 1e-7 &&
                    fabs(W[1] - w[2]) < 1e-7);
    }
    free(qp);
    free(qm);
    cdyn_data_free(d);
}

static void test_body_velocities(void **state)
{
    (void)state;
    /* 3D: a free body with a chain (revolute, prismatic, revolute) and a fixed body on it */
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_body_desc f = tm_free_body(1, 0.1, 0.1, 0.1);
    assert_int_equal(cdyn_builder_add_body(b, &f, NULL, NULL), CDYN_OK);
    const double p1[3] = {0.2, 0.1, 0}, a1[3] = {0, 1, 1}, a2[3] = {1, 0, 0.3}, p3[3] = {0, 0, 0.2};
    cdyn_body_desc links[4] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, p1, a1, 1, NULL, 0.1, 0.1, 0.1),
                               tm_joint(CDYN_JOINT_PRISMATIC, 0, p1, a2, 1, NULL, 0.1, 0.1, 0.1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, p3, a1, 1, NULL, 0.1, 0.1, 0.1),
                               tm_joint(CDYN_JOINT_FIXED, 0, p3, NULL, 0, NULL, 0, 0, 0)};
    links[2].frame.quat[0] = cos(0.4);
    links[2].frame.quat[2] = sin(0.4);
    assert_int_equal(cdyn_builder_add_chain(b, 0, 4, links, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    const double q[10] = {0.1, 0.2, 0.3, 0.8, 0.2, -0.4, 0.4, 0.5, 0.1, -0.7};
    const double v[9] = {0.3, -0.2, 0.5, 1.0, -2.0, 0.7, 1.5, -0.4, 2.0};
    double qn[10];
    memcpy(qn, q, sizeof(q));
    cdyn_model_normalize_q(m, qn, NULL);
    check_body_velocities(m, qn, v);
    cdyn_model_free(m);

    /* 2D: a free planar body carrying a revolute-prismatic chain */
    cdyn_builder_defaults(&o, 2);
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    f = tm_free_body(1, 0, 0, 0.1);
    assert_int_equal(cdyn_builder_add_body(b, &f, NULL, NULL), CDYN_OK);
    const double p2[3] = {0.3, -0.1, 0}, a3[3] = {0.6, 0.8, 0};
    cdyn_body_desc l2[2] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, p2, NULL, 1, NULL, 0, 0, 0.1),
                            tm_joint(CDYN_JOINT_PRISMATIC, 0, p2, a3, 1, NULL, 0, 0, 0.1)};
    assert_int_equal(cdyn_builder_add_chain(b, 0, 2, l2, NULL, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    const double q2[5] = {0.2, -0.3, 0.9, -0.5, 0.1}, v2[5] = {0.4, 0.3, -1.2, 2.0, 0.5};
    check_body_velocities(m, q2, v2);
    double q0[5];
    cdyn_model_default_q(m, q0);
    for (int i = 0; i < 5; ++i)
        assert_true(q0[i] == 0.0);
    cdyn_model_free(m);
}

static void test_quaternion_policy(void **state)
{
    (void)state;
    cdyn_model *m = one_free_body(1);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    const double qu[7] = {0.1, 0.2, 0.3, cos(0.3), sin(0.3), 0, 0};
    double qs[7];
    memcpy(qs, qu, sizeof(qu));
    for (int i = 3; i < 7; ++i)
        qs[i] *= 1.3; /* inside the tolerance: the direction is used */
    assert_int_equal(
        cdyn_eval(m, d, qu, NULL, CDYN_EVAL_ALL & ~(CDYN_EVAL_BIAS | CDYN_EVAL_CONTACT_DOT), NULL),
        CDYN_OK);
    const double g1 = cdyn_data_gap(d)[0];
    double R1[9], R2[9];
    cdyn_data_body_pose(d, 0, NULL, R1);
    assert_int_equal(cdyn_eval(m, d, qs, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    cdyn_data_body_pose(d, 0, NULL, R2);
    const double g2 = cdyn_data_gap(d)[0];
    assert_true(fabs(g2 - g1) < 1e-15);
    assert_true(tm_maxdiff(9, R1, R2) < 1e-15);
    /* outside: EINVAL and the data keeps the previous results */
    for (int i = 3; i < 7; ++i)
        qs[i] = qu[i] * 1.6;
    cdyn_report r;
    assert_int_equal(cdyn_eval(m, d, qs, NULL, CDYN_EVAL_CONTACTS, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "norm"));
    assert_true(cdyn_data_gap(d)[0] == g2);
    /* normalize_q */
    assert_int_equal(cdyn_model_normalize_q(m, qs, NULL), CDYN_OK);
    const double n = sqrt(qs[3] * qs[3] + qs[4] * qs[4] + qs[5] * qs[5] + qs[6] * qs[6]);
    assert_true(fabs(n - 1.0) < 1e-15);
    assert_true(tm_maxdiff(7, qs, qu) < 1e-15);
    /* a finite nonzero block far from unit norm (|e|^2 overflows or underflows) still has a
     * direction: the unit quaternion qu */
    const double scales[2] = {1e300, 1e-200};
    for (int k = 0; k < 2; ++k) {
        memcpy(qs, qu, sizeof(qu));
        for (int i = 3; i < 7; ++i)
            qs[i] *= scales[k];
        assert_int_equal(cdyn_model_normalize_q(m, qs, NULL), CDYN_OK);
        assert_true(tm_maxdiff(7, qs, qu) < 1e-15);
    }
    double qz[7] = {0, 0, 0, 0, 0, 0, 0};
    assert_int_equal(cdyn_model_normalize_q(m, qz, &r), CDYN_EINVAL);
    double qnan[7] = {0, 0, 0, NAN, 0, 0, 1};
    assert_int_equal(cdyn_model_normalize_q(m, qnan, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_eval(m, d, qnan, NULL, 0, &r), CDYN_EINVAL);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_G_quaternion_kinematics),
        cmocka_unit_test(test_world_angular_velocity),
        cmocka_unit_test(test_gap_gradient_via_G_pinv),
        cmocka_unit_test(test_arm_poses),
        cmocka_unit_test(test_body_velocities),
        cmocka_unit_test(test_quaternion_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
