/* Scenes shared by the time-stepping tests (see step_scenes.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "step_scenes.h"

/* A solid sphere (radius r, mass m) free above the plane z = 0, friction mu. */
cdyn_model *scene_sphere(double r, double m, double mu)
{
    return scene_sphere_g(r, m, mu, G_ACC);
}

cdyn_model *scene_billiard(void)
{
    return scene_sphere_g(0.05, 0.2, 0.2, 9.8);
}

cdyn_model *scene_sphere_g(double r, double m, double mu, double g)
{
    return scene_spheres(1, r, m, mu, 0.0, 1, g);
}

cdyn_model *scene_sphere_margin(double r, double m, double mu, double g, double margin)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc fl;
    cdyn_geom_desc_defaults(&fl);
    int floor;
    assert_int_equal(cdyn_builder_add_geom(b, &fl, &floor, NULL), CDYN_OK);
    const int gs = scene_add_ball(b, r, m);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = floor;
    p.geom_b = gs;
    p.mu = mu;
    p.margin = margin;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

int scene_add_ball(cdyn_builder *b, double r, double m)
{
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = m;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 0.4 * m * r * r;
    cdyn_geom_desc sphere;
    cdyn_geom_desc_defaults(&sphere);
    assert_int_equal(cdyn_builder_add_body(b, &ball, &sphere.body, NULL), CDYN_OK);
    sphere.type = CDYN_GEOM_SPHERE;
    sphere.size[0] = r;
    int gs;
    assert_int_equal(cdyn_builder_add_geom(b, &sphere, &gs, NULL), CDYN_OK);
    return gs;
}

cdyn_model *scene_spheres(int n, double r, double m, double mu, double e, int plane, double g)
{
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -g;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, &rep), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = mu;
    pd.restitution = e;
    int prev = -1, pair;
    if (plane) {
        cdyn_geom_desc gp;
        cdyn_geom_desc_defaults(&gp);
        assert_int_equal(cdyn_builder_add_geom(b, &gp, &prev, &rep), CDYN_OK);
    }
    for (int i = 0; i < n; i++) {
        const int gs = scene_add_ball(b, r, m);
        if (prev >= 0) {
            pd.geom_a = prev;
            pd.geom_b = gs;
            assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, &rep), CDYN_OK);
        }
        prev = gs;
    }
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, &rep), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

cdyn_stepper *scene_stepper(const cdyn_model *m, cdyn_scheme scheme, double h)
{
    cdyn_step_options o;
    cdyn_step_defaults(&o, scheme);
    o.h = h;
    cdyn_stepper *s = NULL;
    cdyn_report rep;
    cdyn_status st = cdyn_stepper_create(m, &o, &s, &rep);
    if (st != CDYN_OK)
        fail_msg("cdyn_stepper_create: %s", rep.message);
    return s;
}

/* A unit cube (half-size 0.05, m = 1) on the plane z = 0 under gravity tilted by theta about y,
 * which is a block on an incline of angle theta in the plane's frame. */
cdyn_model *scene_incline(double theta, double mu)
{
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[0] = G_ACC * sin(theta);
    bo.gravity[2] = -G_ACC * cos(theta);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, &rep), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 1;
    d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.01 / 6;
    int body, gp, gb, pair;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, &rep), CDYN_OK);
    cdyn_geom_desc plane, box;
    cdyn_geom_desc_defaults(&plane);
    cdyn_geom_desc_defaults(&box);
    box.body = body;
    box.type = CDYN_GEOM_BOX;
    box.size[0] = box.size[1] = box.size[2] = 0.05;
    assert_int_equal(cdyn_builder_add_geom(b, &plane, &gp, &rep), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &box, &gb, &rep), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gp;
    pd.geom_b = gb;
    pd.mu = mu;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, &rep), CDYN_OK);
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, &rep), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}


cdyn_model *scene_disk(double mu, double k, double c)
{
    return scene_disk_kt(mu, k, k, c);
}

cdyn_model *scene_disk_kt(double mu, double kn, double kt, double c)
{
    return scene_disk_shaped(mu, kn, kt, c, 0.1, 0.0);
}

cdyn_model *scene_disk_shaped(double mu, double kn, double kt, double c, double r, double line_y)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 0.1;
    d.inertia[2] = 5e-4;
    int body, gl, gc, pair;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc line, disk;
    cdyn_geom_desc_defaults(&line);
    cdyn_geom_desc_defaults(&disk);
    disk.body = body;
    disk.type = CDYN_GEOM_CIRCLE;
    disk.size[0] = r;
    line.frame.pos[1] = line_y;
    assert_int_equal(cdyn_builder_add_geom(b, &line, &gl, NULL), CDYN_OK);
    assert_int_equal(cdyn_builder_add_geom(b, &disk, &gc, NULL), CDYN_OK);
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = gl;
    pd.geom_b = gc;
    pd.mu = mu;
    pd.stiffness[0] = kn;
    pd.stiffness[4] = kt;
    pd.damping[0] = pd.damping[4] = c;
    assert_int_equal(cdyn_builder_add_contact_pair(b, &pd, &pair, NULL), CDYN_OK);
    cdyn_model *model = NULL;
    assert_int_equal(cdyn_builder_build(b, &model, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return model;
}

void scene_check_energy(cdyn_scheme scheme)
{
    const double r = 0.05, mass = 0.2, I = 0.4 * mass * r * r, h = 0.01;
    cdyn_model *m = scene_sphere(r, mass, 0.3);
    cdyn_stepper *s = scene_stepper(m, scheme, h);
    cdyn_state *x = NULL;
    assert_int_equal(cdyn_state_create(m, NULL, &x, NULL), CDYN_OK);
    x->q[2] = 0.5;
    x->v[0] = 1.5;
    x->v[4] = 30;
    double e_prev = INFINITY;
    for (int k = 0; k < 300; k++) {
        const double *v = x->v;
        const double e = mass * G_ACC * x->q[2] +
                         0.5 * mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) +
                         0.5 * I * (v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
        assert_true(e <= e_prev + 1e-12);
        e_prev = e;
        assert_int_equal(cdyn_step(s, NULL, x, NULL), CDYN_OK);
    }
    cdyn_stepper_free(s);
    cdyn_state_free(x);
    cdyn_model_free(m);
}

/* Bortoff's bouncing ball: a planar disk of mass m and radius r on a vertical prismatic joint
 * whose coordinate is the gap to the ground line (the joint frame sits at height r), so q = h.
 * `pairs` contact pairs disk-ground (2: the same constraint twice, which makes W singular). */
cdyn_model *scene_prismatic_ball(const double alpha[3], double m, double r, int pairs)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.joint = CDYN_JOINT_PRISMATIC;
    d.frame = cdyn_pose_planar(0.0, r, 0.0);
    d.axis[0] = 0.0, d.axis[1] = 1.0, d.axis[2] = 0.0;
    d.mass = m;
    d.inertia[2] = 0.4 * m * r * r;
    int body = 0, gp = 0, gc = 0, pid = 0;
    assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    assert_int_equal(cdyn_builder_add_geom(b, &g, &gp, NULL), CDYN_OK);
    g.body = body;
    g.type = CDYN_GEOM_CIRCLE;
    g.size[0] = r;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &gc, NULL), CDYN_OK);
    cdyn_contact_pair_desc p;
    cdyn_contact_pair_desc_defaults(&p);
    p.geom_a = gp;
    p.geom_b = gc;
    memcpy(p.baumgarte, alpha, sizeof p.baumgarte);
    p.solref[0] = 0.0; /* the gains as given, also when all are 0 (no defaults from solref) */
    for (int k = 0; k < pairs; ++k)
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, &pid, NULL), CDYN_OK);
    cdyn_model *mo = NULL;
    assert_int_equal(cdyn_builder_build(b, &mo, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return mo;
}

/* Three spheres (r = 0.05, m = 0.2) dropped in a column, 0.07 m up and 0.12 m apart with 1 cm
 * offsets in x, onto the plane: K = 1e4, C = 2, mu = 0.3, margin 5 mm (a stack whose active set
 * changes as it lands and bounces). */
cdyn_model *scene_dropped_stack(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3);
    bo.gravity[2] = -9.81;
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&bo, &b, NULL), CDYN_OK);
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    int prev;
    assert_int_equal(cdyn_builder_add_geom(b, &g, &prev, NULL), CDYN_OK);
    for (int i = 0; i < 3; i++) {
        cdyn_body_desc d;
        cdyn_body_desc_defaults(&d);
        d.mass = 0.2;
        d.inertia[0] = d.inertia[1] = d.inertia[2] = 0.4 * 0.2 * 0.05 * 0.05;
        d.frame.pos[0] = 0.01 * i;
        d.frame.pos[2] = 0.07 + 0.12 * i;
        int body, gs;
        assert_int_equal(cdyn_builder_add_body(b, &d, &body, NULL), CDYN_OK);
        cdyn_geom_desc_defaults(&g);
        g.body = body;
        g.type = CDYN_GEOM_SPHERE;
        g.size[0] = 0.05;
        assert_int_equal(cdyn_builder_add_geom(b, &g, &gs, NULL), CDYN_OK);
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = prev;
        p.geom_b = gs;
        p.mu = 0.3;
        p.margin = 0.005;
        p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
        p.damping[0] = p.damping[4] = p.damping[8] = 2;
        assert_int_equal(cdyn_builder_add_contact_pair(b, &p, NULL, NULL), CDYN_OK);
        prev = gs;
    }
    cdyn_model *m = NULL;
    assert_int_equal(cdyn_builder_build(b, &m, NULL), CDYN_OK);
    cdyn_builder_free(b);
    return m;
}
