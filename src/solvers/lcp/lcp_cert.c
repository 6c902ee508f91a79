/* The certificate behind every CDYN_OK of the LCP solvers, and the cheap proofs that an LCP has
 * no feasible point. Both read only the problem's data and the answer: nothing of the method
 * that produced it (DESIGN.md, "OK means certified").
 *
 * Certificate. For the answer z, with z+ = max(z, 0) the point handed out, w = M z+ + q and
 * s_i = |q_i| + sum_j |M_ij z+_j| (the size of the terms of w_i), every row must satisfy
 *     z_i >= -tol s_i,    w_i >= -tol s_i,    |min(z+_i, w_i)| <= tol s_i.
 * The test is componentwise and scales with the data of each row, not with the answer's own
 * norm: a huge wrong z no longer raises its own tolerance (issue 18). w and s are accumulated in
 * long double (x86: 64-bit significand), so the rounding of computing w_i, about n 2^-64 s_i,
 * stays far below any tolerance a caller can ask for (tol >= 0 is allowed, but tol = 0 accepts
 * only answers whose w comes out exact).
 *
 * Proofs of infeasibility. The LCP has no feasible point (z >= 0 with M z + q >= 0) when some
 * y >= 0 has y^T M <= 0 and y^T q < 0 (Farkas): y^T (M z + q) < 0 for every z >= 0. The row
 * test is y = e_i (q_i < 0 and row i of M <= 0), exact by signs alone; for a general y (from
 * Lemke's ray) the sums are bounded with their rounding errors, so a certificate that passes is
 * a proof in exact arithmetic.
 *
 * Rounding noise. A degenerate basic z_j (0 in exact arithmetic) comes out of a solve as, say,
 * 1e-29 next to entries of order 1; in a row whose only term it is, w_i = -s_i, a violation of
 * 100 % of that row's scale. Setting such entries to 0 is the cure (cdyn_lcp_certify_clean),
 * and the cleaned point is certified like any other. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "solvers/lcp/lcp_internal.h"

/* Rows accumulated together, so that M is read by columns (column-major). */
#define CERT_ROWS 32
/* Entries of an answer below CERT_CLEAN (n + 1) eps ||z||_inf are rounding noise of a solve (a
 * degenerate basic variable that is 0 in exact arithmetic comes out as 1e-29, and a row whose
 * only term it is then has w_i = -1e-29 = -s_i). cdyn_lcp_certify_clean retries with them set to
 * 0; the certificate is on the point handed out, so this only ever replaces one point by a
 * better one. */
#define CERT_CLEAN 16.0
/* Below that bound the noise of a degenerate basic variable can be far smaller still (1e-33 next
 * to genuine small values of 1e-14 in the same answer, from a problem whose rows span many
 * decades): zeroing everything below the bound then spoils the genuine ones. So the magnitudes
 * below it are sorted and each gap of CLEAN_GAP or more between consecutive ones is tried as a
 * threshold too (at most CLEAN_LEVELS thresholds in all). Every cleaned point is certified in
 * full; the best one is kept. */
#define CLEAN_GAP 1e4
#define CLEAN_LEVELS 8

double cdyn_lcp_certify_ex(const cdyn_lcp *lcp, const double *z, double tol, double *zo,
                           double *wo, double *nat, int *flags)
{
    const int n = lcp->n;
    const double *M = lcp->M, *q = lcp->q;
    double worst = 0.0, natural = 0.0;
    int finite = 1;
    for (int j = 0; j < n; ++j) {
        finite &= isfinite(z[j]) != 0;
        zo[j] = z[j] > 0.0 ? z[j] : 0.0;
    }
    for (int i0 = 0; i0 < n; i0 += CERT_ROWS) {
        const int m = n - i0 < CERT_ROWS ? n - i0 : CERT_ROWS;
        long double w[CERT_ROWS], s[CERT_ROWS];
        for (int a = 0; a < m; ++a) {
            w[a] = q[i0 + a];
            s[a] = fabs(q[i0 + a]);
        }
        for (int j = 0; j < n; ++j) {
            const long double zj = zo[j];
            if (zj == 0.0L)
                continue; /* adds exactly nothing (M is finite) */
            const double *col = M + i0 + (size_t)j * n;
            for (int a = 0; a < m; ++a) {
                const long double t = col[a] * zj;
                w[a] += t;
                s[a] += fabsl(t);
            }
        }
        for (int a = 0; a < m; ++a) {
            /* The tests in long double: w_i and s_i may lie below the double range (products
               of 1e-300 and 1e-210), where rounding them first would pass w_i < 0 as -0. */
            const int i = i0 + a;
            const long double wi = w[a], si = s[a];
            finite &= isfinite((double)wi) && isfinite((double)si);
            /* the largest violation of the three conditions, in units of s_i */
            long double v = -(long double)z[i];
            v = -wi > v ? -wi : v;
            if (flags != NULL)
                flags[i] = v > tol * si || !(v == v);
            const long double c = fabsl(zo[i] < wi ? (long double)zo[i] : wi);
            v = c > v ? c : v;
            natural = (double)c > natural ? (double)c : natural;
            double ratio = 0.0;
            if (v > 0.0L)
                ratio = si > 0.0L ? (double)(v / si) : INFINITY;
            worst = ratio > worst ? ratio : worst;
            wo[i] = wi < 0.0L && wi >= -tol * si ? 0.0 : (double)wi;
        }
    }
    if (nat != NULL)
        *nat = finite ? natural : NAN;
    return finite ? worst : NAN;
}

double cdyn_lcp_certify(const cdyn_lcp *lcp, const double *z, double tol, double *zo, double *wo,
                        double *nat)
{
    return cdyn_lcp_certify_ex(lcp, z, tol, zo, wo, nat, NULL);
}

static int cmp_desc(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* zc := z with its entries of magnitude <= thr set to 0; returns whether any was. */
static int clean_below(int n, const double *z, double thr, double *zc)
{
    int changed = 0;
    for (int j = 0; j < n; ++j) {
        const int tiny = z[j] != 0.0 && fabs(z[j]) <= thr;
        zc[j] = tiny ? 0.0 : z[j];
        changed |= tiny;
    }
    return changed;
}

double cdyn_lcp_certify_clean(const cdyn_lcp *lcp, const double *z, double tol, double *zc,
                              double *zo, double *wo, double *nat, int *flags)
{
    const int n = lcp->n;
    const double ratio = cdyn_lcp_certify_ex(lcp, z, tol, zo, wo, nat, flags);
    if (ratio <= tol || !isfinite(ratio))
        return ratio;
    double zmax = 0.0;
    for (int j = 0; j < n; ++j)
        zmax = fabs(z[j]) > zmax ? fabs(z[j]) : zmax;
    /* The thresholds tried: the bound on rounding noise, then each gap of CLEAN_GAP or more
       among the magnitudes below it (largest first), just below the gap. */
    double thr[CLEAN_LEVELS];
    int nthr = 0;
    thr[nthr++] = CERT_CLEAN * (n + 1) * DBL_EPSILON * zmax;
    int m = 0;
    for (int j = 0; j < n; ++j)
        if (z[j] != 0.0 && fabs(z[j]) <= thr[0])
            zc[m++] = fabs(z[j]);
    if (m > 1) {
        qsort(zc, (size_t)m, sizeof(double), cmp_desc);
        for (int a = 0; a + 1 < m && nthr < CLEAN_LEVELS; ++a)
            if (zc[a] > CLEAN_GAP * zc[a + 1])
                thr[nthr++] = zc[a + 1];
    }
    double best = ratio;
    int best_t = -1;
    for (int t = 0; t < nthr && best > tol; ++t) {
        if (!clean_below(n, z, thr[t], zc))
            continue;
        const double rc = cdyn_lcp_certify_ex(lcp, zc, tol, zo, wo, NULL, NULL);
        if (rc < best) {
            best = rc;
            best_t = t;
        }
    }
    if (best_t < 0)
        return cdyn_lcp_certify_ex(lcp, z, tol, zo, wo, nat, flags); /* the raw one was best */
    clean_below(n, z, thr[best_t], zc);
    return cdyn_lcp_certify_ex(lcp, zc, tol, zo, wo, nat, flags);
}

int cdyn_lcp_infeasible_row(const cdyn_lcp *lcp)
{
    const int n = lcp->n;
    for (int i = 0; i < n; ++i) {
        if (!(lcp->q[i] < 0.0))
            continue;
        int nonpos = 1;
        for (int j = 0; j < n && nonpos; ++j)
            nonpos = lcp->M[i + (size_t)j * n] <= 0.0;
        if (nonpos)
            return i;
    }
    return -1;
}

/* A sum of n products computed in long double, sum_k a_k b_k with its magnitude S, is within
 * about (n + 1) u S of the exact value (u: the unit roundoff of long double; the products of two
 * doubles round once, the additions at most n times). Twice that, plus room for the rounding
 * of the comparison itself, is the margin below. */
static long double sum_margin(int n, long double size)
{
    return 2.0L * (long double)(n + 2) * LDBL_EPSILON * size;
}

/* sum_i a_i b_i <= 0 (strict: < 0), proven: either the sum is computed without any rounding
 * (every product and every addition exact, checked with fma and TwoSum), or the long double sum
 * plus sum_margin is on the right side. n terms with stride 1. */
static int dot_nonpositive(int n, const double *a, const double *b, int strict)
{
    long double t = 0.0L, size = 0.0L;
    double s = 0.0;
    int exact = 1;
    for (int i = 0; i < n; ++i) {
        const double p = a[i] * b[i];
        /* fma gives the product's rounding error exactly unless it underflows: away from the
           subnormal range only (or a zero factor) */
        exact &= fma(a[i], b[i], -p) == 0.0 && isfinite(p) &&
                 (p != 0.0 ? fabs(p) >= 0x1p-960 : a[i] == 0.0 || b[i] == 0.0);
        const double u = s + p, bp = u - s;
        exact &= (s - (u - bp)) + (p - bp) == 0.0;
        s = u;
        const long double pl = (long double)a[i] * b[i];
        t += pl;
        size += fabsl(pl);
    }
    if (exact)
        return strict ? s < 0.0 : s <= 0.0;
    const long double hi = t + sum_margin(n, size);
    return strict ? hi < 0.0L : hi <= 0.0L;
}

int cdyn_lcp_farkas_check(const cdyn_lcp *lcp, const double *y)
{
    const int n = lcp->n;
    int any = 0;
    for (int i = 0; i < n; ++i) {
        if (!(y[i] >= 0.0) || !isfinite(y[i]))
            return 0;
        any |= y[i] > 0.0;
    }
    if (!any || !dot_nonpositive(n, y, lcp->q, 1)) /* y^T q < 0 */
        return 0;
    /* (M^T y)_j <= 0: column j of M against y, contiguous in column-major storage */
    for (int j = 0; j < n; ++j)
        if (!dot_nonpositive(n, y, lcp->M + (size_t)j * n, 0))
            return 0;
    return 1;
}
