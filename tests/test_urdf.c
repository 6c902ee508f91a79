/* The URDF loader against twins built by builder calls (issue 20): each fixture in
 * tests/data/urdf and its twin, whose poses, rotated inertias and lumped bodies are computed in
 * urdf_support.c independently of the loader, give the same M(q), h(q, v), gaps and contact
 * Jacobians at random states to rounding (1e-12 relative). Then the name map. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/step.h"
#include "cdyn/urdf.h"
#include "support.h"
#include "urdf_support.h"

#define TOL 1e-12 /* relative: the two constructions round differently, nothing more */

/* The body of the k-th joint that moves (nv > 0), or -1. */
static int moving_body(const cdyn_model *m, int k)
{
    for (int b = 0; b < cdyn_model_nbody(m); ++b) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, b, &bi);
        if (bi.nv > 0 && k-- == 0)
            return b;
    }
    return -1;
}

/* The options of every moving joint, in order: damping, friction, limits (exactly as written;
 * the twins may lump welded bodies, so the moving joints are matched, not the bodies). */
static void expect_same_joints(const cdyn_model *a, const cdyn_model *b, const char *what)
{
    for (int k = 0;; ++k) {
        const int ba = moving_body(a, k), bb = moving_body(b, k);
        assert_int_equal(ba < 0, bb < 0);
        if (ba < 0)
            break;
        cdyn_body_info x, y;
        assert_int_equal(cdyn_model_body_info(a, ba, &x), CDYN_OK);
        assert_int_equal(cdyn_model_body_info(b, bb, &y), CDYN_OK);
        if (x.damping != y.damping || x.friction != y.friction || x.limited != y.limited ||
            x.lower != y.lower || x.upper != y.upper)
            fail_msg("%s, body %d: damping %g/%g friction %g/%g limits %d [%g, %g] / %d [%g, %g]",
                     what, k, x.damping, y.damping, x.friction, y.friction, x.limited, x.lower,
                     x.upper, y.limited, y.lower, y.upper);
    }
}

static void expect_twins(cdyn_builder *loaded, cdyn_builder *twin, const char *what)
{
    cdyn_model *a = tu_build(loaded), *b = tu_build(twin);
    expect_same_joints(a, b, what);
    const double err = tu_compare(a, b, 20, 7);
    if (getenv("CDYN_TEST_VERBOSE") != NULL)
        printf("%s: max relative difference %.3g\n", what, err);
    if (!(err <= TOL))
        fail_msg("%s: URDF model and twin differ by %.3g (relative)", what, err);
    cdyn_model_free(a);
    cdyn_model_free(b);
}

/* Geometry ids of the map's collisions, in file order. */
static int map_geoms(const cdyn_urdf_map *map, int *geoms)
{
    int n = 0;
    cdyn_urdf_map_sizes(map, NULL, NULL, &n);
    for (int k = 0; k < n; ++k) {
        cdyn_urdf_collision c;
        assert_int_equal(cdyn_urdf_collision_at(map, k, &c, NULL), CDYN_OK);
        geoms[k] = c.geom;
    }
    return n;
}

/* Add the twin's geometry g[0..n) to b, pair the floor with the geometries from `first` on in
 * both builders (the map's for a), compare the models, free everything. */
static void finish(cdyn_builder *a, cdyn_builder *b, cdyn_urdf_map *map, int n,
                   const cdyn_geom_desc *g, int first, const char *what)
{
    int ga[8], gb[8];
    assert_true(n <= 8);
    for (int k = 0; k < n; ++k)
        assert_int_equal(cdyn_builder_add_geom(b, &g[k], &gb[k], NULL), CDYN_OK);
    assert_int_equal(map_geoms(map, ga), n);
    tu_add_floor_pairs(a, n - first, ga + first);
    tu_add_floor_pairs(b, n - first, gb + first);
    expect_twins(a, b, what);
    cdyn_urdf_map_free(map);
    cdyn_builder_free(a);
    cdyn_builder_free(b);
}

/* arm3.urdf: three revolute links (one continuous), rpy everywhere, an unnormalized axis. */
static void arm3_twin(cdyn_builder *b, const cdyn_pose *base, cdyn_geom_desc g[4])
{
    const tu_link links[3] = {
        {CDYN_GROUND, CDYN_JOINT_REVOLUTE, tu_pose(0, 0, 0.1, 0.1, -0.2, 0.3), {0, 0, 1}, 1.2,
         {0.15, 0.01, -0.02}, {0.4, 0.1, -0.7}, {0.002, 0.0001, -0.0002, 0.01, 0.0003, 0.011}},
        {0, CDYN_JOINT_REVOLUTE, tu_pose(0.3, 0, 0, 0, 0.5, 0), {0, 1, 1}, 0.8,
         {0.12, 0, 0.01}, {-0.2, 0.3, 0.9}, {0.001, 0, 0.0001, 0.006, 0, 0.0065}},
        {1, CDYN_JOINT_REVOLUTE, tu_pose(0.25, 0.02, 0, -0.3, 0, 0.2), {1, 0, 0}, 0.3,
         {0.03, 0, 0}, {0, 0, 0}, {0.0002, 0, 0, 0.0003, 0, 0.00025}}};
    for (int k = 0; k < 3; ++k) {
        cdyn_body_desc d = tu_body(&links[k]);
        if (k == 0) {
            d.frame = tu_pose_mul(base, &d.frame);
            d.damping = 0.1; /* <dynamics damping="0.1" friction="0.05"/> */
            d.friction = 0.05;
        }
        if (k < 2) { /* <limit lower="-1.5" upper="1.5"/>, <limit lower="-2" upper="2"/> */
            d.limited = 1;
            d.lower = k == 0 ? -1.5 : -2.0;
            d.upper = -d.lower;
        }
        assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    }
    const cdyn_pose g0 = tu_pose(0, 0, 0.05, 0, 0, 0.3), g0w = tu_pose_mul(base, &g0);
    const cdyn_pose g1 = tu_pose(0.3, 0, 0, 0, 0, 0), g2 = tu_pose(0.12, 0, 0, 0.2, 0.1, -0.4);
    const cdyn_pose g3 = tu_pose(0.06, 0, 0, 0, 0, 0);
    g[0] = tu_geom(CDYN_GROUND, CDYN_GEOM_BOX, &g0w, 0.1, 0.1, 0.05);
    g[1] = tu_geom(0, CDYN_GEOM_SPHERE, &g1, 0.04, 0, 0);
    g[2] = tu_geom(1, CDYN_GEOM_BOX, &g2, 0.12, 0.025, 0.02);
    g[3] = tu_geom(2, CDYN_GEOM_SPHERE, &g3, 0.03, 0, 0);
}

static void check_arm3(const cdyn_pose *base)
{
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.base_pose = *base;
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = tu_load(a, "arm3.urdf", &o);
    cdyn_geom_desc g[4];
    arm3_twin(b, base, g);
    /* the base box is on the ground, like the floor: pairs only with the moving links' */
    finish(a, b, map, 4, g, 1, "arm3");
}

static void test_arm3(void **state)
{
    (void)state;
    const cdyn_pose identity = tu_pose(0, 0, 0, 0, 0, 0);
    const cdyn_pose placed = tu_pose(0.3, -0.2, 0.4, 0.2, -0.1, 1.1);
    check_arm3(&identity);
    check_arm3(&placed); /* base_pose moves the welded root and its box */
}

static void test_slider(void **state)
{
    (void)state;
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = tu_load(a, "slider.urdf", NULL);
    const tu_link links[2] = {
        {CDYN_GROUND, CDYN_JOINT_PRISMATIC, tu_pose(0, 0, 0.5, 0, 0, 0.7), {1, 0, 0}, 2,
         {0, 0, 0.02}, {0.3, 0, 0}, {0.01, 0, 0, 0.02, 0, 0.025}},
        {0, CDYN_JOINT_REVOLUTE, tu_pose(0, 0, 0.05, 0, 0, 0), {0, 1, 0}, 0.4, {0, 0, 0.25},
         {0, 0, 0}, {0.0085, 0, 0, 0.0085, 0, 0.0001}}};
    for (int k = 0; k < 2; ++k) {
        cdyn_body_desc d = tu_body(&links[k]);
        d.damping = k == 0 ? 2.0 : 0.0; /* <dynamics damping="2"/> */
        d.limited = k == 0; /* <limit lower="-0.5" upper="0.5">; the pivot's has neither */
        d.lower = k == 0 ? -0.5 : 0.0;
        d.upper = k == 0 ? 0.5 : 0.0;
        assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    }
    const cdyn_pose p0 = tu_pose(0, 0, 0, 0, 0, 0), p1 = tu_pose(0, 0, 0.5, 0, 0, 0);
    const cdyn_geom_desc g[2] = {tu_geom(0, CDYN_GEOM_BOX, &p0, 0.1, 0.05, 0.025),
                                 tu_geom(1, CDYN_GEOM_SPHERE, &p1, 0.05, 0, 0)};
    finish(a, b, map, 2, g, 0, "slider");
}

/* lumped.urdf: the loader keeps the welded link as a FIXED body; the twin lumps it into its
 * parent by hand, so the comparison also checks the FIXED body's share of M and h. */
static void test_lumped(void **state)
{
    (void)state;
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = tu_load(a, "lumped.urdf", NULL);
    const tu_link link1 = {CDYN_GROUND, CDYN_JOINT_REVOLUTE, tu_pose(0, 0, 1, 0, 0, 0),
                           {0, 1, 0}, 1, {0.2, 0, 0}, {0, 0.2, 0},
                           {0.001, 0, 0, 0.013, 0, 0.013}};
    const tu_link tip = {0, CDYN_JOINT_FIXED, tu_pose(0, 0, 0, 0, 0, 0), {0, 0, 1}, 0.5,
                         {0.01, 0.02, 0}, {0.5, -0.1, 0.2},
                         {0.0005, 0.00001, 0, 0.0006, 0, 0.0007}};
    const cdyn_pose weld = tu_pose(0.4, 0, 0, 0.3, 0.2, 0.1);
    cdyn_body_desc d0 = tu_lump(&link1, &tip, &weld);
    d0.limited = 1; /* hinge and hinge2: <limit lower="-3" upper="3"> */
    d0.lower = -3;
    d0.upper = 3;
    assert_int_equal(cdyn_builder_add_body(b, &d0, NULL, NULL), CDYN_OK);
    const cdyn_pose h2 = tu_pose(0.1, 0, 0, 0, 0, 0.4);
    const tu_link link2 = {0, CDYN_JOINT_REVOLUTE, tu_pose_mul(&weld, &h2), {0, 1, 0}, 0.7,
                           {0.15, 0, 0}, {0, 0, 0}, {0.0004, 0, 0, 0.005, 0, 0.005}};
    cdyn_body_desc d1 = tu_body(&link2);
    d1.limited = 1;
    d1.lower = -3;
    d1.upper = 3;
    assert_int_equal(cdyn_builder_add_body(b, &d1, NULL, NULL), CDYN_OK);
    const cdyn_pose knob = tu_pose(0.02, 0, 0, 0, 0, 0), knob1 = tu_pose_mul(&weld, &knob);
    const cdyn_geom_desc g = tu_geom(0, CDYN_GEOM_SPHERE, &knob1, 0.05, 0, 0);
    finish(a, b, map, 1, &g, 0, "lumped");
}

/* walker.urdf with a floating base at a general pose: a FREE torso and two legs (a tree). */
static void test_floating_base(void **state)
{
    (void)state;
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.floating_base = 1;
    o.base_pose = tu_pose(0.1, -0.2, 0.9, 0.1, 0.2, 0.3);
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = tu_load(a, "walker.urdf", &o);
    const tu_link links[3] = {
        {CDYN_GROUND, CDYN_JOINT_FREE, o.base_pose, {0, 0, 1}, 3, {0, 0, 0.05}, {0.1, 0.2, 0.3},
         {0.03, 0, 0, 0.04, 0, 0.02}},
        {0, CDYN_JOINT_REVOLUTE, tu_pose(0, 0.1, -0.2, 0, 0, 0.1), {0, 1, 0}, 0.6, {0, 0, -0.2},
         {0, 0, 0}, {0.008, 0, 0, 0.008, 0, 0.0005}},
        {0, CDYN_JOINT_REVOLUTE, tu_pose(0, -0.1, -0.2, 0, 0, -0.1), {0, 1, 0}, 0.6,
         {0, 0, -0.2}, {0, 0, 0}, {0.008, 0, 0, 0.008, 0, 0.0005}}};
    for (int k = 0; k < 3; ++k) {
        cdyn_body_desc d = tu_body(&links[k]);
        d.limited = k > 0; /* the hips: <limit lower="-1" upper="1"> */
        d.lower = k > 0 ? -1.0 : 0.0;
        d.upper = k > 0 ? 1.0 : 0.0;
        assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    }
    const cdyn_pose p0 = tu_pose(0, 0, 0, 0, 0, 0), foot = tu_pose(0, 0, -0.4, 0, 0, 0);
    const cdyn_geom_desc g[3] = {tu_geom(0, CDYN_GEOM_BOX, &p0, 0.15, 0.1, 0.2),
                                 tu_geom(1, CDYN_GEOM_SPHERE, &foot, 0.04, 0, 0),
                                 tu_geom(2, CDYN_GEOM_SPHERE, &foot, 0.04, 0, 0)};
    /* the default pose is base_pose */
    cdyn_model *m = tu_build(a);
    double q[7 + 2];
    cdyn_model_default_q(m, q);
    for (int i = 0; i < 3; ++i)
        assert_true(q[i] == o.base_pose.pos[i]);
    for (int i = 0; i < 4; ++i)
        assert_true(fabs(q[3 + i] - o.base_pose.quat[i]) < 1e-15);
    cdyn_model_free(m);
    finish(a, b, map, 3, g, 0, "walker");
}

/* float_joint.urdf: a floating joint below the world link is a FREE body at its origin. */
static void test_floating_joint(void **state)
{
    (void)state;
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = tu_load(a, "float_joint.urdf", NULL);
    const tu_link ball = {CDYN_GROUND, CDYN_JOINT_FREE, tu_pose(0, 0, 1, 0, 0, 0.5), {0, 0, 1},
                          0.2, {0, 0, 0}, {0, 0, 0}, {0.0002, 0, 0, 0.0002, 0, 0.0002}};
    const cdyn_body_desc d = tu_body(&ball);
    assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    const cdyn_pose p0 = tu_pose(0, 0, 0, 0, 0, 0);
    const cdyn_geom_desc g = tu_geom(0, CDYN_GEOM_SPHERE, &p0, 0.05, 0, 0);
    cdyn_urdf_joint j;
    assert_int_equal(cdyn_urdf_find_joint(map, "float", &j, NULL), CDYN_OK);
    assert_int_equal(j.type, CDYN_URDF_FLOATING);
    assert_int_equal(j.body, 0);
    finish(a, b, map, 1, &g, 0, "float_joint");
}

/* A cylinder with cylinder_as_capsule: the capsule of its radius along its z axis (the twin
 * turns the capsule's x axis onto z with rpy (0, -pi/2, 0)). */
static void test_cylinder_capsule(void **state)
{
    (void)state;
    static const char urdf[] =
        "<robot name='c'><link name='base'/>"
        "<joint name='j' type='continuous'><parent link='base'/><child link='rod'/>"
        "<origin xyz='0 0 0.3'/><axis xyz='0 1 0'/></joint>"
        "<link name='rod'><inertial><mass value='1'/>"
        "<inertia ixx='0.01' ixy='0' ixz='0' iyy='0.01' iyz='0' izz='0.001'/></inertial>"
        "<collision><origin xyz='0.1 0 0' rpy='0.3 0.2 0.1'/>"
        "<geometry><cylinder radius='0.02' length='0.3'/></geometry></collision></link></robot>";
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.cylinder_as_capsule = 1;
    cdyn_builder *a = tu_builder(), *b = tu_builder();
    cdyn_urdf_map *map = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_urdf_string(a, urdf, strlen(urdf), &o, &map, &r), CDYN_OK);
    const tu_link rod = {CDYN_GROUND, CDYN_JOINT_REVOLUTE, tu_pose(0, 0, 0.3, 0, 0, 0),
                         {0, 1, 0}, 1, {0, 0, 0}, {0, 0, 0}, {0.01, 0, 0, 0.01, 0, 0.001}};
    const cdyn_body_desc d = tu_body(&rod);
    assert_int_equal(cdyn_builder_add_body(b, &d, NULL, NULL), CDYN_OK);
    const cdyn_pose origin = tu_pose(0.1, 0, 0, 0.3, 0.2, 0.1);
    const cdyn_pose turn = tu_pose(0, 0, 0, 0, -1.5707963267948966, 0);
    const cdyn_pose frame = tu_pose_mul(&origin, &turn);
    const cdyn_geom_desc g = tu_geom(0, CDYN_GEOM_CAPSULE, &frame, 0.02, 0.15, 0);
    cdyn_urdf_collision c;
    assert_int_equal(cdyn_urdf_collision_at(map, 0, &c, NULL), CDYN_OK);
    assert_int_equal(c.type, CDYN_GEOM_CAPSULE);
    finish(a, b, map, 1, &g, 0, "cylinder as capsule");
}

/* The name map of arm3.urdf and walker.urdf: ids, joint values as written in the files. */
static void test_map(void **state)
{
    (void)state;
    cdyn_builder *b = tu_builder();
    /* a body already in the builder: the map's ids are the builder's, not from 0 */
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = 1;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 0.1;
    assert_int_equal(cdyn_builder_add_body(b, &ball, NULL, NULL), CDYN_OK);
    cdyn_urdf_map *map = tu_load(b, "arm3.urdf", NULL);
    int nl, nj, nc;
    cdyn_urdf_map_sizes(map, &nl, &nj, &nc);
    assert_true(nl == 4 && nj == 3 && nc == 4);
    cdyn_report r;
    cdyn_urdf_link l;
    assert_int_equal(cdyn_urdf_find_link(map, "base", &l, &r), CDYN_OK);
    assert_true(l.body == CDYN_GROUND && l.parent_joint == -1 && l.line == 9 && l.mass == 5);
    assert_int_equal(cdyn_urdf_find_link(map, "fore", &l, &r), CDYN_OK);
    assert_true(l.body == 2 && l.index == 2 && l.ncollision == 1 && l.first_collision == 2);
    cdyn_urdf_joint j;
    assert_int_equal(cdyn_urdf_find_joint(map, "shoulder", &j, &r), CDYN_OK);
    assert_true(j.type == CDYN_URDF_REVOLUTE && j.body == 1 && j.line == 23);
    assert_string_equal(j.parent, "base");
    assert_string_equal(j.child, "upper");
    assert_true(j.has_limit && j.lower == -1.5 && j.upper == 1.5 && j.effort == 20 &&
                j.velocity == 3);
    assert_true(j.has_dynamics && j.damping == 0.1 && j.friction == 0.05 && !j.mimic);
    assert_int_equal(cdyn_urdf_find_joint(map, "elbow", &j, &r), CDYN_OK);
    assert_true(j.axis[0] == 0 && j.axis[1] == 1 && j.axis[2] == 1 && !j.has_dynamics);
    assert_int_equal(cdyn_urdf_find_joint(map, "wrist", &j, &r), CDYN_OK);
    assert_true(j.type == CDYN_URDF_CONTINUOUS && !j.has_limit && j.body == 3);
    cdyn_urdf_collision c;
    assert_int_equal(cdyn_urdf_find_collision(map, "upper", "elbow_ball", &c, &r), CDYN_OK);
    assert_true(c.geom == 1 && c.type == CDYN_GEOM_SPHERE && c.link == 1);
    assert_int_equal(cdyn_urdf_find_collision(map, "hand", "", &c, &r), CDYN_OK); /* unnamed */
    assert_true(c.geom == 3 && c.index == 3);
    /* not found, NULL, out of range */
    assert_int_equal(cdyn_urdf_find_link(map, "nope", &l, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "no link named 'nope'"));
    assert_int_equal(cdyn_urdf_find_joint(map, "base", &j, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_find_collision(map, "hand", "x", &c, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_find_collision(map, "hand", NULL, &c, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_find_link(NULL, "base", &l, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_find_link(map, NULL, &l, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_link_at(map, 4, &l, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_joint_at(map, -1, &j, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_urdf_collision_at(map, 0, NULL, &r), CDYN_EINVAL);
    cdyn_urdf_map_sizes(NULL, &nl, &nj, &nc);
    assert_true(nl == 0 && nj == 0 && nc == 0);
    cdyn_urdf_map_free(map);
    cdyn_urdf_map_free(NULL);

    /* the joint's body gives its coordinates */
    cdyn_model *m = tu_build(b);
    cdyn_body_info bi;
    assert_int_equal(cdyn_model_body_info(m, 3, &bi), CDYN_OK);
    assert_true(bi.qadr == 7 + 2 && bi.vadr == 6 + 2 && bi.joint == CDYN_JOINT_REVOLUTE);
    cdyn_model_free(m);
    cdyn_builder_free(b);

    /* two collisions named "foot": found by their links */
    b = tu_builder();
    map = tu_load(b, "walker.urdf", NULL);
    cdyn_urdf_collision left, right;
    assert_int_equal(cdyn_urdf_find_collision(map, "left_leg", "foot", &left, &r), CDYN_OK);
    assert_int_equal(cdyn_urdf_find_collision(map, "right_leg", "foot", &right, &r), CDYN_OK);
    assert_true(left.geom == 1 && right.geom == 2);
    assert_int_equal(cdyn_urdf_find_link(map, "torso", &l, &r), CDYN_OK);
    assert_int_equal(l.body, CDYN_GROUND); /* the default: root welded to the world */
    cdyn_urdf_map_free(map);
    cdyn_builder_free(b);
}

/* Options that skip: a mesh collision is left out (geom -1), a mimic joint loads as an
 * independent one, a transmission is ignored, unknown elements are ignored. */
static void test_skip(void **state)
{
    (void)state;
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.skip = CDYN_URDF_SKIP_MESH;
    cdyn_builder *b = tu_builder();
    cdyn_urdf_map *map = tu_load(b, "bad/mesh.urdf", &o);
    cdyn_urdf_collision c;
    assert_int_equal(cdyn_urdf_find_collision(map, "arm", "hull", &c, NULL), CDYN_OK);
    assert_int_equal(c.geom, -1);
    assert_int_equal(cdyn_urdf_find_collision(map, "arm", "ball", &c, NULL), CDYN_OK);
    assert_true(c.geom == 0 && c.type == CDYN_GEOM_SPHERE);
    cdyn_urdf_map_free(map);
    cdyn_builder_free(b);

    o.skip = CDYN_URDF_SKIP_MIMIC | CDYN_URDF_SKIP_TRANSMISSION;
    b = tu_builder();
    map = tu_load(b, "bad/mimic.urdf", &o);
    cdyn_urdf_joint j;
    assert_int_equal(cdyn_urdf_find_joint(map, "j2", &j, NULL), CDYN_OK);
    assert_true(j.mimic == 1 && j.body == 1);
    cdyn_model *m = tu_build(b);
    assert_int_equal(cdyn_model_nv(m), 2);
    cdyn_model_free(m);
    cdyn_urdf_map_free(map);
    cdyn_builder_free(b);

    static const char unknown[] = "<robot name='u'><link name='a'><inertial><mass value='1'/>"
                                  "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/>"
                                  "<density value='3'/></inertial></link><extra/></robot>";
    o.skip = CDYN_URDF_SKIP_UNKNOWN;
    b = tu_builder();
    assert_int_equal(cdyn_builder_add_urdf_string(b, unknown, strlen(unknown), &o, NULL, NULL),
                     CDYN_OK);
    cdyn_builder_free(b);
}

/* <dynamics> and <limit>: damping, friction and limits of revolute, continuous and prismatic
 * joints reach the model (the twins above compare h(q, v), which holds the damping, and every
 * body's joint options); fixed joints ignore <dynamics>; negative values and lower > upper are
 * refused with the joint's line; joint friction and limits are refused by the implicit scheme
 * unless CDYN_URDF_SKIP_FRICTION and _LIMITS leave them out, taken by the pyramid LCP. */
#define DYN_ROBOT(jtype, dyn)                                                                      \
    "<robot name='r'>\n<link name='base'/>\n<joint name='j' type='" jtype "'>\n"               \
    "<parent link='base'/><child link='arm'/><axis xyz='0 0 1'/>"                                 \
    "<limit lower='-1' upper='1' effort='1' velocity='1'/>\n" dyn "\n</joint>\n"               \
    "<link name='arm'><inertial><mass value='1'/>"                                                \
    "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>\n</robot>\n"

static cdyn_model *load_text(const char *text, unsigned skip, cdyn_status expect,
                             const char *needle)
{
    cdyn_builder *b = tu_builder();
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.skip = skip;
    cdyn_report r;
    const cdyn_status st = cdyn_builder_add_urdf_string(b, text, strlen(text), &o, NULL, &r);
    if (st != expect)
        fail_msg("status %d, expected %d: %s", (int)st, (int)expect, r.message);
    if (needle != NULL && strstr(r.message, needle) == NULL)
        fail_msg("message '%s' lacks '%s'", r.message, needle);
    cdyn_model *m = st == CDYN_OK ? tu_build(b) : NULL;
    cdyn_builder_free(b);
    return m;
}

static void test_dynamics(void **state)
{
    (void)state;
    static const char *const types[3] = {"revolute", "continuous", "prismatic"};
    static const char *const texts[3] = {
        DYN_ROBOT("revolute", "<dynamics damping='0.7' friction='0.2'/>"),
        DYN_ROBOT("continuous", "<dynamics damping='0.7' friction='0.2'/>"),
        DYN_ROBOT("prismatic", "<dynamics damping='0.7' friction='0.2'/>")};
    for (int k = 0; k < 3; ++k) {
        for (int skip = 0; skip < 2; ++skip) {
            cdyn_model *m = load_text(
                texts[k], skip ? CDYN_URDF_SKIP_FRICTION | CDYN_URDF_SKIP_LIMITS : 0u, CDYN_OK,
                NULL);
            cdyn_body_info bi;
            assert_int_equal(cdyn_model_body_info(m, 0, &bi), CDYN_OK);
            if (!(bi.damping == 0.7 && bi.friction == (skip ? 0.0 : 0.2)))
                fail_msg("%s: damping %g friction %g", types[k], bi.damping, bi.friction);
            const int limited = !skip && k != 1; /* continuous joints have no limits */
            assert_int_equal(bi.limited, limited);
            if (limited)
                assert_true(bi.lower == -1 && bi.upper == 1);
            /* the implicit scheme (the default) refuses the friction and takes the limits;
             * the pyramid LCP takes both */
            cdyn_stepper *s = NULL;
            cdyn_report r;
            const cdyn_status st = cdyn_stepper_create(m, NULL, &s, &r);
            assert_int_equal(st, skip ? CDYN_OK : CDYN_ENOTSUP);
            if (!skip)
                assert_non_null(strstr(r.message, "friction"));
            cdyn_stepper_free(s);
            cdyn_model *lim = load_text(texts[k], CDYN_URDF_SKIP_FRICTION, CDYN_OK, NULL);
            s = NULL;
            assert_int_equal(cdyn_stepper_create(lim, NULL, &s, &r), CDYN_OK);
            cdyn_stepper_free(s);
            cdyn_model_free(lim);
            cdyn_step_options po;
            cdyn_step_defaults(&po, CDYN_SCHEME_PYRAMID_LCP);
            s = NULL;
            assert_int_equal(cdyn_stepper_create(m, &po, &s, &r), CDYN_OK);
            cdyn_stepper_free(s);
            cdyn_model_free(m);
        }
    }
    /* a fixed joint has no dof to damp: <dynamics> ignored (the arm is welded: no dof at all,
     * which the builder refuses as a model without degrees of freedom, so add a free base) */
    cdyn_builder *b = tu_builder();
    cdyn_urdf_options o;
    cdyn_urdf_defaults(&o);
    o.floating_base = 1;
    const char *fixed = "<robot name='r'>\n<link name='base'><inertial><mass value='1'/>"
                        "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial>"
                        "</link>\n<joint name='j' type='fixed'><parent link='base'/>"
                        "<child link='arm'/><dynamics damping='3' friction='1'/></joint>\n"
                        "<link name='arm'/>\n</robot>\n";
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_urdf_string(b, fixed, strlen(fixed), &o, NULL, &r),
                     CDYN_OK);
    cdyn_model *m = tu_build(b);
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        cdyn_body_info bi;
        assert_int_equal(cdyn_model_body_info(m, k, &bi), CDYN_OK);
        assert_true(bi.damping == 0 && bi.friction == 0);
    }
    cdyn_model_free(m);
    cdyn_builder_free(b);
    /* negative values: refused with the joint's line (line 3) */
    assert_null(load_text(DYN_ROBOT("revolute", "<dynamics damping='-1'/>"), 0u, CDYN_EFORMAT,
                          "line 3: joint 'j'"));
    assert_null(load_text(DYN_ROBOT("prismatic", "<dynamics friction='-0.5'/>"), 0u,
                          CDYN_EFORMAT, "friction = -0.5"));
    /* lower > upper: refused with the line; lower = upper = 0 (absent) is no limit */
    const char *swapped = "<robot name='r'>\n<link name='base'/>\n<joint name='j' "
                          "type='revolute'>\n<parent link='base'/><child link='arm'/>"
                          "<limit lower='1' upper='-1' effort='1' velocity='1'/>\n</joint>\n"
                          "<link name='arm'><inertial><mass value='1'/><inertia ixx='1' "
                          "ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>\n"
                          "</robot>\n";
    assert_null(load_text(swapped, 0u, CDYN_EFORMAT, "line 3: joint 'j': <limit>"));
    const char *open_limit = "<robot name='r'>\n<link name='base'/>\n<joint name='j' "
                             "type='revolute'>\n<parent link='base'/><child link='arm'/>"
                             "<limit effort='1' velocity='1'/>\n</joint>\n"
                             "<link name='arm'><inertial><mass value='1'/><inertia ixx='1' "
                             "ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>\n"
                             "</robot>\n";
    m = load_text(open_limit, 0u, CDYN_OK, NULL);
    cdyn_body_info bi;
    assert_int_equal(cdyn_model_body_info(m, 0, &bi), CDYN_OK);
    assert_int_equal(bi.limited, 0);
    cdyn_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arm3),
        cmocka_unit_test(test_slider),
        cmocka_unit_test(test_lumped),
        cmocka_unit_test(test_floating_base),
        cmocka_unit_test(test_floating_joint),
        cmocka_unit_test(test_cylinder_capsule),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_dynamics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
