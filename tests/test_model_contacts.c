/* Contact kinematics of src/model/ (gaps, points, frames, Jacobians, Jacobian-dot terms):
 *
 * 1. Every supported geometry pair, with each geometry mounted on the ground, on a free body,
 *    at the end of a revolute-prismatic-revolute chain, or on a FIXED body welded to a free body,
 *    at random states near contact. For every contact row:
 *    - the frame is orthonormal and right-handed (n x t = o), gap = n . (pb - pa) and
 *      pb - pa = gap n;
 *    - Gamma_d e_j = d . (dPb/de - dPa/de) with Pa, Pb the MATERIAL points of the two bodies at
 *      pa, pb, by central differences along q +- eps G e_j of the body poses (not of our
 *      Jacobian code);
 *    - Gamma_n e_j = dPsi_n/de by central differences of the gap (the paper's
 *      Gamma_n = J Psi_n G);
 *    - (dGamma_d/dt) v = (Gamma_d(q + eps G v) v - Gamma_d(q - eps G v) v) / (2 eps) (the
 *      definition in cdyn/model.h, differenced in time along the trajectory);
 *    - the CSC Jacobians hold the dense values.
 *    Central-difference error: eps^2/6 |f'''| + 2 u |f| / eps (u = 1.1e-16). The normals of
 *    point-like pairs turn at rates ~|relative velocity| / L (L = distance between the centres
 *    or to the segment, >= ~0.02 m in these cases; speeds <= ~3 m/s), so |f'''| <~ (3/0.02)^3
 *    |f| ~ 3e6 |f|; with eps = 3e-6 that is ~5e-6 |f|, and rounding ~1e-10 |f|: tolerance
 *    1e-5 (1 + |f|). The errors scale as eps^2 (checked when choosing eps) and are typically
 *    1e-9 .. 1e-7.
 * 2. Gaps against closed-form distances (and, for the ellipse, against a dense sampling of
 *    its boundary refined by golden-section search).
 * 3. The billiard ball of Song, Kumar & Pang: Gamma_n = (0 0 1 0 0 0), Gamma_t = (1 0 0 0 -r 0),
 *    Gamma_o = (0 1 0 r 0 0) at any orientation; the planar disk: Gamma_t = (1 0 r). */
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
#include "pair_cases.h"
#include "support.h"

#define PI 3.14159265358979323846

/* ---- the finite-difference harness -------------------------------------------------------- */

typedef struct errs {
    double frame, jac, gapgrad, jdot;
} errs;

static void cross3(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static void check_rows(const cdyn_model *m, const double *q, const double *v, errs *e)
{
    const int nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    const int dim = cdyn_model_dim(m);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    cdyn_report r;
    assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, &r), CDYN_OK);
    cdyn_contact *c = malloc(sizeof(cdyn_contact) * nc);
    double *J[3], *jd[3];
    int *ba = malloc(sizeof(int) * nc), *bb = malloc(sizeof(int) * nc);
    double(*la)[3] = malloc(sizeof(double) * 3 * nc), (*lb)[3] = malloc(sizeof(double) * 3 * nc);
    for (int k = 0; k < 3; ++k) {
        J[k] = malloc(sizeof(double) * nc * nv);
        jd[k] = malloc(sizeof(double) * nc);
        memcpy(J[k], cdyn_data_jacobian(d, (cdyn_dir)k), sizeof(double) * nc * nv);
        memcpy(jd[k], cdyn_data_jacobian_dot_v(d, (cdyn_dir)k), sizeof(double) * nc);
        cdyn_csc C;
        assert_int_equal(cdyn_data_jacobian_csc(d, (cdyn_dir)k, &C), CDYN_OK);
        assert_int_equal(cdyn_csc_check(&C, NULL), CDYN_OK);
        double *full = calloc((size_t)nc * nv, sizeof(double));
        for (int j = 0; j < nv; ++j)
            for (int p = C.colptr[j]; p < C.colptr[j + 1]; ++p)
                full[C.rowind[p] + j * nc] = C.values[p];
        assert_true(tm_maxdiff(nc * nv, full, J[k]) == 0.0);
        free(full);
    }
    for (int i = 0; i < nc; ++i) {
        assert_int_equal(cdyn_data_contact(d, i, &c[i]), CDYN_OK);
        cdyn_pair_info pi;
        cdyn_model_pair_info(m, c[i].pair, &pi);
        ba[i] = pi.body_a;
        bb[i] = pi.body_b;
        tm_body_coords(d, ba[i], c[i].pa, la[i]);
        tm_body_coords(d, bb[i], c[i].pb, lb[i]);
        /* frame */
        const double *fr[3] = {c[i].n, c[i].t, c[i].o};
        double nt[3];
        for (int a = 0; a < 3; ++a)
            for (int b2 = 0; b2 < 3; ++b2)
                e->frame = fmax(e->frame, fabs(tm_dot3(fr[a], fr[b2]) - (a == b2 ? 1.0 : 0.0)));
        cross3(c[i].n, c[i].t, nt);
        e->frame = fmax(e->frame, tm_maxdiff(3, nt, c[i].o));
        double diff[3];
        for (int k = 0; k < 3; ++k)
            diff[k] = c[i].pb[k] - c[i].pa[k];
        e->frame = fmax(e->frame, fabs(tm_dot3(diff, c[i].n) - c[i].gap));
        for (int k = 0; k < 3; ++k)
            e->frame = fmax(e->frame, fabs(diff[k] - c[i].gap * c[i].n[k]));
        assert_true(c[i].active == 1); /* default margin: always active */
        if (dim == 2) {                /* planar: o = -z, zero o rows */
            assert_true(c[i].o[2] == -1.0 && c[i].n[2] == 0.0);
            for (int j = 0; j < nv; ++j)
                assert_true(J[2][i + j * nc] == 0.0);
            assert_true(jd[2][i] == 0.0);
        }
    }
    const tm_rows rows = {{J[0], J[1], J[2]}, {jd[0], jd[1], jd[2]}, c, ba, bb, la, lb,
                          0};
    assert_int_equal(
        tm_fd_contact_rows(m, d, q, v, 3e-6, &rows, &e->jac, &e->gapgrad, &e->jdot), 0);
    for (int k = 0; k < 3; ++k) {
        free(J[k]);
        free(jd[k]);
    }
    free(c);
    free(ba);
    free(bb);
    free(la);
    free(lb);
    cdyn_data_free(d);
}

/* ---- mounts ---------------------------------------------------------------------------------- */

enum { MOUNT_GROUND = TM_MOUNT_GROUND, NMOUNT = TM_NMOUNT };
#define MOUNT_NAME TM_MOUNT_NAME
#define CASES TM_PAIR_CASES
#define NCASES TM_NPAIR_CASES

static void test_jacobians_all_pairs(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 2024);
    errs worst = {0, 0, 0, 0};
    for (int ci = 0; ci < NCASES; ++ci) {
        const tm_pair_case *pc = &CASES[ci];
        errs ec = {0, 0, 0, 0};
        for (int ma = 0; ma < NMOUNT; ++ma)
            for (int mb = 0; mb < NMOUNT; ++mb) {
                if (ma == MOUNT_GROUND && mb == MOUNT_GROUND)
                    continue;
                const int swap = (ma + mb) % 2; /* declare half of them as (b, a) */
                cdyn_model *m = tm_build_pair(pc, ma, mb, swap, 1, 0.0);
                double q[32], v[32];
                for (int trial = 0; trial < 2; ++trial) {
                    tm_random_state(m, &rng, 0.01, 1, q, v);
                    errs e = {0, 0, 0, 0};
                    check_rows(m, q, v, &e);
                    if (tm_verbose() || e.jac > 1e-5 || e.jdot > 1e-5 || e.gapgrad > 1e-5)
                        print_message("%-20s %-6s %-6s swap %d: frame %.1e jac %.1e grad %.1e "
                                      "jdot %.1e\n",
                                      pc->name, MOUNT_NAME[ma], MOUNT_NAME[mb], swap, e.frame,
                                      e.jac, e.gapgrad, e.jdot);
                    ec.frame = fmax(ec.frame, e.frame);
                    ec.jac = fmax(ec.jac, e.jac);
                    ec.gapgrad = fmax(ec.gapgrad, e.gapgrad);
                    ec.jdot = fmax(ec.jdot, e.jdot);
                }
                cdyn_model_free(m);
            }
        if (tm_verbose())
            print_message("%-20s worst: frame %.1e jac %.1e grad %.1e jdot %.1e\n", pc->name,
                          ec.frame, ec.jac, ec.gapgrad, ec.jdot);
        worst.frame = fmax(worst.frame, ec.frame);
        worst.jac = fmax(worst.jac, ec.jac);
        worst.gapgrad = fmax(worst.gapgrad, ec.gapgrad);
        worst.jdot = fmax(worst.jdot, ec.jdot);
    }
    assert_true(worst.frame < 1e-12);
    assert_true(worst.jac < 1e-5);
    assert_true(worst.gapgrad < 1e-5);
    assert_true(worst.jdot < 1e-5);
}

/* ---- closed-form gaps -------------------------------------------------------------------- */

/* Ground geometry ga and geometry gb on a free body; pair (a, b). */
static cdyn_model *ground_and_free(int dim, cdyn_geom_desc ga, cdyn_geom_desc gb, double margin)
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
    pd.margin = margin;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}

/* Evaluate contacts at q; gaps into g (nc). */
static void gaps_at(const cdyn_model *m, const double *q, double *g)
{
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    memcpy(g, cdyn_data_gap(d), sizeof(double) * cdyn_model_ncontact(m));
    cdyn_data_free(d);
}

/* Distance from p to the ellipse (x/a)^2 + (y/b)^2 = 1 (in its frame), by sampling 20000
 * boundary points and refining the best one by golden-section search on the angle: an
 * independent check of the Newton foot-point method. Signed: negative inside. */
static double ellipse_distance_sampled(double a, double b, double px, double py)
{
    const int N = 20000;
    double best = INFINITY, tb = 0;
    for (int i = 0; i < N; ++i) {
        const double t = 2 * PI * i / N;
        const double dd = hypot(px - a * cos(t), py - b * sin(t));
        if (dd < best) {
            best = dd;
            tb = t;
        }
    }
    double lo = tb - 2 * PI / N, hi = tb + 2 * PI / N;
    const double gr = (sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 100; ++it) {
        const double t1 = hi - gr * (hi - lo), t2 = lo + gr * (hi - lo);
        if (hypot(px - a * cos(t1), py - b * sin(t1)) < hypot(px - a * cos(t2), py - b * sin(t2)))
            hi = t2;
        else
            lo = t1;
    }
    const double t = 0.5 * (lo + hi);
    const double dist = hypot(px - a * cos(t), py - b * sin(t));
    const double inside = (px / a) * (px / a) + (py / b) * (py / b) < 1.0;
    return inside ? -dist : dist;
}

/* The arc (ring radius R, thickness w, half-angle al, its frame turned by be): a circle of
 * radius rb centred at polar radius r and angle phi (in the arc's frame) has the gap
 * |r - R| - w - rb while |phi| <= al, and else its distance to the nearer end minus w + rb; the
 * normal points from the ring toward the circle's centre. */
static void test_gaps_arc(void **state)
{
    (void)state;
    const double R = 0.2, w = 0.005, al = 2.8, be = 0.3, rb = 0.01, c[2] = {0.05, -0.02};
    cdyn_geom_desc arc = tm_geom(CDYN_GROUND, CDYN_GEOM_ARC, w, R, al);
    arc.frame = cdyn_pose_planar(c[0], c[1], be);
    cdyn_model *m = ground_and_free(2, arc, tm_geom(0, CDYN_GEOM_CIRCLE, rb, 0, 0), INFINITY);
    const double rs[4] = {0.23, 0.17, 0.205, 0.21}, phis[4] = {1.2, -0.4, 2.0, 2.95};
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    for (int k = 0; k < 4; ++k) {
        const double x = c[0] + rs[k] * cos(phis[k] + be), y = c[1] + rs[k] * sin(phis[k] + be);
        const double q[3] = {x, y, 0.7};
        assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        double ref, foot[2];
        if (fabs(phis[k]) <= al) {
            ref = fabs(rs[k] - R) - w - rb;
            foot[0] = c[0] + R * cos(phis[k] + be), foot[1] = c[1] + R * sin(phis[k] + be);
        } else {
            foot[0] = c[0] + R * cos(al + be), foot[1] = c[1] + R * sin(al + be);
            ref = hypot(x - foot[0], y - foot[1]) - w - rb;
        }
        cdyn_contact ct;
        assert_int_equal(cdyn_data_contact(d, 0, &ct), CDYN_OK);
        const double dist = hypot(x - foot[0], y - foot[1]);
        assert_true(fabs(cdyn_data_gap(d)[0] - ref) < 1e-15);
        assert_true(fabs(ct.n[0] - (x - foot[0]) / dist) < 1e-12 &&
                    fabs(ct.n[1] - (y - foot[1]) / dist) < 1e-12);
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
    /* bad sizes are refused with a message */
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    cdyn_report r;
    const double bad[4][3] = {{-0.01, 0.2, 1}, {0.01, 0.005, 1}, {0.01, 0.2, 0}, {0.01, 0.2, 3.2}};
    for (int k = 0; k < 4; ++k) {
        cdyn_geom_desc g = tm_geom(CDYN_GROUND, CDYN_GEOM_ARC, bad[k][0], bad[k][1], bad[k][2]);
        assert_int_equal(cdyn_builder_add_geom(b, &g, NULL, &r), CDYN_EINVAL);
        assert_non_null(strstr(r.message, "arc"));
    }
    cdyn_builder_free(b);
}

static void test_gaps_3d(void **state)
{
    (void)state;
    double g[8];
    /* sphere over a tilted plane through p0 with normal R_x(al) e_z = (0, -sin al, cos al) */
    const double al = 0.3, p0[3] = {0, 0, 0.01}, r = 0.05;
    cdyn_geom_desc plane = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    memcpy(plane.frame.pos, p0, sizeof(p0));
    plane.frame.quat[0] = cos(al / 2);
    plane.frame.quat[1] = sin(al / 2);
    cdyn_model *m = ground_and_free(3, plane, tm_geom(0, CDYN_GEOM_SPHERE, r, 0, 0), INFINITY);
    const double zs[2] = {0.3, 0.02}; /* apart, and penetrating */
    for (int k = 0; k < 2; ++k) {
        const double q[7] = {0.1, -0.2, zs[k], 1, 0, 0, 0};
        gaps_at(m, q, g);
        const double ref = (q[1] - p0[1]) * -sin(al) + (q[2] - p0[2]) * cos(al) - r;
        assert_true(fabs(g[0] - ref) < 1e-15);
    }
    cdyn_model_free(m);

    /* box rotated by be about x at height zc over the plane z = 0: corner (sx, sy, sz) at
     * height zc + sy sin(be) + sz cos(be); the corners are numbered by sign bits x, y, z */
    const double be = PI / 6, zc = 0.1, s[3] = {0.04, 0.03, 0.02};
    m = ground_and_free(3, tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0),
                        tm_geom(0, CDYN_GEOM_BOX, s[0], s[1], s[2]), INFINITY);
    assert_int_equal(cdyn_model_ncontact(m), 8);
    const double qb[7] = {0.3, 0.2, zc, cos(be / 2), sin(be / 2), 0, 0};
    gaps_at(m, qb, g);
    for (int i = 0; i < 8; ++i) {
        const double sy = (i & 2) ? s[1] : -s[1], sz = (i & 4) ? s[2] : -s[2];
        assert_true(fabs(g[i] - (zc + sy * sin(be) + sz * cos(be))) < 1e-15);
    }
    cdyn_model_free(m);

    /* capsule (radius rc, half-length L) tilted by ga about y at height h: end points at
     * h -+ L sin(ga) (the local -x end rises for ga > 0 about y: z = -x sin ga) */
    const double rc = 0.02, L = 0.06, gam = 0.4, h = 0.05;
    m = ground_and_free(3, tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0),
                        tm_geom(0, CDYN_GEOM_CAPSULE, rc, L, 0), INFINITY);
    const double qc[7] = {0, 0, h, cos(gam / 2), 0, sin(gam / 2), 0};
    gaps_at(m, qc, g);
    assert_true(fabs(g[0] - (h + L * sin(gam) - rc)) < 1e-15);
    assert_true(fabs(g[1] - (h - L * sin(gam) - rc)) < 1e-15);
    cdyn_model_free(m);

    /* capsule on the ground along x, sphere: interior projection and beyond the end */
    cdyn_geom_desc cap = tm_geom(CDYN_GROUND, CDYN_GEOM_CAPSULE, 0.02, 0.1, 0);
    m = ground_and_free(3, cap, tm_geom(0, CDYN_GEOM_SPHERE, 0.03, 0, 0), INFINITY);
    const double qi[7] = {0.04, 0.05, 0.06, 1, 0, 0, 0}, qe[7] = {0.15, 0.03, 0, 1, 0, 0, 0};
    gaps_at(m, qi, g);
    assert_true(fabs(g[0] - (hypot(0.05, 0.06) - 0.05)) < 1e-15);
    gaps_at(m, qe, g);
    assert_true(fabs(g[0] - (hypot(0.05, 0.03) - 0.05)) < 1e-15);
    cdyn_model_free(m);

    /* sphere-sphere and sphere-point */
    cdyn_geom_desc s1 = tm_geom(CDYN_GROUND, CDYN_GEOM_SPHERE, 0.04, 0, 0);
    s1.frame.pos[0] = 0.01;
    m = ground_and_free(3, s1, tm_geom(0, CDYN_GEOM_SPHERE, 0.03, 0, 0), INFINITY);
    const double qs[7] = {0.05, 0.04, -0.03, 1, 0, 0, 0};
    gaps_at(m, qs, g);
    assert_true(fabs(g[0] - (sqrt(0.04 * 0.04 + 0.04 * 0.04 + 0.03 * 0.03) - 0.07)) < 1e-15);
    cdyn_model_free(m);
    m = ground_and_free(3, s1, tm_geom(0, CDYN_GEOM_POINT, 0, 0, 0), INFINITY);
    gaps_at(m, qs, g);
    assert_true(fabs(g[0] - (sqrt(0.04 * 0.04 + 0.04 * 0.04 + 0.03 * 0.03) - 0.04)) < 1e-15);
    cdyn_model_free(m);

    /* box (ground, half-extents 0.04, 0.03, 0.02) and a sphere of radius 0.02: over the top
     * face, beyond a corner, and (a point) inside, nearest the +x face */
    const cdyn_geom_desc box = tm_geom(CDYN_GROUND, CDYN_GEOM_BOX, 0.04, 0.03, 0.02);
    m = ground_and_free(3, box, tm_geom(0, CDYN_GEOM_SPHERE, 0.02, 0, 0), INFINITY);
    const double qf[7] = {0.01, 0, 0.06, 1, 0, 0, 0}, qv[7] = {0.08, 0.06, 0.05, 1, 0, 0, 0};
    gaps_at(m, qf, g);
    assert_true(fabs(g[0] - 0.02) < 1e-15);
    gaps_at(m, qv, g);
    assert_true(fabs(g[0] - (sqrt(0.04 * 0.04 + 0.03 * 0.03 + 0.03 * 0.03) - 0.02)) < 1e-15);
    cdyn_model_free(m);
    m = ground_and_free(3, box, tm_geom(0, CDYN_GEOM_POINT, 0, 0, 0), INFINITY);
    const double qin[7] = {0.03, 0.01, 0.0, 1, 0, 0, 0};
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, qin, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    cdyn_contact ct;
    cdyn_data_contact(d, 0, &ct);
    assert_true(fabs(ct.gap + 0.01) < 1e-15 && ct.n[0] == 1.0);
    cdyn_data_free(d);
    cdyn_model_free(m);

    /* capsules: crossing at right angles 0.1 apart (interior points of both), and end to end */
    const cdyn_geom_desc ca = tm_geom(CDYN_GROUND, CDYN_GEOM_CAPSULE, 0.02, 0.1, 0);
    m = ground_and_free(3, ca, tm_geom(0, CDYN_GEOM_CAPSULE, 0.01, 0.05, 0), INFINITY);
    const double qx[7] = {0.02, 0.01, 0.1, cos(PI / 4), 0, 0, sin(PI / 4)};
    gaps_at(m, qx, g);
    assert_true(fabs(g[0] - (0.1 - 0.03)) < 1e-15);
    const double qee[7] = {0.3, 0, 0.05, 1, 0, 0, 0};
    gaps_at(m, qee, g);
    assert_true(fabs(g[0] - (hypot(0.15, 0.05) - 0.03)) < 1e-15);
    cdyn_model_free(m);
}

static void test_gaps_2d(void **state)
{
    (void)state;
    double g[8];
    const double a = 0.185, b = 0.15; /* Yashima & Yamaguchi's ellipse: axes 0.37 m, 0.3 m */
    const cdyn_geom_desc line = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);

    /* ellipse over the line y = 0: support distance y - sqrt(a^2 sin^2 phi + b^2 cos^2 phi) */
    cdyn_model *m = ground_and_free(2, line, tm_geom(0, CDYN_GEOM_ELLIPSE, a, b, 0), INFINITY);
    const double phis[3] = {0.0, 0.7, -2.0}, ys[3] = {0.3, 0.16, 0.1};
    for (int k = 0; k < 3; ++k) {
        const double q[3] = {0.05, ys[k], phis[k]};
        gaps_at(m, q, g);
        const double ref =
            ys[k] - sqrt(a * a * sin(phis[k]) * sin(phis[k]) + b * b * cos(phis[k]) * cos(phis[k]));
        assert_true(fabs(g[0] - ref) < 1e-15);
    }
    cdyn_model_free(m);

    /* polygon and rectangle over the line: vertex heights */
    cdyn_geom_desc pg = tm_geom(0, CDYN_GEOM_POLYGON, 0, 0, 0);
    pg.n_vertices = 5;
    pg.vertices = TM_PENTAGON;
    m = ground_and_free(2, line, pg, INFINITY);
    assert_int_equal(cdyn_model_ncontact(m), 5);
    const double qp[3] = {0.2, 0.03, 0.9};
    gaps_at(m, qp, g);
    for (int i = 0; i < 5; ++i)
        assert_true(fabs(g[i] - (qp[1] + sin(qp[2]) * TM_PENTAGON[2 * i] +
                                 cos(qp[2]) * TM_PENTAGON[2 * i + 1])) < 1e-15);
    cdyn_model_free(m);
    m = ground_and_free(2, line, tm_geom(0, CDYN_GEOM_RECTANGLE, 0.05, 0.03, 0), INFINITY);
    gaps_at(m, qp, g);
    const double rx[4] = {-0.05, 0.05, 0.05, -0.05}, ry[4] = {-0.03, -0.03, 0.03, 0.03};
    for (int i = 0; i < 4; ++i)
        assert_true(fabs(g[i] - (qp[1] + sin(qp[2]) * rx[i] + cos(qp[2]) * ry[i])) < 1e-15);
    cdyn_model_free(m);

    /* ellipse (ground, rotated) against points: on the major axis outside (gap 0.1), on the
     * minor axis inside (-0.02), and generic points against the sampled distance */
    const double phi = 0.4, ex = 0.1, ey = 0.2;
    cdyn_geom_desc ell = tm_geom(CDYN_GROUND, CDYN_GEOM_ELLIPSE, a, b, 0);
    ell.frame = cdyn_pose_planar(ex, ey, phi);
    m = ground_and_free(2, ell, tm_geom(0, CDYN_GEOM_POINT, 0, 0, 0), INFINITY);
    const double c = cos(phi), sn = sin(phi);
    const double qa[3] = {ex + (a + 0.1) * c, ey + (a + 0.1) * sn, 0};
    gaps_at(m, qa, g);
    assert_true(fabs(g[0] - 0.1) < 1e-14);
    const double qm[3] = {ex - (b - 0.02) * sn, ey + (b - 0.02) * c, 0};
    gaps_at(m, qm, g);
    assert_true(fabs(g[0] + 0.02) < 1e-14);
    const double loc[4][2] = {{0.3, 0.1}, {-0.1, 0.17}, {0.12, -0.05}, {-0.17, -0.04}};
    for (int k = 0; k < 4; ++k) {
        const double q[3] = {ex + c * loc[k][0] - sn * loc[k][1],
                             ey + sn * loc[k][0] + c * loc[k][1], 0};
        gaps_at(m, q, g);
        /* golden section on a bracket of width 6e-4 rad: ~1e-13 in the distance */
        assert_true(fabs(g[0] - ellipse_distance_sampled(a, b, loc[k][0], loc[k][1])) < 1e-12);
    }
    cdyn_model_free(m);
    m = ground_and_free(2, ell, tm_geom(0, CDYN_GEOM_CIRCLE, 0.03, 0, 0), INFINITY);
    for (int k = 0; k < 4; ++k) {
        const double q[3] = {ex + c * loc[k][0] - sn * loc[k][1],
                             ey + sn * loc[k][0] + c * loc[k][1], 0.3};
        gaps_at(m, q, g);
        assert_true(fabs(g[0] - (ellipse_distance_sampled(a, b, loc[k][0], loc[k][1]) - 0.03)) <
                    1e-12);
    }
    cdyn_model_free(m);

    /* ellipse (ground, unrotated) and a horizontal capsule (radius rc, half-length L):
     * over the top, the gap is H - b - rc (also when penetrating); to the side, the nearer end
     * ball decides: sampled distance of the end point - rc */
    const double rc = 0.01, L = 0.15;
    cdyn_geom_desc e0 = tm_geom(CDYN_GROUND, CDYN_GEOM_ELLIPSE, a, b, 0);
    m = ground_and_free(2, e0, tm_geom(0, CDYN_GEOM_CAPSULE, rc, L, 0), INFINITY);
    const double Hs[2] = {0.2, 0.155};
    for (int k = 0; k < 2; ++k) {
        const double q[3] = {0.05, Hs[k], 0};
        gaps_at(m, q, g);
        assert_true(fabs(g[0] - (Hs[k] - b - rc)) < 1e-15);
    }
    const double qe[3] = {0.3, 0.16, 0}; /* left end at (0.15, 0.16) */
    gaps_at(m, qe, g);
    assert_true(fabs(g[0] - (ellipse_distance_sampled(a, b, 0.15, 0.16) - rc)) < 1e-12);
    cdyn_model_free(m);

    /* circle-circle, capsule-circle */
    cdyn_geom_desc c1 = tm_geom(CDYN_GROUND, CDYN_GEOM_CIRCLE, 0.05, 0, 0);
    m = ground_and_free(2, c1, tm_geom(0, CDYN_GEOM_CIRCLE, 0.02, 0, 0), INFINITY);
    const double qcc[3] = {0.03, 0.06, 1.0};
    gaps_at(m, qcc, g);
    assert_true(fabs(g[0] - (hypot(0.03, 0.06) - 0.07)) < 1e-15);
    cdyn_model_free(m);
    cdyn_geom_desc cap = tm_geom(CDYN_GROUND, CDYN_GEOM_CAPSULE, 0.01, 0.1, 0);
    m = ground_and_free(2, cap, tm_geom(0, CDYN_GEOM_CIRCLE, 0.02, 0, 0), INFINITY);
    gaps_at(m, qcc, g);
    assert_true(fabs(g[0] - (0.06 - 0.03)) < 1e-15);
    cdyn_model_free(m);

    /* rectangle and polygon against circles and points */
    m = ground_and_free(2, tm_geom(CDYN_GROUND, CDYN_GEOM_RECTANGLE, 0.05, 0.03, 0),
                        tm_geom(0, CDYN_GEOM_CIRCLE, 0.02, 0, 0), INFINITY);
    const double qrc[3] = {0.01, 0.07, 0.4};
    gaps_at(m, qrc, g);
    assert_true(fabs(g[0] - 0.02) < 1e-15);
    cdyn_model_free(m);
    cdyn_geom_desc pol = tm_geom(CDYN_GROUND, CDYN_GEOM_POLYGON, 0, 0, 0);
    pol.n_vertices = 5;
    pol.vertices = TM_PENTAGON;
    m = ground_and_free(2, pol, tm_geom(0, CDYN_GEOM_CIRCLE, 0.02, 0, 0), INFINITY);
    const double qpv[3] = {0.1, 0, 0}; /* nearest feature: vertex (0.04, 0) */
    gaps_at(m, qpv, g);
    assert_true(fabs(g[0] - 0.04) < 1e-15);
    cdyn_model_free(m);
    m = ground_and_free(2, pol, tm_geom(0, CDYN_GEOM_POINT, 0, 0, 0), INFINITY);
    /* inside: the gap is minus the distance to the nearest edge line */
    const double qpi[3] = {0.005, 0.002, 0};
    double dmin = INFINITY;
    for (int k = 0; k < 5; ++k) {
        const double *v0 = TM_PENTAGON + 2 * k, *v1 = TM_PENTAGON + 2 * ((k + 1) % 5);
        const double dx = v1[0] - v0[0], dy = v1[1] - v0[1];
        const double dist = (dx * (qpi[1] - v0[1]) - dy * (qpi[0] - v0[0])) / hypot(dx, dy);
        dmin = fmin(dmin, dist);
    }
    gaps_at(m, qpi, g);
    assert_true(fabs(g[0] + dmin) < 1e-15);
    cdyn_model_free(m);
}

/* The inside branches of the convex solids through the finite-difference harness. */
static void test_solid_inside_branches(void **state)
{
    (void)state;
    const double v3[6] = {0.3, -0.2, 0.4, 1.1, -0.7, 0.5}, v2[3] = {0.3, -0.2, 0.9};
    cdyn_model *m = ground_and_free(3, tm_geom(CDYN_GROUND, CDYN_GEOM_BOX, 0.04, 0.03, 0.02),
                                    tm_geom(0, CDYN_GEOM_POINT, 0, 0, 0), INFINITY);
    const double q3[7] = {0.03, 0.01, 0.0, 1, 0, 0, 0};
    errs e = {0, 0, 0, 0};
    check_rows(m, q3, v3, &e);
    cdyn_model_free(m);
    cdyn_geom_desc pol = tm_geom(CDYN_GROUND, CDYN_GEOM_POLYGON, 0, 0, 0);
    pol.n_vertices = 5;
    pol.vertices = TM_PENTAGON;
    pol.frame = cdyn_pose_planar(0.01, 0.02, 0.3);
    m = ground_and_free(2, pol, tm_geom(0, CDYN_GEOM_CIRCLE, 0.01, 0, 0), INFINITY);
    const double q2[3] = {0.015, 0.022, 0.4};
    check_rows(m, q2, v2, &e);
    cdyn_model_free(m);
    assert_true(e.frame < 1e-12 && e.jac < 1e-5 && e.gapgrad < 1e-5 && e.jdot < 1e-5);
}

/* Both branches of ellipse-capsule through the finite-difference harness, at states where the
 * branch is known: capsule above the ellipse top (line contact) and beside it (end ball). */
static void test_ellipse_capsule_branches(void **state)
{
    (void)state;
    const cdyn_geom_desc e0 = tm_geom(CDYN_GROUND, CDYN_GEOM_ELLIPSE, 0.185, 0.15, 0);
    cdyn_model *m = ground_and_free(2, e0, tm_geom(0, CDYN_GEOM_CAPSULE, 0.01, 0.15, 0), INFINITY);
    const double qs[2][3] = {{0.05, 0.17, 0.1}, {0.3, 0.16, -0.1}};
    const double v[3] = {0.7, -0.4, 1.3};
    for (int k = 0; k < 2; ++k) {
        cdyn_data *d = NULL;
        assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
        assert_int_equal(cdyn_eval(m, d, qs[k], NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
        cdyn_contact c;
        cdyn_data_contact(d, 0, &c);
        /* line branch: n is the capsule's normal (-sin th, cos th); end branch: it is not */
        const double along = fabs(c.n[0] * cos(qs[k][2]) + c.n[1] * sin(qs[k][2]));
        if (k == 0)
            assert_true(along < 1e-15);
        else
            assert_true(along > 0.1);
        cdyn_data_free(d);
        errs e = {0, 0, 0, 0};
        check_rows(m, qs[k], v, &e);
        assert_true(e.frame < 1e-12 && e.jac < 1e-5 && e.gapgrad < 1e-5 && e.jdot < 1e-5);
    }
    cdyn_model_free(m);
}

/* Song, Kumar & Pang's billiard ball: q = (x, y, z, e), v = (v, w) with world w. */
static void test_billiard_ball_rows(void **state)
{
    (void)state;
    const double r = 0.05;
    cdyn_model *m = ground_and_free(3, tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0),
                                    tm_geom(0, CDYN_GEOM_SPHERE, r, 0, 0), INFINITY);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    test_rng rng;
    test_rng_seed(&rng, 8);
    const double Rn[6] = {0, 0, 1, 0, 0, 0}, Rt[6] = {1, 0, 0, 0, -r, 0},
                 Ro[6] = {0, 1, 0, r, 0, 0};
    for (int trial = 0; trial < 5; ++trial) {
        double q[7], v[6];
        for (int i = 0; i < 7; ++i)
            q[i] = test_rng_range(&rng, -1, 1);
        for (int i = 0; i < 6; ++i)
            v[i] = test_rng_range(&rng, -40, 40);
        cdyn_model_normalize_q(m, q, NULL);
        assert_int_equal(cdyn_eval(m, d, q, v, CDYN_EVAL_CONTACT_DOT, NULL), CDYN_OK);
        const double *J[3] = {cdyn_data_jacobian(d, CDYN_DIR_N), cdyn_data_jacobian(d, CDYN_DIR_T),
                              cdyn_data_jacobian(d, CDYN_DIR_O)};
        assert_true(tm_maxdiff(6, J[0], Rn) < 1e-15);
        assert_true(tm_maxdiff(6, J[1], Rt) < 1e-15);
        assert_true(tm_maxdiff(6, J[2], Ro) < 1e-15);
        assert_true(fabs(cdyn_data_gap(d)[0] - (q[2] - r)) < 1e-15); /* Psi_n = q(3) - r */
        /* constant rows: no Jacobian-dot term; the computed one is a sum of products of two
         * velocities (|v| <= 40) that cancel: rounding <= 8 u |v|^2 */
        for (int k = 0; k < 3; ++k)
            assert_true(fabs(cdyn_data_jacobian_dot_v(d, (cdyn_dir)k)[0]) <=
                        8 * DBL_EPSILON * 40 * 40);
    }
    cdyn_data_free(d);
    cdyn_model_free(m);

    /* the planar disk of Sec. IV.A: Gamma_t = (1, r) in (x, theta); here v = (vx, vy, w) */
    const double rd = 0.1;
    m = ground_and_free(2, tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0),
                        tm_geom(0, CDYN_GEOM_CIRCLE, rd, 0, 0), INFINITY);
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    const double q[3] = {0.3, rd, 1.2};
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    const double Dn[3] = {0, 1, 0}, Dt[3] = {1, 0, rd};
    assert_true(tm_maxdiff(3, cdyn_data_jacobian(d, CDYN_DIR_N), Dn) < 1e-15);
    assert_true(tm_maxdiff(3, cdyn_data_jacobian(d, CDYN_DIR_T), Dt) < 1e-15);
    assert_true(fabs(cdyn_data_gap(d)[0]) < 1e-15);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

static void test_active_margin(void **state)
{
    (void)state;
    cdyn_model *m = ground_and_free(3, tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0),
                                    tm_geom(0, CDYN_GEOM_BOX, 0.1, 0.1, 0.1), 0.01);
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    /* tilted about x by 0.1 rad: corner heights z + sy sin 0.1 + sz cos 0.1 */
    const double q[7] = {0, 0, 0.1, cos(0.05), sin(0.05), 0, 0};
    assert_int_equal(cdyn_eval(m, d, q, NULL, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    for (int i = 0; i < 8; ++i) {
        const double sy = (i & 2) ? 0.1 : -0.1, sz = (i & 4) ? 0.1 : -0.1;
        const double gi = 0.1 + sy * sin(0.1) + sz * cos(0.1);
        assert_true(fabs(cdyn_data_gap(d)[i] - gi) < 1e-15);
        assert_int_equal(cdyn_data_active(d)[i], gi <= 0.01);
    }
    /* corners 0, 1 (sy = sz = -0.1): gap 0.1 - 0.1 sin .1 - 0.1 cos .1 < 0.01: active */
    assert_int_equal(cdyn_data_active(d)[0], 1);
    assert_int_equal(cdyn_data_active(d)[7], 0);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jacobians_all_pairs),
        cmocka_unit_test(test_gaps_3d),
        cmocka_unit_test(test_gaps_arc),
        cmocka_unit_test(test_gaps_2d),
        cmocka_unit_test(test_ellipse_capsule_branches),
        cmocka_unit_test(test_solid_inside_branches),
        cmocka_unit_test(test_billiard_ball_rows),
        cmocka_unit_test(test_active_margin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
