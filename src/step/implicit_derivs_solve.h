/* Internal: the linear systems of the implicit step's derivatives (implicit_derivs.c): the
 * step's Jacobian dF/dy at the solution, dense or on the step's sparse pattern, with the rows of
 * the pairs held at their bounds replaced by unit rows (J~). J~ splits into islands (the
 * connected components of its pattern: bodies that touch nothing in common), each factored once
 * (dense LU up to IFT_DENSE_MAX unknowns or when the step was dense, else KLU) and solved only
 * for the right-hand sides that reach it: 30 separate spheres cost 30 small solves, not one
 * 600-unknown solve per input. */
#ifndef CDYN_STEP_IMPLICIT_DERIVS_SOLVE_H
#define CDYN_STEP_IMPLICIT_DERIVS_SOLVE_H

#include "linalg/csc.h"
#include "linalg/sparse_lu.h"
#include "step/implicit_ncp_form.h"

#define IFT_DENSE_MAX 64

typedef struct ift_island {
    int start, size;        /* its unknowns: member[start .. start + size) */
    double *lu;             /* dense: size x size factors, and ipiv */
    int *ipiv;
    cdyn_csc_assembly H;    /* sparse: its matrix and KLU factors */
    cdyn_sparse_lu *klu;
} ift_island;

typedef struct ift_system {
    int n, nnz;                 /* order; entries of the sparse pattern */
    const cdyn_allocator *as;   /* where every array comes from */
    double *J;                  /* dense: n x n */
    const int *colptr, *rowind; /* sparse: the step's pattern of dF/dy (n columns) */
    double *values;             /* its values */
    int *comp, *member, *local; /* n each: island of an unknown, unknowns by island, index in
                                   its island */
    int nisland;
    ift_island *island;
    double *work;               /* gathered right-hand sides */
    int *cols;                  /* the columns reaching each island (ift_plan) */
    int *first;                 /* nisland + 1: island c's in cols[first[c] .. first[c + 1]) */
} ift_system;

/* dF/dy at (x0, y) into sys (dense when colptr is NULL, else on that pattern) and dF/dx0 into
 * Jx (dense, ny x nx, column-major). The evaluation leaves f's scratch at y (the friction QP
 * rows' solutions, Gamma_T v). CDYN_ENOMEM, CDYN_ENUMERIC (the model cannot be evaluated). */
cdyn_status ift_jacobians(ift_system *sys, ncp_form *f, const double *x0, const double *y,
                          const int *colptr, const int *rowind, double *Jx,
                          const cdyn_allocator *as, cdyn_report *r);

/* Replace the rows with eq[i] = 0 by unit rows, find the islands and factor each.
 * CDYN_ESINGULAR with a message, CDYN_ENOMEM. */
cdyn_status ift_factor(ift_system *sys, const int *eq, cdyn_report *r);

/* Sparse columns: column j holds values[p] at rowind[p], p in colptr[j] .. colptr[j + 1]. */
typedef struct ift_columns {
    int n;
    const int *colptr, *rowind;
    const double *values;
} ift_columns;

/* The columns of rhs (rows: the n unknowns) that reach each island, and the scratch of
 * ift_solve. CDYN_ENUMERIC (a value not finite), CDYN_ENOMEM. */
cdyn_status ift_plan(ift_system *sys, const ift_columns *rhs, cdyn_report *r);

/* After ift_plan with the same rhs: for each column j, z = J~^-1 rhs_j, then
 * outcol[j] += P z (outcol[j] NULL: skipped), P given by its columns out (one per unknown,
 * rows: the output's). Each island solves only the columns with an entry on its rows. Allocates
 * nothing; fails only where KLU's solve would. */
cdyn_status ift_solve(ift_system *sys, const ift_columns *rhs, const ift_columns *out,
                      double *const *outcol, cdyn_report *r);

void ift_free(ift_system *sys);

#endif
