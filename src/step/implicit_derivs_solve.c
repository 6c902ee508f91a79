/* The derivative's linear systems (implicit_derivs_solve.h): the step's Jacobian on the active
 * set, factored once by dense LU (LAPACK) or KLU, as the step's own backend. */
#include "step/implicit_derivs_solve.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <float.h>
#include <string.h>

cdyn_status ift_jacobians(ift_system *sys, ncp_form *f, const double *x0, const double *y,
                          const int *colptr, const int *rowind, double *Jx,
                          const cdyn_allocator *as, cdyn_report *r)
{
    const int n = f->ny;
    memset(sys, 0, sizeof *sys);
    sys->n = n;
    sys->as = as;
    sys->colptr = colptr;
    sys->rowind = rowind;
    ncp_sink jx = {NCP_SINK_DENSE, Jx, n, NULL, NULL, NULL, 0, NULL, NULL, 0};
    ncp_sink jy = {NCP_SINK_DENSE, NULL, n, NULL, NULL, NULL, 0, NULL, NULL, 0};
    memset(Jx, 0, (size_t)n * f->nx * sizeof(double));
    if (colptr == NULL) {
        sys->J = cdyn_mem_array(as, (size_t)n * n, sizeof(double));
        sys->ipiv = cdyn_mem_array(as, (size_t)n, sizeof(int));
        if (sys->J == NULL || sys->ipiv == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        memset(sys->J, 0, (size_t)n * n * sizeof(double));
        jy.dense = sys->J;
    } else {
        sys->nnz = colptr[n];
        sys->values = cdyn_mem_array(as, (size_t)sys->nnz + n, sizeof(double));
        sys->ti = cdyn_mem_array(as, (size_t)sys->nnz + n, sizeof(int));
        sys->tj = cdyn_mem_array(as, (size_t)sys->nnz + n, sizeof(int));
        if (sys->values == NULL || sys->ti == NULL || sys->tj == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        memset(sys->values, 0, ((size_t)sys->nnz + n) * sizeof(double));
        jy.mode = NCP_SINK_CSC;
        jy.values = sys->values;
        jy.colptr = colptr;
        jy.rowind = rowind;
    }
    if (ncp_form_jac(f, x0, y, &jy, &jx) != 0)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the step's Jacobian cannot "
                         "be evaluated at its solution");
    return CDYN_OK;
}

cdyn_status ift_factor(ift_system *sys, const int *eq, cdyn_report *r)
{
    const int n = sys->n;
    if (sys->colptr == NULL) {
        double *J = sys->J;
        for (int i = 0; i < n; i++)
            if (!eq[i]) {
                for (int j = 0; j < n; j++)
                    J[i + (size_t)j * n] = 0.0;
                J[i + (size_t)i * n] = 1.0;
            }
        const double anorm = cdyn_dense_norm1(n, n, J, n);
        double *work = cdyn_mem_array(sys->as, 4 * (size_t)n + 1, sizeof(double));
        int *iwork = cdyn_mem_array(sys->as, (size_t)n + 1, sizeof(int));
        if (work == NULL || iwork == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        cdyn_status st = cdyn_dense_lu(n, J, n, sys->ipiv);
        const double rc = st == CDYN_OK ? cdyn_dense_lu_rcond(n, J, n, anorm, work, iwork) : 0;
        cdyn_mem_free(sys->as, work);
        cdyn_mem_free(sys->as, iwork);
        if (st == CDYN_ESINGULAR || (st == CDYN_OK && !(rc > DBL_EPSILON)))
            return cdyn_fail(r, CDYN_ESINGULAR, "cdyn_step_derivatives: the step's Jacobian on "
                             "its active set is singular at the solution (rcond %.3g): no "
                             "derivative", rc);
        if (st != CDYN_OK)
            return cdyn_fail(r, st, "cdyn_step_derivatives: LU of the step's Jacobian failed");
        return CDYN_OK;
    }
    /* triplets: the pattern's entries (zero in the bound rows), then the diagonal (1 there) */
    int t = 0;
    for (int j = 0; j < n; j++)
        for (int p = sys->colptr[j]; p < sys->colptr[j + 1]; p++, t++) {
            sys->ti[t] = sys->rowind[p];
            sys->tj[t] = j;
            if (!eq[sys->rowind[p]])
                sys->values[t] = 0.0;
        }
    for (int i = 0; i < n; i++, t++) {
        sys->ti[t] = sys->tj[t] = i;
        sys->values[t] = eq[i] ? 0.0 : 1.0;
    }
    cdyn_status st = cdyn_csc_assembly_init(&sys->H, n, n, t, sys->ti, sys->tj, sys->as, r);
    if (st != CDYN_OK)
        return st;
    cdyn_csc_assembly_set_values(&sys->H, sys->values);
    if ((st = cdyn_sparse_lu_create(&sys->H.A, sys->as, &sys->lu, r)) != CDYN_OK)
        return st;
    if ((st = cdyn_sparse_lu_factor(sys->lu, &sys->H.A, r)) == CDYN_ESINGULAR)
        return cdyn_fail(r, st, "cdyn_step_derivatives: the step's Jacobian on its active set "
                         "is singular at the solution: no derivative");
    return st;
}

cdyn_status ift_solve(ift_system *sys, int nrhs, double *R, cdyn_report *r)
{
    if (nrhs <= 0)
        return CDYN_OK;
    if (sys->colptr == NULL) {
        cdyn_dense_lu_solve(0, sys->n, sys->J, sys->n, sys->ipiv, nrhs, R, sys->n);
        return CDYN_OK;
    }
    return cdyn_sparse_lu_solve(sys->lu, 0, nrhs, R, R, r);
}

void ift_free(ift_system *sys)
{
    cdyn_sparse_lu_free(sys->lu);
    cdyn_csc_assembly_free(&sys->H);
    cdyn_mem_free(sys->as, sys->J);
    cdyn_mem_free(sys->as, sys->ipiv);
    cdyn_mem_free(sys->as, sys->values);
    cdyn_mem_free(sys->as, sys->ti);
    cdyn_mem_free(sys->as, sys->tj);
    memset(sys, 0, sizeof *sys);
}
