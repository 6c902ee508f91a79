/* LCP(q, M) through the MCP solver: the NCP F(z) = M z + q, l = 0, u = +inf, with M as its
 * fixed Jacobian (never copied or re-checked per iteration). */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/mcp/mcp_internal.h"

static int lcp_F(void *ctx, const double *z, double *F)
{
    const cdyn_lcp *lcp = ctx;
    memcpy(F, lcp->q, (size_t)lcp->n * sizeof(double));
    cdyn_mcp_dense_mv(lcp->n, lcp->M, z, 1, F);
    return 0;
}

cdyn_status cdyn_lcp_fb_newton(const cdyn_lcp *lcp, const cdyn_mcp_options *opts, double *z,
                               double *w, cdyn_report *r)
{
    cdyn_report_clear(r, "fb-newton");
    if (lcp == NULL || lcp->M == NULL || lcp->q == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "lcp, lcp->M or lcp->q is NULL");
    if (lcp->n <= 0)
        return cdyn_fail(r, CDYN_EINVAL, "lcp->n must be > 0 (got %d)", lcp->n);
    if (z == NULL || w == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "z or w is NULL");
    const size_t nn = cdyn_mem_matrix_len((size_t)lcp->n, (size_t)lcp->n);
    if (nn == 0 || nn > (size_t)2147483647)
        return cdyn_fail(r, CDYN_ETOOBIG, "lcp->n too large for a dense LCP");
    /* Checked once here: the iteration uses M as its fixed Jacobian without checking it again. */
    const double Mabsmax = cdyn_mcp_finite_max_abs(nn, lcp->M);
    if (isnan(Mabsmax) || !cdyn_dense_all_finite(lcp->n, lcp->q))
        return cdyn_fail(r, CDYN_EINVAL, "M or q contains NaN or Inf");

    cdyn_mcp mcp;
    memset(&mcp, 0, sizeof mcp);
    mcp.n = lcp->n;
    mcp.F = lcp_F;
    mcp.ctx = (void *)lcp;
    cdyn_mcp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_mcp_defaults(&o);
    /* The Jacobian is known exactly; finite differences would only lose accuracy. */
    o.jacobian_fd = 0;
    const cdyn_status st = cdyn_mcp_solve_fixed(&mcp, &o, lcp->M, Mabsmax, z, r);
    if (st == CDYN_OK || st == CDYN_EINACCURATE)
        lcp_F((void *)lcp, z, w);
    return st;
}
