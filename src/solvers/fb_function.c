/* Fischer–Burmeister reformulation of a box MCP and its generalized-Jacobian element.
 *
 * Sign convention: phi(a, b) = a + b - sqrt(a^2 + b^2), which is zero exactly when a >= 0,
 * b >= 0, ab = 0, is positive on the open positive quadrant, and tends to b as a -> +inf; so
 * every row of Phi below tends to F_i deep inside the box and H tends to J there. The penalized
 * function of Chen–Chen–Kanzow in this convention is
 *     phi_lambda(a, b) = lambda phi(a, b) + (1 - lambda) max(a, 0) max(b, 0),
 * (both terms share their sign on the positive quadrant, so it is an NCP function too).
 * docs/theory-mcp.md derives the box rows and the Jacobian factors. */
#include <math.h>

#include "solvers/mcp_internal.h"

double cdyn_mcp_phi(double a, double b, double lambda)
{
    const double r = hypot(a, b);
    /* a + b - r cancels when a, b > 0; the rationalized form 2ab / (a + b + r) does not
       (written so that the product a b cannot overflow). */
    const double fb = (a + b > 0.0) ? 2.0 * a * (b / (a + b + r)) : a + b - r;
    if (lambda >= 1.0)
        return fb;
    return lambda * fb + (1.0 - lambda) * fmax(a, 0.0) * fmax(b, 0.0);
}

void cdyn_mcp_phi_grad(double a, double b, double lambda, double *da, double *db)
{
    const double r = hypot(a, b);
    double ga, gb;
    if (r > 0.0) {
        ga = 1.0 - a / r;
        gb = 1.0 - b / r;
    } else {
        /* The generalized gradient at the kink is {(1 - s, 1 - t) : s^2 + t^2 <= 1}; we take
           s = t = 1/sqrt(2), the limit of the gradient along a = b > 0. Both entries stay
           positive, which keeps the row of H away from zero. */
        ga = gb = 1.0 - sqrt(0.5);
    }
    if (lambda < 1.0) {
        ga = lambda * ga + (1.0 - lambda) * (a > 0.0 ? fmax(b, 0.0) : 0.0);
        gb = lambda * gb + (1.0 - lambda) * (b > 0.0 ? fmax(a, 0.0) : 0.0);
    }
    *da = ga;
    *db = gb;
}

void cdyn_mcp_fb_eval(int n, const double *l, const double *u, const double *x, const double *F,
                      double lambda, double *Phi, double *da, double *db)
{
    for (int i = 0; i < n; ++i) {
        const int lfin = isfinite(l[i]), ufin = isfinite(u[i]);
        double phi, ga = 0.0, gb = 0.0;
        if (lfin && ufin && l[i] == u[i]) {
            /* Fixed variable: any F_i is complementary to x_i = l_i. */
            phi = x[i] - l[i];
            ga = 1.0;
        } else if (!lfin && !ufin) {
            phi = F[i];
            gb = 1.0;
        } else if (!ufin) {
            phi = cdyn_mcp_phi(x[i] - l[i], F[i], lambda);
            if (da)
                cdyn_mcp_phi_grad(x[i] - l[i], F[i], lambda, &ga, &gb);
        } else if (!lfin) {
            /* x_i <= u_i, -F_i >= 0, complementary; the minus sign keeps the row -> F_i. */
            phi = -cdyn_mcp_phi(u[i] - x[i], -F[i], lambda);
            if (da)
                cdyn_mcp_phi_grad(u[i] - x[i], -F[i], lambda, &ga, &gb);
        } else {
            /* Billups' nesting: Phi = phi(x - l, -phi(u - x, -F)). */
            const double inner = -cdyn_mcp_phi(u[i] - x[i], -F[i], lambda);
            phi = cdyn_mcp_phi(x[i] - l[i], inner, lambda);
            if (da) {
                double pa, pb, qa, qb;
                cdyn_mcp_phi_grad(x[i] - l[i], inner, lambda, &pa, &pb);
                cdyn_mcp_phi_grad(u[i] - x[i], -F[i], lambda, &qa, &qb);
                /* d inner = qa dx + qb dF, so d Phi = (pa + pb qa) dx + pb qb dF. */
                ga = pa + pb * qa;
                gb = pb * qb;
            }
        }
        Phi[i] = phi;
        if (da) {
            da[i] = ga;
            db[i] = gb;
        }
    }
}
