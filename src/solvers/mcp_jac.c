/* The Jacobian of the MCP function: evaluation through the user's callback or finite
 * differences, and the transposed product used for the merit gradient. */
#include "linalg/dense.h"
#include "solvers/mcp_internal.h"

cdyn_status cdyn_mcp_jac_eval(const cdyn_mcp *p, int use_fd, const mcp_fd *fd, const double *x,
                              const double *F, mcp_jac *J, int *nfev, int *njev)
{
    if (use_fd)
        return cdyn_mcp_fd_jacobian(p, fd, x, F, J, nfev);
    ++*njev;
    const int rc = J->sparse ? p->jac_sparse(p->ctx, x, J->values) : p->jac(p->ctx, x, J->values);
    if (rc != 0)
        return CDYN_ENUMERIC;
    /* nvals can exceed INT_MAX only for dense n > 46340, which the workspace check rejects. */
    return cdyn_dense_all_finite((int)J->nvals, J->values) ? CDYN_OK : CDYN_ENUMERIC;
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
