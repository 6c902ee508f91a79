/* The part-feeder scene of Song-Kumar-Pang Fig. 6 as built here (the paper gives the design
 * variables, the palm's centre and the target, not the part or the chute; docs/examples.md):
 *
 *   part        a uniform rectangle 2A x 2B, mass m, released from a frictionless chute
 *   chute       angle PF_CHUTE_ANGLE below horizontal, the part sliding PF_CHUTE_LENGTH from rest;
 *               its lip at (PF_LIP_X, PF_LIP_Y). The simulation starts as the part leaves it.
 *   protrusion  a tab 2 PF_TAB_HW x 2 PF_TAB_HT whose upper-left corner is (x_p, y_p)
 *   palm        a slab 2 PF_PALM_HW wide with its top at y = 0, centred at x = palm_x
 *
 * Contacts (compliant, K = PF_K in n and t, critically damped, friction PF_MU): the part's four
 * rounded corners against the palm and the tab (rows 0..7, palm then tab per corner), and the
 * palm's and the tab's rounded upper corners against the part's four edges (rows 8..23: palm
 * left, palm right, tab left, tab right, four edges each). */
#ifndef CDYN_EXAMPLES_PART_FEEDER_MODEL_H
#define CDYN_EXAMPLES_PART_FEEDER_MODEL_H

#include "cdyn/model.h"
#include "cdyn/step.h"

#include <stdio.h>

#define PF_G 9.81
#define PF_A 0.5    /* half-length of the part (m) */
#define PF_B 0.2    /* half-height */
#define PF_MASS 1.0 /* kg */
#define PF_MU 0.3
#define PF_K 1e5        /* N/m */
#define PF_MARGIN 0.2   /* rows take part within 0.2 m */
#define PF_CHUTE_ANGLE 0.5235987755982988 /* 30 degrees */
#define PF_CHUTE_LENGTH 1.0
#define PF_LIP_X 3.5
#define PF_LIP_Y 6.5
#define PF_TAB_HW 0.5
#define PF_TAB_HT 0.5
#define PF_PALM_HW 2.0
#define PF_PALM_HT 0.25
#define PF_ROUND 0.05 /* the part's corner radius */
#define PF_EDGE 0.02  /* the palm's and the tab's corner radius */
#define PF_HALF_PI 1.5707963267948966

/* Geometry ids in the order pf_model adds them: the part's 4 corners and 4 edges (0..7), the
 * palm (8), the tab (9), the palm's upper corners (10, 11), the tab's (12, 13). The tab is the
 * rectangle and its two corner circles: they move together with (x_p, y_p). */
#define PF_GEOM_TAB 9
#define PF_GEOM_TAB_CORNER_L 12
#define PF_GEOM_TAB_CORNER_R 13

/* The scene with the protrusion's upper-left corner at (xp, yp) and the palm centred at palm_x;
 * NULL (rep says why) on failure. */
cdyn_model *pf_model(double xp, double yp, double palm_x, cdyn_report *rep);

/* The part as it leaves the chute (t = 0). */
void pf_initial_state(cdyn_state *x);

#define PF_H 1e-3    /* time step (s) */
#define PF_T_END 2.5 /* simulated time (s): the part is at rest by then */

typedef struct pf_result {
    cdyn_status st;
    double x, y, theta;           /* the part at T_END */
    double first_tab, first_palm; /* first contact times (s), -1 when none */
    double palm_force, ke_end;    /* normal force on the palm and kinetic energy at T_END */
    int iterations;               /* Newton iterations, all steps */
    char message[400];
} pf_result;

/* One run's model, stepper and state, for callers that step it themselves
 * (part_feeder_sens.c). */
typedef struct pf_sim {
    cdyn_model *m;
    cdyn_stepper *s;
    cdyn_state *x; /* pf_initial_state after pf_sim_open */
} pf_sim;

/* The scene with the tab at (xp, yp) and the palm at palm_x, the implicit compliant step (h =
 * PF_H, up to 6 halvings) with friction_qp as given; out cleared. Nonzero (out->st, message say
 * why; nothing to close) on failure. */
int pf_sim_open(double xp, double yp, double palm_x, int friction_qp, pf_sim *sim,
                pf_result *out);
void pf_sim_close(pf_sim *sim);

/* One step: the first contact times, palm force and iterations into out, a CSV row to f when
 * not NULL. Nonzero (out->st, message) when the step fails. */
int pf_sim_step(pf_sim *sim, FILE *f, pf_result *out, cdyn_step_report *sr);

/* The final pose and kinetic energy into out. */
void pf_sim_finish(const pf_sim *sim, pf_result *out);

/* Run the scene from pf_initial_state to PF_T_END with the tab at (xp, yp), the palm at palm_x,
 * the implicit compliant step with friction_qp as given; CSV rows (t, x, y, theta, palm and tab
 * normal forces) to f when not NULL. */
void pf_run(double xp, double yp, double palm_x, int friction_qp, FILE *f, pf_result *out);

/* An angle in (-pi, pi]. */
double pf_wrap(double a);

/* The design problem (b): the part should come to rest at x = PF_TARGET_X on the palm at
 * PF_PALM_B_X, turned over. Cost (x_N - target)^2 + (y_N - y_rest)^2 + w (1 + cos theta_N)^2, with
 * y_rest = B - m g / (2K) (lying on its long side) and w = PF_TURN_WEIGHT; PF_COST_FAILED when the
 * run failed. */
#define PF_PALM_B_X 1.7
#define PF_TARGET_X 2.5
#define PF_TURN_WEIGHT 0.25
#define PF_COST_FAILED 1e3
double pf_cost(const pf_result *r);

#endif
