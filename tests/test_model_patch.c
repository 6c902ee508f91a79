/* Distributed contact patches of src/model/ (docs/theory.md, model Sec. 9).
 *
 * 1. Every pair that takes a patch (round: plane-sphere, sphere-sphere, line-circle,
 *    circle-circle; face: plane-box, line-rectangle, line-polygon), n_s = 2 and 3, each geometry
 *    on the ground, a free body or a revolute-prismatic-revolute chain, both declaration orders,
 *    random states. For every element row:
 *    - the frame is orthonormal and right-handed, pb - pa = gap n, and every element of a patch
 *      has exactly the frame of the patch;
 *    - Gamma_t e_j, Gamma_o e_j = d . (dPb/de - dPa/de) with Pa, Pb the MATERIAL points at the
 *      element's pa, pb, by central differences of the body poses (not of our Jacobian code);
 *      face patches: Gamma_n too (their elements are material points);
 *    - Gamma_n e_j = dPsi_e/de by central differences of the element gap;
 *    - (dGamma_d/dt) v by central differences of Gamma_d(q +- eps G v) v in time.
 *    Error budget as in test_model_contacts.c: eps = 3e-6, tolerance 1e-5 (1 + |f|).
 * 2. Element gaps and points against closed forms: plane-box face (all equal when flat;
 *    z0 + eta sin(th) - hz cos(th) when tilted), sphere-plane (sagitta: z0 - sqrt(r^2 - rho^2)),
 *    sphere-sphere, and the planar counterparts.
 * 3. n_s = 1 is the pair without patch; the middle element of an odd patch reproduces the
 *    single-point rows (round) or a plane-point pair at the face centre (face); the normal rows
 *    of a round patch are the nominal normal row.
 * 4. Statics of a box on a Winkler patch: Gamma_n^T lambda with lambda_e = K_e (-gap_e) against
 *    the closed-form force and moment of the lumped foundation; equal forces under a symmetric
 *    load; the element compliances sum to the pair's K and C.
 * 5. Bad input. */
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

#include "cdyn/model.h"
#include "model_support.h"
#include "support.h"

#define PI 3.14159265358979323846

/* Centre of cell k of n equal cells covering [-h, h] (the element grid of the docs). */
static double cell(int n, double h, int k)
{
    return -h + (2 * k + 1) * h / n;
}

/* ---- models ---------------------------------------------------------------------------------- */

/* The mounts of tests/model_support.h without the welded one. */
enum { MOUNT_GROUND = TM_MOUNT_GROUND, MOUNT_FREE = TM_MOUNT_FREE, MOUNT_CHAIN = TM_MOUNT_CHAIN,
       NMOUNT = TM_MOUNT_WELDED };

typedef struct pcase {
    const char *name;
    int dim;
    cdyn_geom_type ta;
    double sa;
    cdyn_geom_type tb;
    double sb[3];
    double cb[3]; /* centre of b relative to a */
    double w;     /* patch half-width (0: face patch) */
} pcase;

static const pcase CASES[] = {
    {"plane-sphere", 3, CDYN_GEOM_PLANE, 0, CDYN_GEOM_SPHERE, {0.05}, {0.02, 0.01, 0.05}, 0.02},
    {"sphere-sphere",
     3,
     CDYN_GEOM_SPHERE,
     0.05,
     CDYN_GEOM_SPHERE,
     {0.03},
     {0.05, 0.04, 0.03},
     0.02},
    {"plane-box", 3, CDYN_GEOM_PLANE, 0, CDYN_GEOM_BOX, {0.04, 0.03, 0.02}, {0, 0, 0.02}, 0},
    {"line-circle", 2, CDYN_GEOM_PLANE, 0, CDYN_GEOM_CIRCLE, {0.05}, {0.02, 0.05}, 0.03},
    {"circle-circle", 2, CDYN_GEOM_CIRCLE, 0.05, CDYN_GEOM_CIRCLE, {0.03}, {0.05, 0.06}, 0.025},
    {"line-rectangle", 2, CDYN_GEOM_PLANE, 0, CDYN_GEOM_RECTANGLE, {0.05, 0.03}, {0, 0.03}, 0},
    {"line-polygon", 2, CDYN_GEOM_PLANE, 0, CDYN_GEOM_POLYGON, {0}, {0, 0.04}, 0},
};
#define NCASES ((int)(sizeof(CASES) / sizeof(CASES[0])))

static cdyn_geom_desc case_geom(const pcase *pc, int which, int body)
{
    cdyn_geom_desc g = which == 0 ? tm_geom(body, pc->ta, pc->sa, 0, 0)
                                  : tm_geom(body, pc->tb, pc->sb[0], pc->sb[1], pc->sb[2]);
    if (g.type == CDYN_GEOM_POLYGON) {
        g.n_vertices = 5;
        g.vertices = TM_PENTAGON;
    }
    return g;
}

/* Pair of case pc with a on mount ma, b on mount mb, declared (b, a) when swap; geometry
 * frames turned off the body frames. */
static cdyn_model *build_case(const pcase *pc, int ma, int mb, int swap, int ns)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, pc->dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    const double zero[3] = {0, 0, 0};
    const int body_a = tm_add_mount(b, pc->dim, ma, zero);
    const int body_b = tm_add_mount(b, pc->dim, mb, pc->cb);
    cdyn_geom_desc ga = case_geom(pc, 0, body_a), gb = case_geom(pc, 1, body_b);
    if (pc->dim == 3) {
        ga.frame.quat[0] = cos(0.05);
        ga.frame.quat[1] = sin(0.05);
    } else {
        ga.frame = cdyn_pose_planar(0, 0, 0.05);
    }
    if (pc->dim == 3) {
        gb.frame.pos[0] = 0.005;
        gb.frame.quat[0] = cos(0.1);
        gb.frame.quat[2] = sin(0.1);
    } else {
        gb.frame = cdyn_pose_planar(0.005, -0.003, 0.1);
    }
    if (mb == MOUNT_GROUND)
        for (int i = 0; i < pc->dim; ++i)
            gb.frame.pos[i] += pc->cb[i];
    int ia, ib;
    assert_int_equal(cdyn_builder_add_geom(b, &ga, &ia, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &gb, &ib, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = swap ? ib : ia;
    pd.geom_b = swap ? ia : ib;
    pd.patch_n = ns;
    pd.patch_half_width = ns > 1 ? pc->w : 0.0;
    cdyn_report r;
    const cdyn_status st = cdyn_builder_add_contact_pair(b, &pd, NULL, &r);
    if (st != CDYN_OK)
        print_error("%s: %s\n", pc->name, r.message);
    assert_int_equal(st, CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* Random state: chain joints within +-0.15, free bodies jittered by +-0.01 with a rotation
 * within 0.5 rad, velocities within +-2. */
static void random_state(const cdyn_model *m, test_rng *rng, double *q, double *v)
{
    cdyn_model_default_q(m, q);
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, k, &bi);
        double *qb = q + bi.qadr;
        if (bi.joint == CDYN_JOINT_FREE) {
            for (int i = 0; i < (cdyn_model_dim(m) == 3 ? 3 : 2); ++i)
                qb[i] += test_rng_range(rng, -0.01, 0.01);
            const double ang = test_rng_range(rng, -0.5, 0.5);
            if (cdyn_model_dim(m) == 2) {
                qb[2] = ang;
            } else {
                double ax[3], nax = 0;
                for (int i = 0; i < 3; ++i) {
                    ax[i] = test_rng_range(rng, -1, 1);
                    nax += ax[i] * ax[i];
                }
                nax = sqrt(nax);
                qb[3] = cos(ang / 2);
                for (int i = 0; i < 3; ++i)
                    qb[4 + i] = sin(ang / 2) * ax[i] / nax;
            }
        } else if (bi.nq == 1) {
            qb[0] = test_rng_range(rng, -0.15, 0.15);
        }
    }
    for (int i = 0; i < cdyn_model_nv(m); ++i)
        v[i] = test_rng_range(rng, -2, 2);
}

/* ---- 1. finite differences --------------------------------------------------------------- */

typedef struct errs {
    double frame, jac, gapgrad, jdot;
} errs;

static void check_rows(const cdyn_model *m, const double *q, const double *v, int face, errs *e)
{
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL), CDYN_OK);
    cdyn_contact *c = malloc(sizeof(cdyn_contact) * nc);
    double *J[3], *jd[3];
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    double(*la)[3] = malloc(sizeof(double) * 3 * nc), (*lb)[3] = malloc(sizeof(double) * 3 * nc);
    for (int k = 0; k < 3; ++k) {
        J[k] = malloc(sizeof(double) * nc * nv);
        jd[k] = malloc(sizeof(double) * nc);
        memcpy(J[k], cdyn_data_jacobian(d, (cdyn_dir)k), sizeof(double) * nc * nv);
        memcpy(jd[k], cdyn_data_jacobian_dot_v(d, (cdyn_dir)k), sizeof(double) * nc);
    }
    for (int i = 0; i < nc; ++i) {
        assert_int_equal(cdyn_data_contact(d, i, &c[i]), CDYN_OK);
        assert_int_equal(c[i].index, i);
        tm_body_coords(d, pi.body_a, c[i].pa, la[i]);
        tm_body_coords(d, pi.body_b, c[i].pb, lb[i]);
        const double *fr[3] = {c[i].n, c[i].t, c[i].o};
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b)
                e->frame = fmax(e->frame, fabs(tm_dot3(fr[a], fr[b]) - (a == b ? 1.0 : 0.0)));
        const double nt[3] = {c[i].n[1] * c[i].t[2] - c[i].n[2] * c[i].t[1],
                              c[i].n[2] * c[i].t[0] - c[i].n[0] * c[i].t[2],
                              c[i].n[0] * c[i].t[1] - c[i].n[1] * c[i].t[0]};
        e->frame = fmax(e->frame, tm_maxdiff(3, nt, c[i].o));
        for (int k = 0; k < 3; ++k)
            e->frame = fmax(e->frame, fabs(c[i].pb[k] - c[i].pa[k] - c[i].gap * c[i].n[k]));
        /* one frame per patch */
        assert_true(tm_maxdiff(3, c[i].n, c[0].n) == 0.0 && tm_maxdiff(3, c[i].t, c[0].t) == 0.0 &&
                    tm_maxdiff(3, c[i].o, c[0].o) == 0.0);
    }
    int *ba = malloc(sizeof(int) * nc), *bb = malloc(sizeof(int) * nc);
    for (int i = 0; i < nc; ++i)
        ba[i] = pi.body_a, bb[i] = pi.body_b;
    const tm_rows rows = {{J[0], J[1], J[2]}, {jd[0], jd[1], jd[2]}, c, ba, bb, la, lb,
                          face ? 0 : 1};
    assert_int_equal(
        tm_fd_contact_rows(m, d, q, v, 3e-6, &rows, &e->jac, &e->gapgrad, &e->jdot), 0);
    free(ba);
    free(bb);
    for (int k = 0; k < 3; ++k) {
        free(J[k]);
        free(jd[k]);
    }
    free(c);
    free(la);
    free(lb);
    cdyn_data_free(d);
}

static void test_patch_jacobians(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 77);
    errs worst = {0, 0, 0, 0};
    for (int ci = 0; ci < NCASES; ++ci) {
        const pcase *pc = &CASES[ci];
        for (int ns = 2; ns <= 3; ++ns)
            for (int ma = 0; ma < NMOUNT; ++ma)
                for (int mb = 0; mb < NMOUNT; ++mb) {
                    if (ma == MOUNT_GROUND && mb == MOUNT_GROUND)
                        continue;
                    const int swap = (ma + mb + ns) % 2;
                    cdyn_model *m = build_case(pc, ma, mb, swap, ns);
                    assert_int_equal(cdyn_model_ncontact(m), pc->dim == 3 ? ns * ns : ns);
                    double q[32], v[32];
                    random_state(m, &rng, q, v);
                    errs e = {0, 0, 0, 0};
                    check_rows(m, q, v, pc->w == 0.0, &e);
                    if (tm_verbose() || e.jac > 1e-5 || e.jdot > 1e-5 || e.gapgrad > 1e-5)
                        print_message("%-15s ns %d mounts %d %d swap %d: frame %.1e jac %.1e "
                                      "grad %.1e jdot %.1e\n",
                                      pc->name, ns, ma, mb, swap, e.frame, e.jac, e.gapgrad,
                                      e.jdot);
                    worst.frame = fmax(worst.frame, e.frame);
                    worst.jac = fmax(worst.jac, e.jac);
                    worst.gapgrad = fmax(worst.gapgrad, e.gapgrad);
                    worst.jdot = fmax(worst.jdot, e.jdot);
                    cdyn_model_free(m);
                }
    }
    if (tm_verbose())
        print_message("worst: frame %.1e jac %.1e grad %.1e jdot %.1e\n", worst.frame, worst.jac,
                      worst.gapgrad, worst.jdot);
    assert_true(worst.frame < 1e-12);
    assert_true(worst.jac < 1e-5);
    assert_true(worst.gapgrad < 1e-5);
    assert_true(worst.jdot < 1e-5);
}

/* ---- 2. closed-form gaps ------------------------------------------------------------------- */

/* Geometry ga on the ground, gb on a free body; one pair (a, b) with patch (ns, w). */
static cdyn_model *ground_and_free(int dim, cdyn_geom_desc ga, cdyn_geom_desc gb, int ns, double w)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_body_desc f = tm_free_body(1.0, 0.01, 0.01, 0.01);
    int body, ia, ib;
    assert_int_equal(cdyn_builder_add_body(b, &f, &body, NULL), CDYN_OK);
    ga.body = CDYN_GROUND;
    gb.body = body;
    assert_int_equal(cdyn_builder_add_geom(b, &ga, &ia, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &gb, &ib, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = ia;
    pd.geom_b = ib;
    pd.patch_n = ns;
    pd.patch_half_width = w;
    pd.stiffness[0] = 1e4;
    pd.stiffness[4] = pd.stiffness[8] = 5e3;
    pd.damping[0] = 20;
    pd.damping[4] = pd.damping[8] = 10;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* Evaluate contacts at q (and v, may be NULL) into a fresh data object. */
static cdyn_data *eval_at(const cdyn_model *m, const double *q, const double *v)
{
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, q, v, v ? CDYN_EVAL_ALL : CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    return d;
}

static void test_patch_gaps_3d(void **state)
{
    (void)state;
    const cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    cdyn_contact c;
    /* sphere over the plane z = 0, centre (x0, y0, z0), any orientation: element (i, j) at
     * (x0 + xi_i, y0 + eta_j) (t = x, o = y for the plane's axes), gap z0 - sqrt(r^2 - rho^2):
     * the sphere's lower surface over that point (nominal gap z0 - r plus the sagitta) */
    {
        const double r = 0.05, w = 0.03, x0 = 0.1, y0 = -0.2, z0 = 0.045;
        const int ns = 4;
        cdyn_model *m = ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_SPHERE, r, 0, 0), ns, w);
        assert_int_equal(cdyn_model_ncontact(m), 16);
        const double q[7] = {x0, y0, z0, cos(0.4), sin(0.4) * 0.6, 0, sin(0.4) * 0.8};
        cdyn_data *d = eval_at(m, q, NULL);
        for (int e = 0; e < 16; ++e) {
            const double xi = cell(ns, w, e % ns), eta = cell(ns, w, e / ns);
            const double h = sqrt(r * r - xi * xi - eta * eta);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (z0 - h)) < 1e-15);
            const double pa[3] = {x0 + xi, y0 + eta, 0}, pb[3] = {x0 + xi, y0 + eta, z0 - h};
            assert_true(tm_maxdiff(3, c.pa, pa) < 1e-15 && tm_maxdiff(3, c.pb, pb) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
    /* the same under a plane tilted by al about x (normal (0, -sin al, cos al)) */
    {
        const double r = 0.05, w = 0.02, al = 0.3;
        const int ns = 3;
        cdyn_geom_desc tilted = plane;
        tilted.frame.quat[0] = cos(al / 2);
        tilted.frame.quat[1] = sin(al / 2);
        cdyn_model *m = ground_and_free(3, tilted, tm_geom(0, CDYN_GEOM_SPHERE, r, 0, 0), ns, w);
        const double q[7] = {0.1, -0.2, 0.03, 1, 0, 0, 0};
        cdyn_data *d = eval_at(m, q, NULL);
        const double dist = -sin(al) * q[1] + cos(al) * q[2]; /* centre above the plane */
        for (int e = 0; e < 9; ++e) {
            const double xi = cell(ns, w, e % ns), eta = cell(ns, w, e / ns);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (dist - sqrt(r * r - xi * xi - eta * eta))) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
    /* sphere-sphere: gap_e = L - sqrt(ra^2 - rho^2) - sqrt(rb^2 - rho^2) */
    {
        const double ra = 0.04, rb = 0.03, w = 0.02;
        const int ns = 3;
        cdyn_geom_desc s1 = tm_geom(CDYN_GROUND, CDYN_GEOM_SPHERE, ra, 0, 0);
        s1.frame.pos[0] = 0.01;
        cdyn_model *m = ground_and_free(3, s1, tm_geom(0, CDYN_GEOM_SPHERE, rb, 0, 0), ns, w);
        const double q[7] = {0.05, 0.04, -0.03, 1, 0, 0, 0};
        const double L = sqrt(0.04 * 0.04 + 0.04 * 0.04 + 0.03 * 0.03);
        cdyn_data *d = eval_at(m, q, NULL);
        for (int e = 0; e < 9; ++e) {
            const double xi = cell(ns, w, e % ns), eta = cell(ns, w, e / ns);
            const double rho2 = xi * xi + eta * eta;
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (L - sqrt(ra * ra - rho2) - sqrt(rb * rb - rho2))) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
    /* box (hx, hy, hz) with its centre at (x0, y0, z0): flat (any yaw) all elements have the
     * gap z0 - hz; tilted by th about x, element (i, j) of the bottom face at local
     * (xi_i, eta_j, -hz) has z = z0 + eta_j sin th - hz cos th; rolled by pi/2 + th the face
     * y = -hy faces the plane, element (i, j) at local (eta_j over hx, -hy, xi_i over hz) */
    {
        const double hx = 0.04, hy = 0.03, hz = 0.02, z0 = 0.019;
        const int ns = 4;
        cdyn_model *m = ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_BOX, hx, hy, hz), ns, 0.0);
        assert_int_equal(cdyn_model_ncontact(m), 16);
        const double yaw = 0.7;
        const double qf[7] = {0.3, 0.2, z0, cos(yaw / 2), 0, 0, sin(yaw / 2)};
        cdyn_data *d = eval_at(m, qf, NULL);
        for (int e = 0; e < 16; ++e) {
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (z0 - hz)) < 1e-15);
        }
        cdyn_data_free(d);
        const double th = 0.25;
        const double qt[7] = {0.3, 0.2, z0, cos(th / 2), sin(th / 2), 0, 0};
        d = eval_at(m, qt, NULL);
        for (int e = 0; e < 16; ++e) {
            const double eta = cell(ns, hy, e / ns);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (z0 + eta * sin(th) - hz * cos(th))) < 1e-15);
        }
        cdyn_data_free(d);
        const double ro = PI / 2 + th;
        const double qr[7] = {0.3, 0.2, z0, cos(ro / 2), sin(ro / 2), 0, 0};
        d = eval_at(m, qr, NULL);
        for (int e = 0; e < 16; ++e) {
            const double zl = cell(ns, hz, e % ns);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (z0 - hy * sin(ro) + zl * cos(ro))) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
}

static void test_patch_gaps_2d(void **state)
{
    (void)state;
    const cdyn_geom_desc line = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    cdyn_contact c;
    /* circle over the line y = 0: element i at x0 + xi_i, gap y0 - sqrt(r^2 - xi^2) */
    {
        const double r = 0.05, w = 0.04, x0 = 0.2, y0 = 0.03;
        const int ns = 5;
        cdyn_model *m = ground_and_free(2, line, tm_geom(0, CDYN_GEOM_CIRCLE, r, 0, 0), ns, w);
        assert_int_equal(cdyn_model_ncontact(m), ns);
        const double q[3] = {x0, y0, 1.3};
        cdyn_data *d = eval_at(m, q, NULL);
        for (int e = 0; e < ns; ++e) {
            const double xi = cell(ns, w, e), h = sqrt(r * r - xi * xi);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (y0 - h)) < 1e-15);
            const double pa[3] = {x0 + xi, 0, 0}, pb[3] = {x0 + xi, y0 - h, 0};
            assert_true(tm_maxdiff(3, c.pa, pa) < 1e-15 && tm_maxdiff(3, c.pb, pb) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
    /* circle-circle */
    {
        const double ra = 0.05, rb = 0.03, w = 0.03;
        const int ns = 4;
        cdyn_model *m = ground_and_free(2, tm_geom(CDYN_GROUND, CDYN_GEOM_CIRCLE, ra, 0, 0),
                                        tm_geom(0, CDYN_GEOM_CIRCLE, rb, 0, 0), ns, w);
        const double q[3] = {0.05, 0.06, 0.2};
        cdyn_data *d = eval_at(m, q, NULL);
        for (int e = 0; e < ns; ++e) {
            const double xi = cell(ns, w, e);
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            assert_true(fabs(c.gap - (hypot(0.05, 0.06) - sqrt(ra * ra - xi * xi) -
                                      sqrt(rb * rb - xi * xi))) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
    /* rectangle turned by th: element i of the bottom edge at local (xi_i, -hy) has
     * y = y0 + xi sin th - hy cos th (flat: all equal) */
    {
        const double hx = 0.05, hy = 0.03, y0 = 0.025;
        const int ns = 3;
        cdyn_model *m =
            ground_and_free(2, line, tm_geom(0, CDYN_GEOM_RECTANGLE, hx, hy, 0), ns, 0.0);
        for (int k = 0; k < 2; ++k) {
            const double th = k == 0 ? 0.0 : 0.2;
            const double q[3] = {0.1, y0, th};
            cdyn_data *d = eval_at(m, q, NULL);
            for (int e = 0; e < ns; ++e) {
                const double xi = cell(ns, hx, e);
                assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
                assert_true(fabs(c.gap - (y0 + xi * sin(th) - hy * cos(th))) < 1e-15);
                if (k == 0)
                    assert_true(fabs(c.gap - (y0 - hy)) < 1e-15);
            }
            cdyn_data_free(d);
        }
        cdyn_model_free(m);
    }
    /* pentagon turned so that its edge 3 ((-0.032, -0.024) -> (0.012, -0.038)) lies flat at the
     * bottom: th = -pi/2 - atan2 of that edge's outward normal (ey, -ex); all elements then have
     * the gap y0 + (R v3)_y */
    {
        cdyn_geom_desc pg = tm_geom(0, CDYN_GEOM_POLYGON, 0, 0, 0);
        pg.n_vertices = 5;
        pg.vertices = TM_PENTAGON;
        const int ns = 4;
        cdyn_model *m = ground_and_free(2, line, pg, ns, 0.0);
        const double ex = 0.012 + 0.032, ey = -0.038 + 0.024;
        const double th = -PI / 2 - atan2(-ex, ey); /* normal (ey, -ex) to angle -pi/2 */
        const double y0 = 0.05, q[3] = {0.1, y0, th};
        const double ref = y0 + sin(th) * -0.032 + cos(th) * -0.024;
        cdyn_data *d = eval_at(m, q, NULL);
        for (int e = 0; e < ns; ++e) {
            assert_int_equal(cdyn_data_contact(d, e, &c), CDYN_OK);
            if (tm_verbose())
                print_message("polygon element %d: gap %.17g ref %.17g\n", e, c.gap, ref);
            assert_true(fabs(c.gap - ref) < 1e-15);
        }
        cdyn_data_free(d);
        cdyn_model_free(m);
    }
}

/* ---- 3. single point --------------------------------------------------------------------- */

/* Row r of model m against row r0 of model m0 at the same (q, v): gap, points, frame, Jacobian
 * rows and Jacobian-dot terms; largest difference (dirs: which directions to compare). */
static double row_diff(const cdyn_model *m, const cdyn_data *d, int r, const cdyn_model *m0,
                       const cdyn_data *d0, int r0, int dir_lo, int dir_hi)
{
    cdyn_contact c, c0;
    assert_int_equal(cdyn_data_contact(d, r, &c), CDYN_OK);
    assert_int_equal(cdyn_data_contact(d0, r0, &c0), CDYN_OK);
    double e = 0.0;
    if (dir_lo == 0) {
        e = fmax(e, fabs(c.gap - c0.gap));
        e = fmax(e, tm_maxdiff(3, c.pa, c0.pa));
        e = fmax(e, tm_maxdiff(3, c.pb, c0.pb));
    }
    e = fmax(e, tm_maxdiff(3, c.n, c0.n));
    e = fmax(e, tm_maxdiff(3, c.t, c0.t));
    e = fmax(e, tm_maxdiff(3, c.o, c0.o));
    const int nc = cdyn_model_ncontact(m), nc0 = cdyn_model_ncontact(m0), nv = cdyn_model_nv(m);
    for (int k = dir_lo; k <= dir_hi; ++k) {
        const double *J = cdyn_data_jacobian(d, (cdyn_dir)k);
        const double *J0 = cdyn_data_jacobian(d0, (cdyn_dir)k);
        for (int j = 0; j < nv; ++j)
            e = fmax(e, fabs(J[r + j * nc] - J0[r0 + j * nc0]));
        e = fmax(e, fabs(cdyn_data_jacobian_dot_v(d, (cdyn_dir)k)[r] -
                         cdyn_data_jacobian_dot_v(d0, (cdyn_dir)k)[r0]));
    }
    return e;
}

static void test_patch_single_point(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 5);
    double q[32], v[32];
    /* round patches: the middle element of an odd patch is the pair's own point, bit for bit;
     * every element's normal row is the nominal normal row (the sagittas are constant) */
    const int round_cases[4] = {0, 1, 3, 4};
    for (int k = 0; k < 4; ++k) {
        const pcase *pc = &CASES[round_cases[k]];
        cdyn_model *m0 = build_case(pc, MOUNT_CHAIN, MOUNT_FREE, k % 2, 1);
        cdyn_model *m = build_case(pc, MOUNT_CHAIN, MOUNT_FREE, k % 2, 3);
        assert_int_equal(cdyn_model_ncontact(m0), 1);
        random_state(m, &rng, q, v);
        cdyn_data *d0 = eval_at(m0, q, v), *d = eval_at(m, q, v);
        const int mid = pc->dim == 3 ? 4 : 1;
        assert_true(row_diff(m, d, mid, m0, d0, 0, 0, 2) == 0.0);
        for (int e = 0; e < cdyn_model_ncontact(m); ++e)
            assert_true(row_diff(m, d, e, m0, d0, 0, 0, 0) > 0.0 || e == mid);
        for (int e = 0; e < cdyn_model_ncontact(m); ++e) {
            const int nc = cdyn_model_ncontact(m);
            const double *J = cdyn_data_jacobian(d, CDYN_DIR_N), *J0 = cdyn_data_jacobian(d0, 0);
            for (int j = 0; j < cdyn_model_nv(m); ++j)
                assert_true(J[e + j * nc] == J0[j]);
            assert_true(cdyn_data_jacobian_dot_v(d, CDYN_DIR_N)[e] ==
                        cdyn_data_jacobian_dot_v(d0, CDYN_DIR_N)[0]);
        }
        cdyn_data_free(d0);
        cdyn_data_free(d);
        cdyn_model_free(m0);
        cdyn_model_free(m);
    }
    /* patch_n = 1 is the pair without patch whatever patch_half_width says */
    {
        const cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
        cdyn_model *m0 =
            ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_BOX, 0.04, 0.03, 0.02), 1, 0.0);
        cdyn_model *m1 =
            ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_BOX, 0.04, 0.03, 0.02), 1, 0.01);
        assert_int_equal(cdyn_model_ncontact(m1), 8);
        cdyn_pair_info pi;
        assert_int_equal(cdyn_model_pair_info(m1, 0, &pi), CDYN_OK);
        assert_true(pi.patch_n == 1 && pi.patch_half_width == 0.0 && pi.nrows == 8);
        random_state(m0, &rng, q, v);
        cdyn_data *d0 = eval_at(m0, q, v), *d1 = eval_at(m1, q, v);
        for (int e = 0; e < 8; ++e)
            assert_true(row_diff(m1, d1, e, m0, d0, e, 0, 2) == 0.0);
        cdyn_data_free(d0);
        cdyn_data_free(d1);
        cdyn_model_free(m0);
        cdyn_model_free(m1);
    }
    /* face patch: the middle element of the bottom face is a plane-point pair with the point
     * at the face centre (built independently, through the point's geometry frame) */
    {
        const double hz = 0.02;
        cdyn_builder_options o;
        cdyn_builder_defaults(&o, 3);
        for (int swap = 0; swap < 2; ++swap) {
            cdyn_model *mm[2];
            for (int which = 0; which < 2; ++which) {
                cdyn_builder *b = NULL;
                assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
                cdyn_body_desc f = tm_free_body(1.0, 0.01, 0.01, 0.01);
                int body, ia, ib;
                assert_int_equal(cdyn_builder_add_body(b, &f, &body, NULL), CDYN_OK);
                cdyn_geom_desc gp = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
                gp.frame.quat[0] = cos(0.1);
                gp.frame.quat[2] = sin(0.1);
                cdyn_geom_desc gb = which == 0 ? tm_geom(body, CDYN_GEOM_BOX, 0.04, 0.03, hz)
                                               : tm_geom(body, CDYN_GEOM_POINT, 0, 0, 0);
                if (which == 1)
                    gb.frame.pos[2] = -hz;
                assert_int_equal(cdyn_builder_add_geom(b, &gp, &ia, NULL), CDYN_OK);
                assert_int_equal(cdyn_builder_add_geom(b, &gb, &ib, NULL), CDYN_OK);
                cdyn_contact_pair_desc pd;
                cdyn_contact_pair_desc_defaults(&pd);
                pd.geom_a = swap ? ib : ia;
                pd.geom_b = swap ? ia : ib;
                pd.patch_n = which == 0 ? 3 : 1;
                assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
                assert_int_equal(cdyn_builder_build(b, &mm[which], NULL), CDYN_OK);
                cdyn_builder_free(b);
            }
            const double th = 0.2;
            const double qq[7] = {0.01, 0.02, 0.03, cos(th), sin(th) * 0.6, sin(th) * 0.8, 0};
            const double vv[6] = {0.3, -0.2, 0.5, 1.0, -2.0, 0.7};
            cdyn_data *d = eval_at(mm[0], qq, vv), *dp = eval_at(mm[1], qq, vv);
            /* the point's position is R (0, 0, -hz) + o either way, up to rounding */
            const double e = row_diff(mm[0], d, 4, mm[1], dp, 0, 0, 2);
            if (tm_verbose())
                print_message("face middle element vs point pair: %.1e\n", e);
            assert_true(e < 1e-14);
            cdyn_data_free(d);
            cdyn_data_free(dp);
            cdyn_model_free(mm[0]);
            cdyn_model_free(mm[1]);
        }
    }
}

/* ---- 4. statics --------------------------------------------------------------------------- */

/* Gamma_n^T lambda with lambda_e = K_e,nn (-gap_e) (the linear spring law of each element, no
 * damping, no complementarity), into F (nv). Also returns the element forces. */
static void normal_force(const cdyn_model *m, const cdyn_data *d, double *lam, double *F)
{
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    const double *J = cdyn_data_jacobian(d, CDYN_DIR_N), *g = cdyn_data_gap(d);
    for (int j = 0; j < nv; ++j)
        F[j] = 0.0;
    for (int e = 0; e < nc; ++e) {
        double K[9];
        assert_int_equal(cdyn_model_contact_compliance(m, e, K, NULL), CDYN_OK);
        lam[e] = K[0] * -g[e];
        for (int j = 0; j < nv; ++j)
            F[j] += J[e + j * nc] * lam[e];
    }
}

static void test_patch_statics(void **state)
{
    (void)state;
    const double hx = 0.04, hy = 0.03, hz = 0.02, k = 1e4;
    const int ns = 4;
    const cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    cdyn_model *m = ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_BOX, hx, hy, hz), ns, 0.0);
    /* element compliances: K / n_s^2, C / n_s^2, summing to the pair's */
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
    assert_true(pi.patch_n == ns && pi.nrows == ns * ns && pi.patch_half_width == 0.0);
    double sumK[9] = {0}, sumC[9] = {0};
    for (int e = 0; e < ns * ns; ++e) {
        double K[9], C[9];
        assert_int_equal(cdyn_model_contact_compliance(m, e, K, C), CDYN_OK);
        for (int i = 0; i < 9; ++i) {
            assert_true(K[i] == pi.stiffness[i] / 16 && C[i] == pi.damping[i] / 16);
            sumK[i] += K[i];
            sumC[i] += C[i];
        }
    }
    assert_true(tm_maxdiff(9, sumK, pi.stiffness) == 0.0 && tm_maxdiff(9, sumC, pi.damping) == 0.0);

    /* flat at penetration dz, any yaw: equal element forces k dz / 16, total force k dz along
     * z and no moment about the centre (the elements are symmetric about it) */
    double lam[16], F[6];
    const double dz = 1e-3, yaw = 0.4;
    const double qf[7] = {0.2, -0.1, hz - dz, cos(yaw / 2), 0, 0, sin(yaw / 2)};
    cdyn_data *d = eval_at(m, qf, NULL);
    normal_force(m, d, lam, F);
    for (int e = 0; e < 16; ++e)
        assert_true(fabs(lam[e] - k * dz / 16) < 1e-15 * k);
    const double Fref[6] = {0, 0, k * dz, 0, 0, 0};
    assert_true(tm_maxdiff(6, F, Fref) < 1e-14 * k * dz / hz);
    cdyn_data_free(d);

    /* tilted by th about x with the centre at height z0: lumped Winkler foundation,
     * f_e = (k / n^2) (-(z0 + eta_j sin th - hz cos th)) at arm y_e = eta_j cos th + hz sin th:
     *   F_z = -k (z0 - hz cos th),
     *   M_x = -k [cos th sin th hy^2 (n^2 - 1) / (3 n^2) + hz sin th (z0 - hz cos th)],
     * using sum_j eta_j = 0, sum_j eta_j^2 = hy^2 (n^2 - 1) / (3 n) on the cell centres. */
    const double th = 0.05, z0 = 0.019;
    const double qt[7] = {0.2, -0.1, z0, cos(th / 2), sin(th / 2), 0, 0};
    d = eval_at(m, qt, NULL);
    normal_force(m, d, lam, F);
    const double n2 = ns * ns;
    const double Fz = -k * (z0 - hz * cos(th));
    const double Mx = -k * (cos(th) * sin(th) * hy * hy * (n2 - 1) / (3 * n2) +
                            hz * sin(th) * (z0 - hz * cos(th)));
    const double Ft[6] = {0, 0, Fz, Mx, 0, 0};
    if (tm_verbose())
        print_message("tilted box: Fz %.6e (ref %.6e) Mx %.6e (ref %.6e)\n", F[2], Fz, F[3], Mx);
    assert_true(tm_maxdiff(6, F, Ft) < 1e-14 * k * hz);
    cdyn_data_free(d);
    cdyn_model_free(m);

    /* sphere on a round patch under a pure normal load: elements at equal distance from the
     * axis carry equal forces, and the resultant is along n through the centre */
    const double r = 0.05, w = 0.03;
    m = ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_SPHERE, r, 0, 0), 2, w);
    const double qs[7] = {0, 0, r - 0.005, cos(0.3), 0, sin(0.3), 0};
    d = eval_at(m, qs, NULL);
    double lam4[4];
    normal_force(m, d, lam4, F);
    const double l0 = k / 4 * (sqrt(r * r - 2 * (w / 2) * (w / 2)) - (r - 0.005));
    for (int e = 0; e < 4; ++e)
        assert_true(fabs(lam4[e] - l0) < 1e-14 * k * r);
    const double Fs[6] = {0, 0, 4 * l0, 0, 0, 0};
    assert_true(tm_maxdiff(6, F, Fs) < 1e-14 * k * r);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

/* ---- 5. bad input --------------------------------------------------------------------------- */

#define EXPECT_EINVAL(call, needle)                                                                \
    do {                                                                                           \
        cdyn_report r_;                                                                            \
        memset(&r_, 0, sizeof(r_));                                                                \
        const cdyn_status st_ = (call);                                                            \
        if (st_ != CDYN_EINVAL || strstr(r_.message, needle) == NULL)                              \
            print_error("status %d, message \"%s\", expected \"%s\"\n", st_, r_.message, needle);  \
        assert_int_equal(st_, CDYN_EINVAL);                                                        \
        assert_non_null(strstr(r_.message, needle));                                               \
    } while (0)

static void test_patch_bad_input(void **state)
{
    (void)state;
    for (int dim = 2; dim <= 3; ++dim) {
        cdyn_builder_options o;
        cdyn_builder_defaults(&o, dim);
        cdyn_builder *b = NULL;
        assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
        cdyn_body_desc f = tm_free_body(1.0, 0.01, 0.01, 0.01);
        int body, body2;
        assert_int_equal(cdyn_builder_add_body(b, &f, &body, NULL), CDYN_OK);
        assert_int_equal(cdyn_builder_add_body(b, &f, &body2, NULL), CDYN_OK);
        const cdyn_geom_type ball = dim == 3 ? CDYN_GEOM_SPHERE : CDYN_GEOM_CIRCLE;
        const cdyn_geom_type solid = dim == 3 ? CDYN_GEOM_BOX : CDYN_GEOM_RECTANGLE;
        int gp, gs, gs2, gx, gc, gpt;
        cdyn_geom_desc g = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gp, NULL), CDYN_OK);
        g = tm_geom(body, ball, 0.05, 0, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs, NULL), CDYN_OK);
        g = tm_geom(body2, ball, 0.02, 0, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs2, NULL), CDYN_OK);
        g = tm_geom(body2, solid, 0.04, 0.03, 0.02);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gx, NULL), CDYN_OK);
        g = tm_geom(body2, CDYN_GEOM_CAPSULE, 0.02, 0.05, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gc, NULL), CDYN_OK);
        g = tm_geom(body2, CDYN_GEOM_POINT, 0, 0, 0);
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gpt, NULL), CDYN_OK);

        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        assert_true(p.patch_n == 1 && p.patch_half_width == 0.0);
        p.geom_a = gp;
        p.geom_b = gs;
        p.patch_half_width = 0.02;
        const int bad_n[3] = {0, -1, CDYN_PATCH_MAX + 1};
        for (int i = 0; i < 3; ++i) {
            p.patch_n = bad_n[i];
            EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "patch_n");
        }
        p.patch_n = 3;
        const double bad_w[3] = {NAN, INFINITY, -0.01};
        for (int i = 0; i < 3; ++i) {
            p.patch_half_width = bad_w[i];
            EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "patch_half_width");
            p.patch_n = 1; /* checked also without a patch */
            EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "patch_half_width");
            p.patch_n = 3;
        }
        p.patch_half_width = 0.0; /* a round patch needs a width */
        EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "half-width > 0");
        /* beyond the silhouette: sqrt(2) w (3D) or w (2D) > r */
        p.patch_half_width = dim == 3 ? 0.05 / sqrt(2.0) * 1.001 : 0.0501;
        EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "radius 0.05");
        p.geom_a = gs; /* ball-ball: the smaller ball limits */
        p.geom_b = gs2;
        p.patch_half_width = 0.021;
        EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "radius 0.02");
        p.geom_a = gx; /* face patch with a width */
        p.geom_b = gp;
        p.patch_half_width = 0.01;
        EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "whole contact face");
        p.patch_half_width = 0.01; /* pairs without patches */
        const int other[4][2] = {{gp, gc}, {gp, gpt}, {gs, gpt}, {gx, gs}};
        for (int i = 0; i < 4; ++i) {
            p.geom_a = other[i][0];
            p.geom_b = other[i][1];
            EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, NULL, &r_), "no distributed patch");
        }
        /* accepted: the limits themselves */
        int id;
        p.geom_a = gs;
        p.geom_b = gp;
        p.patch_n = CDYN_PATCH_MAX;
        const double w_max = dim == 3 ? 0.05 / sqrt(2.0) * 0.999 : 0.05;
        p.patch_half_width = w_max;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &id, NULL), CDYN_OK);
        assert_int_equal(id, 0); /* the failed adds left nothing behind */
        p.geom_a = gp;
        p.geom_b = gx;
        p.patch_n = 2;
        p.patch_half_width = 0.0;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &id, NULL), CDYN_OK);
        assert_int_equal(id, 1);
        cdyn_model *m = NULL;
        assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
        const int n1 = dim == 3 ? CDYN_PATCH_MAX * CDYN_PATCH_MAX : CDYN_PATCH_MAX;
        const int n2 = dim == 3 ? 4 : 2;
        assert_int_equal(cdyn_model_ncontact(m), n1 + n2);
        cdyn_pair_info pi;
        assert_int_equal(cdyn_model_pair_info(m, 1, &pi), CDYN_OK);
        assert_true(pi.row == n1 && pi.nrows == n2 && pi.patch_n == 2);
        assert_int_equal(cdyn_model_pair_info(m, 0, &pi), CDYN_OK);
        assert_true(pi.patch_n == CDYN_PATCH_MAX && pi.patch_half_width == w_max);
        double K[9];
        assert_int_equal(cdyn_model_contact_compliance(m, -1, K, NULL), CDYN_EINVAL);
        assert_int_equal(cdyn_model_contact_compliance(m, n1 + n2, K, NULL), CDYN_EINVAL);
        assert_int_equal(cdyn_model_contact_compliance(NULL, 0, K, NULL), CDYN_EINVAL);
        assert_int_equal(cdyn_model_contact_compliance(m, 0, NULL, NULL), CDYN_OK);
        /* evaluation of the largest patch: every element row is on the patch's frame */
        double q[14], v[12] = {0};
        cdyn_model_default_q(m, q);
        cdyn_data *d = eval_at(m, q, v);
        cdyn_contact c;
        assert_int_equal(cdyn_data_contact(d, n1 - 1, &c), CDYN_OK);
        assert_true(c.pair == 0 && c.index == n1 - 1);
        cdyn_data_free(d);
        cdyn_model_free(m);
        cdyn_builder_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patch_jacobians), cmocka_unit_test(test_patch_gaps_3d),
        cmocka_unit_test(test_patch_gaps_2d),   cmocka_unit_test(test_patch_single_point),
        cmocka_unit_test(test_patch_statics),   cmocka_unit_test(test_patch_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
