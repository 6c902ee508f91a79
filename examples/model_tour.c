/* A tour of the model API (docs/api.md): the billiard ball of Song, Kumar & Pang and the
 * planar two-fingered grasp of an ellipse of Yashima & Yamaguchi, built and evaluated once.
 * Prints M, h and the contact rows. Public API only. */
#include <math.h>
#include <stdio.h>

#include <cdyn/cdyn.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cdyn_status st_ = (call);                                                                  \
        if (st_ != CDYN_OK) {                                                                      \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, cdyn_status_str(st_),           \
                    rep.message);                                                                  \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static void print_rows(const cdyn_model *m, const cdyn_data *d)
{
    const int nc = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    const double *Jn = cdyn_data_jacobian(d, CDYN_DIR_N), *Jt = cdyn_data_jacobian(d, CDYN_DIR_T);
    const double *Jo = cdyn_data_jacobian(d, CDYN_DIR_O);
    for (int i = 0; i < nc; ++i) {
        cdyn_contact c;
        cdyn_data_contact(d, i, &c);
        printf("  row %d (pair %d): gap % .5f  n (% .3f % .3f % .3f)\n", i, c.pair, c.gap, c.n[0],
               c.n[1], c.n[2]);
        const double *J[3] = {Jn, Jt, Jo};
        const char *name[3] = {"Gamma_n", "Gamma_t", "Gamma_o"};
        for (int k = 0; k < 3; ++k) {
            printf("    %s:", name[k]);
            for (int j = 0; j < nv; ++j)
                printf(" % .4f", J[k][i + j * nc]);
            printf("   (dGamma/dt) v = % .5f\n", cdyn_data_jacobian_dot_v(d, (cdyn_dir)k)[i]);
        }
    }
}

static int billiard_ball(void)
{
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3); /* spatial, gravity (0, 0, -9.81) */
    cdyn_builder *b = NULL;
    CHECK(cdyn_builder_create(&bo, &b, &rep));

    const double m = 0.2, r = 0.05, I = 0.4 * m * r * r; /* solid ball */
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball); /* a FREE body attached to the ground */
    ball.mass = m;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = I;
    int body;
    CHECK(cdyn_builder_add_body(b, &ball, &body, &rep));

    cdyn_geom_desc floor, sphere;
    cdyn_geom_desc_defaults(&floor); /* the plane z = 0 on the ground */
    cdyn_geom_desc_defaults(&sphere);
    sphere.body = body;
    sphere.type = CDYN_GEOM_SPHERE;
    sphere.size[0] = r;
    int g_floor, g_ball;
    CHECK(cdyn_builder_add_geom(b, &floor, &g_floor, &rep));
    CHECK(cdyn_builder_add_geom(b, &sphere, &g_ball, &rep));

    cdyn_contact_pair_desc pair;
    cdyn_contact_pair_desc_defaults(&pair);
    pair.geom_a = g_floor; /* n points from the floor to the ball */
    pair.geom_b = g_ball;
    pair.mu = 0.2;
    pair.stiffness[0] = pair.stiffness[4] = pair.stiffness[8] = 1e4; /* K = 1e4 I */
    CHECK(cdyn_builder_add_contact_pair(b, &pair, NULL, &rep));

    cdyn_model *model = NULL;
    CHECK(cdyn_builder_build(b, &model, &rep));
    cdyn_builder_free(b);

    cdyn_data *data = NULL;
    CHECK(cdyn_data_create(model, NULL, &data, &rep));
    /* q = (x, y, z, e0, ex, ey, ez), v = (v, w) with w in world axes */
    const double q[7] = {0, 0, r, 1, 0, 0, 0};
    const double v[6] = {1, 0.5, 0, 40, -20, -10};
    CHECK(cdyn_eval(model, data, q, v, CDYN_EVAL_ALL, &rep));

    printf("billiard ball: nq = %d, nv = %d, n_c = %d\n", cdyn_model_nq(model),
           cdyn_model_nv(model), cdyn_model_ncontact(model));
    const double *h = cdyn_data_bias(data);
    printf("  h = (% .4f % .4f % .4f % .4f % .4f % .4f)\n", h[0], h[1], h[2], h[3], h[4], h[5]);
    print_rows(model, data);
    cdyn_data_free(data);
    cdyn_model_free(model);
    return 0;
}

/* Two 2-link fingers (links 0.3 m, 0.5 kg) on a 0.2 m palm holding an ellipse with axes
 * 0.37 m and 0.3 m (3 kg) in a vertical plane: the second links stand vertical 1 mm beside the
 * ellipse's left and right ends. */
static int two_finger_grasp(void)
{
    cdyn_report rep;
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2); /* planar, gravity (0, -9.81, 0) */
    cdyn_builder *b = NULL;
    CHECK(cdyn_builder_create(&bo, &b, &rep));

    const double L = 0.3, ml = 0.5, a = 0.185, bb = 0.15;
    cdyn_body_desc obj;
    cdyn_body_desc_defaults(&obj);
    obj.mass = 3.0;
    obj.inertia[2] = 3.0 * (a * a + bb * bb) / 4; /* Izz of a uniform elliptic disk */
    obj.frame = cdyn_pose_planar(0, 0.45, 0);
    int object;
    CHECK(cdyn_builder_add_body(b, &obj, &object, &rep));

    int tip[2];
    for (int f = 0; f < 2; ++f) {
        cdyn_body_desc link[2];
        for (int k = 0; k < 2; ++k) {
            cdyn_body_desc_defaults(&link[k]);
            link[k].joint = CDYN_JOINT_REVOLUTE; /* about z in a planar model */
            link[k].mass = ml;
            link[k].com[0] = L / 2;
            link[k].inertia[2] = ml * L * L / 12;
        }
        link[0].frame = cdyn_pose_planar(f == 0 ? -0.1 : 0.1, 0, 0); /* palm ends */
        link[1].frame = cdyn_pose_planar(L, 0, 0);                   /* elbow */
        int ids[2];
        CHECK(cdyn_builder_add_chain(b, CDYN_GROUND, 2, link, ids, &rep));
        tip[f] = ids[1];
    }

    cdyn_geom_desc ell;
    cdyn_geom_desc_defaults(&ell);
    ell.body = object;
    ell.type = CDYN_GEOM_ELLIPSE;
    ell.size[0] = a;
    ell.size[1] = bb;
    int g_ell;
    CHECK(cdyn_builder_add_geom(b, &ell, &g_ell, &rep));
    for (int f = 0; f < 2; ++f) {
        cdyn_geom_desc seg;
        cdyn_geom_desc_defaults(&seg);
        seg.body = tip[f];
        seg.type = CDYN_GEOM_CAPSULE; /* radius 0: the link as a segment */
        seg.size[0] = 0.0;
        seg.size[1] = L / 2;
        seg.frame = cdyn_pose_planar(L / 2, 0, 0);
        int g_seg;
        CHECK(cdyn_builder_add_geom(b, &seg, &g_seg, &rep));
        cdyn_contact_pair_desc pair;
        cdyn_contact_pair_desc_defaults(&pair);
        pair.geom_a = g_ell; /* n: outward normal of the object */
        pair.geom_b = g_seg;
        pair.mu = 0.4;
        CHECK(cdyn_builder_add_contact_pair(b, &pair, NULL, &rep));
    }
    cdyn_model *model = NULL;
    CHECK(cdyn_builder_build(b, &model, &rep));
    cdyn_builder_free(b);

    cdyn_data *data = NULL;
    CHECK(cdyn_data_create(model, NULL, &data, &rep));
    /* q = (object x, y, theta, finger 1 joints, finger 2 joints); elbows at (-+(a + 1 mm), ye) */
    const double pi = 3.14159265358979323846, dx = a + 0.001 - 0.1, ye = sqrt(L * L - dx * dx);
    const double th_l = atan2(ye, -dx), th_r = atan2(ye, dx);
    const double q[7] = {0, 0.45, 0, th_l, pi / 2 - th_l, th_r, pi / 2 - th_r};
    const double v[7] = {0, 0, 0, 0.1, 0.2, -0.1, -0.2};
    CHECK(cdyn_eval(model, data, q, v, CDYN_EVAL_ALL, &rep));
    printf("two-finger grasp: nq = %d, nv = %d, n_c = %d\n", cdyn_model_nq(model),
           cdyn_model_nv(model), cdyn_model_ncontact(model));
    print_rows(model, data);
    cdyn_data_free(data);
    cdyn_model_free(model);
    return 0;
}

int main(void)
{
    if (billiard_ball() != 0)
        return 1;
    return two_finger_grasp();
}
