/* cdyn_step_param_derivatives (cdyn/deriv.h) on the rigid schemes (pyramid LCP with both bounds,
 * Coulomb step, cone step): every parameter column P = dx+/dp (x = (q tangent, v)) against
 * Richardson central differences of whole steps of models BUILT with the parameter moved
 * (param_support.c: cdyn_builder + cdyn_step, no library derivative), away from switches: mu,
 * K, C and geometry on a sphere sliding and sticking on a plane, a cube sliding on one edge and
 * a planar triangle sliding on two vertices. K and C: the rigid steps do not read them (checked
 * bitwise), so their columns are 0. One-sided cases at switches: mu = 0 (a frictionless ball
 * sliding: the right derivative in mu) and the touchdown of a ball (the plane's height and the
 * ball's radius, released and held, against one-sided differences of the side); the pyramid's
 * mu = 0+ without a unique sliding direction refused. Bad calls refused with outputs
 * unchanged. The bound 1e-6 is issue 19's. CDYN_TEST_VERBOSE=1 prints the errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/deriv.h"
#include "model_support.h"
#include "param_support.h"

/* The rigid schemes; the pyramid twice: the diamond (default) and the box bound. */
#define NSCHEME 4

static cdyn_step_options rigid_options(int k)
{
    static const cdyn_scheme sch[NSCHEME] = {CDYN_SCHEME_PYRAMID_LCP, CDYN_SCHEME_PYRAMID_LCP,
                                             CDYN_SCHEME_COULOMB_STEP, CDYN_SCHEME_CONE_STEP};
    cdyn_step_options o;
    cdyn_step_defaults(&o, sch[k]);
    if (k == 1)
        o.bound = CDYN_PYRAMID_BOX;
    /* the oracle's differences carry the solve's error / eps: the Coulomb and cone steps'
     * iterative solvers to near rounding (Lemke's pivoting is exact to rounding) */
    o.fc3d.tol = 1e-14;
    o.coneqp.tol_rel = 1e-14;
    o.coneqp.tol_abs = 1e-16;
    o.coneqp.max_iter = 400;
    o.max_halvings = 0; /* a step of substeps (another function of p) fails instead */
    return o;
}

static const char *scheme_name(int k)
{
    static const char *const names[NSCHEME] = {"pyramid", "pyramid-box", "coulomb", "cone"};
    return names[k];
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

static double worst[NSCHEME]; /* per scheme, over the tests: printed at the end */

static void record(int k, double err, const char *what)
{
    worst[k] = fmax(worst[k], err);
    if (tm_verbose())
        printf("%-12s %-28s worst rel.err %.2e\n", scheme_name(k), what, err);
    assert_true(err <= 1e-6);
}

/* The modes the derivative of the step from x takes: some row slides (slide), or none slides
 * and some sticks (!slide). */
static void expect_modes(const spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                         int slide)
{
    cdyn_model *m = build(sp);
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, o, &s, NULL), CDYN_OK);
    cdyn_state *x1 = state_of(sp);
    copy_state(x1, x);
    cdyn_step_report sr;
    if (cdyn_step(s, spec_tau(sp), x1, &sr) != CDYN_OK)
        fail_msg("step: %s", sr.solver.message);
    const int nv = cdyn_model_nv(m);
    double *B = malloc(2 * (size_t)nv * nv * sizeof(double));
    cdyn_step_deriv_report dr;
    if (cdyn_step_derivatives(s, CDYN_DERIV_RELEASED, 2 * nv, nv, NULL, B, &dr) != CDYN_OK)
        fail_msg("cdyn_step_derivatives: %s", dr.solver.message);
    assert_int_equal(dr.slip_row >= 0, slide);
    assert_int_equal(dr.cone_row >= 0, !slide);
    free(B);
    cdyn_state_free(x1);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* A sphere (r = 0.1, centre 1 cm off its body's origin) on the plane, sliding with spin. The
 * cone step's relaxation lifts a sliding ball off (mu |u_T| h per step): its sliding step is the
 * first one. */
static void test_sphere_slide(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        /* the cone step: the ball of test_rigid_derivs (r = 0.05, 0.2 kg), centred (its
           interior point stalls near 1e-13 on the larger offset ball's steps) */
        const int cone = k == 3;
        const double r = cone ? 0.05 : 0.1, mass = cone ? 0.2 : 1.0, in = 0.4 * mass * r * r;
        const double I[3] = {in, in, in};
        spec sp = on_plane(CDYN_GEOM_SPHERE, r, 0, 0, mass, I, 0.3);
        const cdyn_step_options o = rigid_options(k);
        sp.geom[1].pos[0] = cone ? 0.0 : 0.01;
        sp.geom[1].pos[2] = cone ? 0.0 : 0.005;
        cdyn_state *x = state_of(&sp);
        x->q[2] = r - sp.geom[1].pos[2];
        x->v[0] = 1.0;
        x->v[1] = 0.3;
        x->v[3] = 4.0;
        x->v[5] = -2.0;
        spec_settle(&sp, &o, x, o.scheme == CDYN_SCHEME_CONE_STEP ? 0 : 3);
        expect_modes(&sp, &o, x, 1);
        const cdyn_param geo[] = {
            {CDYN_PARAM_GEOM_POS, 0, 2}, {CDYN_PARAM_GEOM_ROT, 0, 0}, {CDYN_PARAM_GEOM_ROT, 0, 1},
            {CDYN_PARAM_GEOM_POS, 0, 0}, {CDYN_PARAM_GEOM_ROT, 1, 1}, {CDYN_PARAM_GEOM_POS, 1, 0},
            {CDYN_PARAM_GEOM_POS, 1, 1}, {CDYN_PARAM_GEOM_POS, 1, 2}, {CDYN_PARAM_GEOM_SIZE, 1, 0}};
        cdyn_param params[16];
        /* ... and on its steps with the ball's centre or radius moved by 1e-5 (dual residual
           4e-14 after 400 iterations): those columns (the last four) are left out there,
           taken in the cone's sticking and frictionless scenes */
        const int ng = (int)(sizeof geo / sizeof geo[0]) - 4 * cone;
        const int np = with_contact(geo, ng, params);
        record(k, check_params(&sp, &o, x, np, params, "sphere sliding"), "sphere sliding");
        cdyn_state_free(x);
    }
}

/* A sphere (r = 0.05, 0.2 kg) at rest on the plane under a small horizontal force and torque:
 * sticking with its friction inside the cone (mu = 0.8: the mu column is 0). */
static void test_sphere_stick(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const double I[3] = {2e-4, 2e-4, 2e-4};
        spec sp = on_plane(CDYN_GEOM_SPHERE, 0.05, 0, 0, 0.2, I, 0.8);
        sp.tau[0] = 0.15;
        sp.tau[1] = -0.05;
        sp.tau[5] = 0.002;
        const cdyn_step_options o = rigid_options(k);
        cdyn_state *x = state_of(&sp);
        x->q[2] = 0.05;
        spec_settle(&sp, &o, x, 10);
        expect_modes(&sp, &o, x, 0);
        const cdyn_param geo[] = {
            {CDYN_PARAM_GEOM_POS, 0, 2}, {CDYN_PARAM_GEOM_ROT, 0, 0}, {CDYN_PARAM_GEOM_ROT, 0, 1},
            {CDYN_PARAM_GEOM_POS, 1, 0}, {CDYN_PARAM_GEOM_POS, 1, 2}, {CDYN_PARAM_GEOM_SIZE, 1, 0}};
        cdyn_param params[16];
        const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
        record(k, check_params(&sp, &o, x, np, params, "sphere sticking"), "sphere sticking");
        cdyn_state_free(x);
    }
}

/* A cube (half-extent 0.05, 1 kg) tilted 0.3 rad about y onto one bottom edge (two corner
 * rows), sliding along x. The cone step is left out: its interior point does not converge on
 * some of the moved models' steps (dual residual 8e-4 after 400 iterations, with
 * OPENBLAS_NUM_THREADS=1), which would otherwise halve. */
static void test_box_edge(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const double I[3] = {0.01 / 6, 0.01 / 6, 0.01 / 6};
        spec sp = on_plane(CDYN_GEOM_BOX, 0.05, 0.05, 0.05, 1.0, I, 0.3);
        const cdyn_step_options o = rigid_options(k);
        if (o.scheme == CDYN_SCHEME_CONE_STEP)
            continue;
        cdyn_state *x = state_of(&sp);
        const double a = 0.3;
        x->q[2] = 0.05 * (cos(a) + sin(a));
        x->q[3] = cos(a / 2);
        x->q[5] = sin(a / 2);
        x->v[0] = 1.5;
        /* the box bound: both axes slide (sticking o axes of two corners on one edge would be
           the same condition: impulses not unique) */
        x->v[1] = k == 1 ? 0.4 : 0.0;
        expect_modes(&sp, &o, x, 1);
        const cdyn_param geo[] = {
            {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 1},
            {CDYN_PARAM_GEOM_SIZE, 1, 2},
            {CDYN_PARAM_GEOM_POS, 1, 2},  {CDYN_PARAM_GEOM_ROT, 1, 1},  {CDYN_PARAM_GEOM_ROT, 1, 2},
            {CDYN_PARAM_GEOM_POS, 0, 2},  {CDYN_PARAM_GEOM_ROT, 0, 0}};
        cdyn_param params[16];
        const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
        record(k, check_params(&sp, &o, x, np, params, "box on an edge"), "box on an edge");
        cdyn_state_free(x);
    }
}

/* Planar: a triangle on two vertices on the ground line, sliding (the pyramid's directions +t,
 * -t; the box bound is the diamond's in the plane). */
static void test_planar_triangle(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        spec sp;
        memset(&sp, 0, sizeof sp);
        sp.dim = 2;
        add_body(&sp, 1.0, 0, 0, 0.004);
        add_geom(&sp, -1, CDYN_GEOM_PLANE, 0, 0, 0);
        const int tri = add_geom(&sp, 0, CDYN_GEOM_POLYGON, 0, 0, 0);
        const double v[6] = {-0.1, 0, 0.12, 0, 0.01, 0.15};
        sp.geom[tri].nvert = 3;
        memcpy(sp.geom[tri].verts, v, sizeof v);
        sp.geom[tri].pos[1] = 0.01;
        add_pair(&sp, 0, tri, 0.4);
        const cdyn_step_options o = rigid_options(k);
        cdyn_state *x = state_of(&sp);
        x->q[1] = -0.01;
        x->v[0] = 0.3;
        spec_settle(&sp, &o, x, o.scheme == CDYN_SCHEME_CONE_STEP ? 0 : 3);
        expect_modes(&sp, &o, x, 1);
        const cdyn_param poly[] = {
            {CDYN_PARAM_GEOM_POS, 1, 0},    {CDYN_PARAM_GEOM_POS, 1, 1},
            {CDYN_PARAM_GEOM_ROT, 1, 2},    {CDYN_PARAM_GEOM_POS, 0, 1},
            {CDYN_PARAM_GEOM_ROT, 0, 2},    {CDYN_PARAM_GEOM_VERTEX, 1, 0},
            {CDYN_PARAM_GEOM_VERTEX, 1, 1}, {CDYN_PARAM_GEOM_VERTEX, 1, 3},
            {CDYN_PARAM_GEOM_VERTEX, 1, 4}, {CDYN_PARAM_GEOM_VERTEX, 1, 5}};
        cdyn_param params[16];
        const int np = with_contact(poly, (int)(sizeof poly / sizeof poly[0]), params);
        record(k, check_params(&sp, &o, x, np, params, "triangle on line"), "triangle on line");
        cdyn_state_free(x);
    }
}

/* Column p of the step from x by the one-sided second-order difference toward e's sign,
 * (-3 f(0) + 4 f(e) - f(2e)) / (2e) of steps of rebuilt models (q rows through H(q+) of the
 * unmoved step), into out (2 n_v). */
static void one_sided_column(spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                             const cdyn_param *p, double e, double *out)
{
    cdyn_model *m = build(sp);
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m);
    cdyn_state *f[3];
    double *H = calloc((size_t)nv * nq, sizeof(double));
    for (int i = 0; i < 3; i++) {
        f[i] = state_of(sp);
        move(sp, p, i * e);
        oracle_step(sp, o, x, f[i]);
        move(sp, p, -i * e);
    }
    assert_int_equal(cdyn_model_G_pinv(m, f[0]->q, H, NULL), CDYN_OK);
    for (int i = 0; i < nv; i++) {
        double dq = 0;
        for (int l = 0; l < nq; l++)
            dq += H[i + (size_t)l * nv] *
                  (4 * (f[1]->q[l] - f[0]->q[l]) - (f[2]->q[l] - f[0]->q[l]));
        out[i] = dq / (2 * e);
        out[nv + i] = (-3 * f[0]->v[i] + 4 * f[1]->v[i] - f[2]->v[i]) / (2 * e);
    }
    for (int i = 0; i < 3; i++)
        cdyn_state_free(f[i]);
    free(H);
    cdyn_model_free(m);
}

/* max |P_j - D_j| for column j of P (nx rows) against the one-sided difference; big: raised to
 * max |D_j|. */
static double one_sided_error(spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                              const cdyn_param *p, double e, const double *Pj, int nx,
                              double *big)
{
    double *d = malloc((size_t)nx * sizeof(double)), err = 0;
    one_sided_column(sp, o, x, p, e, d);
    for (int i = 0; i < nx; i++) {
        err = fmax(err, fabs(Pj[i] - d[i]));
        *big = fmax(*big, fabs(d[i]));
    }
    free(d);
    return err;
}

/* The step of sp from x and its columns P (nx x np) on the side asked. */
static void step_columns(const spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                         cdyn_deriv_side side, int np, const cdyn_param *params, double *P,
                         cdyn_step_deriv_report *dr)
{
    cdyn_model *m = build(sp);
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, o, &s, NULL), CDYN_OK);
    cdyn_state *x1 = state_of(sp);
    copy_state(x1, x);
    assert_int_equal(cdyn_step(s, spec_tau(sp), x1, NULL), CDYN_OK);
    const int nx = cdyn_step_deriv_nx(s);
    const cdyn_status st = cdyn_step_param_derivatives(s, side, nx, cdyn_model_nv(m), NULL,
                                                       NULL, np, params, P, dr);
    if (st != CDYN_OK)
        fail_msg("cdyn_step_param_derivatives: %s", dr->solver.message);
    cdyn_state_free(x1);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
}

/* A frictionless sphere (mu = 0) sliding and spinning on the plane: mu = 0 is its friction
 * law's switch (mu < 0 is no model), and its mu column is the right derivative, against the
 * one-sided difference toward mu > 0 (e = 1e-4: the ball keeps sliding); its geometric
 * columns as usual. */
static void test_mu_zero(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const double I[3] = {0.004, 0.004, 0.004};
        spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.0);
        const cdyn_step_options o = rigid_options(k);
        cdyn_state *x = state_of(&sp);
        x->q[2] = 0.1;
        x->v[0] = 1.0;
        x->v[1] = 0.3;
        x->v[3] = 4.0;
        spec_settle(&sp, &o, x, o.scheme == CDYN_SCHEME_CONE_STEP ? 0 : 2);
        const cdyn_param geo[] = {{CDYN_PARAM_GEOM_POS, 0, 2}, {CDYN_PARAM_GEOM_ROT, 0, 0},
                                  {CDYN_PARAM_GEOM_SIZE, 1, 0}};
        record(k, check_params(&sp, &o, x, 3, geo, "frictionless sphere"),
               "frictionless sphere: geometry");
        const cdyn_param mu = {CDYN_PARAM_MU, 0, 0};
        double P[12];
        cdyn_step_deriv_report dr;
        step_columns(&sp, &o, x, CDYN_DERIV_RELEASED, 1, &mu, P, &dr);
        double big = 0;
        const double err = one_sided_error(&sp, &o, x, &mu, 1e-4, P, 12, &big);
        assert_true(big > 0);
        record(k, err / big, "frictionless sphere: mu = 0+");
        cdyn_state_free(x);
    }
}

/* The pyramid's mu = 0+ where its sliding direction is not unique, refused (CDYN_ENOTSUP, P
 * unchanged): a frictionless ball sliding along t + o of its row (the diamond's directions -t
 * and -o equally opposed), and along t with the box bound (its o axis at rest: it would stick
 * at mu > 0, another mode). The contact frame is read from the row at rest. */
static void test_mu_zero_ties(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        const double I[3] = {0.004, 0.004, 0.004};
        spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.0);
        const cdyn_step_options o = rigid_options(k);
        cdyn_model *m = build(&sp);
        cdyn_stepper *s = NULL;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
        cdyn_state *x = state_of(&sp);
        x->q[2] = 0.1;
        cdyn_data *d = NULL;
        cdyn_contact ct;
        assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
        assert_int_equal(cdyn_eval(m, d, x->q, x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        assert_int_equal(cdyn_data_contact(d, 0, &ct), CDYN_OK);
        cdyn_data_free(d);
        for (int i = 0; i < 3; i++)
            x->v[i] = ct.t[i] + (k == 0 ? ct.o[i] : 0.0);
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const int nx = cdyn_step_deriv_nx(s), nv = cdyn_model_nv(m);
        double P[12];
        fill(P, 12);
        const cdyn_param mu = {CDYN_PARAM_MU, 0, 0};
        cdyn_step_deriv_report dr;
        const cdyn_status st = cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv,
                                                           NULL, NULL, 1, &mu, P, &dr);
        if (tm_verbose())
            printf("%s: %s\n", scheme_name(k), dr.solver.message);
        assert_int_equal(st, CDYN_ENOTSUP);
        assert_non_null(strstr(dr.solver.message, "no unique direction"));
        unchanged(P, 12);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
    }
}

/* At the touchdown switch: the ball (r = 0.05, mu = 0.2) with vz = 0 placed so that the free
 * step ends exactly on the plane's constraint (u_n = Psi_n / h + vz - g h = 0: Psi_n = g h^2),
 * sliding (vx - r wy != 0). The plane's height z_p and the ball's radius close the gap as they
 * grow: the released column is the one-sided difference toward -e (the ball stays free), the
 * held one toward +e (the contact closes, pressing and sliding). The cone step is left out as
 * in test_rigid_derivs (its interior point does not converge on this exactly degenerate
 * problem at the full step). */
static void test_touchdown(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const cdyn_step_options o = rigid_options(k);
        if (o.scheme == CDYN_SCHEME_CONE_STEP)
            continue;
        const double r = 0.05, I[3] = {2e-4, 2e-4, 2e-4};
        spec sp = on_plane(CDYN_GEOM_SPHERE, r, 0, 0, 0.2, I, 0.2);
        cdyn_state *x = state_of(&sp);
        x->q[2] = r + o.h * o.h * 9.81;
        x->v[0] = 0.8;
        x->v[4] = 5.0;
        const cdyn_param prm[2] = {{CDYN_PARAM_GEOM_POS, 0, 2}, {CDYN_PARAM_GEOM_SIZE, 1, 0}};
        double Pr[24], Ph[24];
        cdyn_step_deriv_report rr, rh;
        step_columns(&sp, &o, x, CDYN_DERIV_RELEASED, 2, prm, Pr, &rr);
        step_columns(&sp, &o, x, CDYN_DERIV_HELD, 2, prm, Ph, &rh);
        assert_int_equal(rr.degenerate, 1);
        assert_true(rr.normal_margin < 1e-12);
        double err = 0, side_gap = 0, big = 0;
        for (int j = 0; j < 2; j++) {
            const double e = 1e-7;
            err = fmax(err, one_sided_error(&sp, &o, x, &prm[j], -e, Pr + 12 * j, 12, &big));
            err = fmax(err, one_sided_error(&sp, &o, x, &prm[j], e, Ph + 12 * j, 12, &big));
            for (int i = 0; i < 12; i++)
                side_gap = fmax(side_gap, fabs(Pr[12 * j + i] - Ph[12 * j + i]));
        }
        assert_true(side_gap > 1e-2 * big); /* the two sides differ: the switch is real */
        record(k, err / big, "touchdown, both sides");
        cdyn_state_free(x);
    }
}

/* The rigid steps do not read the pairs' stiffness and damping: a step of a model built with
 * other K and C is the same to the bit, and their columns are exactly 0. */
static void test_compliance_ignored(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const double I[3] = {0.004, 0.004, 0.004};
        spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.3);
        const cdyn_step_options o = rigid_options(k);
        cdyn_state *x = state_of(&sp), *a = state_of(&sp), *b = state_of(&sp);
        x->q[2] = 0.1;
        x->v[0] = 1.0;
        x->v[5] = 3.0;
        oracle_step(&sp, &o, x, a);
        sp.K[0][0] *= 3;
        sp.K[0][1] *= 0.1;
        sp.C[0][0] *= 5;
        sp.C[0][1] = 0;
        oracle_step(&sp, &o, x, b);
        assert_memory_equal(a->q, b->q, (size_t)a->nq * sizeof(double));
        assert_memory_equal(a->v, b->v, (size_t)a->nv * sizeof(double));
        const cdyn_param kc[4] = {{CDYN_PARAM_STIFFNESS_N, 0, 0}, {CDYN_PARAM_STIFFNESS_T, 0, 0},
                                  {CDYN_PARAM_DAMPING_N, 0, 0}, {CDYN_PARAM_DAMPING_T, 0, 0}};
        double P[4 * 12];
        cdyn_step_deriv_report dr;
        step_columns(&sp, &o, x, CDYN_DERIV_RELEASED, 4, kc, P, &dr);
        assert_int_equal(dr.rows, 1);
        for (int i = 0; i < 4 * 12; i++)
            assert_true(P[i] == 0.0);
        cdyn_state_free(x);
        cdyn_state_free(a);
        cdyn_state_free(b);
    }
}

/* Bad calls: a status with a message, A and P unchanged. A frictionless ball at rest (held, its
 * mu column the right derivative: it sticks with P_T = 0 for mu > 0, a zero column), and a box
 * with a face patch far above a second plane (its rows take part; their cells would move with
 * its half-extents: CDYN_ENOTSUP). */
static void test_refusals(void **state)
{
    (void)state;
    for (int k = 0; k < NSCHEME; k++) {
        const double I[3] = {0.004, 0.004, 0.004};
        spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.0);
        add_body(&sp, 1.0, 0.004, 0.004, 0.004);
        add_geom(&sp, -1, CDYN_GEOM_PLANE, 0, 0, 0);
        sp.geom[2].pos[2] = -5.0;
        add_geom(&sp, 1, CDYN_GEOM_BOX, 0.1, 0.1, 0.1);
        add_pair(&sp, 2, 3, 0.3);
        sp.patch_n[1] = 2;
        const cdyn_step_options o = rigid_options(k);
        cdyn_model *m = build(&sp);
        cdyn_stepper *s = NULL;
        assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
        cdyn_state *x = state_of(&sp);
        x->q[2] = 0.1;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
        const int nv = cdyn_model_nv(m), nx = cdyn_step_deriv_nx(s);
        assert_int_equal(nx, 2 * nv);
        double *A = malloc((size_t)nx * nx * sizeof(double)), *P = malloc(2 * (size_t)nx * 8);
        fill(A, nx * nx);
        fill(P, 2 * nx);
        const cdyn_param good = {CDYN_PARAM_GEOM_POS, 0, 2};
        const cdyn_param bad[] = {
            {(cdyn_param_kind)99, 0, 0}, {CDYN_PARAM_MU, 2, 0},       {CDYN_PARAM_DAMPING_T, -1, 0},
            {CDYN_PARAM_GEOM_POS, 4, 0}, {CDYN_PARAM_GEOM_POS, 1, 3}, {CDYN_PARAM_GEOM_SIZE, 1, 1},
            {CDYN_PARAM_GEOM_SIZE, 3, 0}};
        const cdyn_status want[] = {CDYN_EINVAL, CDYN_EINVAL, CDYN_EINVAL, CDYN_EINVAL,
                                    CDYN_EINVAL, CDYN_EINVAL, CDYN_ENOTSUP};
        const char *why[] = {"kind", "id = 2", "id = -1", "id = 4", "component 3",
                             "component 1", "a patch"};
        for (int b = 0; b < (int)(sizeof bad / sizeof bad[0]); b++) {
            const cdyn_param two[2] = {good, bad[b]};
            cdyn_step_deriv_report dr;
            const cdyn_status st = cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv,
                                                               A, NULL, 2, two, P, &dr);
            if (tm_verbose())
                printf("%s refusal %d: %s\n", scheme_name(k), b, dr.solver.message);
            assert_int_equal(st, want[b]);
            assert_non_null(strstr(dr.solver.message, why[b]));
            unchanged(A, nx * nx);
            unchanged(P, 2 * nx);
        }
        /* good calls: the resting frictionless ball's mu column is 0 (closed form: P_T = 0 and
           v+ = 0 for every mu), and so is the column of a pair without rows in the step */
        const cdyn_param mus[2] = {{CDYN_PARAM_MU, 0, 0}, {CDYN_PARAM_MU, 1, 0}};
        cdyn_step_deriv_report dr;
        if (cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, 2, mus, P,
                                        &dr) != CDYN_OK)
            fail_msg("%s: %s", scheme_name(k), dr.solver.message);
        for (int i = 0; i < 2 * nx; i++)
            assert_true(P[i] == 0.0);
        free(A);
        free(P);
        cdyn_state_free(x);
        cdyn_stepper_free(s);
        cdyn_model_free(m);
    }
}

static int print_worst(void **state)
{
    (void)state;
    if (tm_verbose())
        for (int k = 0; k < NSCHEME; k++)
            printf("worst relative error, %s: %.2e\n", scheme_name(k), worst[k]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_slide),     cmocka_unit_test(test_sphere_stick),
        cmocka_unit_test(test_box_edge),         cmocka_unit_test(test_planar_triangle),
        cmocka_unit_test(test_mu_zero),          cmocka_unit_test(test_mu_zero_ties),
        cmocka_unit_test(test_touchdown),
        cmocka_unit_test(test_compliance_ignored), cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, print_worst);
}
