/* The residual every LCP solver reports: ||min(z, M z + q)||_inf (natural map). */
#include <math.h>

#include "cdyn/lcp.h"

double cdyn_lcp_residual(const cdyn_lcp *lcp, const double *z)
{
    if (lcp == NULL || z == NULL || lcp->M == NULL || lcp->q == NULL || lcp->n <= 0)
        return NAN;
    const int n = lcp->n;
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        /* Row i of M is strided in column-major storage; n is small enough here that a plain
           loop is clearer than a transposed BLAS call on one row. */
        double wi = lcp->q[i];
        for (int j = 0; j < n; ++j)
            wi += lcp->M[i + (size_t)j * n] * z[j];
        double m = fabs(fmin(z[i], wi));
        if (isnan(z[i]) || isnan(wi))
            return NAN;
        if (m > r)
            r = m;
    }
    return r;
}
