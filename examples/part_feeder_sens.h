/* Exact sensitivities of the part feeder's IVP (part_feeder_model.h) to the tab's corner
 * (x_p, y_p), from the per-step derivatives only (cdyn/deriv.h), for the gradient-based design
 * of examples/part_feeder.c and tests/test_part_feeder_design.c.
 *
 * Forward sensitivities along the run: with x_k the step's state (tangent coordinates, cdyn/deriv.h),
 *   S_0 = 0 (the start does not depend on the tab),  S_{k+1} = A_k S_k + P_k E,
 * A_k = dx_{k+1}/dx_k and P_k = dx_{k+1}/dp for the GEOM_POS x and y of the tab's three
 * geometries (rectangle, two corner circles); E sums them (the tab moves rigidly). S_N's rows
 * for q = (x, y, theta) give dq_N / d(x_p, y_p). Derivatives are taken on the released side at
 * a switch (cdyn_deriv_side).
 *
 * A step whose derivative the library refuses (a step that needed halvings: CDYN_ENOTSUP; a
 * singular Jacobian) makes the whole gradient unavailable: pf_run_sens says so rather than
 * skipping the step (which would return a wrong gradient). */
#ifndef CDYN_EXAMPLES_PART_FEEDER_SENS_H
#define CDYN_EXAMPLES_PART_FEEDER_SENS_H

#include "part_feeder_model.h"

#include <cdyn/deriv.h>

typedef struct pf_sens_info {
    cdyn_status st;      /* the first refused step's status (CDYN_OK: the gradient is exact) */
    int refused_step;    /* its index (-1: none) */
    int deriv_steps;     /* steps whose derivatives were taken (the others had S = 0, P = 0) */
    int degenerate;      /* steps with a pair at its switch, taken released (one-sided) */
    double normal_margin; /* min over the steps of cdyn_step_deriv_report.normal_margin (m) */
    double time_step, time_deriv; /* seconds (CLOCK_MONOTONIC) in cdyn_step and the rest */
    char message[CDYN_REPORT_TEXT + 64];
} pf_sens_info;

/* nsteps steps of PF_H with the tab at (xp, yp), the palm at palm_x, the friction QP. The final
 * pose into out (as pf_run; pf_cost applies when nsteps = PF_T_END / PF_H) and, when the run
 * succeeds, J (3 x 2, row-major) = d(x_N, y_N, theta_N) / d(x_p, y_p). Returns 0; 1 when the run
 * failed (out->st); 2 when a step's derivative was refused (info->st, message; J not set). */
int pf_run_sens(double xp, double yp, double palm_x, int nsteps, pf_result *out, double J[6],
                pf_sens_info *info);

/* The gradient of pf_cost at the run r from its J (pf_run_sens) into g (2). */
void pf_cost_gradient(const pf_result *r, const double J[6], double g[2]);

#endif
