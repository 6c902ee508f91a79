/* Geometry primitives: material points of a geometry, and the ellipse's closest point and
 * support point with their derivatives (docs/theory.md, "Ellipse"). */
#include <float.h>
#include <math.h>

#include "model/contacts.h"
#include "model/vec3.h"

void cdyn_gs_point(const gstate *s, const double *loc, double *p, double *pd)
{
    double r[3];
    m3_mul_v(r, s->R, loc);
    v3_add(p, s->c, r);
    if (pd != NULL)
        cdyn_gs_vel(s, p, pd);
}

void cdyn_gs_vel(const gstate *s, const double *p, double *v)
{
    v3_cross(v, s->w, p);
    v[0] += s->vo[0];
    v[1] += s->vo[1];
    v[2] += s->vo[2];
}

/* Closest point (Eberly, "Distance from a point to an ellipse", Geometric Tools 2013): for
 * |p| in the first quadrant the foot is f_i = e_i^2 p_i / (e_i^2 + t) where t is the root of
 *     F(t) = sum_i (e_i p_i / (e_i^2 + t))^2 - 1,   t > -min(e_i)^2.
 * F is decreasing and convex there; Newton from t0 = max_i (e_i p_i - e_i^2), where F(t0) >= 0,
 * increases monotonically to the root (no safeguard needed) and converges quadratically. t is
 * positive outside the ellipse, negative inside, and p - f = t g with g_i = p_i / (e_i^2 + t)
 * along the outward normal. */
int cdyn_ellipse_foot(double ea, double eb, const double *p, double *f, double *nrm, double *df,
                      double *dn)
{
    const double e[2] = {ea, eb};
    const double y[2] = {fabs(p[0]), fabs(p[1])};
    const int ks = eb <= ea ? 1 : 0, kl = 1 - ks; /* smaller and larger semi-axis */
    double t;
    int medial = 0;
    double fy[2]; /* foot in the first quadrant */
    if (y[ks] > 0.0) {
        t = fmax(e[0] * y[0] - e[0] * e[0], e[1] * y[1] - e[1] * e[1]);
        for (int it = 0; it < 200; ++it) {
            double F = -1.0, dF = 0.0;
            for (int i = 0; i < 2; ++i) {
                const double w = e[i] * e[i] + t, r = e[i] * y[i] / w;
                F += r * r;
                dF -= 2.0 * r * r / w;
            }
            if (!(F > 0.0) || dF == 0.0)
                break;
            const double step = -F / dF;
            t += step;
            if (step <= 4.0 * DBL_EPSILON * (fabs(t) + e[ks] * e[ks]))
                break;
        }
        for (int i = 0; i < 2; ++i)
            fy[i] = e[i] * e[i] * y[i] / (e[i] * e[i] + t);
    } else if (e[kl] * y[kl] >= e[kl] * e[kl] - e[ks] * e[ks] && y[kl] > 0.0) {
        t = e[kl] * y[kl] - e[kl] * e[kl];
        fy[kl] = e[kl];
        fy[ks] = 0.0;
    } else {
        /* On the medial axis: two (or, at the centre of a circle, infinitely many) closest
         * points; take the one on the positive side of the smaller axis. */
        medial = 1;
        t = -e[ks] * e[ks];
        const double d = e[kl] * e[kl] - e[ks] * e[ks];
        fy[kl] = d > 0.0 ? e[kl] * e[kl] * y[kl] / d : 0.0;
        const double r = fy[kl] / e[kl];
        fy[ks] = e[ks] * sqrt(fmax(0.0, 1.0 - r * r));
    }
    for (int i = 0; i < 2; ++i)
        f[i] = p[i] < 0.0 ? -fy[i] : fy[i];
    double g[2] = {f[0] / (e[0] * e[0]), f[1] / (e[1] * e[1])};
    const double ng = sqrt(g[0] * g[0] + g[1] * g[1]);
    nrm[0] = g[0] / ng;
    nrm[1] = g[1] / ng;
    const double w0 = e[0] * e[0] + t, w1 = e[1] * e[1] + t;
    if (medial || !(w0 > 0.0) || !(w1 > 0.0)) {
        for (int i = 0; i < 4; ++i)
            df[i] = dn[i] = 0.0;
        return 1;
    }
    /* Implicit derivatives: dt/dp_j = (e_j^2 p_j / w_j^2) / sum_i e_i^2 p_i^2 / w_i^3. */
    const double w[2] = {w0, w1};
    double S3 = 0.0;
    for (int i = 0; i < 2; ++i)
        S3 += e[i] * e[i] * p[i] * p[i] / (w[i] * w[i] * w[i]);
    double dt[2];
    for (int j = 0; j < 2; ++j)
        dt[j] = e[j] * e[j] * p[j] / (w[j] * w[j]) / S3;
    double dg[4];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            const double dij = i == j ? 1.0 : 0.0;
            df[i + 2 * j] = e[i] * e[i] * (dij / w[i] - p[i] / (w[i] * w[i]) * dt[j]);
            dg[i + 2 * j] = dij / w[i] - p[i] / (w[i] * w[i]) * dt[j];
        }
    /* g here is p_i / w_i (the same direction as f_i / e_i^2, different length). */
    const double gp[2] = {p[0] / w[0], p[1] / w[1]};
    const double ngp = sqrt(gp[0] * gp[0] + gp[1] * gp[1]);
    for (int j = 0; j < 2; ++j) {
        const double nd = nrm[0] * dg[2 * j] + nrm[1] * dg[1 + 2 * j];
        for (int i = 0; i < 2; ++i)
            dn[i + 2 * j] = (dg[i + 2 * j] - nrm[i] * nd) / ngp;
    }
    return 0;
}

void cdyn_ellipse_support(double ea, double eb, const double *u, double *s, double *ds)
{
    const double D[2] = {ea * ea, eb * eb};
    const double sig = sqrt(D[0] * u[0] * u[0] + D[1] * u[1] * u[1]);
    s[0] = D[0] * u[0] / sig;
    s[1] = D[1] * u[1] / sig;
    /* ds/du = (D - s s^T) / sigma */
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            ds[i + 2 * j] = ((i == j ? D[i] : 0.0) - s[i] * s[j]) / sig;
}
