/* Internal: the implicit scheme's per-step derivatives (cdyn/deriv.h). implicit_ncp.c keeps the
 * last successful step (the form, copies of y, x0 and tau) and hands it out by ncp_last_step;
 * implicit_derivs.c turns it into the Jacobians by the implicit function theorem. */
#ifndef CDYN_STEP_IMPLICIT_DERIVS_H
#define CDYN_STEP_IMPLICIT_DERIVS_H

#include "cdyn/deriv.h"
#include "step/implicit_ncp_form.h"

/* The last successful step of the implicit scheme: its form at the step's h (arrays owned by
 * the stepper's workspace, valid until the next cdyn_step), the solution y and the start x0 in
 * the form's layout (implicit_ncp_form.h), and the backend it was solved with. */
typedef struct ncp_last {
    ncp_form f;
    const double *y, *x0;
    cdyn_step_backend backend;
    const int *colptr, *rowind; /* FB_SPARSE: the step's CSC pattern of dF/dy (else NULL) */
} ncp_last;

/* 0 and *out filled when the stepper's last scheme step succeeded, 1 otherwise (none yet, or
 * the last one failed). implicit_ncp.c. */
int ncp_last_step(const cdyn_stepper *s, ncp_last *out);

/* The Jacobians of the last step (cdyn_step_derivatives' A and B and the np parameter columns
 * P, any may be NULL; sizes and params checked by the caller) and the report's margins.
 * implicit_derivs.c. */
cdyn_status ncp_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 int np, const cdyn_param *params, double *P,
                                 cdyn_step_deriv_report *rep);

/* CDYN_EINVAL with a message ("who: params[j0 + j]: ...") for a params[j] of unknown kind or
 * id. implicit_param_derivs.c. */
cdyn_status ncp_params_check(const cdyn_model *m, int np, const cdyn_param *params,
                             const char *who, int j0, cdyn_report *r);

/* dF/dp at the solution y (dF: ny x np, column-major), after ift_jacobians left f's scratch
 * and data at y. CDYN_ENOTSUP (a size a pair does not support), CDYN_ENUMERIC, CDYN_ENOMEM.
 * implicit_param_derivs.c. */
cdyn_status ncp_param_columns(const ncp_form *f, const double *x0, const double *y, int np,
                              const cdyn_param *params, const cdyn_allocator *as, double *dF,
                              cdyn_report *r);

#endif
