/* The planar two-finger grasp of an ellipse (two_finger_model.h). */
#include "two_finger_model.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

/* The paper's data. */
static const double A_SEMI = 0.185, B_SEMI = 0.15; /* axes 0.37 m and 0.30 m */
static const double M_OBJ = 3.0, L_LINK = 0.3, M_LINK = 0.5, PALM = 0.2;
/* Our choice of the grasp (the paper's Fig. 6 is not in our copy): each second link touches the
 * ellipse at the point of parameter angle 45 degrees below the end of the major axis, 0.1 m from
 * the elbow; the object's centre lies on the palm's axis, the major axis horizontal. */
static const double PHI_DEG = 45.0, S_CONTACT = 0.1;

void tw_free(tw_grasp *g)
{
    cdyn_data_free(g->data);
    cdyn_model_free(g->model);
    g->data = NULL;
    g->model = NULL;
}

/* Object (free planar body, q = x, y, theta), then finger 1 (left) and finger 2 (right), each a
 * chain of two revolute links; the second links are segments (capsules of radius 0). */
cdyn_status tw_build(double mu, tw_grasp *g, cdyn_report *rep)
{
    memset(g, 0, sizeof *g);
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2); /* gravity (0, -9.81): y is the paper's z */
    cdyn_builder *b = NULL;
    cdyn_status st = cdyn_builder_create(&bo, &b, rep);
    if (st != CDYN_OK)
        return st;
    cdyn_body_desc obj;
    cdyn_body_desc_defaults(&obj);
    obj.mass = M_OBJ;
    obj.inertia[2] = M_OBJ * (A_SEMI * A_SEMI + B_SEMI * B_SEMI) / 4; /* uniform elliptic disk */
    int object = 0, tip[2] = {0, 0}, g_ell = 0;
    st = cdyn_builder_add_body(b, &obj, &object, rep);
    for (int f = 0; f < 2 && st == CDYN_OK; ++f) {
        cdyn_body_desc link[2];
        for (int k = 0; k < 2; ++k) {
            cdyn_body_desc_defaults(&link[k]);
            link[k].joint = CDYN_JOINT_REVOLUTE;
            link[k].mass = M_LINK;
            link[k].com[0] = L_LINK / 2; /* uniform rods */
            link[k].inertia[2] = M_LINK * L_LINK * L_LINK / 12;
        }
        link[0].frame = cdyn_pose_planar(f == 0 ? -PALM / 2 : PALM / 2, 0, 0);
        link[1].frame = cdyn_pose_planar(L_LINK, 0, 0);
        int ids[2];
        st = cdyn_builder_add_chain(b, CDYN_GROUND, 2, link, ids, rep);
        tip[f] = ids[1];
    }
    cdyn_geom_desc ell;
    cdyn_geom_desc_defaults(&ell);
    ell.body = object;
    ell.type = CDYN_GEOM_ELLIPSE;
    ell.size[0] = A_SEMI;
    ell.size[1] = B_SEMI;
    if (st == CDYN_OK)
        st = cdyn_builder_add_geom(b, &ell, &g_ell, rep);
    for (int f = 0; f < 2 && st == CDYN_OK; ++f) {
        cdyn_geom_desc seg;
        cdyn_geom_desc_defaults(&seg);
        seg.body = tip[f];
        seg.type = CDYN_GEOM_CAPSULE;
        seg.size[0] = 0.0;
        seg.size[1] = L_LINK / 2;
        seg.frame = cdyn_pose_planar(L_LINK / 2, 0, 0);
        int g_seg = 0;
        st = cdyn_builder_add_geom(b, &seg, &g_seg, rep);
        cdyn_contact_pair_desc pair;
        cdyn_contact_pair_desc_defaults(&pair);
        pair.geom_a = g_ell; /* the normal points out of the object */
        pair.geom_b = g_seg;
        pair.mu = mu;
        if (st == CDYN_OK)
            st = cdyn_builder_add_contact_pair(b, &pair, NULL, rep);
    }
    if (st == CDYN_OK)
        st = cdyn_builder_build(b, &g->model, rep);
    cdyn_builder_free(b);
    if (st == CDYN_OK)
        st = cdyn_data_create(g->model, NULL, &g->data, rep);
    if (st != CDYN_OK) {
        tw_free(g);
        return st;
    }

    /* Finger 1: the link-2 line is tangent to the ellipse at p (parameter angle PHI below the
       left end of the major axis); the elbow lies S_CONTACT below p along it and L_LINK from the
       palm end, which fixes the object's height. Finger 2 is the mirror image. */
    const double phi = PHI_DEG * PI / 180;
    double nx = -cos(phi) / A_SEMI, ny = -sin(phi) / B_SEMI; /* outward normal at p */
    const double nn = hypot(nx, ny);
    nx /= nn;
    ny /= nn;
    const double ux = ny, uy = -nx; /* tangent, pointing up */
    const double ex = -A_SEMI * cos(phi) - S_CONTACT * ux;
    const double ey = sqrt(L_LINK * L_LINK - (ex + PALM / 2) * (ex + PALM / 2));
    const double y0 = ey + B_SEMI * sin(phi) + S_CONTACT * uy;
    const double th1 = atan2(ey, ex + PALM / 2), th2 = atan2(uy, ux) - th1;
    const double q[TW_N] = {0, y0, 0, th1, th2, PI - th1, -th2};
    memcpy(g->q, q, sizeof q);
    memset(g->v, 0, sizeof g->v); /* held at rest */
    return CDYN_OK;
}

void tw_torques(double tau0, double tau1, double tau2, double tau[TW_N])
{
    const double t[TW_N] = {0, 0, 0, -tau0, -tau1, tau0, tau2};
    memcpy(tau, t, sizeof t);
}
