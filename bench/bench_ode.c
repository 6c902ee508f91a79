/* ODE's side of bench_step (see bench_ode.h). */
#include "bench_ode.h"

#include <stdlib.h>

#include <ode/ode.h>

#define MAX_CONTACTS 4 /* per geometry pair (sphere-sphere and sphere-plane give 1) */
#define SOFT_ERP 0.2
#define SOFT_CFM 1e-10

typedef struct ode_run {
    const bench_ode_scene *s;
    bench_ode_stepper which;
    int steps;
    double deadline; /* bench_now() after which a run gives up (0: none) */
    dWorldID world;
    dSpaceID space;
    dJointGroupID group;
    dBodyID *bodies;
    int steps_done, contacts;
} ode_run;

const char *bench_ode_version(void)
{
    return dODE_VERSION;
}

static void near_callback(void *data, dGeomID g1, dGeomID g2)
{
    ode_run *r = data;
    dContact c[MAX_CONTACTS];
    const int n = dCollide(g1, g2, MAX_CONTACTS, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; i++) {
        c[i].surface.mode = dContactApprox1 | dContactSoftERP | dContactSoftCFM;
        c[i].surface.mu = r->s->mu;
        c[i].surface.soft_erp = SOFT_ERP;
        c[i].surface.soft_cfm = SOFT_CFM;
        dJointID j = dJointCreateContact(r->world, r->group, &c[i]);
        dJointAttach(j, dGeomGetBody(g1), dGeomGetBody(g2));
    }
    r->contacts += n;
}

/* A run: back to the initial state at rest, then the steps. Returns 1 when the deadline
 * passed. */
static int ode_steps(void *ctx)
{
    ode_run *r = ctx;
    for (int i = 0; i < r->s->nspheres; i++) {
        const double *qi = r->s->q + 7 * i;
        const dQuaternion quat = {qi[3], qi[4], qi[5], qi[6]};
        dBodySetPosition(r->bodies[i], qi[0], qi[1], qi[2]);
        dBodySetQuaternion(r->bodies[i], quat);
        dBodySetLinearVel(r->bodies[i], 0, 0, 0);
        dBodySetAngularVel(r->bodies[i], 0, 0, 0);
    }
    r->steps_done = 0;
    for (int k = 0; k < r->steps; k++) {
        if (r->deadline > 0 && bench_now() > r->deadline)
            return 1;
        r->contacts = 0;
        dSpaceCollide(r->space, r, near_callback);
        if (r->which == BENCH_ODE_WORLD_STEP)
            dWorldStep(r->world, r->s->h);
        else
            dWorldQuickStep(r->world, r->s->h);
        dJointGroupEmpty(r->group);
        r->steps_done++;
    }
    return 0;
}

int bench_ode_time(const bench_ode_scene *s, bench_ode_stepper which, int steps, double deadline,
                   const bench_budget *budget, bench_ode_result *out, double *final_q)
{
    if (!dInitODE2(0))
        return -1;
    dAllocateODEDataForThread(dAllocateMaskAll);
    ode_run r = {s, which, steps, 0.0, dWorldCreate(), dHashSpaceCreate(0), dJointGroupCreate(0),
                 malloc(sizeof(dBodyID) * (size_t)(s->nspheres > 0 ? s->nspheres : 1)), 0, 0};
    if (r.bodies == NULL) {
        dJointGroupDestroy(r.group);
        dSpaceDestroy(r.space);
        dWorldDestroy(r.world);
        dCloseODE();
        return -1;
    }
    dWorldSetGravity(r.world, s->gravity[0], s->gravity[1], s->gravity[2]);
    for (int p = 0; p < s->nplanes; p++)
        dCreatePlane(r.space, s->planes[p][0], s->planes[p][1], s->planes[p][2], s->planes[p][3]);
    for (int i = 0; i < s->nspheres; i++) {
        r.bodies[i] = dBodyCreate(r.world);
        dMass m;
        dMassSetSphereTotal(&m, s->mass, s->radius); /* inertia 2/5 m r^2, as cdyn's */
        dBodySetMass(r.bodies[i], &m);
        dGeomSetBody(dCreateSphere(r.space, s->radius), r.bodies[i]);
    }

    const double t0 = bench_now();
    r.deadline = t0 + deadline;
    const int late = ode_steps(&r);
    r.deadline = 0.0;
    const double once = bench_now() - t0;
    out->finished = !late;
    out->steps_done = r.steps_done;
    out->per_step = r.steps_done > 0 ? once / r.steps_done : once;
    if (!late && once <= 2.0) {
        bench_timing tm = {0, 0, 0};
        bench_time(ode_steps, &r, budget, &tm);
        out->per_step = tm.median / steps;
    }
    out->contacts = r.contacts;
    if (final_q != NULL)
        for (int i = 0; i < s->nspheres; i++) {
            const dReal *p = dBodyGetPosition(r.bodies[i]), *qu = dBodyGetQuaternion(r.bodies[i]);
            double *qi = final_q + 7 * i;
            for (int k = 0; k < 3; k++)
                qi[k] = p[k];
            for (int k = 0; k < 4; k++)
                qi[3 + k] = qu[k];
        }

    free(r.bodies);
    dJointGroupDestroy(r.group);
    dSpaceDestroy(r.space); /* destroys its geometries (cleanup mode on by default) */
    dWorldDestroy(r.world);
    dCloseODE();
    return 0;
}
