/* The builder's validation (issue 4, item 7) and memory behaviour: every bad description gives
 * CDYN_EINVAL with a message naming the problem and leaves the builder unchanged; a failing
 * allocator gives CDYN_ENOMEM and leaks nothing; dimensions and offsets are as documented. */
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

static cdyn_builder *new_builder(int dim)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, dim);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    return b;
}

/* Expect EINVAL with `needle` in the message. */
#define EXPECT_EINVAL(call, needle)                                                                \
    do {                                                                                           \
        cdyn_report r_;                                                                            \
        memset(&r_, 0, sizeof(r_));                                                                \
        int id_ = 12345;                                                                           \
        (void)id_;                                                                                 \
        const cdyn_status st_ = (call);                                                            \
        if (st_ != CDYN_EINVAL || strstr(r_.message, needle) == NULL)                              \
            print_error("status %d, message \"%s\", expected \"%s\"\n", st_, r_.message, needle);  \
        assert_int_equal(st_, CDYN_EINVAL);                                                        \
        assert_int_equal(r_.status, CDYN_EINVAL);                                                  \
        assert_non_null(strstr(r_.message, needle));                                               \
    } while (0)

static void test_options(void **state)
{
    (void)state;
    cdyn_builder_options o;
    cdyn_builder *b = NULL;
    cdyn_report r;
    cdyn_builder_defaults(&o, 2);
    assert_true(o.dim == 2 && o.gravity[1] == -9.81 && o.gravity[2] == 0.0);
    cdyn_builder_defaults(&o, 3);
    assert_true(o.dim == 3 && o.gravity[2] == -9.81);
    o.dim = 4;
    assert_int_equal(cdyn_builder_create(&o, &b, &r), CDYN_EINVAL);
    assert_null(b);
    assert_non_null(strstr(r.message, "dim"));
    cdyn_builder_defaults(&o, 3);
    o.gravity[0] = NAN;
    assert_int_equal(cdyn_builder_create(&o, &b, &r), CDYN_EINVAL);
    cdyn_builder_defaults(&o, 2);
    o.gravity[2] = 1.0;
    assert_int_equal(cdyn_builder_create(&o, &b, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_builder_create(&o, NULL, &r), CDYN_EINVAL);
    /* NULL is accepted by every free */
    cdyn_builder_free(NULL);
    cdyn_model_free(NULL);
    cdyn_data_free(NULL);
}

static void test_bad_bodies(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder(3);
    cdyn_body_desc d = tm_free_body(1, 0.1, 0.1, 0.1);
    d.mass = NAN;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "not finite");
    d.mass = -1;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "mass");
    d.mass = 0;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "mass");
    d = tm_free_body(1, 0.1, NAN, 0.1);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "not finite");
    d = tm_free_body(1, -0.1, 0.1, 0.1);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "positive definite");
    d = tm_free_body(1, 0.1, 0.1, 0.1);
    d.inertia[3] = 0.2; /* Ixy > sqrt(Ixx Iyy): indefinite */
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "positive definite");
    d = tm_free_body(1, 0.1, 0.1, 0.0); /* semidefinite only */
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "positive definite");
    d = tm_free_body(1, 0.1, 0.1, 0.1);
    d.frame.quat[0] = 0.9;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "unit quaternion");
    d.frame.quat[0] = NAN;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "not finite");
    d = tm_free_body(1, 0.1, 0.1, 0.1);
    d.parent = 0; /* no body yet */
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "unknown parent");
    d.parent = -7;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "unknown parent");
    d.parent = CDYN_GROUND;
    d.joint = (cdyn_joint_type)9;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "joint type");
    /* a valid body, then joint-specific errors */
    d = tm_free_body(1, 0.1, 0.1, 0.1);
    int body;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    assert_int_equal(body, 0);
    d.parent = body; /* FREE below a body */
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "FREE");
    const double zero[3] = {0, 0, 0};
    d = tm_joint(CDYN_JOINT_REVOLUTE, body, NULL, zero, 1, NULL, 0.1, 0.1, 0.1);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "axis is zero");
    /* FIXED bodies may be massless */
    d = tm_joint(CDYN_JOINT_FIXED, body, NULL, NULL, 0, NULL, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    assert_int_equal(body, 1);
    d.mass = -0.1;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "mass");
    /* chains are all or nothing */
    const double z[3] = {0, 0, 1};
    cdyn_body_desc links[3] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, .1, .1, .1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, .1, .1, .1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, -1, NULL, .1, .1, .1)};
    int ids[3];
    EXPECT_EINVAL(cdyn_builder_add_chain(b, CDYN_GROUND, 3, links, ids, &r_), "link 2");
    EXPECT_EINVAL(cdyn_builder_add_chain(b, 5, 2, links, ids, &r_), "unknown parent");
    EXPECT_EINVAL(cdyn_builder_add_chain(b, CDYN_GROUND, 0, links, ids, &r_), "chain of 0");
    links[2].mass = 1;
    assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 3, links, ids, NULL), CDYN_OK);
    assert_true(ids[0] == 2 && ids[1] == 3 && ids[2] == 4); /* nothing was left behind */
    cdyn_builder_free(b);

    /* planar: frames in the plane, prismatic axes in the plane, Izz > 0 */
    b = new_builder(2);
    d = tm_free_body(1, 0, 0, 0.1);
    d.frame.pos[2] = 0.1;
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "x-y plane");
    d = tm_free_body(1, 0, 0, 0.1);
    d.frame.quat[0] = cos(0.2);
    d.frame.quat[1] = sin(0.2);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "x-y plane");
    d = tm_free_body(1, 0, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "Izz");
    d = tm_joint(CDYN_JOINT_PRISMATIC, CDYN_GROUND, NULL, z, 1, NULL, 0, 0, 0.1);
    EXPECT_EINVAL(cdyn_builder_add_body(b, &d, &id_, &r_), "prismatic axis");
    cdyn_builder_free(b);
}

static void test_bad_geoms(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder(3);
    cdyn_body_desc d = tm_free_body(1, 0.1, 0.1, 0.1);
    assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    cdyn_geom_desc g = tm_geom(0, CDYN_GEOM_SPHERE, 0, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "zero-size");
    g.size[0] = -1;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "zero-size");
    g.size[0] = NAN;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "not finite");
    g = tm_geom(0, CDYN_GEOM_BOX, 0.1, 0.1, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "size[2]");
    g = tm_geom(0, CDYN_GEOM_CAPSULE, 0.1, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "half-length");
    g = tm_geom(0, CDYN_GEOM_CAPSULE, -0.1, 0.2, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "radius");
    g = tm_geom(3, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "unknown body");
    g = tm_geom(0, CDYN_GEOM_ELLIPSE, 0.1, 0.1, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "not available in 3D");
    g = tm_geom(0, (cdyn_geom_type)42, 0.1, 0.1, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "not available");
    g = tm_geom(0, CDYN_GEOM_CAPSULE, 0.0, 0.1, 0); /* radius 0: a segment, allowed */
    int gid;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &gid, NULL), CDYN_OK);
    assert_int_equal(gid, 0);
    cdyn_builder_free(b);

    b = new_builder(2);
    g = tm_geom(CDYN_GROUND, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "not available in 2D");
    g = tm_geom(CDYN_GROUND, CDYN_GEOM_ELLIPSE, 0.1, 0, 0);
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "zero-size");
    g = tm_geom(CDYN_GROUND, CDYN_GEOM_POLYGON, 0, 0, 0);
    const double square_cw[8] = {0, 0, 0, 1, 1, 1, 1, 0};
    const double nonconvex[10] = {0, 0, 2, 0, 2, 2, 1, 0.5, 0, 2};
    const double collinear[8] = {0, 0, 1, 0, 2, 0, 1, 1};
    double star[10]; /* pentagram: every turn is to the left, but it winds twice */
    for (int i = 0; i < 5; ++i) {
        star[2 * i] = cos(4 * 3.14159265358979323846 * i / 5);
        star[2 * i + 1] = sin(4 * 3.14159265358979323846 * i / 5);
    }
    g.n_vertices = 2;
    g.vertices = square_cw;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "n_vertices >= 3");
    g.n_vertices = 4;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "counter-clockwise");
    g.n_vertices = 5;
    g.vertices = nonconvex;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "convex");
    g.n_vertices = 4;
    g.vertices = collinear;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "convex");
    g.n_vertices = 5;
    g.vertices = star;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "self-intersecting");
    g.vertices = NULL;
    EXPECT_EINVAL(cdyn_builder_add_geom(b, &g, &id_, &r_), "vertices");
    cdyn_builder_free(b);
}

static void test_bad_pairs(void **state)
{
    (void)state;
    cdyn_builder *b = new_builder(3);
    cdyn_body_desc d = tm_free_body(1, 0.1, 0.1, 0.1);
    int b0, b1, welded;
    assert_int_equal(cdyn_builder_add_body(b, &d, &b0, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_body(b, &d, &b1, NULL), CDYN_OK);
    cdyn_body_desc w = tm_joint(CDYN_JOINT_FIXED, b0, NULL, NULL, 0, NULL, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_body(b, &w, &welded, NULL), CDYN_OK);
    cdyn_body_desc gfix = tm_joint(CDYN_JOINT_FIXED, CDYN_GROUND, NULL, NULL, 0, NULL, 0, 0, 0);
    int grounded;
    assert_int_equal(cdyn_builder_add_body(b, &gfix, &grounded, NULL), CDYN_OK);
    int g_plane, g_s0, g_s0b, g_w, g_box, g_s1, g_gr;
    cdyn_geom_desc gd = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_plane, NULL), CDYN_OK);
    gd = tm_geom(b0, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_s0, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_s0b, NULL), CDYN_OK);
    gd.body = welded;
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_w, NULL), CDYN_OK);
    gd = tm_geom(b1, CDYN_GEOM_BOX, 0.1, 0.1, 0.1);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_box, NULL), CDYN_OK);
    gd = tm_geom(b1, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_s1, NULL), CDYN_OK);
    gd = tm_geom(grounded, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_gr, NULL), CDYN_OK);
    int g_box0;
    gd = tm_geom(b0, CDYN_GEOM_BOX, 0.1, 0.1, 0.1);
    assert_int_equal(cdyn_builder_add_geom(b, &gd, &g_box0, NULL), CDYN_OK);

    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = g_plane;
    p.geom_b = 99;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "unknown geometry");
    p.geom_b = g_plane;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "same rigid body");
    p.geom_a = g_s0;
    p.geom_b = g_s0b;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "same rigid body");
    p.geom_b = g_w; /* welded to b0 */
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "same rigid body");
    p.geom_a = g_plane;
    p.geom_b = g_gr; /* both immobile */
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "same rigid body");
    p.geom_a = g_box0;
    p.geom_b = g_box;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "no contact function");
    p.geom_a = g_s0;
    p.geom_b = g_s1;
    p.mu = -0.1;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "mu");
    p.mu = NAN;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "mu");
    p.mu = 0.5;
    p.stiffness[4] = -1;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "diagonal");
    p.stiffness[4] = 0;
    p.damping[1] = INFINITY;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "not finite");
    p.damping[1] = 0;
    p.restitution = 1.5;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "restitution");
    p.restitution = 0.5;
    p.baumgarte[1] = -1;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "baumgarte");
    p.baumgarte[1] = 1;
    p.margin = NAN;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "margin");
    p.margin = 0;
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "margin");
    p.margin = INFINITY;
    p.patch_n = 3; /* a round patch without half-width (patches: test_model_patch.c) */
    EXPECT_EINVAL(cdyn_builder_add_contact_pair(b, &p, &id_, &r_), "half-width");
    p.patch_n = 1;
    int pid;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &pid, NULL), CDYN_OK);
    assert_int_equal(pid, 0);
    /* declared (box, plane): accepted in either order */
    p.geom_a = g_box;
    p.geom_b = g_plane;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &pid, NULL), CDYN_OK);
    assert_int_equal(pid, 1);

    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    assert_int_equal(cdyn_model_npair(m), 2);
    assert_int_equal(cdyn_model_ncontact(m), 1 + 8);
    cdyn_pair_info pi;
    assert_int_equal(cdyn_model_pair_info(m, 1, &pi), CDYN_OK);
    assert_true(pi.geom_a == g_box && pi.body_a == b1 && pi.body_b == CDYN_GROUND);
    assert_true(pi.row == 1 && pi.nrows == 8 && pi.mu == 0.5 && pi.restitution == 0.5 &&
                pi.baumgarte[1] == 1.0 && isinf(pi.margin));
    assert_int_equal(cdyn_model_pair_info(m, 2, &pi), CDYN_EINVAL);
    cdyn_model_free(m);
    cdyn_builder_free(b);
}

static void test_dimensions_and_build_errors(void **state)
{
    (void)state;
    /* only a fixed body: no degree of freedom */
    cdyn_builder *b = new_builder(3);
    cdyn_body_desc f = tm_joint(CDYN_JOINT_FIXED, CDYN_GROUND, NULL, NULL, 1, NULL, 0, 0, 0);
    assert_int_equal(cdyn_builder_add_body(b, &f, NULL, NULL), CDYN_OK);
    cdyn_model *m = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_EINVAL);
    assert_null(m);
    assert_non_null(strstr(r.message, "degree of freedom"));
    /* add: free (7/6), revolute (1/1), fixed (0/0), prismatic (1/1) */
    cdyn_body_desc d = tm_free_body(1, .1, .1, .1);
    d.frame.pos[2] = 0.5;
    int id0, id1, id2, id3;
    assert_int_equal(cdyn_builder_add_body(b, &d, &id0, NULL), CDYN_OK);
    const double ax[3] = {1, 0, 0};
    d = tm_joint(CDYN_JOINT_REVOLUTE, id0, NULL, ax, 1, NULL, .1, .1, .1);
    assert_int_equal(cdyn_builder_add_body(b, &d, &id1, NULL), CDYN_OK);
    d = tm_joint(CDYN_JOINT_FIXED, id1, NULL, NULL, 1, NULL, .1, .1, .1);
    assert_int_equal(cdyn_builder_add_body(b, &d, &id2, NULL), CDYN_OK);
    d = tm_joint(CDYN_JOINT_PRISMATIC, id2, NULL, ax, 1, NULL, .1, .1, .1);
    assert_int_equal(cdyn_builder_add_body(b, &d, &id3, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_build(b, &m, &r), CDYN_OK);
    assert_int_equal(cdyn_model_dim(m), 3);
    assert_int_equal(cdyn_model_nbody(m), 5);
    assert_int_equal(cdyn_model_nq(m), 9);
    assert_int_equal(cdyn_model_nv(m), 8);
    assert_int_equal(cdyn_model_ncontact(m), 0);
    const int nq[5] = {0, 7, 1, 0, 1}, nv[5] = {0, 6, 1, 0, 1};
    const int qa[5] = {0, 0, 7, 8, 8}, va[5] = {0, 0, 6, 7, 7};
    for (int k = 0; k < 5; ++k) {
        cdyn_body_info bi;
        assert_int_equal(cdyn_model_body_info(m, k, &bi), CDYN_OK);
        assert_true(bi.nq == nq[k] && bi.nv == nv[k] && bi.qadr == qa[k] && bi.vadr == va[k]);
    }
    cdyn_body_info bi;
    assert_int_equal(cdyn_model_body_info(m, 5, &bi), CDYN_EINVAL);
    double q[9];
    cdyn_model_default_q(m, q);
    const double q0[9] = {0, 0, 0.5, 1, 0, 0, 0, 0, 0};
    assert_true(tm_maxdiff(9, q, q0) == 0.0);
    /* the builder stays usable: a second model from it is independent */
    cdyn_model *m2 = NULL;
    assert_int_equal(cdyn_builder_build(b, &m2, NULL), CDYN_OK);
    cdyn_builder_free(b);

    /* evaluation errors; data untouched */
    cdyn_data *dd = NULL, *d2 = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &dd, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_create(m2, NULL, &d2, NULL), CDYN_OK);
    assert_null(cdyn_data_mass(dd)); /* nothing evaluated yet */
    double v[8] = {0};
    assert_int_equal(cdyn_eval(m, d2, q, v, CDYN_EVAL_MASS, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "another model"));
    assert_int_equal(cdyn_eval(m, dd, q, NULL, CDYN_EVAL_BIAS, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "v is NULL"));
    assert_int_equal(cdyn_eval(m, dd, q, v, 64u, &r), CDYN_EINVAL);
    q[8] = NAN;
    assert_int_equal(cdyn_eval(m, dd, q, v, CDYN_EVAL_MASS, &r), CDYN_EINVAL);
    q[8] = 0;
    v[2] = INFINITY;
    assert_int_equal(cdyn_eval(m, dd, q, v, CDYN_EVAL_MASS, &r), CDYN_EINVAL);
    assert_null(cdyn_data_mass(dd));
    v[2] = 0;
    assert_int_equal(cdyn_eval(m, dd, q, v, CDYN_EVAL_MASS, &r), CDYN_OK);
    assert_non_null(cdyn_data_mass(dd));
    assert_null(cdyn_data_bias(dd));
    cdyn_csc C;
    assert_int_equal(cdyn_data_jacobian_csc(dd, CDYN_DIR_N, &C), CDYN_EINVAL);
    /* dense = 0: no dense outputs, CSC still there */
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 0;
    cdyn_data *d3 = NULL;
    assert_int_equal(cdyn_data_create(m, &dopt, &d3, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d3, q, v, CDYN_EVAL_MASS, &r), CDYN_OK);
    assert_null(cdyn_data_mass(d3));
    assert_int_equal(cdyn_data_mass_csc(d3, &C), CDYN_OK);
    cdyn_data_free(d3);
    cdyn_data_free(dd);
    cdyn_data_free(d2);
    cdyn_model_free(m);
    cdyn_model_free(m2);
}

/* Build a model with every kind of element through the failing allocator. Returns the status
 * of the first failing call (or CDYN_OK). */
static cdyn_status build_all(const cdyn_allocator *a)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 2);
    o.allocator = a;
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    cdyn_data *d = NULL;
    cdyn_status st = cdyn_builder_create(&o, &b, NULL);
    if (st != CDYN_OK)
        return st;
    int body = -1, g0 = -1, g1 = -1, g2 = -1;
    for (int i = 0; i < 10 && st == CDYN_OK; ++i) { /* enough to grow the arrays twice */
        cdyn_body_desc bd = tm_free_body(1, 0, 0, 0.1);
        st = cdyn_builder_add_body(b, &bd, &body, NULL);
    }
    const double z[3] = {0, 0, 1};
    cdyn_body_desc links[2] = {tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, 0, 0, .1),
                               tm_joint(CDYN_JOINT_REVOLUTE, 0, NULL, z, 1, NULL, 0, 0, .1)};
    if (st == CDYN_OK)
        st = cdyn_builder_add_chain(b, CDYN_GROUND, 2, links, NULL, NULL);
    cdyn_geom_desc gd = tm_geom(CDYN_GROUND, CDYN_GEOM_PLANE, 0, 0, 0);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g0, NULL);
    gd = tm_geom(body, CDYN_GEOM_POLYGON, 0, 0, 0);
    const double tri[6] = {0, 0, 1, 0, 0, 1};
    gd.n_vertices = 3;
    gd.vertices = tri;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g1, NULL);
    gd = tm_geom(0, CDYN_GEOM_ELLIPSE, 0.2, 0.1, 0);
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gd, &g2, NULL);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = g0;
    p.geom_b = g1;
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &p, NULL, NULL);
    p.geom_b = g2;
    if (st == CDYN_OK)
        st = cdyn_builder_add_contact_pair(b, &p, NULL, NULL);
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, &m, NULL);
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.allocator = a;
    if (st == CDYN_OK)
        st = cdyn_data_create(m, &dopt, &d, NULL);
    if (st == CDYN_OK) {
        double q[40], v[40] = {0};
        cdyn_model_default_q(m, q);
        st = cdyn_eval(m, d, q, v, CDYN_EVAL_ALL, NULL); /* never allocates */
    }
    cdyn_data_free(d);
    cdyn_model_free(m);
    cdyn_builder_free(b);
    return st;
}

static void test_failing_allocator(void **state)
{
    (void)state;
    int n_ok = -1;
    for (int fail = 0; fail < 100; ++fail) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, fail);
        const cdyn_status st = build_all(&fa.allocator);
        assert_int_equal(fa.live, 0);
        if (st == CDYN_OK) {
            n_ok = fail;
            break;
        }
        assert_int_equal(st, CDYN_ENOMEM);
    }
    assert_true(n_ok > 3); /* several allocations were exercised before success */
    /* and with every allocation counted, eval added none */
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    assert_int_equal(build_all(&fa.allocator), CDYN_OK);
    assert_int_equal(fa.allocations, n_ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_bad_bodies),
        cmocka_unit_test(test_bad_geoms),
        cmocka_unit_test(test_bad_pairs),
        cmocka_unit_test(test_dimensions_and_build_errors),
        cmocka_unit_test(test_failing_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
