/* The Jacobian of the MCP function: evaluation through the user's callback or finite
 * differences (with its finiteness check), and the products J^T v (merit gradient) and J v
 * (kink rule), plus the dense product of the LCP's F. */
#include <float.h>
#include <math.h>

#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

double cdyn_mcp_finite_max_abs(size_t n, const double *v)
{
    double m = 0.0;
    for (size_t k = 0; k < n; ++k) {
        const double a = fabs(v[k]);
        if (!(a <= m)) { /* a new maximum, or NaN */
            if (!(a <= DBL_MAX))
                return NAN;
            m = a;
        }
    }
    return m;
}

void cdyn_mcp_jac_init(const cdyn_mcp *p, mcp_jac *J)
{
    const size_t n = (size_t)p->n;
    J->n = p->n;
    J->sparse = p->colptr != NULL;
    J->colptr = p->colptr;
    J->rowind = p->rowind;
    J->nvals = J->sparse ? (size_t)p->colptr[p->n] : n * n;
}

cdyn_status cdyn_mcp_jac_eval(const cdyn_mcp *p, int use_fd, const mcp_fd *fd, const double *x,
                              const double *F, mcp_jac *J, int *nfev, int *njev, double *absmax)
{
    if (use_fd) {
        const cdyn_status st = cdyn_mcp_fd_jacobian(p, fd, x, F, J, nfev);
        if (absmax != NULL) {
            const double m = cdyn_mcp_finite_max_abs(J->nvals, J->values);
            *absmax = isnan(m) ? INFINITY : m;
        }
        return st;
    }
    ++*njev;
    const int rc = J->sparse ? p->jac_sparse(p->ctx, x, J->values) : p->jac(p->ctx, x, J->values);
    if (rc != 0)
        return CDYN_ENUMERIC;
    /* The finiteness check yields the largest entry on the way. */
    const double m = cdyn_mcp_finite_max_abs(J->nvals, J->values);
    if (absmax != NULL)
        *absmax = m;
    return isnan(m) ? CDYN_ENUMERIC : CDYN_OK;
}

/* Below this order plain loops beat the call overhead of cblas_dgemv (several hundred
   instructions per call, which dominated the products of the smallest LCPs). */
#define MCP_SMALL_N 16

void cdyn_mcp_dense_mv(int n, const double *A, const double *x, int accumulate, double *y)
{
    if (n > MCP_SMALL_N) {
        cdyn_dense_gemv(n, n, 1.0, A, n, x, accumulate ? 1.0 : 0.0, y);
        return;
    }
    if (!accumulate)
        for (int i = 0; i < n; ++i)
            y[i] = 0.0;
    for (int j = 0; j < n; ++j) {
        const double *a = A + (size_t)j * n;
        const double xj = x[j];
        for (int i = 0; i < n; ++i)
            y[i] += a[i] * xj;
    }
}

void cdyn_mcp_jac_mult_t(const mcp_jac *J, const double *v, double *out)
{
    const int n = J->n;
    if (!J->sparse && n > MCP_SMALL_N) {
        cdyn_dense_gemv_t(n, n, 1.0, J->values, n, v, 0.0, out);
        return;
    }
    for (int j = 0; j < n; ++j) {
        double s = 0.0;
        if (J->sparse) {
            for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
                s += J->values[k] * v[J->rowind[k]];
        } else {
            const double *a = J->values + (size_t)j * n;
            for (int i = 0; i < n; ++i)
                s += a[i] * v[i];
        }
        out[j] = s;
    }
}

void cdyn_mcp_jac_mult(const mcp_jac *J, const double *v, double *out)
{
    const int n = J->n;
    if (!J->sparse) {
        cdyn_mcp_dense_mv(n, J->values, v, 0, out);
        return;
    }
    for (int i = 0; i < n; ++i)
        out[i] = 0.0;
    for (int j = 0; j < n; ++j)
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
            out[J->rowind[k]] += J->values[k] * v[j];
}
