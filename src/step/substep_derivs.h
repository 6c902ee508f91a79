/* Internal: the substeps of a step that needed halvings, kept so that cdyn_step_derivatives can
 * differentiate it as the product of its substeps' Jacobians (docs/theory.md, "Per-step
 * derivatives", substeps). cdyn_step records only once a (sub)step has failed, so a step taken
 * whole costs nothing here. */
#ifndef CDYN_STEP_SUBSTEP_DERIVS_H
#define CDYN_STEP_SUBSTEP_DERIVS_H

#include "cdyn/deriv.h"

typedef struct cdyn_stepper cdyn_stepper;

typedef struct substep_record {
    cdyn_state **x; /* the start state of each successful substep */
    int *k;         /* its length: h 2^-k */
    double *tau;    /* n_v: the step's generalized forces */
    int n, cap;     /* substeps recorded; states allocated (they stay for later steps) */
    int lost;       /* a copy could not be allocated: this step has no derivative */
} substep_record;

/* substep_record.c. Start a record for the step under way with forces tau (NULL: zeros). */
void substeps_begin(cdyn_stepper *s, const double *tau);
/* Append the successful substep from x of length h 2^-k. */
void substeps_keep(cdyn_stepper *s, const cdyn_state *x, int k);
void substeps_free(cdyn_stepper *s);

/* One scheme's derivative of the last advance (step_derivs.c): A, B, P as cdyn/deriv.h, none
 * NULL when np > 0 asks for P. */
typedef cdyn_status (*scheme_derivs_fn)(cdyn_stepper *s, cdyn_deriv_side side, double *A,
                                        double *B, int np, const cdyn_param *params, double *P,
                                        cdyn_step_deriv_report *rep);

/* substep_derivs.c. The derivative of the last step, taken in s->last_substeps > 1 substeps: each substep re-solved
 * from its recorded start (the same problem, so the same solution where it is unique),
 * differentiated by `one`, and the Jacobians chained: A = A_n ... A_1, B = sum A_n .. A_{i+1}
 * B_i, P likewise. The report's margins are the smallest over the substeps. A, B, P as the
 * public call (any may be NULL; nx, nu checked by the caller). */
cdyn_status substeps_derivatives(cdyn_stepper *s, cdyn_deriv_side side, int nx, double *A,
                                 double *B, int np, const cdyn_param *params, double *P,
                                 scheme_derivs_fn one, cdyn_step_deriv_report *rep);

#endif
