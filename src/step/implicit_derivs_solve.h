/* Internal: the linear systems of the implicit step's derivatives (implicit_derivs.c): the
 * step's Jacobian dF/dy at the solution, dense (LU) or on the step's sparse pattern (KLU), with
 * the rows of the pairs held at their bounds replaced by unit rows; factored once, solved for
 * many right-hand sides. */
#ifndef CDYN_STEP_IMPLICIT_DERIVS_SOLVE_H
#define CDYN_STEP_IMPLICIT_DERIVS_SOLVE_H

#include "linalg/csc.h"
#include "linalg/sparse_lu.h"
#include "step/implicit_ncp_form.h"

typedef struct ift_system {
    int n, nnz;                 /* order; entries of the sparse pattern */
    const cdyn_allocator *as;   /* where every array comes from */
    double *J;                  /* dense: n x n, then its LU factors */
    int *ipiv;
    const int *colptr, *rowind; /* sparse: the step's pattern of dF/dy (n columns) */
    double *values;             /* its values, then the triplets' (nnz + n: the diagonal) */
    int *ti, *tj;
    cdyn_csc_assembly H;
    cdyn_sparse_lu *lu;
} ift_system;

/* dF/dy at (x0, y) into sys (dense when colptr is NULL, else on that pattern) and dF/dx0 into
 * Jx (dense, ny x nx, column-major). The evaluation leaves f's scratch at y (the friction QP
 * rows' solutions, Gamma_T v). CDYN_ENOMEM, CDYN_ENUMERIC (the model cannot be evaluated). */
cdyn_status ift_jacobians(ift_system *sys, ncp_form *f, const double *x0, const double *y,
                          const int *colptr, const int *rowind, double *Jx,
                          const cdyn_allocator *as, cdyn_report *r);

/* Replace the rows with eq[i] = 0 by unit rows and factor. CDYN_ESINGULAR with a message. */
cdyn_status ift_factor(ift_system *sys, const int *eq, cdyn_report *r);

/* R (n x nrhs, column-major) := J~^-1 R. */
cdyn_status ift_solve(ift_system *sys, int nrhs, double *R, cdyn_report *r);

void ift_free(ift_system *sys);

#endif
