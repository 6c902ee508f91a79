/* cdyn_step_derivatives (cdyn/deriv.h) on the rigid schemes (pyramid LCP, Coulomb step, cone
 * step): A = dx+/dx and
 * B = dx+/dtau (x = (q tangent, v), nx = 2 n_v) against central differences of whole steps
 * (the oracle of deriv_support.c: cdyn_step itself), at states away from switches: a sphere
 * sliding (with and without friction), a sphere resting under a small push (sticking), a ball in flight, a box sliding on
 * an edge, a planar disk sliding; a box flat on four corners (impulses not unique) refused; at
 * the touchdown switch, one-sided differences of the side asked; the world-frame tangent
 * convention on a spinning free body; bad calls refused with outputs unchanged. The bound 1e-6 is issue 19's. CDYN_TEST_VERBOSE=1 prints the errors. */
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

static const cdyn_scheme schemes[] = {CDYN_SCHEME_PYRAMID_LCP, CDYN_SCHEME_COULOMB_STEP,
                                      CDYN_SCHEME_CONE_STEP};
#define NSCHEME 3

static cdyn_step_options rigid_options(cdyn_scheme scheme)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    /* the oracle's central differences carry the solve's error / eps: the Coulomb and cone
     * steps' iterative solvers to near rounding (Lemke's pivoting is exact to rounding) */
    o.fc3d.tol = 1e-14;
    o.coneqp.tol_rel = 1e-14;
    o.coneqp.tol_abs = 1e-16;
    return o;
}

/* "<scheme> <what>" */
static const char *label(char *buf, size_t n, cdyn_scheme scheme, const char *what)
{
    snprintf(buf, n, "%s %s", cdyn_scheme_str(scheme), what);
    return buf;
}

/* The mode of model row `row` after the step under test (from sc->x). */
static int step_mode(scene *sc, int row)
{
    cdyn_state *x1 = NULL;
    assert_int_equal(cdyn_state_create(sc->m, NULL, &x1, NULL), CDYN_OK);
    assert_int_equal(cdyn_state_copy(x1, sc->x, NULL), CDYN_OK);
    assert_int_equal(cdyn_step(sc->s, sc->tau, x1, NULL), CDYN_OK);
    const int mode = x1->mode[row];
    cdyn_state_free(x1);
    return mode;
}

/* A sphere sliding on the plane in a direction between the pyramid's edges, with spin. */
static void test_sphere_slide(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_sphere(0.05, 0.2, 0.3), &o);
        sc.x->q[2] = 0.05;
        sc.x->v[0] = 1.0;
        sc.x->v[1] = 0.3;
        sc.x->v[3] = 4;
        sc.x->v[5] = -2;
        /* the cone step's relaxation lifts a sliding ball off (mu |u_T| h per step): its
           sliding step is the first one */
        settle(&sc, schemes[k] == CDYN_SCHEME_CONE_STEP ? 0 : 3);
        assert_int_equal(step_mode(&sc, 0), CDYN_MODE_SLIP);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "sphere slide")) <= 1e-6);
        scene_close(&sc);
    }
}

/* A frictionless sphere (mu = 0) sliding and spinning on the plane: the held row without a
 * friction law (P_T = 0). */
static void test_sphere_frictionless(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_sphere(0.05, 0.2, 0.0), &o);
        sc.x->q[2] = 0.05;
        sc.x->v[0] = 1.0;
        sc.x->v[1] = 0.3;
        sc.x->v[3] = 4;
        settle(&sc, 3);
        assert_int_not_equal(step_mode(&sc, 0), CDYN_MODE_FREE);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k],
                                                   "frictionless sphere")) <= 1e-6);
        scene_close(&sc);
    }
}

/* A sphere at rest on the plane under a small horizontal force and torque: sticking with its
 * friction inside the pyramid. */
static void test_sphere_stick(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_sphere(0.05, 0.2, 0.8), &o);
        sc.x->q[2] = 0.05;
        sc.tau[0] = 0.15;
        sc.tau[1] = -0.05;
        sc.tau[5] = 0.002;
        settle(&sc, 10);
        assert_int_equal(step_mode(&sc, 0), CDYN_MODE_STICK);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "sphere stick")) <= 1e-6);
        scene_close(&sc);
    }
}

/* The pyramid's box bound (|P_t|, |P_o| <= mu P_n, a sigma per axis): a sphere sliding in a
 * generic direction (both axes slide), along the contact frame's t axis (its o axis sticks:
 * u_o = 0 with |P_o| < mu P_n) and resting under a push (both stick). */
static void test_pyr_box_bound(void **state)
{
    (void)state;
    for (int t = 0; t < 3; t++) {
        scene sc;
        cdyn_step_options o = rigid_options(CDYN_SCHEME_PYRAMID_LCP);
        o.bound = CDYN_PYRAMID_BOX;
        scene_open(&sc, scene_sphere(0.05, 0.2, 0.3), &o);
        sc.x->q[2] = 0.05;
        if (t < 2)
            settle(&sc, 1); /* at rest: the contact frame of the row */
        cdyn_contact ct;
        cdyn_data *d = NULL;
        assert_int_equal(cdyn_data_create(sc.m, NULL, &d, NULL), CDYN_OK);
        assert_int_equal(cdyn_eval(sc.m, d, sc.x->q, sc.x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        assert_int_equal(cdyn_data_contact(d, 0, &ct), CDYN_OK);
        cdyn_data_free(d);
        if (t == 0) {
            sc.x->v[0] = 1.0;
            sc.x->v[1] = 0.3;
            sc.x->v[3] = 4;
        } else if (t == 1) {
            for (int i = 0; i < 3; i++)
                sc.x->v[i] = 1.0 * ct.t[i];
        } else {
            sc.tau[0] = 0.05;
            sc.tau[1] = -0.02;
            settle(&sc, 10);
        }
        assert_int_equal(step_mode(&sc, 0), t < 2 ? CDYN_MODE_SLIP : CDYN_MODE_STICK);
        static const char *const names[3] = {"pyramid box bound, slide", "pyramid box bound, slide on t",
                                             "pyramid box bound, stick"};
        assert_true(central_error(&sc, 1e-6, names[t]) <= 1e-6);
        scene_close(&sc);
    }
}

/* A ball in the air: no contact row takes part. */
static void test_flight(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_billiard(), &o);
        sc.x->q[2] = 0.3;
        sc.x->v[0] = 1;
        sc.x->v[2] = 0.5;
        sc.x->v[3] = 10;
        sc.x->v[5] = -4;
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "ball in flight")) <= 1e-6);
        scene_close(&sc);
    }
}

/* A cube tilted about y onto one bottom edge (two corner rows), sliding along x. */
static void test_box_edge(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_incline(0.0, 0.3), &o);
        const double a = 0.3;
        sc.x->q[2] = 0.05 * (cos(a) + sin(a));
        sc.x->q[3] = cos(a / 2);
        sc.x->q[5] = sin(a / 2);
        sc.x->v[0] = 1.5;
        int touching = 0;
        cdyn_state *x1 = NULL;
        assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
        assert_int_equal(cdyn_state_copy(x1, sc.x, NULL), CDYN_OK);
        assert_int_equal(cdyn_step(sc.s, NULL, x1, NULL), CDYN_OK);
        for (int i = 0; i < sc.nc; i++)
            touching += x1->mode[i] == CDYN_MODE_SLIP;
        assert_int_equal(touching, 2);
        cdyn_state_free(x1);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "box on an edge")) <= 1e-6);
        scene_close(&sc);
    }
}

/* Song-Kumar-Pang's planar disk sliding with backspin on the line (planar rows: n, t; the
 * pyramid's two directions +t, -t). */
static void test_disk(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_disk(0.4, 1e4, 10), &o);
        sc.x->q[1] = 0.1;
        sc.x->v[0] = 1.2;
        sc.x->v[2] = 1.0;
        assert_int_equal(step_mode(&sc, 0), CDYN_MODE_SLIP);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "disk slide"))
                    <= 1e-6);
        scene_close(&sc);
    }
}

/* The planar 2-link chain whose tip presses and slides on the ground under joint torques, with
 * joint damping 0.05 and 0.02 N m s/rad (taken implicitly by the steps: M + h D). */
static void test_chain(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, two_link_chain(0.05, 0.02), &o);
        /* tip height 0.2 + 0.15 sin(t1) + 0.15 sin(t1 + t2) - 0.03 = 0 */
        sc.x->q[0] = -M_PI / 4;
        sc.x->q[1] = -asin((0.2 - 0.03 + 0.15 * sin(-M_PI / 4)) / 0.15) + M_PI / 4;
        sc.x->v[0] = -0.5; /* the tip moving into the ground: it presses and slides */
        sc.tau[0] = 0.05;
        sc.tau[1] = -0.02;
        settle(&sc, 2);
        assert_int_equal(step_mode(&sc, 0), CDYN_MODE_SLIP);
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k],
                                                   "damped 2-link chain")) <= 1e-6);
        scene_close(&sc);
    }
}

/* A cube resting flat on its four bottom corners: four coplanar rows whose sticking impulses
 * are not unique (12 velocity conditions on 6 dofs): no derivative from the active set,
 * CDYN_ESINGULAR with A unchanged. */
static void test_box_flat(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        scene sc;
        cdyn_step_options o; /* the defaults: no central differences here */
        cdyn_step_defaults(&o, schemes[k]);
        scene_open(&sc, scene_incline(0.0, 0.5), &o);
        sc.x->q[2] = 0.05;
        settle(&sc, 3);
        const int nx = sc.nx;
        double *A = malloc((size_t)nx * nx * sizeof(double));
        for (int i = 0; i < nx * nx; i++)
            A[i] = 7.0;
        cdyn_step_deriv_report dr;
        assert_int_equal(cdyn_step(sc.s, NULL, sc.x, NULL), CDYN_OK);
        const cdyn_status st = cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, sc.nv, A,
                                                     NULL, &dr);
        if (tm_verbose())
            printf("%s flat box: %s\n", cdyn_scheme_str(schemes[k]), dr.solver.message);
        assert_int_equal(st, CDYN_ESINGULAR);
        for (int i = 0; i < nx * nx; i++)
            assert_true(A[i] == 7.0);
        free(A);
        scene_close(&sc);
    }
}

/* A free body with three different inertias spinning in the air: the q rows and columns in
 * world-frame angles (the oracle perturbs and reads q that way); the body-frame convention's
 * differences miss A by O(1), so the check tells the two apart. */
static void test_spinning_body(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        char name[64];
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
        cdyn_step_options o = rigid_options(schemes[k]);
        o.h = 0.02;
        scene_open(&sc, m, &o);
        const double e[4] = {0.8, 0.2, -0.4, 0.4};
        const double n = sqrt(0.64 + 0.04 + 0.16 + 0.16);
        for (int i = 0; i < 4; i++)
            sc.x->q[3 + i] = e[i] / n;
        sc.x->v[3] = 3;
        sc.x->v[4] = -2;
        sc.x->v[5] = 5;
        assert_true(central_error(&sc, 1e-6, label(name, sizeof name, schemes[k], "spinning free body")) <= 1e-6);
        const int nx = sc.nx, nv = sc.nv;
        double *A = calloc((size_t)nx * nx, sizeof(double)), p[6], mi[6];
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
}

/* At a switch: the billiard ball (r = 0.05, mu = 0.2, g = 9.8) with vz = 0 placed so that the
 * free step ends exactly on the plane's constraint: u_n = Psi_n / h + vz - g h = 0 (Coulomb,
 * pyramid: Psi_n = g h^2) or = mu |u_T| (the cone step's relaxed condition, u_T = vx - r wy
 * the free slip speed), so the normal pair is (0, 0). For each state column that moves the end
 * gap (g_j = dz+/dx_j of the released side), the released derivative is the one-sided
 * difference toward g_j eps > 0 (the ball stays free), the held one toward g_j eps < 0 (the
 * contact closes, pressing and sliding). The cone step is left out: its interior point does
 * not converge on this exactly degenerate problem at the full step, which it then halves (a
 * step whose derivative is refused); the one-sided rule there is the same code as Coulomb's. */
static void test_touchdown(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        if (schemes[k] == CDYN_SCHEME_CONE_STEP)
            continue;
        scene sc;
        cdyn_step_options o = rigid_options(schemes[k]);
        scene_open(&sc, scene_billiard(), &o);
        const double r = 0.05, h = o.h, g = 9.8, vx = 0.8, wy = 5;
        const double un = schemes[k] == CDYN_SCHEME_CONE_STEP ? 0.2 * fabs(vx - r * wy) : 0.0;
        sc.x->q[2] = r + h * (h * g + un);
        sc.x->v[0] = vx;
        sc.x->v[4] = wy;
        const int nx = sc.nx;
        double *Ar = calloc((size_t)nx * nx, sizeof(double));
        double *Ah = calloc((size_t)nx * nx, sizeof(double));
        cdyn_state *x1 = NULL;
        assert_int_equal(cdyn_state_create(sc.m, NULL, &x1, NULL), CDYN_OK);
        cdyn_step_deriv_report rr, rh;
        derivs(&sc, CDYN_DERIV_HELD, x1, Ah, NULL, &rh);
        derivs(&sc, CDYN_DERIV_RELEASED, x1, Ar, NULL, &rr);
        assert_int_equal(rr.degenerate, 1);
        assert_true(rr.normal_margin < 1e-12);
        double err_r = 0, err_h = 0, big = 0;
        int tested = 0;
        const double e = 1e-7;
        for (int j = 0; j < nx; j++) {
            const double gj = Ar[2 + (size_t)j * nx]; /* dz+/dx_j */
            if (fabs(gj) < 1e-3)
                continue;
            tested++;
            const double sg = gj > 0 ? 1.0 : -1.0;
            for (int i = 0; i < nx; i++) {
                const double dr = one_sided(&sc, x1, j, sg * e, i);
                const double dh = one_sided(&sc, x1, j, -sg * e, i);
                err_r = fmax(err_r, fabs(Ar[i + (size_t)j * nx] - dr));
                err_h = fmax(err_h, fabs(Ah[i + (size_t)j * nx] - dh));
                big = fmax(big, fmax(fabs(dr), fabs(dh)));
            }
        }
        double side_gap = 0; /* the two sides differ: the switch is real */
        for (size_t t = 0; t < (size_t)nx * nx; t++)
            side_gap = fmax(side_gap, fabs(Ar[t] - Ah[t]));
        if (tm_verbose())
            printf("%s touchdown: %d columns, rel.err released %.2e held %.2e, sides differ "
                   "by %.3g (max %.3g)\n", cdyn_scheme_str(schemes[k]), tested, err_r / big,
                   err_h / big, side_gap, big);
        assert_true(tested >= 2);
        assert_true(err_r / big <= 1e-6);
        assert_true(err_h / big <= 1e-6);
        assert_true(side_gap > 1e-2 * big);
        cdyn_state_free(x1);
        free(Ar);
        free(Ah);
        scene_close(&sc);
    }
}

static void fill(double *x, int n)
{
    for (int i = 0; i < n; i++)
        x[i] = 7.0;
}

static void unchanged(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        assert_true(x[i] == 7.0);
}

/* Bad calls: CDYN_EINVAL / CDYN_ENOTSUP with A and B unchanged. */
static void test_pyr_refusals(void **state)
{
    (void)state;
    scene sc;
    cdyn_step_options o = rigid_options(CDYN_SCHEME_PYRAMID_LCP);
    scene_open(&sc, scene_billiard(), &o);
    const int nx = sc.nx, nv = sc.nv;
    assert_int_equal(nx, 2 * nv);
    double *A = malloc((size_t)nx * nx * sizeof(double)), *B = malloc((size_t)nx * nv * 8);
    fill(A, nx * nx);
    fill(B, nx * nv);
    cdyn_step_deriv_report dr;
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
    /* the implicit scheme's size (with deformations) is wrong here */
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx + 3 * sc.nc, nv, A, B,
                                           &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv - 1, A, B, &dr),
                     CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, (cdyn_deriv_side)2, nx, nv, A, B, NULL),
                     CDYN_EINVAL);
    /* parameter columns (test_rigid_param_derivs): a bad pair refused, P unchanged */
    const cdyn_param prm = {CDYN_PARAM_MU, 1, 0};
    double P[12];
    fill(P, 12);
    assert_int_equal(cdyn_step_param_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, B, 1,
                                                 &prm, P, &dr),
                     CDYN_EINVAL);
    unchanged(P, 12);
    /* a failed step leaves none */
    cdyn_state *bad = NULL;
    assert_int_equal(cdyn_state_create(sc.m, NULL, &bad, NULL), CDYN_OK);
    bad->v[0] = NAN;
    assert_int_equal(cdyn_step(sc.s, NULL, bad, NULL), CDYN_EINVAL);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, B, &dr),
                     CDYN_EINVAL);
    cdyn_state_free(bad);
    unchanged(A, nx * nx);
    unchanged(B, nx * nv);
    /* after a good step: OK, B alone */
    settle(&sc, 1);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, NULL, B, &dr),
                     CDYN_OK);
    assert_int_equal(dr.nx, nx);
    assert_int_equal(dr.rows, 1);
    /* a step of several substeps whose record was lost (out of memory; white-box: what
     * cdyn_step records) */
    sc.s->last_substeps = 2;
    fill(A, nx * nx);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, &dr),
                     CDYN_ENOMEM);
    assert_non_null(strstr(dr.solver.message, "substeps"));
    unchanged(A, nx * nx);
    scene_close(&sc);
    /* the three schemes: not stepped, the implicit scheme's size, then a good call */
    for (int k = 0; k < NSCHEME; k++) {
        cdyn_step_options ok = rigid_options(schemes[k]);
        scene_open(&sc, scene_billiard(), &ok);
        fill(A, nx * nx);
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, &dr),
                         CDYN_EINVAL);
        sc.x->q[2] = 0.05;
        settle(&sc, 1);
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_HELD, nx + 3 * sc.nc, nv, A,
                                               NULL, &dr),
                         CDYN_EINVAL);
        unchanged(A, nx * nx);
        assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_HELD, nx, nv, A, NULL, &dr),
                         CDYN_OK);
        scene_close(&sc);
    }
    /* Newton restitution: not taken yet */
    o.restitution = 1;
    scene_open(&sc, scene_billiard(), &o);
    sc.x->q[2] = 0.05;
    settle(&sc, 1);
    fill(A, nx * nx);
    assert_int_equal(cdyn_step_derivatives(sc.s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, &dr),
                     CDYN_ENOTSUP);
    assert_non_null(strstr(dr.solver.message, "restitution"));
    unchanged(A, nx * nx);
    scene_close(&sc);
    free(A);
    free(B);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_slide),
        cmocka_unit_test(test_sphere_frictionless),
        cmocka_unit_test(test_sphere_stick),
        cmocka_unit_test(test_pyr_box_bound),
        cmocka_unit_test(test_flight),
        cmocka_unit_test(test_box_edge),
        cmocka_unit_test(test_spinning_body),
        cmocka_unit_test(test_disk),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_box_flat),
        cmocka_unit_test(test_touchdown),
        cmocka_unit_test(test_pyr_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
