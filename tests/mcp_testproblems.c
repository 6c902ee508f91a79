/* Shared MCP test problems (declared in mcp_testproblems.h): classic nonlinear complementarity
 * problems with known solutions, and a KKT system with every kind of bound. Every expected
 * value comes from the cited source or is derived by hand in the comment next to it.
 *
 * Sources
 * [KS]   M. Kojima, S. Shindo, "Extensions of Newton and quasi-Newton methods to systems of PC^1
 *        equations", J. Oper. Res. Soc. Japan 29 (1986) 352-374; as stated in MCPLIB (model
 *        kojshin) and in the AMPL model netlib/ampl/models/compl/kojshin.mod.
 * [DF]   S. P. Dirkse, M. C. Ferris, "MCPLIB: a collection of nonlinear mixed complementarity
 *        problems", Optim. Methods Softw. 5 (1995) 319-345 (kojshin, josephy, mathisum, nash).
 * [JO]   N. H. Josephy, "Newton's method for generalized equations", MRC Tech. Rep. 1965,
 *        Univ. of Wisconsin (1979); the Kojima-type example as given in [DF] (josephy). Its
 *        solution (sqrt(6)/2, 0, 0, 1/2) is checked by hand: F there is (0, 1 + sqrt(6)/2, 5,
 *        0), complementary to x.
 * [MA]   L. Mathiesen, "An algorithm based on a sequence of linear complementarity problems
 *        applied to a Walrasian equilibrium model: an example", Math. Program. 37 (1987) 1-18:
 *        one activity y, three goods with prices p, technology (1, -1, -1), budget shares
 *        (0.9, 0.1, 0), endowments (0, 5, 3); equilibrium y = 3, p = (6, 1, 5) up to scaling
 *        (as quoted by the GAMS EMP library model mopec_mathiesen).
 * [MMA]  The "modified Mathiesen" NCP with denominators x2 + 1 and x3 + 1 (defined at the
 *        boundary), a standard test problem of the semismooth-Newton literature (e.g. T. De
 *        Luca, F. Facchinei, C. Kanzow, Math. Program. 75 (1996) 407-439); its solution set
 *        {(a,0,0,0): 0 <= a <= 3} is re-derived below.
 * [NC]   F. H. Murphy, H. D. Sherali, A. L. Soyster, "A mathematical programming approach for
 *        determining oligopolistic market equilibrium", Math. Program. 24 (1982) 92-106; five
 *        firms, data as in [DF] (nash) and P. T. Harker, Math. Program. 41 (1988) 29-59;
 *        equilibrium q = (36.933, 41.818, 43.707, 42.659, 39.179).
 * [BI]   S. C. Billups, "Algorithms for complementarity problems and generalized equations",
 *        PhD thesis, Univ. of Wisconsin (1995); his one-dimensional example is the NCP with
 *        F(x) = (x - 1)^2 - 1.01 (test_mcp_global.c). M. J. Miranda, P. L. Fackler, "Applied
 *        Computational Economics and Finance", MIT Press (2002), Sec. 3.7 (CompEcon demo
 *        demslv09) write it as f(x) = 1.01 - (1 - x)^2 in their convention f = -F; the problem
 *        "billups-flipped" here takes that f as F, an easier NCP with two solutions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_testproblems.h"

/* ---- Kojima–Shindo [KS]: two solutions, the second one degenerate (x3 = F3 = 0). ---------- */

int tp_ks_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = 3 * x[0] * x[0] + 2 * x[0] * x[1] + 2 * x[1] * x[1] + x[2] + 3 * x[3] - 6;
    F[1] = 2 * x[0] * x[0] + x[0] + x[1] * x[1] + 10 * x[2] + 2 * x[3] - 2;
    F[2] = 3 * x[0] * x[0] + x[0] * x[1] + 2 * x[1] * x[1] + 2 * x[2] + 9 * x[3] - 9;
    F[3] = x[0] * x[0] + 3 * x[1] * x[1] + 2 * x[2] + 3 * x[3] - 3;
    return 0;
}

#define JS(i, j, v) J[(i) + 4 * (j)] = (v)

int tp_ks_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    JS(0, 0, 6 * x[0] + 2 * x[1]), JS(0, 1, 2 * x[0] + 4 * x[1]), JS(0, 2, 1), JS(0, 3, 3);
    JS(1, 0, 4 * x[0] + 1), JS(1, 1, 2 * x[1]), JS(1, 2, 10), JS(1, 3, 2);
    JS(2, 0, 6 * x[0] + x[1]), JS(2, 1, x[0] + 4 * x[1]), JS(2, 2, 2), JS(2, 3, 9);
    JS(3, 0, 2 * x[0]), JS(3, 1, 6 * x[1]), JS(3, 2, 2), JS(3, 3, 3);
    return 0;
}

double tp_dist_to(const double *x, const double *s, int n)
{
    double d = 0.0;
    for (int i = 0; i < n; ++i)
        d = fmax(d, fabs(x[i] - s[i]));
    return d;
}

const double TP_KS_SOL1[4] = {1.0, 0.0, 3.0, 0.0};
#define SQRT6_2 1.2247448713915890491 /* sqrt(6)/2 */
const double TP_KS_SOL2[4] = {SQRT6_2, 0.0, 0.0, 0.5};

static double ks_distance(const double *x)
{
    return fmin(tp_dist_to(x, TP_KS_SOL1, 4), tp_dist_to(x, TP_KS_SOL2, 4));
}

/* ---- Josephy [JO]: the Kojima–Shindo map with F2, F3 changed; solution (sqrt(6)/2,0,0,1/2). */

static int jo_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = 3 * x[0] * x[0] + 2 * x[0] * x[1] + 2 * x[1] * x[1] + x[2] + 3 * x[3] - 6;
    F[1] = 2 * x[0] * x[0] + x[0] + x[1] * x[1] + 3 * x[2] + 2 * x[3] - 2;
    F[2] = 3 * x[0] * x[0] + x[0] * x[1] + 2 * x[1] * x[1] + 2 * x[2] + 3 * x[3] - 1;
    F[3] = x[0] * x[0] + 3 * x[1] * x[1] + 2 * x[2] + 3 * x[3] - 3;
    return 0;
}

static int jo_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    JS(0, 0, 6 * x[0] + 2 * x[1]), JS(0, 1, 2 * x[0] + 4 * x[1]), JS(0, 2, 1), JS(0, 3, 3);
    JS(1, 0, 4 * x[0] + 1), JS(1, 1, 2 * x[1]), JS(1, 2, 3), JS(1, 3, 2);
    JS(2, 0, 6 * x[0] + x[1]), JS(2, 1, x[0] + 4 * x[1]), JS(2, 2, 2), JS(2, 3, 3);
    JS(3, 0, 2 * x[0]), JS(3, 1, 6 * x[1]), JS(3, 2, 2), JS(3, 3, 3);
    return 0;
}

static double jo_distance(const double *x) { return tp_dist_to(x, TP_KS_SOL2, 4); }

/* ---- Modified Mathiesen [MMA] ---------------------------------------------------------------
 * F = (-x2 + x3 + x4, x1 - (4.5 x3 + 2.7 x4)/(x2 + 1), 5 - x1 - (0.5 x3 + 0.3 x4)/(x3 + 1),
 *      3 - x1). Solution set, derived by hand: F4 >= 0 forces x1 <= 3. If x1 < 3 then x4 = 0;
 * x1 > 0 gives F1 = 0, x2 = x3, and F3 > 5 - 3 - 0.5 > 0 gives x3 = x2 = 0; x1 = 0 gives
 * F2 = -4.5 x3/(x2+1) >= 0, so x3 = 0 and F1 = -x2 >= 0, x2 = 0. If x1 = 3: F1 = 0 so
 * x2 = x3 + x4; x3 > 0 would need F3 = 0 and F2 = 0, which together give 18 = 23; so x3 = 0,
 * and x4 > 0 would need F2 = 3 - 2.7 x4/(x4 + 1) = 0, impossible. Hence x = (a, 0, 0, 0) with
 * 0 <= a <= 3, and every such point is a solution. The map is undefined at x2 = -1 or
 * x3 = -1, where the callback reports failure. */

static int mm_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    if (x[1] <= -1.0 || x[2] <= -1.0)
        return 1;
    F[0] = -x[1] + x[2] + x[3];
    F[1] = x[0] - (4.5 * x[2] + 2.7 * x[3]) / (x[1] + 1);
    F[2] = 5 - x[0] - (0.5 * x[2] + 0.3 * x[3]) / (x[2] + 1);
    F[3] = 3 - x[0];
    return 0;
}

static int mm_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    if (x[1] <= -1.0 || x[2] <= -1.0)
        return 1;
    const double a = x[1] + 1, b = x[2] + 1, num2 = 4.5 * x[2] + 2.7 * x[3];
    memset(J, 0, 16 * sizeof(double));
    JS(0, 1, -1), JS(0, 2, 1), JS(0, 3, 1);
    JS(1, 0, 1), JS(1, 1, num2 / (a * a)), JS(1, 2, -4.5 / a), JS(1, 3, -2.7 / a);
    /* d/dx3 of (0.5 x3 + 0.3 x4)/(x3 + 1) = (0.5 - 0.3 x4)/(x3 + 1)^2. */
    JS(2, 0, -1), JS(2, 2, -(0.5 - 0.3 * x[3]) / (b * b)), JS(2, 3, -0.3 / b);
    JS(3, 0, -1);
    return 0;
}

static double mm_distance(const double *x)
{
    const double off = fmax(fabs(x[1]), fmax(fabs(x[2]), fabs(x[3])));
    const double out = fmax(0.0, fmax(-x[0], x[0] - 3.0));
    return fmax(off, out);
}

/* ---- Mathiesen's Walrasian model [MA], unknowns (y, p1, p2, p3) -------------------------------
 * zero profit: F1 = -p1 + p2 + p3 (>= 0, complementary to y);
 * excess supply of good 1: F2 = y - 0.9 (5 p2 + 3 p3)/p1, good 2: F3 = 5 - y - 0.1 (5 p2 +
 * 3 p3)/p2, good 3: F4 = 3 - y (budget share 0). Demand needs positive prices: the callback
 * fails for p1 <= 0 or p2 <= 0. Prices are only determined up to scale, and along the ray of
 * equilibria p -> 0 leads out of F's domain (an unnormalized solve can drift there while the
 * residual shrinks), so we fix the numeraire p1 = 6 with the bounds l = u = 6 (a fixed
 * variable; its F2 is then dropped, as Walras' law makes it redundant). By hand: y = 0 would
 * give p3 = 0 (F4 = 3 > 0) and then p2 = 0 (F3 = 4.5 > 0), outside the domain; so F1 = 0,
 * p2 + p3 = 6; p3 = 0 would need y = 4.5 from F3 = 0, violating F4 >= 0; so y = 3 and F3 = 0
 * gives p3 = 5 p2: the unique solution (3, 6, 1, 5), Mathiesen's y = 3, p = (6, 1, 5) [MA]. */

static int wa_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    if (!(x[1] > 0.0 && x[2] > 0.0))
        return 1;
    const double income = 5 * x[2] + 3 * x[3];
    F[0] = -x[1] + x[2] + x[3];
    F[1] = x[0] - 0.9 * income / x[1];
    F[2] = 5 - x[0] - 0.1 * income / x[2];
    F[3] = 3 - x[0];
    return 0;
}

static int wa_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    if (!(x[1] > 0.0 && x[2] > 0.0))
        return 1;
    const double income = 5 * x[2] + 3 * x[3];
    memset(J, 0, 16 * sizeof(double));
    JS(0, 1, -1), JS(0, 2, 1), JS(0, 3, 1);
    JS(1, 0, 1), JS(1, 1, 0.9 * income / (x[1] * x[1])), JS(1, 2, -4.5 / x[1]);
    JS(1, 3, -2.7 / x[1]);
    /* d/dp2 of 0.1 (5 p2 + 3 p3)/p2 = -0.3 p3 / p2^2. */
    JS(2, 0, -1), JS(2, 2, 0.3 * x[3] / (x[2] * x[2])), JS(2, 3, -0.3 / x[2]);
    JS(3, 0, -1);
    return 0;
}

static const double WA_LOWER[4] = {0, 6, 0, 0};
static const double WA_UPPER[4] = {INFINITY, 6, INFINITY, INFINITY};

static double wa_distance(const double *x)
{
    const double s[4] = {3.0, 6.0, 1.0, 5.0};
    return tp_dist_to(x, s, 4);
}

/* ---- Nash–Cournot oligopoly [NC], five firms ----------------------------------------------
 * Firm i maximizes q_i p(Q) - f_i(q_i) with p(Q) = 5000^(1/g) Q^(-1/g), g = 1.1 and
 * f_i(q) = c_i q + b_i/(b_i + 1) K_i^(-1/b_i) q^((b_i+1)/b_i); the NCP is F_i = f_i'(q_i) -
 * p(Q) - q_i p'(Q) >= 0, q_i >= 0. The callback fails for q_i < 0 or Q <= 0 (real powers). */

static const double NC_C[5] = {10, 8, 6, 4, 2};
static const double NC_K[5] = {5, 5, 5, 5, 5};
static const double NC_B[5] = {1.2, 1.1, 1.0, 0.9, 0.8};
#define NC_G 1.1
/* Published equilibrium [NC], 3 decimals. */
static const double NC_SOL[5] = {36.933, 41.818, 43.707, 42.659, 39.179};

static int nc_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    double Q = 0.0;
    for (int i = 0; i < 5; ++i) {
        if (x[i] < 0.0)
            return 1;
        Q += x[i];
    }
    if (!(Q > 0.0))
        return 1;
    const double p = pow(5000.0, 1.0 / NC_G) * pow(Q, -1.0 / NC_G);
    const double dp = -p / (NC_G * Q);
    for (int i = 0; i < 5; ++i)
        F[i] = NC_C[i] + pow(x[i] / NC_K[i], 1.0 / NC_B[i]) - p - x[i] * dp;
    return 0;
}

static int nc_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    double Q = 0.0;
    for (int i = 0; i < 5; ++i) {
        if (x[i] < 0.0)
            return 1;
        Q += x[i];
    }
    if (!(Q > 0.0))
        return 1;
    const double p = pow(5000.0, 1.0 / NC_G) * pow(Q, -1.0 / NC_G);
    const double dp = -p / (NC_G * Q);
    const double ddp = -(1.0 / NC_G + 1.0) * dp / Q; /* p'' for p = k Q^(-1/g) */
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) {
            double v = -dp - x[i] * ddp;
            if (i == j) {
                v -= dp;
                /* d/dq of (q/K)^(1/b) = (1/(b K)) (q/K)^(1/b - 1); at q = 0 with b > 1 this is
                   infinite, which the tests' starting points avoid. */
                v += pow(x[i] / NC_K[i], 1.0 / NC_B[i] - 1.0) / (NC_B[i] * NC_K[i]);
            }
            J[i + 5 * j] = v;
        }
    return 0;
}

static double nc_distance(const double *x) { return tp_dist_to(x, NC_SOL, 5); }

/* ---- Billups' example with the sign flipped [BI]: F(x) = 1.01 - (1 - x)^2, x >= 0. Solutions:
 * x = 0 (F(0) = 0.01 >= 0) and F = 0 at x = 1 + sqrt(1.01) (the other root 1 - sqrt(1.01) is
 * negative). F is not monotone (F' < 0 for x > 1). */

static int bi_F(void *ctx, const double *x, double *F)
{
    (void)ctx;
    F[0] = 1.01 - (1.0 - x[0]) * (1.0 - x[0]);
    return 0;
}

static int bi_J(void *ctx, const double *x, double *J)
{
    (void)ctx;
    J[0] = 2.0 * (1.0 - x[0]);
    return 0;
}

static double bi_distance(const double *x)
{
    return fmin(fabs(x[0]), fabs(x[0] - (1.0 + sqrt(1.01))));
}

/* clang-format off */
const tp_problem TP_PROBLEMS[] = {
    {"kojima-shindo", 4, tp_ks_F, tp_ks_J, NULL, NULL, {{0, 0, 0, 0}, {1, 1, 1, 1}}, ks_distance,
     1e-7, 0},
    {"josephy", 4, jo_F, jo_J, NULL, NULL, {{0, 0, 0, 0}, {1, 1, 1, 1}}, jo_distance, 1e-7, 1},
    {"mathiesen-modified", 4, mm_F, mm_J, NULL, NULL, {{1, 1, 1, 1}, {5, 5, 5, 5}}, mm_distance,
     1e-7, 0},
    {"mathiesen-walras", 4, wa_F, wa_J, WA_LOWER, WA_UPPER, {{1, 1, 1, 1}, {5, 6, 2, 2}},
     wa_distance, 1e-7, 1},
    {"nash-cournot", 5, nc_F, nc_J, NULL, NULL, {{10, 10, 10, 10, 10}, {1, 1, 1, 1, 1}},
     nc_distance, 5e-4, 1},
    {"billups-flipped", 1, bi_F, bi_J, NULL, NULL, {{3}, {0.5}}, bi_distance, 1e-7, 0},
};
/* clang-format on */
const int TP_NPROB = (int)(sizeof TP_PROBLEMS / sizeof TP_PROBLEMS[0]);

/* ---- KKT system (tp_kkt) ---------------------------------------------------------------------
 * An MCP with free variables, finite two-sided, one-sided and fixed bounds: the KKT system of
 *     minimize 1/2 x'Qx + 0.025 sum x_i^4 + c'x  subject to  A x = b,  l <= x <= u
 * with multipliers y (free) for A x = b:
 *     F_x = Q x + 0.1 x^3 + c - A'y  complementary to  l <= x <= u,
 *     F_y = A x - b                  complementary to  y free.
 * Manufactured solution: we choose x*, y* and the signs of F_x(x*) per bound type, then set
 * c = F_x(x*) - Q x* - 0.1 x*^3 + A'y* and b = A x*. The objective is strictly convex, so x* is
 * the unique minimizer; the variables strictly inside their bounds (2 and 3) see the 2-by-2
 * block A[:, {2,3}] of determinant -3, so y* is unique too. */

static const double A[TP_KKT_NY][TP_KKT_NX] = {{1, 0, 2, 1, 0, 1}, {0, 1, 1, -1, 1, 0}};
#define INF INFINITY
enum { NX = TP_KKT_NX, NY = TP_KKT_NY, N = TP_KKT_N };
/* x0: NCP at its bound; x1: box [-1, 1] at u; x2: box [-1, 2] inside; x3: free; x4: fixed at
   0.5; x5: upper bound only, at u = 2; y0, y1 free. */
const double TP_KKT_LO[N] = {0, -1, -1, -INF, 0.5, -INF, -INF, -INF};
const double TP_KKT_UP[N] = {INF, 1, 2, INF, 0.5, 2, INF, INF};
const double TP_KKT_XSTAR[N] = {0, 1, 0.3, -0.8, 0.5, 2, 0.7, -1.3};
const double TP_KKT_STARTS[2][N] = {{0, 0, 0, 0, 0, 0, 0, 0}, {3, -2, 5, 4, -1, -3, 2, 2}};
/* F_x(x*) by bound type: > 0 at a lower bound, < 0 at an upper bound, 0 inside or free,
   anything at a fixed variable. */
static const double FSTAR[NX] = {0.8, -0.6, 0, 0, 2.5, -0.4};

static double Qx(const double *x, int i)
{
    /* Q = tridiag(-1, 3, -1), symmetric positive definite (diagonally dominant) */
    double s = 3.0 * x[i];
    if (i > 0)
        s -= x[i - 1];
    if (i < NX - 1)
        s -= x[i + 1];
    return s;
}

/* Entry (i, j) of the Jacobian. */
static double kkt_Jij(const double *z, int i, int j)
{
    if (i < NX && j < NX) {
        if (i == j)
            return 3.0 + 0.3 * z[i] * z[i];
        return abs(i - j) == 1 ? -1.0 : 0.0;
    }
    if (i < NX && j >= NX)
        return -A[j - NX][i];
    if (i >= NX && j < NX)
        return A[i - NX][j];
    return 0.0;
}

void tp_kkt_init(tp_kkt *k)
{
    for (int i = 0; i < NX; ++i) {
        double aty = 0.0;
        for (int r = 0; r < NY; ++r)
            aty += A[r][i] * TP_KKT_XSTAR[NX + r];
        k->c[i] = FSTAR[i] - Qx(TP_KKT_XSTAR, i) - 0.1 * pow(TP_KKT_XSTAR[i], 3) + aty;
    }
    for (int r = 0; r < NY; ++r) {
        k->b[r] = 0.0;
        for (int i = 0; i < NX; ++i)
            k->b[r] += A[r][i] * TP_KKT_XSTAR[i];
    }
    /* Pattern: the structural nonzeros, found by probing at a point where none vanishes by
       accident. */
    const double probe[N] = {1, 1, 1, 1, 1, 1, 1, 1};
    int nz = 0;
    for (int j = 0; j < N; ++j) {
        k->colptr[j] = nz;
        for (int i = 0; i < N; ++i)
            if (kkt_Jij(probe, i, j) != 0.0)
                k->rowind[nz++] = i;
    }
    k->colptr[N] = nz;
}

int tp_kkt_F(void *ctx, const double *z, double *F)
{
    const tp_kkt *k = ctx;
    for (int i = 0; i < NX; ++i) {
        double aty = 0.0;
        for (int r = 0; r < NY; ++r)
            aty += A[r][i] * z[NX + r];
        F[i] = Qx(z, i) + 0.1 * z[i] * z[i] * z[i] + k->c[i] - aty;
    }
    for (int r = 0; r < NY; ++r) {
        F[NX + r] = -k->b[r];
        for (int i = 0; i < NX; ++i)
            F[NX + r] += A[r][i] * z[i];
    }
    return 0;
}

int tp_kkt_J(void *ctx, const double *z, double *J)
{
    (void)ctx;
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < N; ++i)
            J[i + N * j] = kkt_Jij(z, i, j);
    return 0;
}

int tp_kkt_J_sparse(void *ctx, const double *z, double *vals)
{
    const tp_kkt *k = ctx;
    for (int j = 0; j < N; ++j)
        for (int p = k->colptr[j]; p < k->colptr[j + 1]; ++p)
            vals[p] = kkt_Jij(z, k->rowind[p], j);
    return 0;
}

/* ---- Linear NCP with failure switches ------------------------------------------------------ */

static int bad(int kind, double *v, int n)
{
    for (int i = 0; i < n; ++i)
        v[i] = kind == 1 ? NAN : kind == 2 ? INFINITY : 0.0;
    return kind == 3;
}

int tp_lin_F(void *ctx, const double *x, double *F)
{
    tp_ctl *c = ctx;
    if (c != NULL && c->f_bad_kind && c->calls++ >= c->f_bad_from)
        return bad(c->f_bad_kind, F, 2);
    F[0] = x[0] - 1.0;
    F[1] = 2.0 * x[1] - 1.0;
    return 0;
}

int tp_lin_J(void *ctx, const double *x, double *J)
{
    (void)x;
    tp_ctl *c = ctx;
    if (c != NULL && c->j_bad_kind && c->jcalls++ >= c->j_bad_from)
        return bad(c->j_bad_kind, J, 4);
    J[0] = 1, J[1] = 0, J[2] = 0, J[3] = 2;
    return 0;
}

const int TP_DIAG_COLPTR[3] = {0, 1, 2};
const int TP_DIAG_ROWIND[2] = {0, 1};

int tp_lin_J_sparse(void *ctx, const double *x, double *v)
{
    (void)ctx, (void)x;
    v[0] = 1, v[1] = 2;
    return 0;
}

cdyn_mcp tp_lin_problem(tp_ctl *c)
{
    cdyn_mcp p;
    memset(&p, 0, sizeof p);
    p.n = 2;
    p.F = tp_lin_F;
    p.jac = tp_lin_J;
    p.ctx = c;
    return p;
}
