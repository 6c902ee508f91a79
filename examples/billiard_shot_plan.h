/* A billiard shot planned through contact with the per-step derivatives only (cdyn/deriv.h),
 * shared by examples/billiard_shot.c and tests/test_billiard_shot.c.
 *
 * The ball of billiard_ball.h (implicit scheme, friction QP) starts on the table at the origin
 * with the cue's launch p = (v_x, v_y, w_x, w_y) (m/s, rad/s world frame; w_z does not move a
 * point contact's ball and is left 0). After N steps of h it must be at a target point
 * (x*, y*), rolling with a target velocity (v_x*, v_y*): the terminal residual
 *   r(p) = (x_N - x*, y_N - y*, T (v_xN - v_x*), T (v_yN - v_y*)),   T = N h  (all in m),
 * four equations in four unknowns (the point alone leaves a two-parameter family of shots).
 *
 * Its Jacobian J = dr/dp comes from the rollout's own steps: after every cdyn_step the planner
 * takes A_k = dx_{k+1}/dx_k (cdyn_step_derivatives) and chains them backward (the adjoint):
 *   Lambda_N = (W C)^T,  Lambda_k = A_k^T Lambda_{k+1},  J = Lambda_0^T E,
 * C picking x, y, v_x, v_y out of the state's tangent coordinates, W = diag(1, 1, T, T) and
 * E = dx_0/dp picking v_x, v_y, w_x, w_y. No finite differences: those are the check
 * (shot_fd_jacobian). The example prints nothing from here. */
#ifndef CDYN_EXAMPLES_BILLIARD_SHOT_PLAN_H
#define CDYN_EXAMPLES_BILLIARD_SHOT_PLAN_H

#include <stdio.h>

#include <cdyn/cdyn.h>

#define SHOT_NP 4       /* launch parameters: v_x, v_y, w_x, w_y */
#define SHOT_NR 4       /* residuals: x, y, T v_x, T v_y minus the target's */
#define SHOT_MAX_ITER 30

typedef struct shot_planner shot_planner;

/* How near the rollout came to a switch of the per-step derivatives (min over its steps of
 * cdyn_step_deriv_report's margins; INFINITY when no step qualifies), and where the ball
 * stopped slipping (the first step whose new state sticks; -1: never). */
typedef struct shot_margins {
    double slip;   /* m/s: slowest slip of a slipping step */
    double cone;   /* 1 - |lambda_T| / (mu lambda_n) of a sticking step */
    double normal; /* m: compression of the contact */
    int degenerate; /* steps with a pair at its switch (taken released) */
    int roll_step;
} shot_margins;

/* A planner for model (billiard_ball_model) with N steps of h to target (x*, y*, v_x*, v_y*).
 * mcp_tol: the step's Newton tolerance (0: the default). NULL with message on failure. */
shot_planner *shot_planner_create(const cdyn_model *model, int N, double h, const double *target,
                                  double mcp_tol, char *message, size_t size);
void shot_planner_free(shot_planner *P);
const char *shot_planner_message(const shot_planner *P); /* the last failure's reason */

/* One rollout from the launch p: r (SHOT_NR). With J (SHOT_NR x SHOT_NP, row-major) also the
 * per-step derivatives chained backward; with mg their margins. csv: when not NULL, one line
 * per state "tag,t,x,y,v_x,v_y,slip speed,mode". The CPU seconds spent in cdyn_step and in
 * cdyn_step_derivatives add to *t_step and *t_deriv when not NULL. */
cdyn_status shot_rollout(shot_planner *P, const double *p, double *r, double *J, shot_margins *mg,
                         FILE *csv, int tag, double *t_step, double *t_deriv);

/* J by central differences of whole rollouts (2 SHOT_NP of them, steps eps_v for the
 * velocities and eps_v / R for the spins), the check of the adjoint. */
cdyn_status shot_fd_jacobian(shot_planner *P, const double *p, double eps_v, double *J);

/* Levenberg-Marquardt on 1/2 |r|^2 from p (in/out), Gauss-Newton model J^T J + mu diag(J^T J)
 * with J from shot_rollout, until |r| <= tol (m) or SHOT_MAX_ITER iterations. The log gets
 * cost, |r| and mu of the start (entry 0) and of every accepted iterate. */
typedef struct shot_log {
    int n; /* entries */
    double cost[SHOT_MAX_ITER + 1], norm[SHOT_MAX_ITER + 1], mu[SHOT_MAX_ITER + 1];
    double p[SHOT_MAX_ITER + 1][SHOT_NP];
    int rollouts; /* rollouts made, rejected trials included */
} shot_log;

cdyn_status shot_optimize(shot_planner *P, double *p, double tol, shot_log *log);

#endif
