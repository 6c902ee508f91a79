/* The Jacobian of the MCP function: evaluation through the user's callback or finite
 * differences, and the transposed product used for the merit gradient. */
#include <float.h>
#include <math.h>

#include "linalg/dense.h"
#include "solvers/mcp_internal.h"

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

void cdyn_mcp_jac_mult_t(const mcp_jac *J, const double *v, double *out)
{
    const int n = J->n;
    if (!J->sparse) {
        cdyn_dense_gemv_t(n, n, 1.0, J->values, n, v, 0.0, out);
        return;
    }
    for (int j = 0; j < n; ++j) {
        double s = 0.0;
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
            s += J->values[k] * v[J->rowind[k]];
        out[j] = s;
    }
}

void cdyn_mcp_jac_mult(const mcp_jac *J, const double *v, double *out)
{
    const int n = J->n;
    if (!J->sparse) {
        cdyn_dense_gemv(n, n, 1.0, J->values, n, v, 0.0, out);
        return;
    }
    for (int i = 0; i < n; ++i)
        out[i] = 0.0;
    for (int j = 0; j < n; ++j)
        for (int k = J->colptr[j]; k < J->colptr[j + 1]; ++k)
            out[J->rowind[k]] += J->values[k] * v[j];
}
