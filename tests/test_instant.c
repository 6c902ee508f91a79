/* cdyn_instant_solve on single bodies with closed-form answers (Newton's laws with Coulomb
 * friction), the Painlevé rod (P-matrix test), and bad input. Every expected value is derived in
 * the comment next to it. */
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

static const double G = 9.81;

#define ASSERT_NEAR(a, b, tol)                                                                     \
    do {                                                                                           \
        const double a_ = (a), b_ = (b);                                                           \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            print_error("%s = %.15g, expected %.15g (tol %g)\n", #a, a_, b_, (double)(tol));       \
            fail();                                                                                \
        }                                                                                          \
    } while (0)

typedef struct scene {
    cdyn_model *m;
    cdyn_data *d;
} scene;

static void scene_free(scene *s)
{
    cdyn_data_free(s->d);
    cdyn_model_free(s->m);
}

/* A planar free body (mass, Izz) carrying one geometry at (gx, gy) of its frame, and the ground
 * half-plane y <= 0; friction mu. */
static scene planar(cdyn_geom_type type, double size, double gx, double gy, double mass, double izz,
                    double mu, int dense)
{
    scene s = {NULL, NULL};
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc body;
    cdyn_body_desc_defaults(&body);
    body.mass = mass;
    body.inertia[2] = izz;
    int id = 0, gp = 0, gb = 0;
    assert_int_equal(cdyn_builder_add_body(b, &body, &id, NULL), CDYN_OK);
    cdyn_geom_desc plane, geom;
    cdyn_geom_desc_defaults(&plane);
    cdyn_geom_desc_defaults(&geom);
    geom.body = id;
    geom.type = type;
    geom.size[0] = size;
    geom.frame = cdyn_pose_planar(gx, gy, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &geom, &gb, NULL), CDYN_OK);
    cdyn_contact_pair_desc pair;
    cdyn_contact_pair_desc_defaults(&pair);
    pair.geom_a = gp; /* n = +y, t = (n_y, -n_x) = +x */
    pair.geom_b = gb;
    pair.mu = mu;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pair, NULL, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_build(b, &s.m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    cdyn_data_options dop;
    cdyn_data_defaults(&dop);
    dop.dense = dense;
    assert_int_equal(cdyn_data_create(s.m, &dop, &s.d, NULL), CDYN_OK);
    return s;
}

/* Everything of one call, with the per-row outputs of a single-row model. */
typedef struct sol {
    double vdot[6], ln, lt, lo, an, at, ao;
    cdyn_instant_mode mode;
    cdyn_instant_result r;
    cdyn_report rep;
    cdyn_status st;
} sol;

static void run(scene *s, const double *q, const double *v, const double *tau,
                const cdyn_instant_options *o, sol *x)
{
    memset(x, 0, sizeof *x);
    x->r.vdot = x->vdot;
    x->r.lambda_n = &x->ln;
    x->r.lambda_t = &x->lt;
    x->r.lambda_o = &x->lo;
    x->r.acc_n = &x->an;
    x->r.acc_t = &x->at;
    x->r.acc_o = &x->ao;
    x->r.mode = &x->mode;
    x->st = cdyn_instant_solve(s->m, s->d, q, v, tau, o, &x->r, &x->rep);
}

/* The three solvers of a single-row problem: pyramid (Lemke), cone by box merit, cone by
 * FB-Newton. In the plane and for sliding contacts they solve the same law. */
static void options_k(int k, cdyn_instant_options *o)
{
    cdyn_instant_defaults(o);
    if (k > 0) {
        o->friction = CDYN_INSTANT_CONE;
        o->ncp_solver = k == 1 ? CDYN_INSTANT_BOX_MERIT : CDYN_INSTANT_FB_NEWTON;
    }
}

/* A block (a point contact at its centre of mass, so friction exerts no moment) sliding on the
 * floor with v_x = +-1 under a horizontal force F: lam_n = m g, lam_t = -mu m g sign(v_x),
 * a_x = F/m - mu g sign(v_x), a_y = 0, no rotation (Newton's second law with Coulomb friction). */
static void test_sliding_block(void **state)
{
    (void)state;
    const double m = 2.0, mu = 0.3, F = 3.0;
    scene s = planar(CDYN_GEOM_POINT, 0, 0, 0, m, 0.1, mu, 1);
    const double q[3] = {0, 0, 0}, tau[3] = {F, 0, 0};
    for (int k = 0; k < 3; ++k)
        for (int dir = -1; dir <= 1; dir += 2) {
            const double v[3] = {dir, 0, 0};
            cdyn_instant_options o;
            options_k(k, &o);
            sol x;
            run(&s, q, v, tau, &o, &x);
            assert_int_equal(x.st, CDYN_OK);
            assert_int_equal(x.mode, CDYN_INSTANT_SLIDE_SLIDE);
            assert_int_equal(x.r.n_touching, 1);
            assert_int_equal(x.r.n_rolling, 0);
            ASSERT_NEAR(x.ln, m * G, 1e-9);
            ASSERT_NEAR(x.lt, -mu * m * G * dir, 1e-9);
            ASSERT_NEAR(x.vdot[0], F / m - mu * G * dir, 1e-9);
            ASSERT_NEAR(x.vdot[1], 0.0, 1e-9);
            ASSERT_NEAR(x.vdot[2], 0.0, 1e-9);
            ASSERT_NEAR(x.an, 0.0, 1e-9);
            if (k == 0) {
                assert_int_equal(x.r.pmatrix, 1); /* A = 1/m > 0 */
                assert_int_equal(x.r.determinate, 1);
                assert_int_equal(x.r.combinations, 1);
            }
        }
    scene_free(&s);
}

/* The block at rest: static friction balances F while F <= mu m g (a = 0, lam_t = -F, rolling ->
 * rolling); above, it starts to slide: a_x = F/m - mu g, lam_t = -mu m g (rolling -> sliding).
 * Without friction it slides at F/m. */
static void test_block_at_rest(void **state)
{
    (void)state;
    const double m = 2.0, mu = 0.3;
    const double q[3] = {0, 0, 0}, v[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        scene s = planar(CDYN_GEOM_POINT, 0, 0, 0, m, 0.1, mu, 1);
        cdyn_instant_options o;
        options_k(k, &o);
        sol x;
        const double Fs = 0.5 * mu * m * G, Fk = 2.0 * mu * m * G;
        double tau[3] = {Fs, 0, 0};
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.mode, CDYN_INSTANT_ROLL_ROLL);
        ASSERT_NEAR(x.ln, m * G, 1e-9);
        ASSERT_NEAR(x.lt, -Fs, 1e-9);
        ASSERT_NEAR(x.vdot[0], 0.0, 1e-9);
        ASSERT_NEAR(x.at, 0.0, 1e-9);
        if (k == 0) {
            assert_int_equal(x.r.combinations, 2); /* one rolling contact, one tangent */
            assert_int_equal(x.r.feasible, 1);
            assert_int_equal(x.r.pmatrix, 1);
        }
        tau[0] = -Fk;
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.mode, CDYN_INSTANT_ROLL_SLIDE);
        ASSERT_NEAR(x.lt, mu * m * G, 1e-9);
        ASSERT_NEAR(x.vdot[0], -Fk / m + mu * G, 1e-9);
        ASSERT_NEAR(x.at, x.vdot[0], 1e-9);
        scene_free(&s);

        s = planar(CDYN_GEOM_POINT, 0, 0, 0, m, 0.1, 0.0, 1); /* frictionless */
        tau[0] = Fs;
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.mode, CDYN_INSTANT_ROLL_SLIDE);
        ASSERT_NEAR(x.lt, 0.0, 1e-12);
        ASSERT_NEAR(x.vdot[0], Fs / m, 1e-9);
        scene_free(&s);
    }
}

/* Lifting off: an upward force F_y = 1.5 m g leaves lam = 0 and a_y = F_y/m - g = g/2 with the
 * contact breaking, from rolling and from sliding. */
static void test_lift_off(void **state)
{
    (void)state;
    const double m = 2.0;
    scene s = planar(CDYN_GEOM_POINT, 0, 0, 0, m, 0.1, 0.4, 1);
    const double q[3] = {0, 0, 0}, tau[3] = {0.7, 1.5 * m * G, 0.2};
    for (int k = 0; k < 3; ++k)
        for (int sliding = 0; sliding < 2; ++sliding) {
            const double v[3] = {sliding ? 0.5 : 0.0, 0, 0};
            cdyn_instant_options o;
            options_k(k, &o);
            sol x;
            run(&s, q, v, tau, &o, &x);
            assert_int_equal(x.st, CDYN_OK);
            assert_int_equal(x.mode, sliding ? CDYN_INSTANT_SLIDE_BREAK : CDYN_INSTANT_ROLL_BREAK);
            ASSERT_NEAR(x.ln, 0.0, 1e-9);
            ASSERT_NEAR(x.lt, 0.0, 1e-9);
            ASSERT_NEAR(x.vdot[0], 0.7 / m, 1e-9);
            ASSERT_NEAR(x.vdot[1], 0.5 * G, 1e-9);
            ASSERT_NEAR(x.vdot[2], 0.2 / 0.1, 1e-9);
            ASSERT_NEAR(x.an, 0.5 * G, 1e-9);
        }
    scene_free(&s);
}

/* A uniform disk (I = m r^2 / 2) at rest on the floor pushed at its centre by F: it rolls while
 * the needed friction F/3 <= mu m g, with a = 2F/(3m), alpha = -a/r, lam_t = -F/3 (textbook
 * rolling without slipping); beyond, it slips: a = F/m - mu g, lam_t = -mu m g and the friction
 * moment about the centre gives alpha = -r mu m g / I = -2 mu g / r. */
static void test_rolling_disk(void **state)
{
    (void)state;
    const double m = 1.5, r = 0.2, I = 0.5 * m * r * r, mu = 0.25;
    scene s = planar(CDYN_GEOM_CIRCLE, r, 0, 0, m, I, mu, 1);
    const double q[3] = {0, r, 0}, v[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        cdyn_instant_options o;
        options_k(k, &o);
        sol x;
        double F = 2.0 * mu * m * G; /* F/3 < mu m g */
        double tau[3] = {F, 0, 0};
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.mode, CDYN_INSTANT_ROLL_ROLL);
        ASSERT_NEAR(x.vdot[0], 2 * F / (3 * m), 1e-9);
        ASSERT_NEAR(x.vdot[2], -2 * F / (3 * m) / r, 1e-8);
        ASSERT_NEAR(x.lt, -F / 3, 1e-9);
        ASSERT_NEAR(x.ln, m * G, 1e-9);
        F = 4.0 * mu * m * G; /* F/3 > mu m g */
        tau[0] = F;
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.mode, CDYN_INSTANT_ROLL_SLIDE);
        ASSERT_NEAR(x.vdot[0], F / m - mu * G, 1e-9);
        ASSERT_NEAR(x.vdot[2], -2 * mu * G / r, 1e-8);
        ASSERT_NEAR(x.lt, -mu * m * G, 1e-9);
        /* the slip acceleration a_x - r alpha... of the contact point: a + r alpha > 0 */
        ASSERT_NEAR(x.at, x.vdot[0] + r * x.vdot[2], 1e-9);
        assert_true(x.at > 0.0);
    }
    scene_free(&s);
}

/* A solid sphere (I = 2/5 m r^2) at rest on the floor pushed at its centre by a horizontal force
 * of magnitude F along (1, 1)/sqrt 2. Rolling needs friction 2F/7 (a = 5F/(7m)). The circular
 * cone allows it up to F = 7 mu m g / 2; the per-axis pyramid (|lam_t|, |lam_o| <= mu lam_n)
 * up to sqrt 2 times that. At F = 1.2 * 7 mu m g / 2 the cone slips: a = F/m - mu g along the
 * force, friction mu m g against it; the pyramid still rolls. */
static void test_sphere_cone_vs_pyramid(void **state)
{
    (void)state;
    const double m = 0.8, r = 0.1, mu = 0.2;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = m;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 0.4 * m * r * r;
    int id = 0, gp = 0, gs = 0;
    assert_int_equal(cdyn_builder_add_body(b, &ball, &id, NULL), CDYN_OK);
    cdyn_geom_desc plane, sph;
    cdyn_geom_desc_defaults(&plane);
    cdyn_geom_desc_defaults(&sph);
    sph.body = id;
    sph.type = CDYN_GEOM_SPHERE;
    sph.size[0] = r;
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &sph, &gs, NULL), CDYN_OK);
    cdyn_contact_pair_desc pair;
    cdyn_contact_pair_desc_defaults(&pair);
    pair.geom_a = gp;
    pair.geom_b = gs;
    pair.mu = mu;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pair, NULL, NULL), CDYN_OK);
    scene s = {NULL, NULL};
    assert_int_equal(cdyn_builder_build(b, &s.m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    assert_int_equal(cdyn_data_create(s.m, NULL, &s.d, NULL), CDYN_OK);

    const double q[7] = {0, 0, r, 1, 0, 0, 0}, v[6] = {0};
    const double F = 1.2 * 3.5 * mu * m * G, c = sqrt(0.5);
    const double tau[6] = {F * c, F * c, 0, 0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        cdyn_instant_options o;
        options_k(k, &o);
        sol x;
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.r.n_rolling, 1);
        if (k == 0) { /* pyramid: rolls */
            assert_int_equal(x.mode, CDYN_INSTANT_ROLL_ROLL);
            assert_int_equal(x.r.combinations, 4);
            ASSERT_NEAR(x.vdot[0], 5 * F * c / (7 * m), 1e-9);
            ASSERT_NEAR(x.vdot[1], 5 * F * c / (7 * m), 1e-9);
            ASSERT_NEAR(hypot(x.lt, x.lo), 2 * F / 7, 1e-9);
        } else { /* cone: slips along the force */
            assert_int_equal(x.mode, CDYN_INSTANT_ROLL_SLIDE);
            ASSERT_NEAR(x.vdot[0], (F / m - mu * G) * c, 1e-8);
            ASSERT_NEAR(x.vdot[1], (F / m - mu * G) * c, 1e-8);
            ASSERT_NEAR(hypot(x.lt, x.lo), mu * m * G, 1e-8);
            /* friction opposite to the slip acceleration of the contact point */
            ASSERT_NEAR(x.lt * x.ao - x.lo * x.at, 0.0, 1e-8);
            assert_true(x.lt * x.at + x.lo * x.ao < 0.0);
        }
        ASSERT_NEAR(x.ln, m * G, 1e-8);
        ASSERT_NEAR(x.vdot[2], 0.0, 1e-8);
    }
    scene_free(&s);
}

/* The Painlevé rod: a uniform rod (half-length l, I = m l^2 / 3) whose lower end touches the
 * floor at angle theta, sliding in +x with its lower end leading (the end right of and below the
 * centre). With the end at (l cos th, -l sin th) from the centre, the sliding LCP is 1x1 with
 * A = (1 + 3 cos^2 th - 3 mu sin th cos th) / m and b = -g (Stewart, "Rigid-body dynamics with
 * friction and impact", SIAM Review 42, 2000, Sec. 4.1). At theta = 45 deg A < 0 for mu > 5/3:
 * not a P-matrix; with b < 0 there is no solution. With mu = 1: A > 0, lam_n = -b/A. With an
 * upward pull making b > 0 and mu = 2 there are two solutions (lam_n = 0 and -b/A): Lemke returns
 * one, the P-test says "not P", so uniqueness is not established. */
static void test_painleve_rod(void **state)
{
    (void)state;
    const double m = 1.0, l = 0.5, th = 0.78539816339744830962, I = m * l * l / 3;
    const double q[3] = {0, l * sin(th), 0}, v[3] = {1.0, 0, 0};
    cdyn_instant_options o;
    cdyn_instant_defaults(&o);
    sol x;

    scene s = planar(CDYN_GEOM_POINT, 0, l * cos(th), -l * sin(th), m, I, 1.0, 1);
    const double tau[3] = {0, 0, 0};
    run(&s, q, v, tau, &o, &x);
    assert_int_equal(x.st, CDYN_OK);
    const double A1 = (1 + 3 * cos(th) * cos(th) - 3 * 1.0 * sin(th) * cos(th)) / m;
    ASSERT_NEAR(x.ln, G / A1, 1e-9);
    assert_int_equal(x.r.pmatrix, 1);
    assert_int_equal(x.r.determinate, 1);
    assert_int_equal(x.mode, CDYN_INSTANT_SLIDE_SLIDE);
    scene_free(&s);

    s = planar(CDYN_GEOM_POINT, 0, l * cos(th), -l * sin(th), m, I, 2.0, 1);
    run(&s, q, v, tau, &o, &x);
    assert_int_equal(x.st, CDYN_ENOSOLUTION);
    const double up[3] = {0, 1.5 * m * G, 0}; /* b = 0.5 g > 0 */
    run(&s, q, v, up, &o, &x);
    assert_int_equal(x.st, CDYN_OK);
    assert_int_equal(x.r.pmatrix, 0);
    assert_int_equal(x.r.determinate, -1);
    const double A2 = (1 + 3 * cos(th) * cos(th) - 3 * 2.0 * sin(th) * cos(th)) / m;
    assert_true(fabs(x.ln) <= 1e-9 || fabs(x.ln - 0.5 * G / (-A2)) <= 1e-9);
    scene_free(&s);
}

/* No touching row (the block 1 cm above the floor): free fall, vdot = M^-1 (tau - h). */
static void test_free_fall(void **state)
{
    (void)state;
    scene s = planar(CDYN_GEOM_POINT, 0, 0, 0, 2.0, 0.1, 0.3, 1);
    const double q[3] = {0, 0.01, 0}, v[3] = {0, 0, 0}, tau[3] = {1.0, 0, 0.3};
    for (int k = 0; k < 3; ++k) {
        cdyn_instant_options o;
        options_k(k, &o);
        sol x;
        run(&s, q, v, tau, &o, &x);
        assert_int_equal(x.st, CDYN_OK);
        assert_int_equal(x.r.n_touching, 0);
        assert_int_equal(x.mode, CDYN_INSTANT_SEPARATED);
        ASSERT_NEAR(x.vdot[0], 0.5, 1e-12);
        ASSERT_NEAR(x.vdot[1], -G, 1e-12);
        ASSERT_NEAR(x.vdot[2], 3.0, 1e-12);
        ASSERT_NEAR(x.ln, 0.0, 0.0);
    }
    /* separating (v_n > 0) at gap 0: also not in the problem */
    const double q0[3] = {0, 0, 0}, vup[3] = {0, 1.0, 0};
    sol x;
    run(&s, q0, vup, tau, NULL, &x);
    assert_int_equal(x.st, CDYN_OK);
    assert_int_equal(x.mode, CDYN_INSTANT_SEPARATED);
    ASSERT_NEAR(x.vdot[1], -G, 1e-12);
    scene_free(&s);
}

static void test_mode_strings(void **state)
{
    (void)state;
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_SEPARATED), "separated");
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_ROLL_ROLL), "rolling->rolling");
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_ROLL_SLIDE), "rolling->sliding");
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_ROLL_BREAK), "rolling->breaking");
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_SLIDE_SLIDE), "sliding->sliding");
    assert_string_equal(cdyn_instant_mode_str(CDYN_INSTANT_SLIDE_BREAK), "sliding->breaking");
    assert_string_equal(cdyn_instant_mode_str((cdyn_instant_mode)99), "unknown mode");
}

/* ---- bad input: a status, a message, and the caller's result untouched ---- */

static void expect_fail(scene *s, const double *q, const double *v, const double *tau,
                        const cdyn_instant_options *o, cdyn_status want, const char *needle)
{
    double vdot[3] = {42, 42, 42}, ln = 42;
    cdyn_instant_mode md = (cdyn_instant_mode)42;
    cdyn_instant_result r;
    memset(&r, 0, sizeof r);
    r.vdot = vdot;
    r.lambda_n = &ln;
    r.mode = &md;
    r.n_touching = 77;
    cdyn_report rep;
    const cdyn_status st =
        cdyn_instant_solve(s ? s->m : NULL, s ? s->d : NULL, q, v, tau, o, &r, &rep);
    if (st != want || (needle && strstr(rep.message, needle) == NULL)) {
        print_error("status %d (%s), expected %d, message: %s\n", st, cdyn_status_str(st), want,
                    rep.message);
        fail();
    }
    assert_int_equal(rep.status, want);
    assert_true(vdot[0] == 42 && vdot[1] == 42 && vdot[2] == 42 && ln == 42);
    assert_int_equal((int)md, 42);
    assert_int_equal(r.n_touching, 77);
}

static void test_bad_input(void **state)
{
    (void)state;
    scene s = planar(CDYN_GEOM_POINT, 0, 0, 0, 2.0, 0.1, 0.3, 1);
    const double q[3] = {0, 0, 0}, v[3] = {0, 0, 0}, tau[3] = {1, 0, 0};
    cdyn_instant_result r;
    memset(&r, 0, sizeof r);
    assert_int_equal(cdyn_instant_solve(NULL, s.d, q, v, tau, NULL, &r, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_instant_solve(s.m, NULL, q, v, tau, NULL, &r, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_instant_solve(s.m, s.d, q, v, tau, NULL, NULL, NULL), CDYN_EINVAL);
    expect_fail(&s, NULL, v, tau, NULL, CDYN_EINVAL, "required");
    expect_fail(&s, q, NULL, tau, NULL, CDYN_EINVAL, "required");
    expect_fail(&s, q, v, NULL, NULL, CDYN_EINVAL, "required");

    const double tnan[3] = {NAN, 0, 0}, tinf[3] = {0, INFINITY, 0};
    expect_fail(&s, q, v, tnan, NULL, CDYN_EINVAL, "tau");
    expect_fail(&s, q, v, tinf, NULL, CDYN_EINVAL, "tau");
    const double qnan[3] = {0, NAN, 0}, vnan[3] = {0, 0, NAN};
    expect_fail(&s, qnan, v, tau, NULL, CDYN_EINVAL, NULL); /* cdyn_eval rejects it */
    expect_fail(&s, q, vnan, tau, NULL, CDYN_EINVAL, NULL);

    /* penetration and impact */
    const double qpen[3] = {0, -1e-3, 0}, vimp[3] = {0, -0.1, 0};
    expect_fail(&s, qpen, v, tau, NULL, CDYN_EINVAL, "penetrates");
    expect_fail(&s, q, vimp, tau, NULL, CDYN_EINVAL, "impact");

    /* options */
    cdyn_instant_options o;
    cdyn_instant_defaults(&o);
    o.gap_tol = 0;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "gap_tol");
    cdyn_instant_defaults(&o);
    o.mode_tol = NAN;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "mode_tol");
    cdyn_instant_defaults(&o);
    o.vel_tol = INFINITY;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "vel_tol");
    cdyn_instant_defaults(&o);
    o.friction = (cdyn_instant_friction)7;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "friction");
    cdyn_instant_defaults(&o);
    o.max_combinations = 0;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "max_combinations");
    cdyn_instant_defaults(&o);
    o.ncp_solver = (cdyn_instant_ncp_solver)5;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "ncp_solver");
    cdyn_instant_defaults(&o);
    o.ncp_start = (cdyn_instant_start)5;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "ncp_start");
    /* one rolling contact with friction: 2 sign combinations > 1 */
    cdyn_instant_defaults(&o);
    o.max_combinations = 1;
    expect_fail(&s, q, v, tau, &o, CDYN_ETOOBIG, "sign combinations");
    /* a bad solver option reaches the solver and comes back */
    cdyn_instant_defaults(&o);
    o.friction = CDYN_INSTANT_CONE;
    o.box_merit.tol = -1;
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, NULL);
    cdyn_instant_defaults(&o);
    o.lcp.lemke.max_pivots = -1; /* pyramid: reported as the LCP's message */
    expect_fail(&s, q, v, tau, &o, CDYN_EINVAL, "max_pivots");

    /* data without dense matrices, data of another model */
    scene sparse = planar(CDYN_GEOM_POINT, 0, 0, 0, 2.0, 0.1, 0.3, 0);
    expect_fail(&sparse, q, v, tau, NULL, CDYN_EINVAL, "dense");
    scene other = {s.m, sparse.d};
    expect_fail(&other, q, v, tau, NULL, CDYN_EINVAL, NULL);
    scene_free(&sparse);
    scene_free(&s);
}

/* Every allocation failure (ours and the solvers', which get the same allocator) gives
 * CDYN_ENOMEM, leaves the result untouched and leaks nothing (support.c's driver fails each
 * allocation of a successful solve in turn). */
typedef struct alloc_case {
    scene *s;
    int k;
    double vdot[3];
} alloc_case;

static cdyn_status alloc_case_run(void *ctx, const cdyn_allocator *a)
{
    alloc_case *c = ctx;
    const double q[3] = {0, 0.2, 0}, v[3] = {0, 0, 0}, tau[3] = {5, 0, 0};
    cdyn_instant_options o;
    options_k(c->k, &o);
    o.allocator = a;
    c->vdot[0] = c->vdot[1] = c->vdot[2] = 42;
    cdyn_instant_result r;
    memset(&r, 0, sizeof r);
    r.vdot = c->vdot;
    return cdyn_instant_solve(c->s->m, c->s->d, q, v, tau, &o, &r, NULL);
}

static int alloc_case_unchanged(void *ctx)
{
    const alloc_case *c = ctx;
    return c->vdot[0] == 42 && c->vdot[1] == 42 && c->vdot[2] == 42;
}

static void test_failing_allocator(void **state)
{
    (void)state;
    scene s = planar(CDYN_GEOM_CIRCLE, 0.2, 0, 0, 1.5, 0.03, 0.25, 1);
    for (int k = 0; k < 3; ++k) {
        alloc_case c = {&s, k, {0}};
        test_alloc_case tc = {"cdyn_instant_solve", alloc_case_run, alloc_case_unchanged, NULL,
                              &c};
        assert_true(test_alloc_every_failure(&tc) >= 1);
    }
    scene_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sliding_block),
        cmocka_unit_test(test_block_at_rest),
        cmocka_unit_test(test_lift_off),
        cmocka_unit_test(test_rolling_disk),
        cmocka_unit_test(test_sphere_cone_vs_pyramid),
        cmocka_unit_test(test_painleve_rod),
        cmocka_unit_test(test_free_fall),
        cmocka_unit_test(test_mode_strings),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_failing_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
