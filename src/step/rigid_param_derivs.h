/* Internal: the rigid schemes' parameter columns (rigid_param_derivs.c), for rigid_jacobians. */
#ifndef CDYN_STEP_RIGID_PARAM_DERIVS_H
#define CDYN_STEP_RIGID_PARAM_DERIVS_H

#include "cdyn/deriv.h"
#include "step/rigid_rows.h"

typedef struct cdyn_stepper cdyn_stepper;

/* The step's equations E differentiated in the np model parameters at fixed (q0, v0, tau) and
 * solution: dE/dp into Jp (ny x np, the unknowns' order of rigid_jacobians: yo[c] the first
 * equation of row c). Needs the data evaluated at (q0, v+) with contacts; lam: the impulses / h
 * (3 n_c), rowsel: the problem's rows (n_c flags). CDYN_ENOTSUP for a size a row's pair does
 * not take, or mu at a frictionless row's switch; CDYN_ENOMEM. rigid_param_derivs.c. */
cdyn_status rigid_param_rhs(cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                            const int *yo, int ny, const double *lam, const int *rowsel, int np,
                            const cdyn_param *params, double *Jp, cdyn_report *r);

#endif
