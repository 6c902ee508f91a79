/* cdyn — boundary-value problems: a whole trajectory of the implicit compliant scheme
 * (cdyn/step.h, CDYN_SCHEME_IMPLICIT_NCP; Song-Kumar-Pang eq. 10) with conditions at both
 * ends, solved as one sparse mixed complementarity problem (docs/theory.md, "Boundary-value
 * problems"). Every contact row of the model takes part in every step.
 *
 * The state of the boundary conditions is x = (q, v, delta): n_x = n_q + n_v + n_d n_c values,
 * with n_d = 2 (planar: n, t) or 3 (n, t, o) deformations per contact row, row after row. A
 * condition fixes a component of x at the start (x_0) or at the end (x_N), or is a user row
 * Upsilon(x_0, x_N) = 0 with its Jacobian. Exactly n_x conditions are needed in all; the
 * components of x_0 that are not fixed are the unknowns the conditions determine. Bounds on
 * those free start components (e.g. v_z0 <= 0) choose between solution classes.
 *
 * Thread safety: reentrant; the model is read only. */
#ifndef CDYN_BVP_H
#define CDYN_BVP_H

#include "cdyn/export.h"
#include "cdyn/model.h"
#include "cdyn/status.h"
#include "cdyn/step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Upsilon(x_0, x_N) into res (nuser values) and, when jac is not NULL, its Jacobian
 * (nuser x 2 n_x, column-major: columns 0..n_x-1 for x_0, n_x..2n_x-1 for x_N). 0 on success. */
typedef int (*cdyn_bvp_user_fun)(void *ctx, const double *x0, const double *xN, double *res,
                                 double *jac);

typedef struct cdyn_bvp_conditions {
    const int *fixed0, *fixedN;    /* n_x flags each (NULL: none) */
    const double *value0, *valueN; /* n_x values, read where fixed */
    int nuser;                     /* user rows (0: none) */
    cdyn_bvp_user_fun user;
    void *user_ctx;
    const double *lower0, *upper0; /* n_x bounds of the free start components (NULL: none) */
} cdyn_bvp_conditions;

/* A model parameter for sensitivities: a contact pair's friction coefficient, or one part of
 * its compliance (the normal, or both tangential, diagonal entries of K or C); or a geometry's
 * frame position, a rotation of its frame, a size or a polygon's vertex (component as for
 * cdyn_geom_param, cdyn/model.h; the same kinds and meanings as cdyn_param in cdyn/deriv.h). */
typedef enum cdyn_bvp_param_kind {
    CDYN_BVP_PARAM_MU = 0,
    CDYN_BVP_PARAM_STIFFNESS_N = 1,
    CDYN_BVP_PARAM_STIFFNESS_T = 2,
    CDYN_BVP_PARAM_DAMPING_N = 3,
    CDYN_BVP_PARAM_DAMPING_T = 4,
    CDYN_BVP_PARAM_GEOM_POS = 5,
    CDYN_BVP_PARAM_GEOM_ROT = 6,
    CDYN_BVP_PARAM_GEOM_SIZE = 7,
    CDYN_BVP_PARAM_GEOM_VERTEX = 8
} cdyn_bvp_param_kind;

typedef struct cdyn_bvp_param {
    cdyn_bvp_param_kind kind;
    int pair;      /* the contact pair (0 .. cdyn_model_npair - 1); GEOM kinds: the geometry
                      (0 .. cdyn_model_ngeom - 1) */
    int component; /* GEOM kinds: the axis or size index; otherwise ignored */
} cdyn_bvp_param;

typedef struct cdyn_bvp_options {
    int N;                   /* steps, >= 1 (the trajectory has N + 1 states) */
    cdyn_step_options step;  /* the implicit NCP's settings: h, gamma and the FB-Newton options
                                (step.mcp: tol, max_iter, progress callback) */
    const double *tau;       /* n_v generalized forces held over the whole trajectory, or NULL */
    int use_guess;           /* nonzero: start from the trajectory given; 0: from an IVP run
                                from traj[0]'s q, v and delta (1: default 0) */
    int grid_continuation;   /* nonzero (default): without a guess and for N >= 50, solve the
                                problem on a grid four times coarser first (recursively) and start
                                from its interpolation; on failure, the IVP guess */
    /* Sensitivities (optional): the derivatives of every state of the solution with respect to
     * nsens boundary values, sens_which[j] = c for value0[c] or n_x + c for valueN[c] (fixed
     * components). On CDYN_OK, sens[(j (N + 1) + l) n_x + i] = d x_l,i / d p_j. Exact through
     * contact (implicit function theorem on the converged complementarity system, one sparse
     * factorization for all parameters); one-sided at a mode switch. nsens = 0: none. */
    int nsens;
    const int *sens_which;
    double *sens;            /* nsens (N + 1) n_x values */
    int shoot_segments;      /* cdyn_bvp_shoot: 1 (or 0) single shooting, M > 1 multiple shooting
                                with M segments of about N / M steps (1) */
    /* Sensitivities to model parameters (optional, cdyn_bvp_solve): on CDYN_OK,
     * param_sens[(j (N + 1) + l) n_x + i] = d x_l,i / d p_j for the nparam parameters params[j]
     * (the implicit function theorem as above; dF/dp analytic, as for
     * cdyn_step_param_derivatives). nparam = 0: none. */
    int nparam;
    const cdyn_bvp_param *params;
    double *param_sens;      /* nparam (N + 1) n_x values */
} cdyn_bvp_options;

/* N = 100 and the implicit NCP defaults. */
CDYN_API void cdyn_bvp_defaults(cdyn_bvp_options *opts);

typedef struct cdyn_bvp_report {
    cdyn_report solver;      /* iterations (summed), residual, method ("bvp-newton" or
                                "bvp-continuation"), message */
    int unknowns, nonzeros;  /* size of the stacked problem and of its Jacobian */
    int continuation_steps;  /* 0 when plain Newton converged */
    int guess_iterations;    /* Newton iterations of the IVP guess */
} cdyn_bvp_report;

/* n_x for a model: n_q + n_v + n_d n_c. */
CDYN_API int cdyn_bvp_state_size(const cdyn_model *model);

/* Pack / unpack the BVP state x = (q, v, delta) of a cdyn_state (x: n_x values). A NULL
 * argument makes it do nothing. */
CDYN_API void cdyn_bvp_state_pack(const cdyn_model *model, const cdyn_state *s, double *x);

/* The inverse of cdyn_bvp_state_pack: q, v and delta of s from x (lambda, t and modes left;
 * nothing when an argument is NULL). */
CDYN_API void cdyn_bvp_state_unpack(const cdyn_model *model, const double *x, cdyn_state *s);

/* Solve. traj: N + 1 states of model (cdyn_state_create). In: traj[0] (without use_guess) or
 * the whole guess; out, on CDYN_OK: the trajectory, t = l h, q, v, delta, lambda and modes per
 * state. On failure traj is unchanged. Statuses: CDYN_EINVAL (NULL, bad sizes or options, a
 * wrong number of conditions, NaN values, bad bounds), CDYN_ENOCONV (no convergence; the message
 * says where the continuation stopped and report->solver.residual is the best residual),
 * CDYN_ENOSOLUTION (solved only with a start bound active and its condition missed: no
 * solution within the bounds; the miss is the residual), the IVP guess's failure,
 * CDYN_ETOOBIG, CDYN_ENOMEM, CDYN_ENOTSUP (a model with joint friction or limits, which the
 * implicit step does not take). report may be NULL. */
CDYN_API cdyn_status cdyn_bvp_solve(const cdyn_model *model, const cdyn_bvp_options *opts,
                                    const cdyn_bvp_conditions *bc, cdyn_state **traj,
                                    cdyn_bvp_report *report);

/* The same problem by shooting: Newton's method on the free start components s (as many as end
 * conditions; no user rows) and, for opts->shoot_segments = M > 1, on the full states where
 * segments 2 .. M start (multiple shooting: the continuity of the state between segments becomes
 * n_x rows each). Every iterate runs the segments' IVPs of implicit steps with the exact
 * sensitivities of their converged trajectories (the implicit function theorem, as
 * cdyn_bvp_solve's sensitivities); steps projected on the start bounds and halved until the
 * residual's largest entry decreases. Converged when it is below opts->step.mcp.tol times
 * max(1, |value_N|_inf). A cross-check of cdyn_bvp_solve, and the
 * method of choice when the IVP is robust but the whole-trajectory Newton iteration is not (few
 * unknowns, impacts). In: traj[0] (its free components are the start); out: the trajectory of the
 * last IVP run (on CDYN_OK, the solution). report: solver.iterations = Newton iterations,
 * evaluations = inner Newton iterations of all IVPs and sensitivity solves, residual = the end
 * miss. Statuses: CDYN_EINVAL (NULL, user rows, counts that differ, NaN), CDYN_ENOSOLUTION
 * (stalled at a start bound: no solution within the bounds from here), CDYN_ENOCONV,
 * CDYN_ESINGULAR (the end does not depend on s), an IVP's failure, CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_bvp_shoot(const cdyn_model *model, const cdyn_bvp_options *opts,
                                    const cdyn_bvp_conditions *bc, cdyn_state **traj,
                                    cdyn_bvp_report *report);

#ifdef __cplusplus
}
#endif
#endif
