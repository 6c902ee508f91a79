/* The residual every LCP solver reports: ||min(z, M z + q)||_inf (natural map). */
#include <math.h>

#include "cdyn/lcp.h"

double cdyn_lcp_residual(const cdyn_lcp *lcp, const double *z)
{
    if (lcp == NULL || z == NULL || lcp->M == NULL || lcp->q == NULL || lcp->n <= 0)
        return NAN;
    const int n = lcp->n;
    /* Non-finite data is an invalid argument (NaN), not a residual: an infinite q_i would
       otherwise give min(z_i, +Inf) = z_i, "solved", or an infinite residual. */
    for (int i = 0; i < n; ++i)
        if (!isfinite(lcp->q[i]) || !isfinite(z[i]))
            return NAN;
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        /* Row i of M is strided in column-major storage; n is small enough here that a plain
           loop is clearer than a transposed BLAS call on one row. */
        double wi = lcp->q[i];
        int finite = 1;
        for (int j = 0; j < n; ++j) {
            const double m = lcp->M[i + (size_t)j * n];
            finite &= isfinite(m) != 0;
            wi += m * z[j];
        }
        if (!finite || isnan(wi))
            return NAN;
        const double m = fabs(fmin(z[i], wi));
        if (m > r)
            r = m;
    }
    return r;
}
