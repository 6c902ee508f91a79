/* The part-feeder scene of examples/part_feeder.c (geometry in part_feeder_model.h). */
#include "part_feeder_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One compliant pair: critically damped in the normal direction for the part's mass, so that an
 * impact does not bounce (the paper's part comes to rest on the palm). */
static int add_pair(cdyn_builder *b, int ga, int gb, cdyn_report *rep)
{
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.geom_a = ga;
    pd.geom_b = gb;
    pd.mu = PF_MU;
    pd.stiffness[0] = PF_K;
    pd.stiffness[4] = PF_K;
    pd.damping[0] = 2.0 * sqrt(PF_K * PF_MASS);
    pd.damping[4] = 2.0 * sqrt(PF_K * PF_MASS);
    pd.margin = PF_MARGIN;
    int id;
    return cdyn_builder_add_contact_pair(b, &pd, &id, rep) != CDYN_OK;
}

static int add_geom(cdyn_builder *b, int body, cdyn_geom_type type, double x, double y,
                    double angle, double sx, double sy, int *id, cdyn_report *rep)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    g.body = body;
    g.type = type;
    g.frame = cdyn_pose_planar(x, y, angle);
    g.size[0] = sx;
    g.size[1] = sy;
    return cdyn_builder_add_geom(b, &g, id, rep) != CDYN_OK;
}

cdyn_model *pf_model(double xp, double yp, double palm_x, cdyn_report *rep)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    bo.gravity[1] = -PF_G;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&bo, &b, rep) != CDYN_OK)
        return NULL;
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = PF_MASS;
    d.inertia[2] = PF_MASS * (4 * PF_A * PF_A + 4 * PF_B * PF_B) / 12.0;
    int part, err = cdyn_builder_add_body(b, &d, &part, rep) != CDYN_OK;
    /* The part as a rounded rectangle: corner circles (against the palm's and the tab's faces)
     * and edge capsules (against their corners), all of radius PF_ROUND. Every distance is then
     * measured from outside a convex feature, whose normal turns continuously: with sharp
     * corners a penetrating point changes its nearest face abruptly and Newton stalls. */
    const double ca = PF_A - PF_ROUND, cb = PF_B - PF_ROUND;
    int corner[4], edge[4];
    for (int i = 0; i < 4 && !err; i++) {
        const double sx = (i == 0 || i == 3) ? -1 : 1, sy = i < 2 ? -1 : 1;
        err = add_geom(b, part, CDYN_GEOM_CIRCLE, sx * ca, sy * cb, 0, PF_ROUND, 0, &corner[i],
                       rep);
    }
    err = err || add_geom(b, part, CDYN_GEOM_CAPSULE, 0, -cb, 0, PF_ROUND, ca, &edge[0], rep);
    err = err || add_geom(b, part, CDYN_GEOM_CAPSULE, 0, cb, 0, PF_ROUND, ca, &edge[1], rep);
    err = err || add_geom(b, part, CDYN_GEOM_CAPSULE, -ca, 0, PF_HALF_PI, PF_ROUND, cb, &edge[2],
                          rep);
    err = err || add_geom(b, part, CDYN_GEOM_CAPSULE, ca, 0, PF_HALF_PI, PF_ROUND, cb, &edge[3],
                          rep);
    /* the palm: a slab with its top at y = 0; the protrusion: a tab whose upper-left corner is
     * (xp, yp); the upper corners of both as small circles against the part's edges */
    int palm, tab, pts[4];
    err = err || add_geom(b, CDYN_GROUND, CDYN_GEOM_RECTANGLE, palm_x, -PF_PALM_HT, 0,
                          PF_PALM_HW, PF_PALM_HT, &palm, rep);
    err = err || add_geom(b, CDYN_GROUND, CDYN_GEOM_RECTANGLE, xp + PF_TAB_HW, yp - PF_TAB_HT, 0,
                          PF_TAB_HW, PF_TAB_HT, &tab, rep);
    const double px[4] = {palm_x - PF_PALM_HW, palm_x + PF_PALM_HW, xp, xp + 2 * PF_TAB_HW};
    const double py[4] = {0.0, 0.0, yp, yp};
    for (int i = 0; i < 4; i++)
        err = err || add_geom(b, CDYN_GROUND, CDYN_GEOM_CIRCLE, px[i] + (i % 2 ? -1 : 1) * PF_EDGE,
                              py[i] - PF_EDGE, 0, PF_EDGE, 0, &pts[i], rep);
    /* part_feeder_sens.c differentiates in these ids */
    if (!err && (tab != PF_GEOM_TAB || pts[2] != PF_GEOM_TAB_CORNER_L ||
                 pts[3] != PF_GEOM_TAB_CORNER_R)) {
        snprintf(rep->message, sizeof rep->message, "part feeder: the tab's geometry ids %d, %d, "
                 "%d are not PF_GEOM_TAB*", tab, pts[2], pts[3]);
        rep->status = CDYN_EINVAL;
        err = 1;
    }
    for (int i = 0; i < 4 && !err; i++)
        err = add_pair(b, palm, corner[i], rep) || add_pair(b, tab, corner[i], rep);
    for (int i = 0; i < 4 && !err; i++)
        for (int e = 0; e < 4 && !err; e++)
            err = add_pair(b, pts[i], edge[e], rep);
    cdyn_model *m = NULL;
    if (!err)
        cdyn_builder_build(b, &m, rep);
    cdyn_builder_free(b);
    return m;
}

void pf_initial_state(cdyn_state *x)
{
    /* Sliding from rest down the frictionless chute (angle alpha, length L) the part leaves the
     * lip with speed sqrt(2 g L sin alpha) along the chute, lying on its long side. */
    const double a = PF_CHUTE_ANGLE, speed = sqrt(2 * PF_G * PF_CHUTE_LENGTH * sin(a));
    const double nx = sin(a), ny = cos(a); /* the chute's upward normal */
    x->t = 0;
    x->q[0] = PF_LIP_X + PF_B * nx;
    x->q[1] = PF_LIP_Y + PF_B * ny;
    x->q[2] = -a;
    x->v[0] = speed * cos(a);
    x->v[1] = -speed * sin(a);
    x->v[2] = 0;
    memset(x->delta, 0, 3 * (size_t)x->nc * sizeof(double));
    memset(x->lambda, 0, 3 * (size_t)x->nc * sizeof(double));
    for (int i = 0; i < x->nc; i++)
        x->mode[i] = CDYN_MODE_FREE;
}

int pf_sim_open(double xp, double yp, double palm_x, int friction_qp, pf_sim *sim,
                pf_result *out)
{
    memset(sim, 0, sizeof *sim);
    memset(out, 0, sizeof *out);
    out->first_tab = out->first_palm = -1;
    cdyn_report rep;
    sim->m = pf_model(xp, yp, palm_x, &rep);
    if (sim->m == NULL) {
        out->st = rep.status;
        snprintf(out->message, sizeof out->message, "%s", rep.message);
        return 1;
    }
    cdyn_step_options o;
    cdyn_step_defaults(&o, CDYN_SCHEME_IMPLICIT_NCP);
    o.h = PF_H;
    o.max_halvings = 6;
    o.friction_qp = friction_qp;
    out->st = cdyn_stepper_create(sim->m, &o, &sim->s, &rep);
    if (out->st == CDYN_OK)
        out->st = cdyn_state_create(sim->m, NULL, &sim->x, &rep);
    if (out->st != CDYN_OK) {
        snprintf(out->message, sizeof out->message, "%s", rep.message);
        pf_sim_close(sim);
        return 1;
    }
    pf_initial_state(sim->x);
    return 0;
}

void pf_sim_close(pf_sim *sim)
{
    cdyn_state_free(sim->x);
    cdyn_stepper_free(sim->s);
    cdyn_model_free(sim->m);
    memset(sim, 0, sizeof *sim);
}

int pf_sim_step(pf_sim *sim, FILE *f, pf_result *out, cdyn_step_report *sr)
{
    const cdyn_state *x = sim->x;
    if ((out->st = cdyn_step(sim->s, NULL, sim->x, sr)) != CDYN_OK) {
        snprintf(out->message, sizeof out->message, "t = %.3f s: %s", x->t, sr->solver.message);
        return 1;
    }
    out->iterations += sr->solver.iterations;
    /* rows (part_feeder_model.h): corners 2i (palm), 2i + 1 (tab); 8..15 the palm's
     * corners, 16..23 the tab's */
    double fpalm = 0, ftab = 0;
    for (int i = 0; i < 24; i++) {
        const int on_palm = i < 8 ? i % 2 == 0 : i < 16;
        if (on_palm)
            fpalm += x->lambda[3 * i];
        else
            ftab += x->lambda[3 * i];
    }
    if (out->first_tab < 0 && ftab > 0)
        out->first_tab = x->t;
    if (out->first_palm < 0 && fpalm > 0)
        out->first_palm = x->t;
    out->palm_force = fpalm;
    if (f != NULL)
        fprintf(f, "%.4f,%.6f,%.6f,%.6f,%.6g,%.6g\n", x->t, x->q[0], x->q[1], x->q[2], fpalm,
                ftab);
    return 0;
}

void pf_sim_finish(const pf_sim *sim, pf_result *out)
{
    const cdyn_state *x = sim->x;
    out->x = x->q[0];
    out->y = x->q[1];
    out->theta = x->q[2];
    const double I = PF_MASS * (4 * PF_A * PF_A + 4 * PF_B * PF_B) / 12.0;
    out->ke_end = 0.5 * PF_MASS * (x->v[0] * x->v[0] + x->v[1] * x->v[1]) +
                  0.5 * I * x->v[2] * x->v[2];
}

void pf_run(double xp, double yp, double palm_x, int friction_qp, FILE *f, pf_result *out)
{
    pf_sim sim;
    if (pf_sim_open(xp, yp, palm_x, friction_qp, &sim, out) != 0)
        return;
    const int nsteps = (int)lround(PF_T_END / PF_H);
    cdyn_step_report sr;
    int bad = 0;
    for (int k = 0; k < nsteps && !bad; k++)
        bad = pf_sim_step(&sim, f, out, &sr);
    if (!bad)
        pf_sim_finish(&sim, out);
    pf_sim_close(&sim);
}

double pf_wrap(double a)
{
    const double two_pi = 2 * 3.14159265358979323846;
    a = fmod(a, two_pi);
    if (a > two_pi / 2)
        a -= two_pi;
    if (a <= -two_pi / 2)
        a += two_pi;
    return a;
}

double pf_cost(const pf_result *r)
{
    if (r->st != CDYN_OK)
        return PF_COST_FAILED;
    const double dx = r->x - PF_TARGET_X, dy = r->y - (PF_B - PF_MASS * PF_G / (2 * PF_K));
    const double turn = 1 + cos(r->theta); /* 0 when turned over */
    return dx * dx + dy * dy + PF_TURN_WEIGHT * turn * turn;
}
