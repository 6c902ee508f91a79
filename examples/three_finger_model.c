/* The three-finger PUMA-like hand holding a sphere (three_finger_model.h). */
#include "three_finger_model.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

/* PUMA 560, Armstrong, Khatib & Burdick (1986), first three links (their values as tabulated in
 * Corke's Robotics Toolbox model "puma560akb", which cites that paper): upper arm a2 = 0.4318 m,
 * forearm to the wrist centre d4 = 0.4331 m; link 2: 17.4 kg, centre of mass 0.068 m along the arm,
 * (Ixx, Iyy, Izz) = (0.13, 0.524, 0.539) kg m^2 with x along the arm and z the joint axis;
 * link 3: 4.8 kg, centre of mass 0.070 m along the forearm, (0.066, 0.0125, 0.066) with y along
 * the forearm and z the joint axis; link 1: Izz = 0.35 kg m^2 about the waist axis (no mass
 * identified). Dropped: the lateral offsets d3 = 0.15005 m, a3 = 0.0203 m and the small
 * off-axis centre-of-mass coordinates (so each finger moves in its vertical plane), the wrist
 * links, motor inertias and gearing. */
static const double A2 = 0.4318, D4 = 0.4331;
static const double M2 = 17.4, C2 = 0.068, M3 = 4.8, C3 = 0.070;
static const double I1Z = 0.35;

void tf_defaults(tf_params *p)
{
    p->mu = 0.5;
    p->sphere_radius = 0.1;
    p->sphere_mass = 1.0;
    p->height = 0.5;
    p->base_radius = 0.5;
    p->contact_deg[0] = 60.0;
    p->contact_deg[1] = -60.0;
    p->contact_deg[2] = 180.0;
}

void tf_free(tf_hand *h)
{
    cdyn_data_free(h->data);
    cdyn_model_free(h->model);
    h->data = NULL;
    h->model = NULL;
}

/* Rotation about z by angle a as a quaternion. */
static cdyn_pose pose_z(double x, double y, double z, double a)
{
    cdyn_pose p = {{x, y, z}, {cos(a / 2), 0, 0, sin(a / 2)}};
    return p;
}

/* One finger: waist (axis z of a frame turned towards the sphere), shoulder and elbow (axis y
 * of that frame, horizontal and normal to the finger's plane); x along the links at q = 0. */
static cdyn_status add_finger(cdyn_builder *b, const tf_params *p, double azimuth, int *tip,
                              cdyn_report *rep)
{
    cdyn_body_desc link[3];
    for (int k = 0; k < 3; ++k) {
        cdyn_body_desc_defaults(&link[k]);
        link[k].joint = CDYN_JOINT_REVOLUTE;
    }
    const double bx = p->base_radius * cos(azimuth), by = p->base_radius * sin(azimuth);
    link[0].frame = pose_z(bx, by, 0, azimuth + PI); /* x points at the sphere's axis */
    link[0].axis[0] = 0, link[0].axis[1] = 0, link[0].axis[2] = 1;
    link[0].mass = 1.0; /* placeholder: on the axis it does not enter the dynamics */
    link[0].inertia[0] = link[0].inertia[1] = 1e-3;
    link[0].inertia[2] = I1Z;

    link[1].axis[0] = 0, link[1].axis[1] = 1, link[1].axis[2] = 0;
    link[1].mass = M2;
    link[1].com[0] = C2;
    link[1].inertia[0] = 0.13;  /* along the arm */
    link[1].inertia[1] = 0.539; /* about the joint axis */
    link[1].inertia[2] = 0.524;

    link[2].frame = pose_z(A2, 0, 0, 0);
    link[2].axis[0] = 0, link[2].axis[1] = 1, link[2].axis[2] = 0;
    link[2].mass = M3;
    link[2].com[0] = C3;
    link[2].inertia[0] = 0.0125; /* along the forearm */
    link[2].inertia[1] = 0.066;  /* about the joint axis */
    link[2].inertia[2] = 0.066;
    int ids[3];
    cdyn_status st = cdyn_builder_add_chain(b, CDYN_GROUND, 3, link, ids, rep);
    *tip = ids[2];
    return st;
}

/* Elbow-up inverse kinematics in the finger's plane: the tip at horizontal distance rho from the
 * shoulder (towards the sphere) and height z. q2 = -elevation of the upper arm (the joint turns
 * about +y, which lowers x), q3 = the bend of the elbow. */
static int finger_ik(double rho, double z, double *q2, double *q3)
{
    const double c = (rho * rho + z * z - A2 * A2 - D4 * D4) / (2 * A2 * D4);
    if (!(c > -1.0 && c < 1.0))
        return -1;
    const double g = acos(c);
    const double e2 = atan2(z, rho) + atan2(D4 * sin(g), A2 + D4 * cos(g));
    *q2 = -e2;
    *q3 = g;
    return 0;
}

cdyn_status tf_build(const tf_params *p, tf_hand *h, cdyn_report *rep)
{
    memset(h, 0, sizeof *h);
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 3); /* gravity (0, 0, -9.81) */
    cdyn_builder *b = NULL;
    cdyn_status st = cdyn_builder_create(&bo, &b, rep);
    if (st != CDYN_OK)
        return st;
    const double r = p->sphere_radius, m = p->sphere_mass;
    cdyn_body_desc ball;
    cdyn_body_desc_defaults(&ball);
    ball.mass = m;
    ball.inertia[0] = ball.inertia[1] = ball.inertia[2] = 0.4 * m * r * r;
    ball.frame = pose_z(0, 0, p->height, 0);
    int sphere_body = 0, g_sphere = 0;
    st = cdyn_builder_add_body(b, &ball, &sphere_body, rep);
    cdyn_geom_desc gs;
    cdyn_geom_desc_defaults(&gs);
    gs.body = sphere_body;
    gs.type = CDYN_GEOM_SPHERE;
    gs.size[0] = r;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &gs, &g_sphere, rep);
    for (int j = 0; j < 3 && st == CDYN_OK; ++j) {
        int tip = 0, g_tip = 0;
        st = add_finger(b, p, p->contact_deg[j] * PI / 180, &tip, rep);
        cdyn_geom_desc gt;
        cdyn_geom_desc_defaults(&gt);
        gt.body = tip;
        gt.type = CDYN_GEOM_POINT;
        gt.frame = pose_z(D4, 0, 0, 0); /* the wrist centre */
        if (st == CDYN_OK)
            st = cdyn_builder_add_geom(b, &gt, &g_tip, rep);
        cdyn_contact_pair_desc pair;
        cdyn_contact_pair_desc_defaults(&pair);
        pair.geom_a = g_sphere; /* n points out of the sphere */
        pair.geom_b = g_tip;
        pair.mu = p->mu;
        if (st == CDYN_OK)
            st = cdyn_builder_add_contact_pair(b, &pair, NULL, rep);
    }
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, &h->model, rep);
    cdyn_builder_free(b);
    if (st == CDYN_OK)
        st = cdyn_data_create(h->model, NULL, &h->data, rep);
    if (st != CDYN_OK) {
        tf_free(h);
        return st;
    }
    const double q0[7] = {0, 0, p->height, 1, 0, 0, 0};
    memcpy(h->q, q0, sizeof q0);
    for (int j = 0; j < 3; ++j) {
        double q2 = 0, q3 = 0;
        if (finger_ik(p->base_radius - r, p->height, &q2, &q3) != 0) {
            tf_free(h);
            if (rep) {
                rep->status = CDYN_EINVAL;
                strcpy(rep->message, "the fingers cannot reach the sphere");
            }
            return CDYN_EINVAL;
        }
        h->q[7 + 3 * j] = 0;
        h->q[8 + 3 * j] = q2;
        h->q[9 + 3 * j] = q3;
    }
    return CDYN_OK;
}

cdyn_status tf_squeeze_torques(tf_hand *h, const double *v, double squeeze, double *tau,
                               cdyn_report *rep)
{
    cdyn_status st = cdyn_eval(h->model, h->data, h->q, v, CDYN_EVAL_ALL, rep);
    if (st != CDYN_OK)
        return st;
    const double *bias = cdyn_data_bias(h->data), *Jn = cdyn_data_jacobian(h->data, CDYN_DIR_N);
    const int nc = cdyn_model_ncontact(h->model);
    for (int i = 0; i < TF_NV; ++i)
        tau[i] = i < 6 ? 0.0 : bias[i];
    /* Gamma_n's finger columns are n . dp_tip/dq: the tip force -squeeze n needs the torques
       -squeeze Gamma_n^T. Each contact row involves only its own finger's columns. */
    for (int c = 0; c < nc; ++c)
        for (int i = 6; i < TF_NV; ++i)
            tau[i] -= squeeze * Jn[c + i * nc];
    return CDYN_OK;
}
