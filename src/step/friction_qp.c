/* The friction QP of one contact over a disk (friction_qp.h). */
#include "step/friction_qp.h"

#include <math.h>
#include <string.h>

/* B = (S + nu I)^-1 for a 2 x 2 symmetric S; 1 when singular. */
static int inverse2(const double *S, double nu, double *B)
{
    const double a = S[0] + nu, b = 0.5 * (S[1] + S[2]), c = S[3] + nu;
    const double det = a * c - b * b;
    if (!(det > 0) || !(a > 0))
        return 1;
    B[0] = c / det, B[1] = B[2] = -b / det, B[3] = a / det;
    return 0;
}

static int solve1(double S, double d, double r, friction_qp_sol *o)
{
    if (!(S > 0))
        return 1;
    const double x = -d / S;
    if (fabs(x) <= r) {
        o->x[0] = x;
        o->Dd[0] = -1.0 / S;
        return 0;
    }
    const double sign = x > 0 ? 1.0 : -1.0;
    o->x[0] = sign * r;
    o->Dr[0] = sign;
    o->nu = r > 0 ? fabs(d) / r - S : 0.0;
    o->on_boundary = 1;
    return 0;
}

static int solve2(const double *S, const double *d, double r, friction_qp_sol *o)
{
    double B[4];
    if (inverse2(S, 0.0, B) != 0)
        return 1;
    double x[2] = {-(B[0] * d[0] + B[2] * d[1]), -(B[1] * d[0] + B[3] * d[1])};
    if (hypot(x[0], x[1]) <= r) {
        memcpy(o->x, x, sizeof x);
        for (int i = 0; i < 4; i++)
            o->Dd[i] = -B[i];
        return 0;
    }
    o->on_boundary = 1;
    const double dn = hypot(d[0], d[1]);
    if (!(r > 0)) {
        /* The apex: x = 0 for every d; as r grows from 0 the force leaves along -d. */
        if (dn > 0)
            o->Dr[0] = -d[0] / dn, o->Dr[1] = -d[1] / dn;
        return 0;
    }
    /* Newton on psi(nu) = 1/r - 1/|x(nu)|, x(nu) = -(S + nu I)^-1 d: psi is concave and
     * increasing, so the iterates increase to the root without overshooting. */
    double nu = 0.0;
    for (int it = 0; it < 100; it++) {
        const double xn = hypot(x[0], x[1]);
        const double Bx[2] = {B[0] * x[0] + B[2] * x[1], B[1] * x[0] + B[3] * x[1]};
        const double xBx = x[0] * Bx[0] + x[1] * Bx[1];
        if (fabs(xn - r) <= 1e-14 * r || !(xBx > 0))
            break;
        nu += (xn - r) / r * xn * xn / xBx;
        if (inverse2(S, nu, B) != 0)
            return 1;
        x[0] = -(B[0] * d[0] + B[2] * d[1]);
        x[1] = -(B[1] * d[0] + B[3] * d[1]);
    }
    /* On the circle exactly, then the derivatives of (S + nu I) x + d = 0, |x|^2 = r^2:
     * dx = -B dd + B x (r dr + x' B dd) / (x' B x). */
    const double xn = hypot(x[0], x[1]);
    x[0] *= r / xn, x[1] *= r / xn;
    memcpy(o->x, x, sizeof x);
    o->nu = nu;
    const double Bx[2] = {B[0] * x[0] + B[2] * x[1], B[1] * x[0] + B[3] * x[1]};
    const double xBx = x[0] * Bx[0] + x[1] * Bx[1];
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            o->Dd[i + 2 * j] = -B[i + 2 * j] + Bx[i] * Bx[j] / xBx;
    o->Dr[0] = Bx[0] * r / xBx;
    o->Dr[1] = Bx[1] * r / xBx;
    return 0;
}

int friction_qp_solve(int n, const double *S, const double *d, double r, friction_qp_sol *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n * n; i++)
        if (!isfinite(S[i]))
            return 1;
    for (int i = 0; i < n; i++)
        if (!isfinite(d[i]))
            return 1;
    if (!(r >= 0) || !isfinite(r))
        return 1;
    return n == 1 ? solve1(S[0], d[0], r, out) : solve2(S, d, r, out);
}
