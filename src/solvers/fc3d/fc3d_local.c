/* One contact of the frictional contact problem: the cone projection, the natural map, the
 * Alart–Curnier and Fischer–Burmeister functions with their generalized Jacobians, and the
 * exact one-contact solver of Gauss–Seidel (docs/theory.md, "Frictional contact problems"). */
#include "solvers/fc3d/fc3d_internal.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Strict C11 has no M_PI. */
static const double FC3D_PI = 3.14159265358979323846;
static const double FC3D_SQRT1_2 = 0.70710678118654752440;

void fc3d_project_cone(double mu, double *x)
{
    double nt = hypot(x[1], x[2]);
    /* The polar cone first: with mu = 0 and x_T = 0, nt <= mu x_N would also hold for x_N < 0
       (0 <= -0.0), and a pulling normal reaction would count as inside the cone. */
    if (mu * nt <= -x[0]) {
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    if (nt <= mu * x[0])
        return;
    double a = (x[0] + mu * nt) / (1.0 + mu * mu);
    x[0] = a;
    x[1] *= mu * a / nt;
    x[2] *= mu * a / nt;
}

double fc3d_local_error2(double mu, const double *r, const double *u)
{
    double p[3] = {r[0] - u[0] - mu * hypot(u[1], u[2]), r[1] - u[1], r[2] - u[2]};
    fc3d_project_cone(mu, p);
    double e0 = r[0] - p[0], e1 = r[1] - p[1], e2 = r[2] - p[2];
    return e0 * e0 + e1 * e1 + e2 * e2;
}

void fc3d_rho(const double *Wii, double rho, double *rho_n, double *rho_t)
{
    if (rho > 0.0) {
        *rho_n = *rho_t = rho;
        return;
    }
    /* The split choice: each part of the augmented step is scaled to its own diagonal, so
       rho W_ii is close to the identity on the normal and on the tangential plane. */
    double wn = Wii != NULL ? Wii[0] : 0.0;
    double wt = Wii != NULL ? fmax(Wii[4], Wii[8]) : 0.0;
    double wmax = fmax(wn, wt);
    *rho_n = wn > 1e-12 * wmax && wn > 0.0 ? 1.0 / wn : (wmax > 0.0 ? 1.0 / wmax : 1.0);
    *rho_t = wt > 1e-12 * wmax && wt > 0.0 ? 1.0 / wt : (wmax > 0.0 ? 1.0 / wmax : 1.0);
}

void fc3d_ac(double mu, double rho_n, double rho_t, const double *r, const double *u,
             double *phi, double *A, double *B)
{
    double sn = r[0] - rho_n * u[0];
    double z1 = r[1] - rho_t * u[1], z2 = r[2] - rho_t * u[2];
    double R = sn > 0.0 ? mu * sn : 0.0;
    double nz = hypot(z1, z2);
    if (A != NULL) {
        memset(A, 0, 9 * sizeof *A);
        memset(B, 0, 9 * sizeof *B);
    }
    if (sn > 0.0) {
        phi[0] = rho_n * u[0];
        if (A != NULL)
            B[0] = rho_n;
    } else {
        phi[0] = r[0];
        if (A != NULL)
            A[0] = 1.0;
    }
    if (nz <= R) { /* stick: r_T - z_T = rho_t u_T */
        phi[1] = rho_t * u[1];
        phi[2] = rho_t * u[2];
        if (A != NULL)
            B[4] = B[8] = rho_t;
        return;
    }
    double e1 = z1 / nz, e2 = z2 / nz, c = R / nz;
    phi[1] = r[1] - R * e1;
    phi[2] = r[2] - R * e2;
    if (A == NULL)
        return;
    /* Gamma = c (I - e e^T), the derivative of R z/||z|| in z. */
    double g11 = c * (1.0 - e1 * e1), g12 = -c * e1 * e2, g22 = c * (1.0 - e2 * e2);
    A[4] = 1.0 - g11;
    A[7] = -g12;
    A[5] = -g12;
    A[8] = 1.0 - g22;
    B[4] = rho_t * g11;
    B[7] = rho_t * g12;
    B[5] = rho_t * g12;
    B[8] = rho_t * g22;
    if (sn > 0.0) { /* the radius depends on r_N and u_N */
        A[1] = -mu * e1;
        A[2] = -mu * e2;
        B[1] = mu * rho_n * e1;
        B[2] = mu * rho_n * e2;
    }
}

/* Square root in the Jordan algebra of the Lorentz cone L = {x0 >= ||(x1, x2)||}, z in L. */
static void soc_sqrt(const double *z, double *s)
{
    double nz = hypot(z[1], z[2]);
    double l1 = sqrt(fmax(z[0] - nz, 0.0)), l2 = sqrt(fmax(z[0] + nz, 0.0));
    s[0] = 0.5 * (l1 + l2);
    double f = nz > 0.0 ? 0.5 * (l2 - l1) / nz : 0.0;
    s[1] = f * z[1];
    s[2] = f * z[2];
}

/* D := I - L_s^{-1} L_x D_x (3x3 column-major), L_v the arrow matrix of v. */
static void fb_block(const double *s, const double *x, const double *Dx, double *D)
{
    double Lx[9] = {x[0], x[1], x[2], x[1], x[0], 0.0, x[2], 0.0, x[0]};
    double Ls[9] = {s[0], s[1], s[2], s[1], s[0], 0.0, s[2], 0.0, s[0]};
    double LxD[9];
    for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++)
            LxD[a + 3 * b] = Lx[a] * Dx[3 * b] + Lx[a + 3] * Dx[1 + 3 * b] +
                             Lx[a + 6] * Dx[2 + 3 * b];
    for (int b = 0; b < 3; b++) {
        double col[3] = {LxD[3 * b], LxD[3 * b + 1], LxD[3 * b + 2]};
        if (fc3d_solve3(Ls, col) != 0)
            col[0] = col[1] = col[2] = 0.0;
        for (int a = 0; a < 3; a++)
            D[a + 3 * b] = Dx[a + 3 * b] - col[a];
    }
}

void fc3d_fb(double mu, const double *r, const double *u, double *phi, double *A, double *B)
{
    if (mu == 0.0) { /* the cone is a ray: scalar FB on the normal pair, r_T = 0 */
        double h = hypot(r[0], u[0]);
        phi[0] = r[0] + u[0] - h;
        phi[1] = r[1];
        phi[2] = r[2];
        if (A != NULL) {
            memset(A, 0, 9 * sizeof *A);
            memset(B, 0, 9 * sizeof *B);
            A[0] = 1.0 - (h > 0.0 ? r[0] / h : FC3D_SQRT1_2);
            B[0] = 1.0 - (h > 0.0 ? u[0] / h : FC3D_SQRT1_2);
            A[4] = A[8] = 1.0;
        }
        return;
    }
    double nut = hypot(u[1], u[2]);
    double x[3] = {mu * r[0], r[1], r[2]};
    double y[3] = {u[0] + mu * nut, mu * u[1], mu * u[2]};
    double z[3] = {x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + y[0] * y[0] + y[1] * y[1] +
                       y[2] * y[2],
                   2.0 * (x[0] * x[1] + y[0] * y[1]), 2.0 * (x[0] * x[2] + y[0] * y[2])};
    double s[3];
    soc_sqrt(z, s);
    for (int a = 0; a < 3; a++)
        phi[a] = x[a] + y[a] - s[a];
    if (A == NULL)
        return;
    /* Where x^2 + y^2 is on the boundary of L, L_s is singular and FB is not differentiable:
       the Jacobian is taken at x^2 + y^2 + delta e0, a nearby point of differentiability, with
       delta tiny relative to the data (an element close to the limiting Jacobian). */
    double nzt = hypot(z[1], z[2]);
    double floor0 = 1e-14 * z[0] + DBL_MIN;
    if (z[0] - nzt < floor0) {
        double zj[3] = {z[0] + floor0, z[1], z[2]};
        soc_sqrt(zj, s);
    }
    double t1 = nut > 0.0 ? u[1] / nut : 0.0, t2 = nut > 0.0 ? u[2] / nut : 0.0;
    double Dx[9] = {mu, 0, 0, 0, 1, 0, 0, 0, 1};
    double Dy[9] = {1, 0, 0, mu * t1, mu, 0, mu * t2, 0, mu};
    fb_block(s, x, Dx, A);
    fb_block(s, y, Dy, B);
}

int fc3d_solve3(const double *A, double *b)
{
    double M[3][4];
    double amax = 0.0;
    for (int a = 0; a < 3; a++) {
        for (int c = 0; c < 3; c++) {
            M[a][c] = A[a + 3 * c];
            amax = fmax(amax, fabs(M[a][c]));
        }
        M[a][3] = b[a];
    }
    if (!(amax > 0.0) || !isfinite(amax))
        return 1;
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int a = c + 1; a < 3; a++)
            if (fabs(M[a][c]) > fabs(M[p][c]))
                p = a;
        if (fabs(M[p][c]) <= 1e-14 * amax)
            return 1;
        if (p != c)
            for (int k = 0; k < 4; k++) {
                double t = M[c][k];
                M[c][k] = M[p][k];
                M[p][k] = t;
            }
        for (int a = c + 1; a < 3; a++) {
            double f = M[a][c] / M[c][c];
            for (int k = c; k < 4; k++)
                M[a][k] -= f * M[c][k];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double v = M[c][3];
        for (int k = c + 1; k < 3; k++)
            v -= M[c][k] * b[k];
        b[c] = v / M[c][c];
    }
    return 0;
}

/* ---- the one-contact solver ------------------------------------------------------------- */

static void local_velocity(const double *W, const double *q, const double *r, double *u)
{
    for (int a = 0; a < 3; a++)
        u[a] = q[a] + W[a] * r[0] + W[a + 3] * r[1] + W[a + 6] * r[2];
}

static double local_error2(const double *W, const double *q, double mu, const double *r)
{
    double u[3];
    local_velocity(W, q, r, u);
    return fc3d_local_error2(mu, r, u);
}

/* The one-contact answer is exact to rounding: the natural map mixes reactions and velocities,
 * whose scales differ by W's (1e6 on the Rover problems), so its error is compared with the
 * largest of |q|, |r| and |u|. */
static int local_converged(double mu, const double *q, const double *r, const double *u,
                           double rel)
{
    double scale = fmax(fmax(hypot(q[0], hypot(q[1], q[2])), hypot(r[0], hypot(r[1], r[2]))),
                        hypot(u[0], hypot(u[1], u[2])));
    double tol = rel * scale;
    return fc3d_local_error2(mu, r, u) <= tol * tol;
}

#define LOCAL_REL 1e-13

/* Damped Newton on the Alart–Curnier function of one contact. Nonzero if it did not converge
 * (local_converged). */
static int local_newton(const double *W, const double *q, double mu, double *r)
{
    double rho_n, rho_t;
    fc3d_rho(W, 0.0, &rho_n, &rho_t);
    double u[3], phi[3], A[9], B[9], H[9];
    for (int it = 0; it < 30; it++) {
        local_velocity(W, q, r, u);
        if (local_converged(mu, q, r, u, LOCAL_REL))
            return 0;
        fc3d_ac(mu, rho_n, rho_t, r, u, phi, A, B);
        double m0 = phi[0] * phi[0] + phi[1] * phi[1] + phi[2] * phi[2];
        for (int b = 0; b < 3; b++)
            for (int a = 0; a < 3; a++)
                H[a + 3 * b] = A[a + 3 * b] + B[a] * W[3 * b] + B[a + 3] * W[1 + 3 * b] +
                               B[a + 6] * W[2 + 3 * b];
        double d[3] = {-phi[0], -phi[1], -phi[2]};
        if (fc3d_solve3(H, d) != 0)
            return 1;
        double t = 1.0;
        int accepted = 0;
        for (int ls = 0; ls < 20 && !accepted; ls++, t *= 0.5) {
            double rt[3] = {r[0] + t * d[0], r[1] + t * d[1], r[2] + t * d[2]}, ut[3], pt[3];
            local_velocity(W, q, rt, ut);
            fc3d_ac(mu, rho_n, rho_t, rt, ut, pt, NULL, NULL);
            if (pt[0] * pt[0] + pt[1] * pt[1] + pt[2] * pt[2] <= (1.0 - 1e-4 * t) * m0) {
                memcpy(r, rt, sizeof rt);
                accepted = 1;
            }
        }
        if (!accepted)
            return 1;
    }
    local_velocity(W, q, r, u);
    return local_converged(mu, q, r, u, LOCAL_REL) ? 0 : 1;
}

/* Keep x in best when its error is smaller. */
static void consider(const double *W, const double *q, double mu, const double *x, double *best,
                     double *best_e2)
{
    if (fc3d_vec_bad(3, x))
        return;
    double e2 = local_error2(W, q, mu, x);
    if (e2 < *best_e2) {
        *best_e2 = e2;
        memcpy(best, x, 3 * sizeof *x);
    }
}

/* Sliding reaction r = rho (1, -mu cos th, -mu sin th) with u_N = 0; sets *ok when rho > 0. */
static double slip_gap(const double *W, const double *q, double mu, double th, double *r,
                       int *ok)
{
    double c = cos(th), s = sin(th);
    double d[3] = {1.0, -mu * c, -mu * s};
    double wn = W[0] * d[0] + W[3] * d[1] + W[6] * d[2];
    double rho = -q[0] / wn;
    *ok = isfinite(rho) && rho > 0.0;
    for (int a = 0; a < 3; a++)
        r[a] = rho * d[a];
    double u[3];
    local_velocity(W, q, r, u);
    return -u[1] * s + u[2] * c; /* zero when u_T is parallel to (cos th, sin th) */
}

/* Enumeration: take-off, stick, and slip directions found by a sampled sign search on the
 * angle followed by bisection. The candidate with the smallest natural-map error wins. */
static void local_enumerate(const double *W, const double *q, double mu, double *best,
                            double *best_e2)
{
    double zero[3] = {0.0, 0.0, 0.0};
    consider(W, q, mu, zero, best, best_e2);
    double stick[3] = {-q[0], -q[1], -q[2]};
    if (fc3d_solve3(W, stick) == 0)
        consider(W, q, mu, stick, best, best_e2);
    if (!(mu > 0.0) || !(q[0] < 0.0))
        return;
    enum { NS = 72 };
    double prev_g = 0.0, prev_th = 0.0, r[3];
    int prev_ok = 0;
    for (int k = 0; k <= NS; k++) {
        double th = 2.0 * FC3D_PI * k / NS;
        int ok;
        double g = slip_gap(W, q, mu, th, r, &ok);
        if (ok && prev_ok && (g == 0.0 || (g > 0.0) != (prev_g > 0.0))) {
            double lo = prev_th, hi = th, glo = prev_g;
            for (int it = 0; it < 60; it++) {
                double mid = 0.5 * (lo + hi);
                int okm;
                double gm = slip_gap(W, q, mu, mid, r, &okm);
                if (!okm)
                    break;
                if ((gm > 0.0) == (glo > 0.0)) {
                    lo = mid;
                    glo = gm;
                } else {
                    hi = mid;
                }
            }
            slip_gap(W, q, mu, 0.5 * (lo + hi), r, &ok);
            if (ok)
                consider(W, q, mu, r, best, best_e2);
        }
        prev_g = g;
        prev_th = th;
        prev_ok = ok;
    }
}

int fc3d_local_solve(const double *W, const double *q, double mu, cdyn_fc3d_local mode,
                     double *r)
{
    if (!(W[0] > 0.0))
        return 2;
    double best[3], best_e2, u[3];
    memcpy(best, r, sizeof best);
    best_e2 = local_error2(W, q, mu, r);
    local_velocity(W, q, r, u);
    if (local_converged(mu, q, r, u, LOCAL_REL))
        return 0;
    if (mode != CDYN_FC3D_LOCAL_ENUM) {
        double x[3];
        memcpy(x, r, sizeof x);
        int fail = local_newton(W, q, mu, x);
        consider(W, q, mu, x, best, &best_e2);
        if (!fail) {
            memcpy(r, best, sizeof best);
            return 0;
        }
        if (mode == CDYN_FC3D_LOCAL_NEWTON) {
            memcpy(r, best, sizeof best);
            return 1;
        }
    }
    local_enumerate(W, q, mu, best, &best_e2);
    /* Polish the enumeration's answer (bisection leaves about 1e-16 in the angle). */
    double x[3];
    memcpy(x, best, sizeof x);
    local_newton(W, q, mu, x);
    consider(W, q, mu, x, best, &best_e2);
    memcpy(r, best, sizeof best);
    local_velocity(W, q, r, u);
    return local_converged(mu, q, r, u, 1e-11) ? 0 : 1;
}
