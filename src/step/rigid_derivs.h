/* Internal: per-step derivatives of the rigid velocity-level schemes (cdyn/deriv.h). A scheme
 * keeps its last successful step in s->rlast (rigid_last.h) and the derivative describes each
 * contact row's mode (rigid_row); rigid_derivs.c then
 * differentiates the step's active-set equations by the implicit function theorem
 * (docs/theory.md, "Time stepping" Sec. 9a). State x = (q tangent, v): nx = 2 n_v. */
#ifndef CDYN_STEP_RIGID_DERIVS_H
#define CDYN_STEP_RIGID_DERIVS_H

#include "cdyn/deriv.h"
#include "step/rigid_rows.h"
#include "step/step_internal.h"


/* Keep the successful step x0 -> x1 (q, v) with forces tau (NULL: zeros) in s->rlast (copies
 * in the arena) and mark it ok. 0, or 1 (memory). rigid_derivs_data.c. */
int rigid_keep(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
               const cdyn_state *x1);

struct cs_problem;
/* Keep the problem's rows and their impulses imp (nd per row, in the arena) in s->rlast. */
void rigid_keep_rows(cdyn_stepper *s, const struct cs_problem *p, const double *imp);

/* What the pyramid's derivatives do not take (a phrase), or NULL. pyramid_lcp.c. */
const char *pyr_deriv_unsupported(const cdyn_stepper *s);

/* A, B and P (np columns for params; any may be NULL; sizes 2 n_v, checked by the caller) for
 * the last step L with the rows' modes rr (L.k of them, or NULL when L.k = 0) and the limit
 * rows' lheld (L.nl, see rigid_limit_modes; NULL when L.nl = 0). On failure the outputs are
 * unchanged. rigid_derivs.c. */
cdyn_status rigid_jacobians(cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                            const int *lheld, double *A, double *B, int np,
                            const cdyn_param *params, double *P, cdyn_report *r);



/* m from the data's last evaluation (id: also the inverse dynamics' derivatives). 0, or 1
 * (memory). */
int rigid_mats(const cdyn_stepper *s, const cdyn_allocator *as, int id, rmats *m);
/* Gamma_d (dq = 0) or d(Gamma_d v)/dq G (dq = 1) dense, n_c x n_v; NULL when the data has
 * none (planar O) or for memory. */
const double *rigid_dense_jac(const cdyn_stepper *s, const cdyn_allocator *as, int d, int dq);

/* The rows' normal Delassus entries W_nn = Gamma_n (M + h D)^-1 Gamma_n' (wnn: k) and
 * velocities u = Gamma v+ + (Psi_n / h, 0, 0) (k nd), evaluating the data at (q0, v+); and tol
 * = 1e-8 max(1, |v+|_inf), the velocity below which a pair's member counts as 0 (the scale at
 * which the rigid steps call a row sliding). CDYN_ENUMERIC, CDYN_ENOMEM. rigid_derivs_data.c. */
cdyn_status rigid_row_scales(cdyn_stepper *s, const rigid_last *L, double *wnn, double *u,
                             double *tol, cdyn_report *r);

/* Row c's normal pair (impulse p_n times W_nn against u_n, both velocities): nonzero when the
 * contact is held (p_n > 0 side), a pair within tol taken on the side asked; updates the
 * report's degenerate count and normal margin (as a length: h times the larger member).
 * rigid_derivs_data.c. */
int rigid_normal_held(const rigid_last *L, int c, double pn, double wnn, double un, double tol,
                      cdyn_deriv_side side, cdyn_step_deriv_report *rep);

/* The pyramid's derivatives: modes from the final LCP solution, then rigid_jacobians.
 * rigid_derivs_pyr.c. */
cdyn_status pyr_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 int np, const cdyn_param *params, double *P,
                                 cdyn_step_deriv_report *rep);

/* The Coulomb step's (relaxed = 0) or the cone step's (relaxed = 1: a sliding row's normal
 * velocity is mu |u_T|, not 0) derivatives: modes from the impulses and velocities, then
 * rigid_jacobians. rigid_derivs_cones.c. */
cdyn_status cones_step_derivatives(cdyn_stepper *s, int relaxed, cdyn_deriv_side side,
                                   double *A, double *B, int np, const cdyn_param *params,
                                   double *dxdp, cdyn_step_deriv_report *rep);

/* ---- joint-limit rows (rigid_derivs_limits.c) ---- */

struct jrows;
/* Keep the limit rows of the step's joint rows j (their impulses from fj, the net impulse of
 * each of j's rows, and which took Newton restitution) in s->rlast. 0, or 1 (memory). */
int rigid_keep_limits(cdyn_stepper *s, const struct jrows *j, const double *fj);

/* Each limit row's mode at the step's solution into lheld (L.nl): its pair (p_l W_ll, u_l =
 * g_l' v+ + gap_l(q0) / h), W_ll = ((M + h D)^-1)_jj, held (u_l = 0) or released (p_l = 0), a
 * pair within tol taken on the side asked; the report's limit margin h max(p_l W_ll, u_l) and
 * degenerate count. After rigid_row_scales (the data's M at q0). CDYN_ENOTSUP when a stop took
 * Newton restitution in the step, CDYN_ENOMEM. */
cdyn_status rigid_limit_modes(cdyn_stepper *s, const rigid_last *L, double tol,
                              cdyn_deriv_side side, int *lheld, cdyn_step_deriv_report *rep);

/* Row e0 + l of E per limit row (rigid_jacobians' layout: unknown e0 + l its impulse p_l):
 * u_l = 0 when held (its v+ and q columns), else p_l = 0; and p_l's column in the impulse
 * balance, -g_l / h. Jy and Jx as in rigid_jacobians (ld = ny). */
void rigid_limit_rows(const cdyn_stepper *s, const rigid_last *L, const int *lheld, int e0,
                      int ny, double *Jy, double *Jx);

#endif
