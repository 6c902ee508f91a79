/* ODE (Open Dynamics Engine, Debian libode-dev) beside cdyn in bench_step: free spheres among
 * fixed planes, contacts found by ODE's own collision (a hash space, dCollide in a near
 * callback) and stepped with dWorldStep (its pivoting "big matrix" LCP) or dWorldQuickStep
 * (projected Gauss-Seidel, its default 20 iterations).
 *
 * Contact joints: dContactApprox1 (the friction pyramid: each of two tangent directions bounded
 * by mu times the normal force, as cdyn's pyramid LCP (box)), soft_cfm = 1e-10 (ODE's own
 * double-precision default CFM, dWorldSetCFM's doc: a hard constraint up to a regularization that
 * keeps the LCP of redundant contacts nonsingular) and soft_erp = 0.2 (ODE's default, within
 * dWorldSetERP's typical 0.1-0.8: a fifth of the penetration corrected per step), no contact
 * surface layer, no bounce. */
#ifndef CDYN_BENCH_ODE_H
#define CDYN_BENCH_ODE_H

#include "bench_timer.h"

typedef enum bench_ode_stepper {
    BENCH_ODE_WORLD_STEP, /* dWorldStep */
    BENCH_ODE_QUICK_STEP  /* dWorldQuickStep */
} bench_ode_stepper;

typedef struct bench_ode_scene {
    int nspheres;
    const double *q; /* 7 per sphere: position, quaternion (w, x, y, z), as cdyn's q */
    double radius, mass, mu;
    int nplanes;
    const double (*planes)[4]; /* n . x = d as (n, d), n pointing into the free side */
    double gravity[3];
    double h;
} bench_ode_scene;

typedef struct bench_ode_result {
    int finished;    /* 0: the first run passed its deadline */
    int steps_done;  /* steps the first run made */
    double per_step; /* s: median of repeated runs (first run's when it took > 2 s) */
    int contacts;    /* contact joints of the last step */
} bench_ode_result;

/* ODE's version string. */
const char *bench_ode_version(void);

/* Steps the scene `steps` times from its q at rest: one untimed run first (given up after
 * `deadline` seconds: out->finished = 0, per_step over the steps it made), then timed runs under
 * budget. final_q (7 per sphere, may be NULL) receives the state after the last run. Returns 0,
 * or -1 when ODE could not be set up. */
int bench_ode_time(const bench_ode_scene *s, bench_ode_stepper which, int steps, double deadline,
                   const bench_budget *budget, bench_ode_result *out, double *final_q);

#endif
