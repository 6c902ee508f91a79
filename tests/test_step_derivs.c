/* cdyn_step_derivatives (cdyn/deriv.h) on the implicit scheme: the Jacobians A = dx+/dx and
 * B = dx+/dtau against central differences of whole steps (the oracle: cdyn_step itself, with
 * the tangent coordinates of q perturbed and read by exact quaternion exponentials and
 * logarithms, independent of the library's tangent maps), at states away from switches, with
 * both friction laws and both backends; at a switch against one-sided differences of the stated
 * side; the world-frame tangent convention on a spinning free body; bad calls refused with
 * outputs unchanged. CDYN_TEST_VERBOSE=1 prints the measured errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/deriv.h"
#include "deriv_support.h"
#include "model_support.h"
#include "step/step_internal.h"
#include "step_scenes.h"

static cdyn_step_options implicit_options(int friction_qp)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.friction_qp = friction_qp;
    /* the oracle's central differences carry the solve's error / eps: at the default tol
     * (1e-10) that is 1e-6 relative on the rolling NCP rows, at 1e-12 below 1e-10 */
    o.mcp.tol = 1e-12;
    return o;
}

/* ---- away from switches: central differences ---- */

/* The billiard ball settled on the table, sliding with spin (random velocities). */
static void billiard_sliding(int friction_qp, cdyn_step_backend backend)
{
    srand(19);
    for (int trial = 0; trial < 3; trial++) {
        scene sc;
        cdyn_step_options o = implicit_options(friction_qp);
        o.backend = backend;
        scene_open(&sc, scene_billiard(), &o);
        sc.x->q[2] = 0.05;
        sc.x->v[0] = urand(0.5, 1.5);
        sc.x->v[1] = urand(-0.5, 0.5);
        for (int i = 3; i < 6; i++)
            sc.x->v[i] = urand(-40, 40);
        settle(&sc, 5);
        assert_int_equal(sc.x->mode[0], CDYN_MODE_SLIP);
        char name[64];
        snprintf(name, sizeof name, "billiard slide %s %s", friction_qp ? "qp" : "ncp",
                 backend == CDYN_BACKEND_FB_SPARSE ? "sparse" : "dense");
        assert_true(central_error(&sc, 1e-6, name) <= 1e-6);
        scene_close(&sc);
    }
}

static void test_billiard_sliding_qp(void **state)
{
    (void)state;
    billiard_sliding(1, CDYN_BACKEND_AUTO);
}

static void test_billiard_sliding_ncp(void **state)
{
    (void)state;
    billiard_sliding(0, CDYN_BACKEND_AUTO);
}

static void test_billiard_sliding_sparse(void **state)
{
    (void)state;
    billiard_sliding(1, CDYN_BACKEND_FB_SPARSE);
}

/* Rolling: v = w x (0, 0, r) on the table, so the contact point is at rest (STICK). */
static void billiard_rolling(int friction_qp)
{
    srand(7);
    scene sc;
    cdyn_step_options o = implicit_options(friction_qp);
    scene_open(&sc, scene_billiard(), &o);
    const double r = 0.05, wx = urand(-20, 20), wy = urand(10, 30);
    sc.x->q[2] = r;
    sc.x->v[3] = wx;
    sc.x->v[4] = wy;
    sc.x->v[0] = r * wy;
    sc.x->v[1] = -r * wx;
    settle(&sc, 5);
    assert_int_equal(sc.x->mode[0], CDYN_MODE_STICK);
    assert_true(central_error(&sc, 1e-6, friction_qp ? "billiard roll qp" : "billiard roll ncp")
                <= 1e-6);
    scene_close(&sc);
}

static void test_billiard_rolling(void **state)
{
    (void)state;
    billiard_rolling(1);
    billiard_rolling(0);
}

/* A sphere at rest on the plane pushed by a small horizontal force and torque: sticking
 * friction with a force inside the cone (B's columns matter). */
static void test_sphere_stick(void **state)
{
    (void)state;
    for (int qp = 0; qp <= 1; qp++) {
        scene sc;
        cdyn_step_options o = implicit_options(qp);
        scene_open(&sc, scene_sphere(0.05, 0.2, 0.8), &o);
        sc.x->q[2] = 0.05;
        sc.tau[0] = 0.15;
        sc.tau[1] = -0.05;
        sc.tau[5] = 0.002;
        settle(&sc, 10);
        assert_int_equal(sc.x->mode[0], CDYN_MODE_STICK);
        assert_true(central_error(&sc, 1e-6, qp ? "sphere stick qp" : "sphere stick ncp") <= 1e-6);
        scene_close(&sc);
    }
}

/* Song-Kumar-Pang's planar disk, sliding with backspin (the BVP's start) and after it rolls. */
static void test_disk(void **state)
{
    (void)state;
    for (int qp = 0; qp <= 1; qp++) {
        scene sc;
        cdyn_step_options o = implicit_options(qp);
        scene_open(&sc, scene_disk(0.4, 1e4, 10), &o);
        sc.x->q[1] = 0.1;
        sc.x->v[0] = 1.2;
        sc.x->v[2] = 1.0;
        settle(&sc, 3);
        assert_int_equal(sc.x->mode[0], CDYN_MODE_SLIP);
        assert_true(central_error(&sc, 1e-6, qp ? "disk slide qp" : "disk slide ncp") <= 1e-6);
        settle(&sc, 60);
        assert_int_equal(sc.x->mode[0], CDYN_MODE_STICK);
        assert_true(central_error(&sc, 1e-6, qp ? "disk roll qp" : "disk roll ncp") <= 1e-6);
        scene_close(&sc);
    }
}

/* With joint damping 0.05 and 0.02 N m s/rad (part of h(q, v), so of d id/dv in the step's
 * matrix) as well. */
static void test_chain(void **state)
{
    (void)state;
    for (int qp = 0; qp <= 3; qp++) {
        scene sc;
        cdyn_step_options o = implicit_options(qp & 1);
        scene_open(&sc, qp < 2 ? two_link_chain(0, 0) : two_link_chain(0.05, 0.02), &o);
        /* tip height 0.2 + 0.15 sin(t1) + 0.15 sin(t1 + t2) - 0.03 = 0 */
        sc.x->q[0] = -M_PI / 4;
        sc.x->q[1] = -asin((0.2 - 0.03 + 0.15 * sin(-M_PI / 4)) / 0.15) + M_PI / 4;
        sc.x->v[0] = 0.5;
        sc.tau[0] = 0.05;
        sc.tau[1] = -0.02;
        settle(&sc, 5);
        assert_int_not_equal(sc.x->mode[0], CDYN_MODE_FREE);
        static const char *const names[4] = {"2-link chain ncp", "2-link chain qp",
                                             "damped 2-link chain ncp", "damped 2-link chain qp"};
        assert_true(central_error(&sc, 1e-6, names[qp]) <= 1e-6);
        scene_close(&sc);
    }
}

/* A ball in flight above the plane (its row takes part, open: lambda_n = 0 with a positive
 * gap, friction unknowns held at 0), spinning. */
static void test_flight(void **state)
{
    (void)state;
    for (int qp = 0; qp <= 1; qp++) {
        scene sc;
        cdyn_step_options o = implicit_options(qp);
        scene_open(&sc, scene_billiard(), &o);
        sc.x->q[2] = 0.3;
        sc.x->v[0] = 1;
        sc.x->v[2] = 0.5;
        sc.x->v[3] = 10;
        sc.x->v[5] = -4;
        assert_true(central_error(&sc, 1e-6, qp ? "ball in flight qp" : "ball in flight ncp") <=
                    1e-6);
        scene_close(&sc);
    }
}

/* Three spheres stacked on the plane, offset sideways so that the upper contacts' normals lean
 * and the spheres slide: three rows, sparse (KLU) and dense backends. */
static void test_stack(void **state)
{
    (void)state;
    for (int sparse = 0; sparse <= 1; sparse++) {
        scene sc;
        cdyn_step_options o = implicit_options(1);
        o.backend = sparse ? CDYN_BACKEND_FB_SPARSE : CDYN_BACKEND_FB_DENSE;
        scene_open(&sc, scene_spheres(3, 0.05, 0.2, 0.3, 0.0, 1, G_ACC), &o);
        const double dx[3] = {0.0, 0.02, 0.035};
        for (int i = 0; i < 3; i++) {
            double *q = sc.x->q + 7 * i;
            q[0] = dx[i];
            q[2] = i == 0 ? 0.05 : sc.x->q[7 * (i - 1) + 2] +
                                       sqrt(0.01 - (dx[i] - dx[i - 1]) * (dx[i] - dx[i - 1]));
        }
        settle(&sc, 3);
        for (int i = 0; i < 3; i++)
            assert_int_not_equal(sc.x->mode[i], CDYN_MODE_FREE);
        assert_true(central_error(&sc, 1e-6, sparse ? "3-sphere stack sparse"
                                                    : "3-sphere stack dense") <= 1e-6);
        scene_close(&sc);
    }
}

/* ---- the tangent convention ---- */

/* A free body with three different inertias spinning in the air (no contact rows taking part):
 * A's q rows and columns are in world-frame angles. Central differences in that convention
 * agree; in the body-frame one (e (x) exp) they do not, so the check tells the two apart. */
static void test_spinning_body(void **state)
{
    (void)state;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d = tm_free_body(1.0, 0.01, 0.02, 0.035);
    int body;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    scene sc;
    cdyn_step_options o = implicit_options(1);
    o.h = 0.02;
    scene_open(&sc, m, &o);
    const double e[4] = {0.8, 0.2, -0.4, 0.4};
    const double n = sqrt(0.64 + 0.04 + 0.16 + 0.16);
    for (int i = 0; i < 4; i++)
        sc.x->q[3 + i] = e[i] / n;
    sc.x->v[3] = 3;
    sc.x->v[4] = -2;
    sc.x->v[5] = 5;
    assert_true(central_error(&sc, 1e-6, "spinning free body") <= 1e-6);
    /* the body-frame convention's differences of the q columns miss A by O(1) */
    const int nx = sc.nx, nv = sc.nv;
    double *A = calloc((size_t)nx * nx, sizeof(double)), p[12], mi[12];
    cdyn_state *x1 = NULL, *y = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x1, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_create(m, NULL, &y, NULL), CDYN_OK);
    cdyn_step_deriv_report dr;
    derivs(&sc, CDYN_DERIV_RELEASED, x1, A, NULL, &dr);
    assert_int_equal(dr.rows, 0);
    double miss = 0;
    const double eps = 1e-6;
    for (int j = 3; j < 6; j++) {
        for (int sgn = -1; sgn <= 1; sgn += 2) {
            assert_int_equal(cdyn_state_copy(y, sc.x, NULL), CDYN_OK);
            perturb_q(m, y->q, j, sgn * eps, 1);
            assert_int_equal(cdyn_step(sc.s, NULL, y, NULL), CDYN_OK);
            for (int i = 0; i < nv; i++)
                (sgn > 0 ? p : mi)[i] = tangent_diff(m, y->q, x1->q, i);
        }
        for (int i = 0; i < nv; i++)
            miss = fmax(miss, fabs(A[i + (size_t)j * nx] - (p[i] - mi[i]) / (2 * eps)));
    }
    if (tm_verbose())
        printf("body-frame convention misses A's q block by %.3g\n", miss);
    assert_true(miss > 0.1);
    cdyn_state_free(x1);
    cdyn_state_free(y);
    free(A);
    scene_close(&sc);
}

/* ---- at a switch: one-sided differences of the stated side ---- */

/* A ball with horizontal speed that touches the plane exactly at the end of the step
 * (z0 = r + h^2 g, vz = 0: the free step ends at gap 0 with no force), so its normal pair
 * sits at its switch. For each state column whose perturbation moves the end gap (g_j =
 * dz+/dx_j of the released side), the released derivative is the one-sided difference toward
 * g_j eps > 0 (the ball stays free) and the held one the difference toward g_j eps < 0 (the
 * contact closes and presses). Second-order one-sided differences
 * (-3 f(0) + 4 f(e) - f(2e)) / (2e). */
static void touchdown(int friction_qp)
{
    scene sc;
    cdyn_step_options o = implicit_options(friction_qp);
    scene_open(&sc, scene_billiard(), &o);
    const double r = 0.05, h = o.h, g = 9.8;
    sc.x->q[2] = r + h * h * g;
    sc.x->v[0] = 0.8;
    sc.x->v[4] = 5;
    const int nx = sc.nx, nv = sc.nv;
    double *Ar = calloc((size_t)nx * nx, sizeof(double));
    double *Ah = calloc((size_t)nx * nx, sizeof(double));
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
    cdyn_step_deriv_report rr, rh;
    derivs(&sc, CDYN_DERIV_HELD, x1, Ah, NULL, &rh);
    derivs(&sc, CDYN_DERIV_RELEASED, x1, Ar, NULL, &rr);
    assert_int_equal(rr.degenerate, 1);
    assert_true(rr.normal_margin < 1e-12);
    assert_int_equal(rh.forced_released, friction_qp ? 0 : 1);
    double err_r = 0, err_h = 0, big = 0;
    int tested = 0;
    const double e = 1e-7;
    for (int j = 0; j < 2 * nv; j++) {
        const double gj = Ar[2 + (size_t)j * nx]; /* dz+/dx_j, z+ = q's tangent coordinate 2 */
        if (fabs(gj) < 1e-3)
            continue;
        tested++;
        const double s = gj > 0 ? 1.0 : -1.0;
        for (int i = 0; i < 2 * nv; i++) {
            const double dr = one_sided(&sc, x1, j, s * e, i);
            const double dh = one_sided(&sc, x1, j, -s * e, i);
            err_r = fmax(err_r, fabs(Ar[i + (size_t)j * nx] - dr));
            err_h = fmax(err_h, fabs(Ah[i + (size_t)j * nx] - dh));
            big = fmax(big, fmax(fabs(dr), fabs(dh)));
        }
    }
    /* the two sides differ: the switch is real */
    double side_gap = 0;
    for (size_t t = 0; t < (size_t)nx * nx; t++)
        side_gap = fmax(side_gap, fabs(Ar[t] - Ah[t]));
    if (tm_verbose())
        printf("touchdown %s: %d columns, rel.err released %.2e held %.2e, sides differ by "
               "%.3g (max %.3g)\n", friction_qp ? "qp" : "ncp", tested, err_r / big,
               err_h / big, side_gap, big);
    assert_true(tested >= 2);
    assert_true(err_r / big <= 1e-6);
    if (friction_qp) {
        assert_true(err_h / big <= 1e-6);
        assert_true(side_gap > 1e-2 * big);
    } else {
        assert_true(side_gap == 0.0); /* held was not available: released taken */
    }
    cdyn_state_free(x1);
    free(Ar);
    free(Ah);
    scene_close(&sc);
}

static void test_touchdown_qp(void **state)
{
    (void)state;
    touchdown(1);
}

static void test_touchdown_ncp(void **state)
{
    (void)state;
    touchdown(0);
}

/* ---- bad calls ---- */

/* A step taken in substeps: the Newton iterations capped (no globalization, no continuation)
 * so that the whole step of a ball pressed into the table fails and shorter substeps succeed (the
 * driver's adaptive substeps, of unequal lengths for the NCP rows). The derivative, chained over
 * the substeps, against central differences of whole steps (which take the same substeps); the
 * last substep's derivative alone (white-box: what the step would give without the chain) must
 * miss them. */
static void substepped(int friction_qp, int max_iter)
{
    srand(23);
    scene sc;
    cdyn_step_options o = implicit_options(friction_qp);
    scene_open(&sc, scene_billiard(), &o);
    sc.x->q[2] = 0.05;
    sc.x->v[0] = 1.0;
    sc.x->v[1] = 0.3;
    for (int i = 3; i < 6; i++)
        sc.x->v[i] = urand(-40, 40);
    settle(&sc, 5);
    sc.x->v[2] = -3.0;
    cdyn_stepper_free(sc.s);
    o.mcp.max_iter = max_iter;
    o.mcp.globalize = 0;
    o.continuation = 0;
    assert_int_equal(cdyn_stepper_create(sc.m, &o, &sc.s, NULL), CDYN_OK);
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
    cdyn_state_copy(x1, sc.x, NULL);
    cdyn_step_report rep;
    assert_int_equal(cdyn_step(sc.s, sc.tau, x1, &rep), CDYN_OK);
    assert_true(rep.substeps >= 2);
    char name[64];
    snprintf(name, sizeof name, "%d substeps %s", rep.substeps, friction_qp ? "qp" : "ncp");
    assert_true(central_error(&sc, 1e-6, name) <= 1e-6);
    /* the last substep alone */
    const int nx = sc.nx, nv = sc.nv;
    double *A = malloc((size_t)nx * nx * sizeof(double)), *B = malloc((size_t)nx * nv * 8);
    double *A1 = malloc((size_t)nx * nx * sizeof(double));
    cdyn_step_deriv_report dr;
    assert_int_equal(cdyn_step(sc.s, sc.tau, sc.x, &rep), CDYN_OK);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, B, &dr), CDYN_OK);
    sc.s->last_substeps = 1;
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A1, NULL, &dr),
                     CDYN_OK);
    double diff = 0, big = 0;
    for (int i = 0; i < nx * nx; i++) {
        diff = fmax(diff, fabs(A1[i] - A[i]));
        big = fmax(big, fabs(A[i]));
    }
    assert_true(diff > 1e-2 * big);
    free(A);
    free(B);
    free(A1);
    cdyn_state_free(x1);
    scene_close(&sc);
}

static void test_substeps(void **state)
{
    (void)state;
    substepped(1, 2); /* 4 substeps of h/8 .. h/2 */
    substepped(0, 5); /* 7 substeps down to h/16 */
}

static void test_refusals(void **state)
{
    (void)state;
    scene sc;
    cdyn_step_options o = implicit_options(1);
    scene_open(&sc, scene_billiard(), &o);
    const int nx = sc.nx, nv = sc.nv;
    double *A = malloc((size_t)nx * nx * sizeof(double)), *B = malloc((size_t)nx * nv * 8);
    for (int i = 0; i < nx * nx; i++)
        A[i] = 7.0;
    for (int i = 0; i < nx * nv; i++)
        B[i] = 7.0;
    cdyn_step_deriv_report dr;
    /* not stepped yet */
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, B, &dr),
                     CDYN_EINVAL);
    assert_non_null(strstr(dr.solver.message, "no successful step"));
    sc.x->q[2] = 0.05;
    sc.x->v[0] = 1;
    settle(&sc, 1);
    assert_int_equal(cdyn_step_derivatives(NULL, CDYN_DERIV_RELEASED, nx, nv, A, B, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, NULL, NULL, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx - 1, nv, A, B, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv + 1, A, B, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, (cdyn_deriv_side)5, nx, nv, A, B, NULL),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_deriv_nx(NULL), -1);
    /* a failed step leaves none: a state with NaN */
    cdyn_state *bad = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &bad, NULL), CDYN_OK);
    bad->v[0] = NAN;
    assert_int_equal(cdyn_step(sc.s, NULL, bad, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, B, &dr),
                     CDYN_EINVAL);
    cdyn_state_free(bad);
    for (int i = 0; i < nx * nx; i++)
        assert_true(A[i] == 7.0);
    for (int i = 0; i < nx * nv; i++)
        assert_true(B[i] == 7.0);
    /* after a good step: OK, and B alone */
    settle(&sc, 1);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, NULL, B, &dr),
                     CDYN_OK);
    assert_int_equal(dr.nx, nx);
    assert_int_equal(dr.nu, nv);
    /* a step of several substeps whose record was lost (out of memory; white-box: what
     * cdyn_step records) */
    sc.s->last_substeps = 2;
    for (int i = 0; i < nx * nx; i++)
        A[i] = 7.0;
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, &dr),
                     CDYN_ENOMEM);
    assert_non_null(strstr(dr.solver.message, "substeps"));
    for (int i = 0; i < nx * nx; i++)
        assert_true(A[i] == 7.0);
    scene_close(&sc);

    /* other schemes: the Baumgarte step is not supported yet (the rigid ones:
     * test_rigid_derivs.c) */
    const cdyn_scheme others[] = {CDYN_SCHEME_BAUMGARTE};
    for (int k = 0; k < 1; k++) {
        cdyn_step_options po;
        cdyn_step_defaults(&po, others[k]);
        scene_open(&sc, scene_billiard(), &po);
        sc.x->q[2] = 0.06;
        settle(&sc, 1);
        for (int i = 0; i < nx * nx; i++)
            A[i] = 7.0;
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, sc.nx, nv, A, NULL,
                                               &dr),
                         CDYN_ENOTSUP);
        assert_non_null(strstr(dr.solver.message, cdyn_scheme_str(others[k])));
        for (int i = 0; i < nx * nx; i++)
            assert_true(A[i] == 7.0);
        scene_close(&sc);
    }
    free(A);
    free(B);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_billiard_sliding_qp),
        cmocka_unit_test(test_billiard_sliding_ncp),
        cmocka_unit_test(test_billiard_sliding_sparse),
        cmocka_unit_test(test_billiard_rolling),
        cmocka_unit_test(test_sphere_stick),
        cmocka_unit_test(test_disk),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_flight),
        cmocka_unit_test(test_stack),
        cmocka_unit_test(test_spinning_body),
        cmocka_unit_test(test_touchdown_qp),
        cmocka_unit_test(test_touchdown_ncp),
        cmocka_unit_test(test_substeps),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
