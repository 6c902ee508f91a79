/* Second-order cone blocks: Jordan product and its inverse, Nesterov-Todd scaling, step to the
 * boundary. Every routine works for 1 <= m <= CDYN_SOC_MAX; m = 1 is the half-line. */
#include "solvers/coneqp/soc.h"

#include <float.h>
#include <math.h>

#define LD CDYN_SOC_MAX

/* ||v1||_2 of the m - 1 trailing entries. The plain formula unless the sum of squares
 * over- or underflows, then hypot (which is several times slower). */
static double tail_norm(int m, const double *v)
{
    if (m < 3)
        return m == 1 ? 0.0 : fabs(v[1]);
    const double t = v[1] * v[1] + v[2] * v[2];
    if (t < DBL_MAX && t > DBL_MIN)
        return sqrt(t);
    return (v[1] == 0.0 && v[2] == 0.0) ? 0.0 : hypot(v[1], v[2]);
}

double cdyn_soc_det_sqrt(int m, const double *v)
{
    const double t = tail_norm(m, v);
    const double lo = v[0] - t;
    if (!(lo > 0.0))
        return 0.0;
    return sqrt(lo) * sqrt(v[0] + t);
}

int cdyn_soc_interior(int m, const double *v)
{
    for (int i = 0; i < m; ++i)
        if (!isfinite(v[i]))
            return 0;
    return v[0] > tail_norm(m, v);
}

void cdyn_soc_prod(int m, const double *u, const double *v, double *out)
{
    double d = 0.0;
    for (int i = 0; i < m; ++i)
        d += u[i] * v[i];
    for (int i = 1; i < m; ++i)
        out[i] = u[0] * v[i] + v[0] * u[i];
    out[0] = d;
}

void cdyn_soc_div(int m, const double *lam, const double *r, double *out)
{
    /* lam o x = r is the arrow system [lam0 lam1'; lam1 lam0 I] x = r:
     * x0 = (lam0 r0 - lam1'r1) / det(lam),  x1 = (r1 - x0 lam1) / lam0. */
    const double t = tail_norm(m, lam);
    const double det = (lam[0] - t) * (lam[0] + t);
    double d = lam[0] * r[0];
    for (int i = 1; i < m; ++i)
        d -= lam[i] * r[i];
    const double x0 = d / det;
    for (int i = 1; i < m; ++i)
        out[i] = (r[i] - x0 * lam[i]) / lam[0];
    out[0] = x0;
}

int cdyn_soc_nt(int m, const double *s, const double *z, double *W, double *Winv, double *lambda)
{
    if (!cdyn_soc_interior(m, s) || !cdyn_soc_interior(m, z))
        return -1;
    const double ns = cdyn_soc_det_sqrt(m, s), nz = cdyn_soc_det_sqrt(m, z);
    if (!(ns > 0.0) || !(nz > 0.0))
        return -1;
    const double beta = sqrt(ns / nz);
    if (m == 1) {
        W[0] = beta;
        Winv[0] = 1.0 / beta;
        lambda[0] = sqrt(ns * nz);
        return 0;
    }
    /* Normalized points (det 1), the normalized NT point wb with P(wb) zb = sb, and its Jordan
     * square root v: W = beta (2 v v' - J), W^{-1} = (1/beta) (2 Jv (Jv)' - J). */
    double sb[LD] = {0}, zb[LD] = {0}, wb[LD] = {0}, v[LD] = {0};
    double dot = 0.0;
    for (int i = 0; i < m; ++i) {
        sb[i] = s[i] / ns;
        zb[i] = z[i] / nz;
        dot += sb[i] * zb[i];
    }
    const double gamma = sqrt(0.5 * (1.0 + dot));
    wb[0] = (sb[0] + zb[0]) / (2.0 * gamma);
    for (int i = 1; i < m; ++i)
        wb[i] = (sb[i] - zb[i]) / (2.0 * gamma);
    const double vs = sqrt(2.0 * (wb[0] + 1.0));
    v[0] = (wb[0] + 1.0) / vs;
    for (int i = 1; i < m; ++i)
        v[i] = wb[i] / vs;
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < m; ++i) {
            const double J = (i == j) ? (i == 0 ? 1.0 : -1.0) : 0.0;
            const double sij = (i == 0) == (j == 0) ? 1.0 : -1.0; /* sign of (Jv)_i (Jv)_j */
            W[i + LD * j] = beta * (2.0 * v[i] * v[j] - J);
            Winv[i + LD * j] = (2.0 * sij * v[i] * v[j] - J) / beta;
        }
    /* lambda = W z from the normalized points (CVXOPT's formula) rather than the product: it
     * stays inside the cone (det = ns nz) when s and z are nearly on the boundary. */
    const double f = sqrt(ns) * sqrt(nz), den = sb[0] + zb[0] + 2.0 * gamma;
    lambda[0] = f * gamma;
    for (int i = 1; i < m; ++i)
        lambda[i] = f * ((gamma + zb[0]) * sb[i] + (gamma + sb[0]) * zb[i]) / den;
    return 0;
}

double cdyn_soc_lambda_min_sq(int m, const double *s, const double *z)
{
    const double ns = cdyn_soc_det_sqrt(m, s), nz = cdyn_soc_det_sqrt(m, z);
    if (!(ns > 0.0) || !(nz > 0.0))
        return 0.0;
    if (m == 1)
        return s[0] * z[0];
    double p = 0.0;
    for (int i = 0; i < m; ++i)
        p += s[i] * z[i];
    const double d = ns * nz; /* sqrt(D) = det(lambda) = lambda0^2 - ||lambda1||^2 <= s'z */
    return d * d / (p + sqrt(fmax(p - d, 0.0)) * sqrt(p + d));
}

double cdyn_soc_max_step(int m, const double *u, const double *d)
{
    /* With ub = u / sqrt(det u), rho = P(ub^{-1/2}) d / sqrt(det u) maps the question to
     * e + alpha rho in Q, i.e. alpha (||rho1|| - rho0) <= 1. */
    const double nu = cdyn_soc_det_sqrt(m, u);
    if (!(nu > 0.0))
        return 0.0;
    double ub[LD] = {0}, db[LD] = {0};
    for (int i = 0; i < m; ++i) {
        ub[i] = u[i] / nu;
        db[i] = d[i] / nu;
    }
    double rho0 = ub[0] * db[0];
    for (int i = 1; i < m; ++i)
        rho0 -= ub[i] * db[i];
    const double f = (rho0 + db[0]) / (ub[0] + 1.0);
    double rho1[LD] = {0.0, 0.0, 0.0};
    for (int i = 1; i < m; ++i)
        rho1[i] = db[i] - f * ub[i];
    const double t = tail_norm(m, rho1) - rho0;
    return t > 0.0 ? 1.0 / t : INFINITY;
}

void cdyn_soc_matvec(int m, const double *A, const double *x, double *y)
{
    for (int i = 0; i < m; ++i) {
        double s = 0.0;
        for (int j = 0; j < m; ++j)
            s += A[i + LD * j] * x[j];
        y[i] = s;
    }
}
