/* cdyn — derivatives for planners: after a successful cdyn_step, the Jacobians of the new state
 * with respect to the old state and to the generalized forces tau (docs/api.md, "Per-step
 * derivatives"; the derivation: docs/theory.md, "Per-step derivatives of the implicit step").
 *
 * State coordinates (nx = 2 n_v + 3 n_c + n_l values, in this order; the rigid schemes have no
 * deformations: nx = 2 n_v):
 *   dq     n_v   q in the tangent space: a perturbation eps of these coordinates is the
 *                configuration q (+) eps, which moves every joint coordinate by eps except the
 *                quaternion e of a 3D free body, rotated by world-frame angles:
 *                e(eps) = exp(1/2 (0, eps_w)) (x) e (Hamilton product; to first order
 *                q + G(q) eps, the model's angular velocities being world-frame). The new
 *                state's tangent coordinates are read the same way: H(q+) dq+ with
 *                H = cdyn_model_G_pinv.
 *   v      n_v   the velocities.
 *   delta  3 n_c the contact deformations (n, t, o) of every model row, as cdyn_state::delta
 *                (in planar models the o entries are zero rows and columns); implicit only.
 *   delta_l  n_l   the joint-limit rows' deformations (cdyn_model_limit_rows, in
 *                cdyn_model_limit_row's order), as cdyn_state::limit_delta; implicit only (the
 *                next step reads them: the stop's damping acts on (delta_l - delta0_l) / h).
 * Inputs: tau, n_u = n_v values (the cdyn_step argument).
 * A (nx x nx) = d x+ / d x and B (nx x n_u) = d x+ / d tau, column-major (LAPACK order).
 * lambda, limit_lambda and the modes are not state of the implicit scheme (its next step does
 * not read the forces but as a start), so they have no rows or columns.
 *
 * Model parameters p (cdyn_step_param_derivatives): P (nx x np) = d x+ / d p, one column per
 * cdyn_param, the same rows as A.
 *
 * Supported: CDYN_SCHEME_IMPLICIT_NCP with both friction laws (the friction QP, default, and the
 * smoothed NCP rows), dense or sparse backend; the rigid schemes CDYN_SCHEME_PYRAMID_LCP
 * (either bound), CDYN_SCHEME_CONE_STEP and CDYN_SCHEME_COULOMB_STEP (A and B, from each
 * row's mode at the step's solution: docs/theory.md, "Time stepping" Sec. 9a; parameter columns
 * too, K and C giving zero columns: no rigid step reads them); models with joint limits in all
 * of these (each stop a complementarity pair like a frictionless contact's normal one, in joint
 * space). A step taken in substeps after halvings is differentiated as the chain of its
 * substeps' Jacobians, each substep re-solved from the start the step recorded (docs/api.md,
 * "Per-step derivatives"). Not yet (CDYN_ENOTSUP with a message): Baumgarte, the pyramid's joint
 * friction and Newton restitution, the cone and Coulomb steps' Newton restitution at a stop
 * within the step being differentiated.
 *
 * Mode switches: the derivative exists where no complementarity pair of the step sits at its
 * switch (contacts' normal and cone pairs, the stops' (force, K_l (gap_l + delta_l))). A pair
 * within 100 options.mcp.tol of it (both members, in the units of the step's rows; the rigid
 * schemes: 1e-8 max(1, |v+|_inf) as velocities, an impulse times its row's
 * W_nn) is taken on the side asked (cdyn_deriv_side): the derivative is then the one-sided
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
       multiplier beta stays 0 (the row sticks inside the cone), a joint limit's force stays 0
       (the joint leaves its stop) */
    CDYN_DERIV_RELEASED = 0,
    /* the constraint held: the contact stays closed (gap + delta_n = 0 as the force grows from
       0), the row slips on the cone's boundary; a joint-limit row: the joint stays at its stop
       (the implicit scheme: at the stop's compliant law, gap_l + delta_l = 0). A smoothed-NCP
       row with friction has no such derivative at lambda_n = 0 (its friction grows like
       sqrt(lambda_n) through gamma): its normal pair is taken released (report.forced_released)
       */
    CDYN_DERIV_HELD = 1
} cdyn_deriv_side;

/* What cdyn_step_derivatives found. Margins over the contact rows of the step's problem and
 * the model's joint-limit rows (INFINITY and row -1 when no row qualifies). */
typedef struct cdyn_step_deriv_report {
    cdyn_report solver;    /* status, message; method "implicit-ncp-ift-dense" / "-sparse",
                              "pyramid-lcp-ift", "cone-step-ift", "coulomb-step-ift" */
    int nx, nu;            /* 2 n_v + 3 n_c + n_l (rigid schemes: 2 n_v) and n_v */
    int rows;              /* contact rows in the step's problem */
    int degenerate;        /* complementarity pairs at their switch, taken on the side asked */
    int forced_released;   /* of those, normal pairs taken released although HELD was asked */
    double normal_margin;  /* m: min over rows of max(lambda_n / k_n, Psi_n + delta_n), k_n the
                              row's normal stiffness (else K + C/h): how far the gap is from
                              closing or the force from vanishing, as a compression (rigid
                              schemes: h max(P_n W_nn, u_n), the cone step's u_n less
                              mu |u_T|) */
    int normal_row;        /* the model row of normal_margin */
    double cone_margin;    /* sticking rows with friction: min of 1 - |lambda_T| / (mu lambda_n)
                              (0 on the cone's edge; smoothed rows: (mu lambda_n + gamma - rho) /
                              (mu lambda_n)) */
    int cone_row;
    double slip_margin;    /* slipping rows: min of the slip speed |s_T| (m/s) */
    int slip_row;
    double limit_margin;   /* joint-limit rows (one per finite end of a limited joint): min of
                              max(lambda_l / K_l, g_l + delta_l) (m or rad; K_l the stop's
                              stiffness): how far the joint is from its stop or the stop's
                              force from vanishing, as a compression (rigid schemes:
                              h max(P_l W_ll, u_l), u_l = g_l' v+ + gap_l / h) */
    int limit_row;         /* the limit row of limit_margin (cdyn_model_limit_row's order) */
    double time;           /* seconds spent (wall clock) */
} cdyn_step_deriv_report;

/* nx = 2 n_v + 3 n_c + n_l for the stepper's model (n_l = cdyn_model_limit_rows), 2 n_v for the
 * schemes other than the implicit one (-1 for NULL). */
CDYN_API int cdyn_step_deriv_nx(const cdyn_stepper *stepper);

/* The Jacobians of the stepper's last successful cdyn_step: A (nx x nx, column-major) =
 * d x+ / d x and B (nx x nu, nu = n_v) = d x+ / d tau, coordinates as at the top of this header.
 * Either of A and B may be NULL (not wanted), not both. nx and nu are the caller's sizes of A
 * and B and must be cdyn_step_deriv_nx(stepper) and n_v. Valid until the stepper's next
 * cdyn_step (a failed step leaves none). Cost: one factorization of the step's Jacobian at the
 * solution (dense LU or KLU, as the step's backend) and 2 n_v + k nd + n_v solves (rigid
 * schemes: one dense LU of the active-set system, 3 n_v solves).
 * Statuses: CDYN_EINVAL (NULL stepper or both outputs, wrong sizes, a bad side, no successful
 * step yet or the last one failed), CDYN_ENOTSUP (Baumgarte, Newton restitution, as above),
 * CDYN_ESINGULAR (the step's Jacobian on the active set is singular at the solution: no
 * derivative), CDYN_ENUMERIC (the model cannot be evaluated there), CDYN_ENOMEM (also: the
 * substeps of the step could not be recorded); a substep whose re-solve fails gives its status.
 * On failure A and B are unchanged. report may be NULL. */
CDYN_API cdyn_status cdyn_step_derivatives(cdyn_stepper *stepper, cdyn_deriv_side side, int nx,
                                           int nu, double *A, double *B,
                                           cdyn_step_deriv_report *report);

/* A model parameter of the step (docs/api.md, "Per-step derivatives"):
 *   contact parameters of pair `id` (component ignored), as cdyn_pair_info reports them (a
 *   patch's elements each take K / n_e, C / n_e, so their rows move by 1 / n_e):
 *     MU           the friction coefficient (dimensionless)
 *     STIFFNESS_N  K_nn (N/m);   STIFFNESS_T  K_tt and K_oo together (N/m)
 *     DAMPING_N    C_nn (N s/m); DAMPING_T    C_tt and C_oo together (N s/m)
 *   geometric parameters of geometry `id`, component as cdyn_geom_param (cdyn/model.h):
 *     GEOM_POS     frame.pos[component] (m), body frame (ground: world)
 *     GEOM_ROT     a rotation of the frame about its origin and the body frame's axis
 *                  `component` (rad): frame.quat -> exp(eps/2 (0, e_c)) (x) frame.quat
 *     GEOM_SIZE    size[component] (m): swept radii (sphere, circle, capsule, arc) in any pair;
 *                  box and rectangle half-extents against planes, balls and points; the
 *                  capsule's half-length against those, capsules and ellipses; an arc's
 *                  curve radius size[1] and opening size[2] (rad); an ellipse's semi-axes
 *     GEOM_VERTEX  a polygon's vertex component / 2, its coordinate component % 2 (x, y) in
 *                  the geometry frame (m), in every pair of the polygon */
typedef enum cdyn_param_kind {
    CDYN_PARAM_MU = 0,
    CDYN_PARAM_STIFFNESS_N = 1,
    CDYN_PARAM_STIFFNESS_T = 2,
    CDYN_PARAM_DAMPING_N = 3,
    CDYN_PARAM_DAMPING_T = 4,
    CDYN_PARAM_GEOM_POS = 5,
    CDYN_PARAM_GEOM_ROT = 6,
    CDYN_PARAM_GEOM_SIZE = 7,
    CDYN_PARAM_GEOM_VERTEX = 8
} cdyn_param_kind;

typedef struct cdyn_param {
    cdyn_param_kind kind;
    int id;        /* the pair (contact kinds) or the geometry (GEOM_* kinds) */
    int component; /* GEOM_* kinds: as above; otherwise ignored */
} cdyn_param;

/* cdyn_step_derivatives with parameter columns: A and B as there, and P (nx x np, column-major)
 * = d x+ / d p for the np parameters params[j], all from one factorization of the step's
 * Jacobian (each parameter costs one more solve). Any of A, B and P may be NULL, not all; P
 * with np >= 1 and params, np = 0 with P NULL. Parameters whose pair or geometry has no row in
 * the step give zero columns. The rigid schemes: K and C columns are 0 (not read by the step);
 * MU at a frictionless row (mu = 0, its switch) is the right derivative (CDYN_ENOTSUP where the
 * pyramid's sliding direction at mu = 0+ is not unique). Statuses as cdyn_step_derivatives, and
 * CDYN_EINVAL for an unknown kind, pair, geometry or component, CDYN_ENOTSUP for a size that a
 * pair of the step does not support (cdyn_eval_geom_derivatives). On failure A, B and P are
 * unchanged. */
CDYN_API cdyn_status cdyn_step_param_derivatives(cdyn_stepper *stepper, cdyn_deriv_side side,
                                                 int nx, int nu, double *A, double *B, int np,
                                                 const cdyn_param *params, double *P,
                                                 cdyn_step_deriv_report *report);

#ifdef __cplusplus
}
#endif
#endif
