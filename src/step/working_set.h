/* Internal: the Coulomb step's and the cone step's problem on the rows that can carry an
 * impulse. A contact row with its margin open (a neighbour one radius away, a wall) takes part
 * in the step's problem but mostly carries nothing; in a pile such rows are two thirds of the
 * rows, and they couple the solver's matrices (Newton's, the interior point's KKT system: their
 * factorizations are the step's cost) as much as the loaded ones. The step solves its problem on
 * a working set of rows, checks every row left out against the answer (p = 0 is right for it
 * exactly when its velocity u = W p + r fits: u_n >= 0 for the Coulomb step, u in the dual cone
 * for the cone step), adds the rows that do not fit and solves again until all fit: the answer
 * then solves the whole problem (docs/theory.md, "Time stepping", Sec. 3 and 8). */
#ifndef CDYN_STEP_WORKING_SET_H
#define CDYN_STEP_WORKING_SET_H

#include "step/contact_space.h"

/* The first working set: rows that approach, v_c < 0, or separate more slowly than the fastest
 * approach, v_c < max_c(-v_c), and rows that carried an impulse at the last step (x0: lambda_n
 * > 0 for the Coulomb step; a mode other than FREE when `cone`, whose interior point leaves
 * every row a tiny impulse). v_c = r_n, or r_n - mu ||r_T|| when `cone` (the dual cone's
 * margin). pos[c] = 1 for a row in the set, 0 otherwise (k values). Returns the set's size. */
int wset_first(const cs_problem *p, const cdyn_state *x0, int cone, int *pos);

/* sub := p restricted to the rows c with pos[c] != 0, renumbered in order (pos[c] becomes the
 * row's index in sub, -1 for a row left out). sub's arrays come from a (k, r, mu, wdiag and the
 * triplets; vfree and the rest are p's). CDYN_ENOMEM. */
cdyn_status wset_restrict(const cs_problem *p, int *pos, const cdyn_allocator *a, cs_problem *sub);

/* The contact velocities u = W p + r (3 per row of p, the third 0 for planar rows) from the
 * impulses of sub's rows (imp, `stride` per row of sub; the others carry none), and the rows
 * left out that p = 0 does not fit: u_n < 0 (Coulomb step: p = 0 then leaves a natural-map
 * residual), or u_n < mu ||u_T|| when `cone` (u outside the dual cone K*: p = 0 is not optimal
 * for the cone step's QP). Their pos is set to 1 and the rows in sub to 1 as well (the next
 * working set). Returns the number of rows left out that p = 0 does not fit. */
int wset_check(const cs_problem *p, int *pos, const double *imp, int stride, int cone, double *u);

#endif
