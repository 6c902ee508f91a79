/* cdyn — derivatives for planners: after a successful cdyn_step, the Jacobians of the new state
 * with respect to the old state and to the generalized forces tau (docs/api.md, "Per-step
 * derivatives"; the derivation: docs/theory.md, "Per-step derivatives of the implicit step").
 *
 * State coordinates (nx = 2 n_v + 3 n_c values, in this order):
 *   dq     n_v   q in the tangent space: a perturbation eps of these coordinates is the
 *                configuration q (+) eps, which moves every joint coordinate by eps except the
 *                quaternion e of a 3D free body, rotated by world-frame angles:
 *                e(eps) = exp(1/2 (0, eps_w)) (x) e (Hamilton product; to first order
 *                q + G(q) eps, the model's angular velocities being world-frame). The new
 *                state's tangent coordinates are read the same way: H(q+) dq+ with
 *                H = cdyn_model_G_pinv.
 *   v      n_v   the velocities.
 *   delta  3 n_c the contact deformations (n, t, o) of every model row, as cdyn_state::delta
 *                (in planar models the o entries are zero rows and columns).
 * Inputs: tau, n_u = n_v values (the cdyn_step argument).
 * A (nx x nx) = d x+ / d x and B (nx x n_u) = d x+ / d tau, column-major (LAPACK order).
 * lambda and the contact modes are not state of the implicit scheme (its next step does not read
 * lambda but as a start), so they have no rows or columns.
 *
 * Supported: CDYN_SCHEME_IMPLICIT_NCP with both friction laws (the friction QP, default, and the
 * smoothed NCP rows), dense or sparse backend, after a step of one substep. Not yet: the other
 * schemes, parameters (friction, stiffness, geometry), a step that needed halvings
 * (CDYN_ENOTSUP with a message).
 *
 * Mode switches: the derivative exists where no complementarity pair of the step sits at its
 * switch. A pair within 100 options.mcp.tol of it (both members, in the units of the step's
 * rows) is taken on the side asked (cdyn_deriv_side): the derivative is then the one-sided
 * derivative for perturbations that move the step to that side. The report says how near the
 * nearest switch is. */
#ifndef CDYN_DERIV_H
#define CDYN_DERIV_H

#include "cdyn/export.h"
#include "cdyn/status.h"
#include "cdyn/step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The side a pair at its switch is taken on. */
typedef enum cdyn_deriv_side {
    /* the constraint released: the normal force stays 0 (the contact opens), the smoothed cone's
       multiplier beta stays 0 (the row sticks inside the cone) */
    CDYN_DERIV_RELEASED = 0,
    /* the constraint held: the contact stays closed (gap + delta_n = 0 as the force grows from
       0), the row slips on the cone's boundary. A smoothed-NCP row with friction has no such
       derivative at lambda_n = 0 (its friction grows like sqrt(lambda_n) through gamma): its
       normal pair is taken released (report.forced_released) */
    CDYN_DERIV_HELD = 1
} cdyn_deriv_side;

/* What cdyn_step_derivatives found. Margins over the contact rows of the step's problem
 * (INFINITY and row -1 when no row qualifies). */
typedef struct cdyn_step_deriv_report {
    cdyn_report solver;    /* status, message; method "implicit-ncp-ift-dense" / "-sparse" */
    int nx, nu;            /* 2 n_v + 3 n_c and n_v */
    int rows;              /* contact rows in the step's problem */
    int degenerate;        /* complementarity pairs at their switch, taken on the side asked */
    int forced_released;   /* of those, normal pairs taken released although HELD was asked */
    double normal_margin;  /* m: min over rows of max(lambda_n / k_n, Psi_n + delta_n), k_n the
                              row's normal stiffness (else K + C/h): how far the gap is from
                              closing or the force from vanishing, as a compression */
    int normal_row;        /* the model row of normal_margin */
    double cone_margin;    /* sticking rows with friction: min of 1 - |lambda_T| / (mu lambda_n)
                              (0 on the cone's edge; smoothed rows: (mu lambda_n + gamma - rho) /
                              (mu lambda_n)) */
    int cone_row;
    double slip_margin;    /* slipping rows: min of the slip speed |s_T| (m/s) */
    int slip_row;
    double time;           /* seconds spent (wall clock) */
} cdyn_step_deriv_report;

/* nx = 2 n_v + 3 n_c for the stepper's model (-1 for NULL). */
CDYN_API int cdyn_step_deriv_nx(const cdyn_stepper *stepper);

/* The Jacobians of the stepper's last successful cdyn_step: A (nx x nx, column-major) =
 * d x+ / d x and B (nx x nu, nu = n_v) = d x+ / d tau, coordinates as at the top of this header.
 * Either of A and B may be NULL (not wanted), not both. nx and nu are the caller's sizes of A
 * and B and must be cdyn_step_deriv_nx(stepper) and n_v. Valid until the stepper's next
 * cdyn_step (a failed step leaves none). Cost: one factorization of the step's Jacobian at the
 * solution (dense LU or KLU, as the step's backend) and 2 n_v + k nd + n_v solves.
 * Statuses: CDYN_EINVAL (NULL stepper or both outputs, wrong sizes, a bad side, no successful
 * step yet or the last one failed), CDYN_ENOTSUP (a scheme other than the implicit one, a step
 * that took substeps after halvings, or a model with joint limits), CDYN_ESINGULAR (the step's
 * Jacobian on the active set is singular at the solution: no derivative), CDYN_ENUMERIC (the model cannot be evaluated there),
 * CDYN_ENOMEM. On failure A and B are unchanged. report may be NULL. */
CDYN_API cdyn_status cdyn_step_derivatives(cdyn_stepper *stepper, cdyn_deriv_side side, int nx,
                                           int nu, double *A, double *B,
                                           cdyn_step_deriv_report *report);

#ifdef __cplusplus
}
#endif
#endif
