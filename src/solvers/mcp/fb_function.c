/* Fischer–Burmeister reformulation of a box MCP and its generalized-Jacobian element.
 *
 * Sign convention: phi(a, b) = a + b - sqrt(a^2 + b^2), which is zero exactly when a >= 0,
 * b >= 0, ab = 0, is positive on the open positive quadrant, and tends to b as a -> +inf; so
 * every row of Phi below tends to F_i deep inside the box and H tends to J there. The penalized
 * function of Chen–Chen–Kanzow in this convention is
 *     phi_lambda(a, b) = lambda phi(a, b) + (1 - lambda) max(a, 0) max(b, 0),
 * (both terms share their sign on the positive quadrant, so it is an NCP function too).
 * docs/theory.md derives the box rows and the Jacobian factors. */
#include <math.h>

#include "solvers/mcp/mcp_internal.h"

/* max(v, 0), NaN -> 0 like fmax(v, 0.0), without the libm call. */
static inline double pos(double v)
{
    return v > 0.0 ? v : 0.0;
}

/* sqrt(a^2 + b^2): the plain formula where the squares can neither overflow nor lose the
   larger one to underflow (it is then within an ulp of hypot, several times cheaper), hypot
   elsewhere (and for NaN/Inf). */
static inline double norm2(double a, double b)
{
    const double fa = fabs(a), fb = fabs(b);
    const double m = fa > fb ? fa : fb;
    if (m > 0x1p-500 && m < 0x1p500)
        return sqrt(a * a + b * b);
    return hypot(a, b);
}

/* phi_lambda(a, b) and, when ga is not NULL, its gradient (ga, gb), sharing the norm. */
static inline double phi_eval(double a, double b, double lambda, double *ga, double *gb)
{
    const double r = norm2(a, b);
    /* a + b - r cancels when a, b > 0; the rationalized form 2ab / (a + b + r) does not
       (written so that the product a b cannot overflow). */
    const double fb = (a + b > 0.0) ? 2.0 * a * (b / (a + b + r)) : a + b - r;
    if (ga != NULL) {
        if (r > 0.0) {
            *ga = 1.0 - a / r;
            *gb = 1.0 - b / r;
        } else {
            /* The generalized gradient at the kink is {(1 - s, 1 - t) : s^2 + t^2 <= 1}; we
               take s = t = 1/sqrt(2), the limit of the gradient along a = b > 0. Both entries
               stay positive, which keeps the row of H away from zero. (The Newton iteration
               replaces it by the direction-dependent element of cdyn_mcp_fb_kink_factors.) */
            *ga = *gb = 1.0 - sqrt(0.5);
        }
        if (lambda < 1.0) {
            *ga = lambda * *ga + (1.0 - lambda) * (a > 0.0 ? pos(b) : 0.0);
            *gb = lambda * *gb + (1.0 - lambda) * (b > 0.0 ? pos(a) : 0.0);
        }
    }
    if (lambda >= 1.0)
        return fb;
    return lambda * fb + (1.0 - lambda) * pos(a) * pos(b);
}

double cdyn_mcp_phi(double a, double b, double lambda)
{
    return phi_eval(a, b, lambda, NULL, NULL);
}

void cdyn_mcp_phi_grad(double a, double b, double lambda, double *da, double *db)
{
    (void)phi_eval(a, b, lambda, da, db);
}

int cdyn_mcp_fb_eval(int n, const double *l, const double *u, const double *x, const double *F,
                     double lambda, double *Phi, double *da, double *db)
{
    int kinks = 0;
    for (int i = 0; i < n; ++i) {
        const int lfin = isfinite(l[i]), ufin = isfinite(u[i]);
        double phi, ga = 0.0, gb = 0.0;
        double *pga = da ? &ga : NULL, *pgb = da ? &gb : NULL;
        if (lfin && ufin && l[i] == u[i]) {
            /* Fixed variable: any F_i is complementary to x_i = l_i. */
            phi = x[i] - l[i];
            ga = 1.0;
        } else if (!lfin && !ufin) {
            phi = F[i];
            gb = 1.0;
        } else if (!ufin) {
            const double a = x[i] - l[i];
            phi = phi_eval(a, F[i], lambda, pga, pgb);
            kinks += a == 0.0 && F[i] == 0.0;
        } else if (!lfin) {
            /* x_i <= u_i, -F_i >= 0, complementary; the minus sign keeps the row -> F_i. */
            const double a = u[i] - x[i];
            phi = -phi_eval(a, -F[i], lambda, pga, pgb);
            kinks += a == 0.0 && F[i] == 0.0;
        } else {
            /* Billups' nesting: Phi = phi(x - l, -phi(u - x, -F)). */
            double pa = 0.0, pb = 0.0, qa = 0.0, qb = 0.0;
            const double a = x[i] - l[i], c = u[i] - x[i];
            const double inner = -phi_eval(c, -F[i], lambda, da ? &qa : NULL, &qb);
            phi = phi_eval(a, inner, lambda, da ? &pa : NULL, &pb);
            if (da) {
                /* d inner = qa dx + qb dF, so d Phi = (pa + pb qa) dx + pb qb dF. */
                ga = pa + pb * qa;
                gb = pb * qb;
            }
            kinks += (a == 0.0 && inner == 0.0) || (c == 0.0 && F[i] == 0.0);
        }
        Phi[i] = phi;
        if (da) {
            da[i] = ga;
            db[i] = gb;
        }
    }
    return da ? kinks : 0;
}

/* The limit of the gradient of the plain FB function at t (alpha, beta) as t -> 0+, for
   (alpha, beta) != 0: the gradient is constant along the ray. */
static void phi_grad_along(double alpha, double beta, double *ga, double *gb)
{
    const double r = hypot(alpha, beta);
    *ga = 1.0 - alpha / r;
    *gb = 1.0 - beta / r;
}

/* Which FB term of row i sits at its kink: 0 none, 1 the only one (one-sided rows), 2 the
   inner term of a box row (x = u, F = 0), 3 the outer one (x = l, inner = 0). The tests are
   those of cdyn_mcp_fb_eval, so both agree on every row. */
static int kink_of(double l, double u, double x, double F)
{
    const int lfin = isfinite(l), ufin = isfinite(u);
    if ((lfin && ufin && l == u) || (!lfin && !ufin))
        return 0;
    if (!ufin)
        return x - l == 0.0 && F == 0.0;
    if (!lfin)
        return u - x == 0.0 && F == 0.0;
    if (u - x == 0.0 && F == 0.0)
        return 2;
    return (x - l == 0.0 && -cdyn_mcp_phi(u - x, -F, 1.0) == 0.0) ? 3 : 0;
}

int cdyn_mcp_fb_kinks(int n, const double *l, const double *u, const double *x, const double *F,
                      double *z)
{
    int count = 0;
    for (int i = 0; i < n; ++i) {
        const int k = kink_of(l[i], u[i], x[i], F[i]) != 0;
        z[i] = k;
        count += k;
    }
    return count;
}

void cdyn_mcp_fb_kink_factors(int n, const double *l, const double *u, const double *x,
                              const double *F, const double *Jz, double *da, double *db)
{
    /* Along x + t z, with z_i = 1 exactly on the kink rows, row i's arguments move by dx_i = 1
       and dF_i = (J z)_i = c. */
    for (int i = 0; i < n; ++i) {
        const int k = kink_of(l[i], u[i], x[i], F[i]);
        if (k == 0)
            continue;
        const double c = Jz[i];
        double pa, pb, qa, qb;
        if (k == 1 && !isfinite(u[i])) {
            /* phi(x - l, F) moves along (1, c). */
            phi_grad_along(1.0, c, &da[i], &db[i]);
        } else if (k == 1) {
            /* -phi(u - x, -F) with (u - x, -F) moving along (-1, -c): d Phi = qa dx + qb dF. */
            phi_grad_along(-1.0, -c, &da[i], &db[i]);
        } else if (k == 2) {
            /* Inner term at its kink, the outer one smooth at (u - l, 0): pa = 0, pb = 1. */
            cdyn_mcp_phi_grad(x[i] - l[i], 0.0, 1.0, &pa, &pb);
            phi_grad_along(-1.0, -c, &qa, &qb);
            da[i] = pa + pb * qa;
            db[i] = pb * qb;
        } else {
            /* Outer term at its kink; the inner one is smooth (u - x = u - l > 0) and moves by
               qa + qb c, so the outer arguments move along (1, qa + qb c). */
            cdyn_mcp_phi_grad(u[i] - x[i], -F[i], 1.0, &qa, &qb);
            phi_grad_along(1.0, qa + qb * c, &pa, &pb);
            da[i] = pa + pb * qa;
            db[i] = pb * qb;
        }
    }
}
