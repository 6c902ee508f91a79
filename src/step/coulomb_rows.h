/* Internal: the Coulomb step's problem on the rows that can carry an impulse. A contact row
 * with its margin open (a neighbour one radius away, a wall) takes part in the step's problem
 * but mostly carries nothing; in a pile such rows are two thirds of the rows, and they couple
 * the Newton matrix's pattern (its factorization is the step's cost) as much as the loaded ones.
 * The step solves the problem on a working set of rows, checks every row left out against the
 * answer (p = 0 is right for it exactly when its normal velocity u_n = (W p + r)_n >= 0), adds
 * the rows that fail and solves again until none fails: the answer then solves the whole
 * problem (docs/theory.md, "Time stepping", Sec. 8). */
#ifndef CDYN_STEP_COULOMB_ROWS_H
#define CDYN_STEP_COULOMB_ROWS_H

#include "step/contact_space.h"

/* The first working set: rows that approach (r_n < 0: the free motion closes the gap within the
 * step) or carried a normal impulse at the last step (lambda: the state's, per model row).
 * pos[c] = 1 for a row in the set, 0 otherwise (k values). Returns the set's size. */
int cr_first_set(const cs_problem *p, const double *lambda, int *pos);

/* sub := p restricted to the rows c with pos[c] != 0, renumbered in order (pos[c] becomes the
 * row's index in sub, -1 for a row left out). sub's arrays come from a (k, r, mu, wdiag and the
 * triplets; vfree and the rest are p's). CDYN_ENOMEM. */
cdyn_status cr_restrict(const cs_problem *p, int *pos, const cdyn_allocator *a, cs_problem *sub);

/* The contact velocities u = W p + r (3 per row of p, the third 0 for planar rows) from the
 * impulses of sub's rows (imp, 3 per row of sub; the others carry none), and the rows left out
 * with u_n < 0: their pos is set to 1 and the rows in sub to 1 as well (the next working set).
 * Returns the number of rows left out with u_n < 0. */
int cr_check(const cs_problem *p, int *pos, const double *imp, double *u);

#endif
