/* cdyn_step_param_derivatives (cdyn/deriv.h) on the implicit scheme: every parameter column
 * P = dx+/dp against central differences of whole steps of models BUILT with the parameter moved
 * (the oracle is cdyn_builder + cdyn_step: no setter, no library derivative), from the same
 * state, away from switches: contact parameters (mu, K, C) and geometry (plane offset and
 * normal, sphere radius and centre offset, box half-extents, capsule radius and half-length, a
 * geometry's orientation) on a sphere resting and sliding on a plane (both friction laws), a box
 * on a plane, a sphere on a fixed sphere and a capsule on a plane. The q rows of the differences
 * are read in tangent coordinates by H(q+) = cdyn_model_G_pinv (the convention
 * test_step_derivs checks independently). Bad calls are refused with outputs unchanged.
 * CDYN_TEST_VERBOSE=1 prints each column's error. */
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

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static cdyn_step_options options(int friction_qp)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.friction_qp = friction_qp;
    o.mcp.tol = 1e-12; /* the oracle's differences carry the solve's error / eps */
    return o;
}

/* A sphere (r = 0.1, centre 1 cm off its body's origin) on the plane: resting, or sliding with
 * spin. */
static void sphere_plane(int sliding, int friction_qp)
{
    const double I[3] = {0.004, 0.004, 0.004};
    spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.3);
    sp.geom[1].pos[0] = 0.01;
    sp.geom[1].pos[2] = 0.005;
    const cdyn_step_options o = options(friction_qp);
    cdyn_state *x = state_of(&sp);
    x->q[2] = 0.1 - 0.005 - 4e-4;
    if (sliding) {
        x->v[0] = 1.0;
        x->v[1] = 0.3;
        x->v[5] = 4.0;
    }
    spec_settle(&sp, &o, x, sliding ? 3 : 10);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_POS, 0, 2},  {CDYN_PARAM_GEOM_ROT, 0, 0},  {CDYN_PARAM_GEOM_ROT, 0, 1},
        {CDYN_PARAM_GEOM_POS, 0, 0},  {CDYN_PARAM_GEOM_POS, 1, 0},  {CDYN_PARAM_GEOM_POS, 1, 1},
        {CDYN_PARAM_GEOM_POS, 1, 2},  {CDYN_PARAM_GEOM_ROT, 1, 1},  {CDYN_PARAM_GEOM_SIZE, 1, 0}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    char name[64];
    snprintf(name, sizeof name, "sphere %s %s", sliding ? "sliding" : "resting",
             friction_qp ? "qp" : "ncp");
    assert_true(check_params(&sp, &o, x, np, params, name) <= 1e-6);
    cdyn_state_free(x);
}

static void test_sphere_resting(void **state)
{
    (void)state;
    sphere_plane(0, 1);
}

static void test_sphere_sliding_qp(void **state)
{
    (void)state;
    sphere_plane(1, 1);
}

static void test_sphere_sliding_ncp(void **state)
{
    (void)state;
    sphere_plane(1, 0);
}

/* A box (half-extents 0.1, 0.06, 0.04) on the plane, its four lower corners in contact,
 * sliding along x. */
static void test_box_plane(void **state)
{
    (void)state;
    const double I[3] = {0.0017, 0.0039, 0.0045};
    spec sp = on_plane(CDYN_GEOM_BOX, 0.1, 0.06, 0.04, 1.0, I, 0.4);
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[2] = 0.04 - 1e-4;
    x->v[0] = 0.5;
    x->v[1] = -0.2;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 1}, {CDYN_PARAM_GEOM_SIZE, 1, 2},
        {CDYN_PARAM_GEOM_POS, 1, 2},  {CDYN_PARAM_GEOM_ROT, 1, 1},  {CDYN_PARAM_GEOM_ROT, 1, 2},
        {CDYN_PARAM_GEOM_POS, 0, 2},  {CDYN_PARAM_GEOM_ROT, 0, 0}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "box on plane") <= 1e-6);
    cdyn_state_free(x);
}

/* A ball (r = 0.1) on a fixed ground sphere (r = 0.2), 3 cm off its top: it slides off. */
static void test_sphere_sphere(void **state)
{
    (void)state;
    spec sp;
    memset(&sp, 0, sizeof sp);
    add_body(&sp, 1.0, 0.004, 0.004, 0.004);
    add_geom(&sp, -1, CDYN_GEOM_SPHERE, 0.2, 0, 0);
    add_geom(&sp, 0, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    add_pair(&sp, 0, 1, 0.3);
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[0] = 0.03;
    x->q[2] = sqrt(0.3 * 0.3 - 0.03 * 0.03) - 4e-4;
    x->v[1] = 0.2;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_POS, 0, 0},
        {CDYN_PARAM_GEOM_POS, 0, 2},  {CDYN_PARAM_GEOM_POS, 1, 0},  {CDYN_PARAM_GEOM_POS, 1, 1},
        {CDYN_PARAM_GEOM_ROT, 0, 1}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "sphere on sphere") <= 1e-6);
    cdyn_state_free(x);
}

/* A capsule (radius 0.05, half-length 0.15) lying along x on the plane, sliding sideways and
 * turning. */
static void test_capsule_plane(void **state)
{
    (void)state;
    const double I[3] = {0.0005, 0.009, 0.009};
    spec sp = on_plane(CDYN_GEOM_CAPSULE, 0.05, 0.15, 0, 1.0, I, 0.3);
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[2] = 0.05 - 3e-4;
    x->v[1] = 0.5;
    x->v[5] = 1.0;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 1}, {CDYN_PARAM_GEOM_ROT, 1, 1},
        {CDYN_PARAM_GEOM_ROT, 1, 2},  {CDYN_PARAM_GEOM_POS, 1, 0},  {CDYN_PARAM_GEOM_POS, 0, 2},
        {CDYN_PARAM_GEOM_ROT, 0, 1}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "capsule on plane") <= 1e-6);
    cdyn_state_free(x);
}

/* A ball (r = 0.1) on the edge of a fixed box (half-extents 0.2, 0.2, 0.1), 3 cm beyond its +x
 * face: the closest point is clamped on x and z (those half-extents move it, y's does not). */
static void test_ball_on_box_edge(void **state)
{
    (void)state;
    spec sp;
    memset(&sp, 0, sizeof sp);
    add_body(&sp, 1.0, 0.004, 0.004, 0.004);
    add_geom(&sp, -1, CDYN_GEOM_BOX, 0.2, 0.2, 0.1);
    add_geom(&sp, 0, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    add_pair(&sp, 0, 1, 0.3);
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[0] = 0.23;
    x->q[2] = 0.1 + sqrt(0.01 - 0.03 * 0.03) - 4e-4;
    x->v[1] = 0.3;
    spec_settle(&sp, &o, x, 2);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 0, 1}, {CDYN_PARAM_GEOM_SIZE, 0, 2},
        {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_POS, 0, 0},  {CDYN_PARAM_GEOM_ROT, 0, 1}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "ball on box edge") <= 1e-6);
    cdyn_state_free(x);
}

/* A fixed capsule along x (r = 0.05, half-length 0.2) with a ball (r = 0.1) beyond its +x end
 * and a free capsule (r = 0.05, half-length 0.15, along y) lying across that end: the fixed
 * capsule's half-length moves both contacts (its end is their closest point), the free one's
 * does not (its closest point is interior). */
static void test_capsules(void **state)
{
    (void)state;
    spec sp;
    memset(&sp, 0, sizeof sp);
    add_body(&sp, 1.0, 0.004, 0.004, 0.004);
    add_body(&sp, 1.0, 0.009, 0.0005, 0.009);
    add_geom(&sp, -1, CDYN_GEOM_CAPSULE, 0.05, 0.2, 0);
    add_geom(&sp, 0, CDYN_GEOM_SPHERE, 0.1, 0, 0);
    add_geom(&sp, 1, CDYN_GEOM_CAPSULE, 0.05, 0.15, 0);
    sp.geom[2].rot[2] = M_PI / 2; /* along the body's y */
    add_pair(&sp, 0, 1, 0.3);
    add_pair(&sp, 0, 2, 0.3);
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[0] = -0.23; /* the ball beyond the -x end */
    x->q[2] = sqrt(0.15 * 0.15 - 0.03 * 0.03) - 4e-4;
    x->q[7] = 0.23; /* the capsule beyond the +x end, crossing it */
    x->q[8] = 0.02;
    x->q[9] = sqrt(0.1 * 0.1 - 0.03 * 0.03) - 4e-4;
    x->v[1] = 0.2;
    x->v[6] = -0.1;
    spec_settle(&sp, &o, x, 2);
    const cdyn_param geo[] = {
        {CDYN_PARAM_GEOM_SIZE, 0, 1}, {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 2, 1},
        {CDYN_PARAM_GEOM_SIZE, 2, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_ROT, 2, 0},
        {CDYN_PARAM_MU, 1, 0}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "capsule ends") <= 1e-6);
    cdyn_state_free(x);
}

/* Planar: a disk (r = 0.1) rolling and sliding in a ground arc (curve radius 0.5 about
 * (0, 0.5), thickness 0.02, opening +-120 degrees about the downward axis), and a triangle
 * resting on two vertices on the ground line, sliding. */
static void test_planar(void **state)
{
    (void)state;
    const cdyn_step_options o = options(1);
    spec sp;
    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.005);
    add_geom(&sp, -1, CDYN_GEOM_ARC, 0.02, 0.5, 2.1);
    sp.geom[0].pos[1] = 0.5;
    sp.geom[0].rot[2] = -M_PI / 2 + 0.3;
    add_geom(&sp, 0, CDYN_GEOM_CIRCLE, 0.1, 0, 0);
    add_pair(&sp, 0, 1, 0.3);
    cdyn_state *x = state_of(&sp);
    x->q[0] = 0.1;
    x->q[1] = 0.5 - sqrt(0.38 * 0.38 - 0.01) + 3e-4;
    x->v[0] = 0.4;
    x->v[2] = -1.0;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param arc[] = {
        {CDYN_PARAM_GEOM_POS, 0, 0},  {CDYN_PARAM_GEOM_POS, 0, 1},  {CDYN_PARAM_GEOM_ROT, 0, 2},
        {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 0, 1}, {CDYN_PARAM_GEOM_SIZE, 0, 2},
        {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_POS, 1, 0}};
    cdyn_param params[16];
    int np = with_contact(arc, (int)(sizeof arc / sizeof arc[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "disk in arc") <= 1e-6);
    cdyn_state_free(x);

    /* the disk on the end of an arc opening +-1.2 rad (the end is its closest point: the
     * opening moves it) */
    sp.geom[0].pos[1] = 0;
    sp.geom[0].rot[2] = 0;
    sp.geom[0].size[2] = 1.2;
    x = state_of(&sp);
    x->q[0] = 0.5 * cos(1.2);
    x->q[1] = 0.5 * sin(1.2) + 0.12 - 3e-4;
    x->v[2] = 1.0;
    spec_settle(&sp, &o, x, 2);
    assert_true(check_params(&sp, &o, x, np, params, "disk on arc end") <= 1e-6);
    cdyn_state_free(x);

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
    x = state_of(&sp);
    x->q[1] = -0.01 - 2e-4;
    x->v[0] = 0.3;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param poly[] = {
        {CDYN_PARAM_GEOM_POS, 1, 0},    {CDYN_PARAM_GEOM_POS, 1, 1},
        {CDYN_PARAM_GEOM_ROT, 1, 2},    {CDYN_PARAM_GEOM_POS, 0, 1},
        {CDYN_PARAM_GEOM_ROT, 0, 2},    {CDYN_PARAM_GEOM_VERTEX, 1, 0},
        {CDYN_PARAM_GEOM_VERTEX, 1, 1}, {CDYN_PARAM_GEOM_VERTEX, 1, 3},
        {CDYN_PARAM_GEOM_VERTEX, 1, 4}};
    np = with_contact(poly, (int)(sizeof poly / sizeof poly[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "triangle on line") <= 1e-6);
    cdyn_state_free(x);

    /* a disk on the sloped edge (0.5, -0.1)-(0, 0.1) of a fixed triangle: the edge's two
     * vertices move it (the edge turns), the third does not */
    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.005);
    const int wedge = add_geom(&sp, -1, CDYN_GEOM_POLYGON, 0, 0, 0);
    const double wv[6] = {-0.5, -0.2, 0.5, -0.1, 0.0, 0.1};
    sp.geom[wedge].nvert = 3;
    memcpy(sp.geom[wedge].verts, wv, sizeof wv);
    add_geom(&sp, 0, CDYN_GEOM_CIRCLE, 0.1, 0, 0);
    add_pair(&sp, wedge, 1, 0.3);
    x = state_of(&sp);
    const double len = sqrt(0.25 + 0.04), nx0 = 0.2 / len, ny0 = 0.5 / len; /* outward normal */
    x->q[0] = 0.25 + (0.1 - 3e-4) * nx0;
    x->q[1] = 0.0 + (0.1 - 3e-4) * ny0;
    x->v[0] = 0.2;
    spec_settle(&sp, &o, x, 2);
    const cdyn_param edge[] = {
        {CDYN_PARAM_GEOM_VERTEX, 0, 2}, {CDYN_PARAM_GEOM_VERTEX, 0, 3},
        {CDYN_PARAM_GEOM_VERTEX, 0, 4}, {CDYN_PARAM_GEOM_VERTEX, 0, 5},
        {CDYN_PARAM_GEOM_VERTEX, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 0}};
    np = with_contact(edge, (int)(sizeof edge / sizeof edge[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "disk on triangle edge") <= 1e-6);
    cdyn_state_free(x);

    /* a disk on a fixed ellipse (semi-axes 0.4, 0.2) at the polar parameter 1 rad, and a tilted
     * elliptic body on the ground line: both semi-axes move them */
    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.005);
    add_geom(&sp, -1, CDYN_GEOM_ELLIPSE, 0.4, 0.2, 0);
    add_geom(&sp, 0, CDYN_GEOM_CIRCLE, 0.1, 0, 0);
    add_pair(&sp, 0, 1, 0.3);
    x = state_of(&sp);
    const double fx = 0.4 * cos(1.0), fy = 0.2 * sin(1.0), gx = fx / 0.16, gy = fy / 0.04;
    x->q[0] = fx + (0.1 - 3e-4) * gx / hypot(gx, gy);
    x->q[1] = fy + (0.1 - 3e-4) * gy / hypot(gx, gy);
    spec_settle(&sp, &o, x, 2);
    const cdyn_param ell[] = {
        {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 0, 1}, {CDYN_PARAM_GEOM_POS, 0, 0},
        {CDYN_PARAM_GEOM_ROT, 0, 2},  {CDYN_PARAM_GEOM_SIZE, 1, 0}};
    np = with_contact(ell, (int)(sizeof ell / sizeof ell[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "disk on ellipse") <= 1e-6);
    cdyn_state_free(x);

    /* a capsule (r = 0.03, half-length 0.2) whose left end rests on the ellipse at 1.2 rad */
    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.014);
    add_geom(&sp, -1, CDYN_GEOM_ELLIPSE, 0.4, 0.2, 0);
    add_geom(&sp, 0, CDYN_GEOM_CAPSULE, 0.03, 0.2, 0);
    add_pair(&sp, 0, 1, 0.3);
    x = state_of(&sp);
    const double ex = 0.4 * cos(1.2), ey = 0.2 * sin(1.2), hx = ex / 0.16, hy = ey / 0.04;
    x->q[0] = ex + (0.03 - 3e-4) * hx / hypot(hx, hy) + 0.2;
    x->q[1] = ey + (0.03 - 3e-4) * hy / hypot(hx, hy);
    spec_settle(&sp, &o, x, 1);
    const cdyn_param cap[] = {
        {CDYN_PARAM_GEOM_SIZE, 1, 1}, {CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_SIZE, 0, 0},
        {CDYN_PARAM_GEOM_SIZE, 0, 1}};
    np = with_contact(cap, (int)(sizeof cap / sizeof cap[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "capsule end on ellipse") <= 1e-6);
    cdyn_state_free(x);

    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.02);
    add_geom(&sp, -1, CDYN_GEOM_PLANE, 0, 0, 0);
    add_geom(&sp, 0, CDYN_GEOM_ELLIPSE, 0.3, 0.15, 0);
    sp.geom[1].rot[2] = 0.4;
    add_pair(&sp, 0, 1, 0.3);
    x = state_of(&sp);
    const double c4 = cos(0.4), s4 = sin(0.4);
    x->q[1] = sqrt(0.09 * s4 * s4 + 0.0225 * c4 * c4) - 3e-4; /* the support's height */
    x->v[0] = 0.3;
    spec_settle(&sp, &o, x, 2);
    const cdyn_param tilt[] = {{CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_SIZE, 1, 1},
                               {CDYN_PARAM_GEOM_ROT, 1, 2}};
    np = with_contact(tilt, (int)(sizeof tilt / sizeof tilt[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "ellipse on line") <= 1e-6);
    cdyn_state_free(x);

    /* a disk at the corner of a fixed rectangle (half-extents 0.3, 0.1), 3 cm beyond its side */
    memset(&sp, 0, sizeof sp);
    sp.dim = 2;
    add_body(&sp, 1.0, 0, 0, 0.005);
    add_geom(&sp, -1, CDYN_GEOM_RECTANGLE, 0.3, 0.1, 0);
    add_geom(&sp, 0, CDYN_GEOM_CIRCLE, 0.1, 0, 0);
    add_pair(&sp, 0, 1, 0.3);
    x = state_of(&sp);
    x->q[0] = 0.33;
    x->q[1] = 0.1 + sqrt(0.01 - 0.03 * 0.03) - 3e-4;
    x->v[2] = 2.0;
    spec_settle(&sp, &o, x, 2);
    const cdyn_param rect[] = {
        {CDYN_PARAM_GEOM_SIZE, 0, 0}, {CDYN_PARAM_GEOM_SIZE, 0, 1}, {CDYN_PARAM_GEOM_SIZE, 1, 0},
        {CDYN_PARAM_GEOM_POS, 0, 0},  {CDYN_PARAM_GEOM_ROT, 0, 2}};
    np = with_contact(rect, (int)(sizeof rect / sizeof rect[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "disk on rectangle") <= 1e-6);
    cdyn_state_free(x);
}

/* The sparse backend's islands take the same columns. */
static void test_sparse_backend(void **state)
{
    (void)state;
    const double I[3] = {0.004, 0.004, 0.004};
    spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.3);
    cdyn_step_options o = options(1);
    o.backend = CDYN_BACKEND_FB_SPARSE;
    cdyn_state *x = state_of(&sp);
    x->q[2] = 0.1 - 4e-4;
    x->v[0] = 1.0;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param geo[] = {{CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_ROT, 0, 1}};
    cdyn_param params[16];
    const int np = with_contact(geo, 2, params);
    assert_true(check_params(&sp, &o, x, np, params, "sphere sparse") <= 1e-6);
    cdyn_state_free(x);
}

/* A round patch (3 x 3 elements of half-width 0.02) under a sphere sliding on the plane: the
 * radius also moves the elements' sagittas. */
static void test_round_patch(void **state)
{
    (void)state;
    const double I[3] = {0.004, 0.004, 0.004};
    spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.3);
    sp.patch_n[0] = 3;
    sp.patch_w[0] = 0.02;
    const cdyn_step_options o = options(1);
    cdyn_state *x = state_of(&sp);
    x->q[2] = 0.1 - 4e-4;
    x->v[0] = 1.0;
    x->v[4] = 3.0;
    spec_settle(&sp, &o, x, 3);
    const cdyn_param geo[] = {{CDYN_PARAM_GEOM_SIZE, 1, 0}, {CDYN_PARAM_GEOM_POS, 0, 2},
                              {CDYN_PARAM_GEOM_ROT, 0, 0},  {CDYN_PARAM_GEOM_POS, 1, 0}};
    cdyn_param params[16];
    const int np = with_contact(geo, (int)(sizeof geo / sizeof geo[0]), params);
    assert_true(check_params(&sp, &o, x, np, params, "sphere on round patch") <= 1e-6);
    cdyn_state_free(x);
}

static void expect(cdyn_stepper *s, int nx, int nv, double *A, int np, const cdyn_param *p,
                   double *P, cdyn_status want, const char *text)
{
    cdyn_step_deriv_report dr;
    const cdyn_status st =
        cdyn_step_param_derivatives(s, CDYN_DERIV_RELEASED, nx, nv, A, NULL, np, p, P, &dr);
    if (st != want)
        fail_msg("status %d, expected %d: %s", (int)st, (int)want, dr.solver.message);
    if (text != NULL && strstr(dr.solver.message, text) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", dr.solver.message, text);
}

/* Bad calls: a status with a message, the outputs unchanged. */
static void test_refusals(void **state)
{
    (void)state;
    const double I[3] = {0.004, 0.004, 0.004};
    spec sp = on_plane(CDYN_GEOM_SPHERE, 0.1, 0, 0, 1.0, I, 0.3);
    /* a box far below with a face patch on a second plane: its cells move with its extents */
    add_body(&sp, 1.0, 0.004, 0.004, 0.004);
    add_geom(&sp, -1, CDYN_GEOM_PLANE, 0, 0, 0);
    sp.geom[2].pos[2] = -5.0;
    add_geom(&sp, 1, CDYN_GEOM_BOX, 0.1, 0.1, 0.1);
    add_pair(&sp, 2, 3, 0.3);
    sp.patch_n[1] = 2;
    const cdyn_step_options o = options(1);
    cdyn_model *m = build(&sp);
    cdyn_stepper *s = NULL;
    assert_int_equal(cdyn_stepper_create(m, &o, &s, NULL), CDYN_OK);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    const int nv = cdyn_model_nv(m), nx = cdyn_step_deriv_nx(s);
    double *A = malloc((size_t)nx * nx * sizeof(double)), *P = malloc((size_t)nx * 4 * 8);
    for (int i = 0; i < nx * nx; i++)
        A[i] = 7.0;
    for (int i = 0; i < nx * 4; i++)
        P[i] = 7.0;
    const cdyn_param good[2] = {{CDYN_PARAM_MU, 0, 0}, {CDYN_PARAM_GEOM_POS, 1, 0}};
    expect(s, nx, nv, A, 2, good, P, CDYN_EINVAL, "no successful step"); /* not stepped yet */
    x->q[2] = 0.1 - 4e-4;
    cdyn_step_report sr;
    if (cdyn_step(s, NULL, x, &sr) != CDYN_OK)
        fail_msg("step: %s", sr.solver.message);
    expect(NULL, nx, nv, A, 2, good, P, CDYN_EINVAL, "NULL");
    expect(s, nx - 1, nv, A, 2, good, P, CDYN_EINVAL, "sizes");
    expect(s, nx, nv, A, 2, NULL, P, CDYN_EINVAL, "np = 2");
    expect(s, nx, nv, A, 2, good, NULL, CDYN_EINVAL, "np = 2");
    expect(s, nx, nv, A, -1, good, P, CDYN_EINVAL, "np = -1");
    expect(s, nx, nv, A, 0, good, P, CDYN_EINVAL, "np = 0");
    expect(s, nx, nv, NULL, 0, NULL, NULL, CDYN_EINVAL, "no output");
    const cdyn_param bad[] = {
        {(cdyn_param_kind)99, 0, 0},         {CDYN_PARAM_MU, 2, 0},
        {CDYN_PARAM_DAMPING_T, -1, 0},       {CDYN_PARAM_GEOM_POS, 4, 0},
        {CDYN_PARAM_GEOM_POS, 1, 3},         {CDYN_PARAM_GEOM_ROT, 0, -1},
        {CDYN_PARAM_GEOM_SIZE, 1, 1},        {CDYN_PARAM_GEOM_SIZE, 0, 0}};
    const char *why[] = {"kind", "id = 2", "id = -1", "id = 4", "component 3", "component -1",
                         "component 1", "component 0"};
    for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++) {
        cdyn_param two[2] = {good[0], bad[k]};
        expect(s, nx, nv, A, 2, two, P, CDYN_EINVAL, why[k]);
    }
    /* the box's half-extent in the face patch: not available (the patch's rows take part,
     * their margin being infinite), from the step and from the model function */
    const cdyn_param extent[2] = {good[0], {CDYN_PARAM_GEOM_SIZE, 3, 0}};
    expect(s, nx, nv, A, 2, extent, P, CDYN_ENOTSUP, "a patch");
    cdyn_data *d = NULL;
    assert_int_equal(cdyn_data_create(m, NULL, &d, NULL), CDYN_OK);
    assert_int_equal(cdyn_eval(m, d, x->q, x->v, CDYN_EVAL_CONTACTS, NULL), CDYN_OK);
    cdyn_report rep;
    const int nc = cdyn_model_ncontact(m);
    double dgap[8];
    for (int i = 0; i < nc; i++)
        dgap[i] = 7;
    assert_int_equal(cdyn_eval_geom_derivatives(m, d, CDYN_GEOM_PARAM_SIZE, 3, 0, NULL, NULL,
                                                dgap, NULL, NULL, &rep), CDYN_ENOTSUP);
    assert_non_null(strstr(rep.message, "pair 1"));
    for (int i = 0; i < nc; i++)
        assert_true(dgap[i] == 7);
    assert_int_equal(cdyn_eval_geom_derivatives(m, NULL, CDYN_GEOM_PARAM_SIZE, 1, 0, NULL, NULL,
                                                dgap, NULL, NULL, &rep), CDYN_EINVAL);
    assert_int_equal(cdyn_eval_geom_derivatives(m, d, (cdyn_geom_param)3, 1, 0, NULL, NULL, dgap,
                                                NULL, NULL, &rep), CDYN_EINVAL);
    cdyn_data_free(d);
    for (int i = 0; i < nx * nx; i++)
        assert_true(A[i] == 7.0);
    for (int i = 0; i < nx * 4; i++)
        assert_true(P[i] == 7.0);
    /* good calls: P alone, and a parameter of a pair without rows in the step is a zero column */
    expect(s, nx, nv, NULL, 2, good, P, CDYN_OK, NULL);
    cdyn_state_free(x);
    cdyn_stepper_free(s);
    cdyn_model_free(m);
    free(A);
    free(P);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sphere_resting),  cmocka_unit_test(test_sphere_sliding_qp),
        cmocka_unit_test(test_sphere_sliding_ncp), cmocka_unit_test(test_box_plane),
        cmocka_unit_test(test_sphere_sphere),   cmocka_unit_test(test_capsule_plane),
        cmocka_unit_test(test_planar),          cmocka_unit_test(test_sparse_backend),
        cmocka_unit_test(test_ball_on_box_edge), cmocka_unit_test(test_capsules),
        cmocka_unit_test(test_round_patch),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
