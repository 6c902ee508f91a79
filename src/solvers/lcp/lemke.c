/* Lemke's complementary pivoting method with the lexicographic minimum-ratio rule
 * (Lemke 1965; Cottle, Pang & Stone 2009, sections 4.4 and 4.9). docs/theory.md has the
 * derivation; this comment only fixes the notation used below.
 *
 * Augmented system: w = q + M z + d z0, i.e. the columns [I, -M, -d] times (w, z, z0) equal q.
 * A basis B holds n of those columns at "positions" p = 0..n-1; x = B^{-1} q are the basic values.
 *
 * Representation. A basic w_i has the unit column e_i, so B^{-1} e_i is a unit vector as well:
 * only the columns of B^{-1} that belong to the rows R = {i : w_i nonbasic} carry information.
 * They are stored as the first k rows ("slots") of BT, k = |R| = number of basic z / z0:
 *     BT[s + p*n] = (B^{-1})[p, R_s].
 * A pivot then costs O(n k) (one gemv for the entering column, one ger for the update) instead
 * of the O(n^2) of a full inverse or the O(n^2) of a dense n-by-2n tableau, and a rebuild only
 * needs the LU factors of the k-by-k block C = B[R, columns of the basic z's].
 *
 * Tiny problems (n <= TABLEAU_MAX_N) pivot on the condensed tableau T instead (see there): at
 * that size latency and loop overhead, not flops, set the cost. The final solution needs no
 * factorization either (see finish). */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cdyn/lcp.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/lcp/lcp_internal.h"

/* Variables: w_i = i, z_j = n + j, z0 = 2n. */
#define IS_W(v, n) ((v) < (n))
/* fmax without the NaN rules, which keep compilers from inlining it in the hot loops. */
#define MAXD(a, b) ((a) > (b) ? (a) : (b))

/* fmax and fmin with their NaN rules (a NaN argument is ignored), written out so that they are
 * inlined: the libm calls cost more than the comparisons in the lexicographic test. */
static inline double fmax_inline(double a, double b)
{
    return a > b || isnan(b) ? a : b;
}

static inline double fmin_inline(double a, double b)
{
    return a < b || isnan(b) ? a : b;
}

/* Below this many entries of BT a BLAS level-2 call costs more in overhead than it saves. */
#define BLAS_MIN_ENTRIES 1024

/* Refactor at the next pivot when a pivot element is this small relative to its column: the
 * rank-1 update then amplifies rounding errors by the reciprocal. */
#define SMALL_PIVOT 1e-7
/* When z0 misses a tie for leaving by less than this (relative, like tie_tol), the ratio test is
 * repeated with a freshly factorized basis: the end of the path must not be missed because of
 * drift in the updated basic values. */
#define Z0_NEAR 1e-6
/* The final solution from the updated inverse is kept when its refinement step changed it by at
 * most this much (relative): the correction estimates the first solve's error, and after the
 * step the error is about that times the inverse's own relative error, below the rounding level.
 * Larger: fresh LU. */
#define REFINE_TRUST 1e-8
/* ... and the refinement step is skipped when every entry of the basic system's residual is
 * already below this times the sum of the magnitudes of its terms (|q_i| + sum_j |M_ij z_j|), a
 * fraction of the rounding error of computing that entry. On 1684 random SPD, P-matrix and
 * friction-pyramid LCPs (n = 2..600) the mean residual is then below that of an LU solve with one
 * double-precision refinement step, the method before (DBL_EPSILON / 2 is not: it skips too
 * often). A norm-wise test, against max(||q||, ||M|| ||z||), skips too often on badly scaled rows:
 * on lcp_CPS_4 it kept a result a few ulps off in every entry, residual 1.4e-14 instead of 0. */
#define REFINE_SKIP (DBL_EPSILON / 4)
/* Refinement steps on the final basis, after the first, when its solution fails the
 * certificate (lcp_cert.c); they stop early once one does not halve the violation. */
#define FINAL_REFINE_STEPS 4
/* Principal pivots tried on the final basis when its solution has a sign violation (polish). */
#define POLISH_MAX 32

/* EXPR with N an integer constant equal to n for the tableau sizes: loops over N then unroll
 * completely, which for such tiny trip counts saves more than the arithmetic costs. */
/* clang-format off */
#define TINY_N_SWITCH(n, EXPR)                                                                    \
    switch (n) {                                                                                  \
    case 1: { enum { N = 1 }; EXPR; } break;                                                      \
    case 2: { enum { N = 2 }; EXPR; } break;                                                      \
    case 3: { enum { N = 3 }; EXPR; } break;                                                      \
    case 4: { enum { N = 4 }; EXPR; } break;                                                      \
    case 5: { enum { N = 5 }; EXPR; } break;                                                      \
    case 6: { enum { N = 6 }; EXPR; } break;                                                      \
    case 7: { enum { N = 7 }; EXPR; } break;                                                      \
    case 8: { enum { N = 8 }; EXPR; } break;                                                      \
    default: { const int N = (n); EXPR; } break;                                                  \
    }
/* clang-format on */

/* Up to this n the pivots update the condensed tableau (B^{-1} a_v for the n+1 nonbasic
 * variables v) instead of the stored columns BT of B^{-1}: the entering column is then read, not
 * computed, and the update is a set of independent multiply-adds, which is faster where n is so
 * small that latency and loop overhead, not the O(nk) flops, dominate. */
#define TABLEAU_MAX_N 8
/* Largest workspace (in doubles) kept on the stack when no allocator is given: 4.25 KiB, n <= 13. */
#define LEMKE_STACK_DOUBLES 544

typedef struct lemke_ws {
    int n;
    const double *M, *q;
    double tie_tol, pivot_tol;
    const int *b0_z; /* starting basis for the lexicographic order: z_j basic where nonzero
                        (NULL: the all-w basis I of a cold start) */
    double *d;       /* covering vector; the column of z0 is -d */
    double *BT;      /* n*n: slots x positions, see the file comment */
    double *T;       /* tableau mode (n <= TABLEAU_MAX_N): the columns B^{-1} a_v of the n+1
                        nonbasic variables v (a_v: the column of v in [I, -M, -d]), n by n+1,
                        updated instead of BT; NULL otherwise */
    double *C;       /* n*n: LU factors of the k-by-k block */
    double *x, *y, *v, *g, *u, *lexv;
    int *ipiv, *var_at, *pos, *slot_of_row, *row_of_slot, *zpos, *cand;
    int *tcol; /* tableau mode: column of T of a nonbasic variable, -1 for a basic one */
    int k;     /* number of slots = number of basic z-type variables */
    int ray_var;       /* the entering variable when a ray was declared, else -1 */
    int *flags;        /* the last candidate's rows with a sign violation (certificate) */
    int *polish_basis; /* polish: z_i basic where nonzero */
    double *bz, *bw;   /* the best candidate that failed the certificate (finish) */
    double best_ratio; /* its violation (INFINITY: none yet) and residual */
    double best_res;
} lemke_ws;

/* Source column of a z-type variable: z_j has column -M[:, j], z0 has -d. */
static const double *zsrc(const lemke_ws *ws, int var)
{
    const int n = ws->n;
    return var == 2 * n ? ws->d : ws->M + (size_t)(var - n) * n;
}

/* ---- basis bookkeeping ----------------------------------------------------------- */

/* Slots from pos (which is current): the rows i with w_i nonbasic, in increasing order. */
static void index_slots(lemke_ws *ws)
{
    const int n = ws->n;
    const int *restrict pos = ws->pos;
    int *restrict sr = ws->slot_of_row, *restrict rs = ws->row_of_slot;
    int k = 0;
    for (int i = 0; i < n; ++i)
        if (pos[i] < 0) {
            sr[i] = k;
            rs[k++] = i;
        } else {
            sr[i] = -1;
        }
    ws->k = k;
}

/* Rebuild slots and position maps from var_at (after setting a starting basis). */
static void index_basis(lemke_ws *ws)
{
    const int n = ws->n;
    for (int v = 0; v <= 2 * n; ++v)
        ws->pos[v] = -1;
    for (int p = 0; p < n; ++p)
        ws->pos[ws->var_at[p]] = p;
    index_slots(ws);
}

/* zpos := the positions of the basic z-type variables in increasing order; returns their count. */
static int list_zpos(lemke_ws *ws)
{
    const int n = ws->n;
    int t = 0;
    for (int p = 0; p < n; ++p)
        if (!IS_W(ws->var_at[p], n))
            ws->zpos[t++] = p;
    return t;
}

/* Factorize C = B[R, Z] (k-by-k, C[s,t] = -src_t[R_s]); zpos lists the positions of the basic
 * z-type variables in increasing order. CDYN_ENUMERIC when C is singular to working precision:
 * a pivot of U below k * eps * max|C| (cheaper than a condition estimate, which would cost as
 * much as the whole solve for small n). */
static cdyn_status factor_basis(lemke_ws *ws)
{
    const int k = ws->k;
    if (list_zpos(ws) != k)
        return CDYN_ENUMERIC; /* cannot happen: every pivot keeps |R| = #z */
    if (k == 0)
        return CDYN_OK;
    double cmax = 0.0;
    for (int t = 0; t < k; ++t) {
        const double *src = zsrc(ws, ws->var_at[ws->zpos[t]]);
        double *col = ws->C + (size_t)t * k;
        for (int s = 0; s < k; ++s) {
            col[s] = -src[ws->row_of_slot[s]];
            cmax = MAXD(cmax, fabs(col[s]));
        }
    }
    if (cdyn_dense_lu(k, ws->C, k, ws->ipiv) != CDYN_OK)
        return CDYN_ENUMERIC;
    const double umin = k * DBL_EPSILON * cmax;
    for (int s = 0; s < k; ++s)
        if (!(fabs(ws->C[s + (size_t)s * k]) > umin))
            return CDYN_ENUMERIC;
    return CDYN_OK;
}

/* u := q + sum_t src_t * xz[t]: for rows i with w_i basic this is w_i's value, for rows in R it
 * is the residual of the block system C xz = q_R. */
static void basic_rest(lemke_ws *ws, const double *xz)
{
    const int n = ws->n;
    memcpy(ws->u, ws->q, sizeof(double) * (size_t)n);
    for (int t = 0; t < ws->k; ++t) {
        const double *src = zsrc(ws, ws->var_at[ws->zpos[t]]);
        const double a = xz[t];
        if (a != 0.0)
            for (int i = 0; i < n; ++i)
                ws->u[i] += a * src[i];
    }
}

/* x := the basic values: xz for the z's, u (from basic_rest(xz)) for the w's. */
static void store_basic(lemke_ws *ws, const double *xz)
{
    const int n = ws->n;
    for (int t = 0; t < ws->k; ++t)
        ws->x[ws->zpos[t]] = xz[t];
    for (int p = 0; p < n; ++p)
        if (IS_W(ws->var_at[p], n))
            ws->x[p] = ws->u[ws->var_at[p]];
}

/* x := B^{-1} q from the LU factors of factor_basis, with one step of iterative refinement. */
static void solve_basic(lemke_ws *ws)
{
    const int k = ws->k;
    double *xz = ws->g, *r = ws->v;
    for (int s = 0; s < k; ++s)
        xz[s] = ws->q[ws->row_of_slot[s]];
    if (k > 0)
        cdyn_dense_lu_solve(0, k, ws->C, k, ws->ipiv, 1, xz, k);
    basic_rest(ws, xz);
    if (k > 0) {
        for (int s = 0; s < k; ++s)
            r[s] = ws->u[ws->row_of_slot[s]];
        cdyn_dense_lu_solve(0, k, ws->C, k, ws->ipiv, 1, r, k);
        for (int s = 0; s < k; ++s)
            xz[s] += r[s];
        basic_rest(ws, xz);
    }
    store_basic(ws, xz);
}

/* BT := the R-columns of B^{-1}, from the LU factors: solve C^T Y = G with G[:, zpos_t] = e_t and
 * G[t, pos(w_l)] = src_t[l] (see the derivation in docs/theory.md). */
static void rebuild_inverse(lemke_ws *ws)
{
    const int n = ws->n, k = ws->k;
    if (k == 0)
        return;
    for (int p = 0; p < n; ++p)
        if (IS_W(ws->var_at[p], n))
            continue;
        else
            for (int s = 0; s < k; ++s)
                ws->BT[s + (size_t)p * n] = 0.0;
    for (int t = 0; t < k; ++t) {
        const double *src = zsrc(ws, ws->var_at[ws->zpos[t]]);
        ws->BT[t + (size_t)ws->zpos[t] * n] = 1.0;
        for (int p = 0; p < n; ++p)
            if (IS_W(ws->var_at[p], n))
                ws->BT[t + (size_t)p * n] = src[ws->var_at[p]];
    }
    cdyn_dense_lu_solve(1, k, ws->C, k, ws->ipiv, n, ws->BT, n);
}

/* The tableau from BT (tableau mode): the nonbasic variables in increasing order get the columns
 * 0..n of T, each B^{-1} a_v: for w_i the stored column of row i (w_i nonbasic: i is in R); for a
 * z-type variable with source src, -BT^T src[R] - src[l] at each position holding a w_l (as in
 * entering_column). */
static void tableau_from_inverse(lemke_ws *ws)
{
    const int n = ws->n, k = ws->k;
    int t = 0;
    for (int v = 0; v <= 2 * n; ++v) {
        if (ws->pos[v] >= 0) {
            ws->tcol[v] = -1;
            continue;
        }
        double *col = ws->T + (size_t)t * n;
        ws->tcol[v] = t++;
        if (IS_W(v, n)) {
            const int sl = ws->slot_of_row[v];
            for (int p = 0; p < n; ++p)
                col[p] = ws->BT[sl + (size_t)p * n];
            continue;
        }
        const double *src = zsrc(ws, v);
        for (int p = 0; p < n; ++p) {
            const double *btp = ws->BT + (size_t)p * n;
            double sum = 0.0;
            for (int sl = 0; sl < k; ++sl)
                sum += btp[sl] * src[ws->row_of_slot[sl]];
            double e = -sum;
            if (IS_W(ws->var_at[p], n))
                e -= src[ws->var_at[p]];
            col[p] = e;
        }
    }
}

/* Fresh inverse and basic values from an LU factorization of the current basis. */
static cdyn_status refactor(lemke_ws *ws)
{
    if (ws->T != NULL)
        index_slots(ws);
    cdyn_status st = factor_basis(ws);
    if (st != CDYN_OK)
        return st;
    solve_basic(ws);
    rebuild_inverse(ws);
    if (ws->T != NULL)
        tableau_from_inverse(ws);
    return CDYN_OK;
}

/* ---- pivoting -------------------------------------------------------------------- */

/* BT[0:k, :] += alpha * v y^T. */
static void bt_ger(lemke_ws *ws, double alpha, const double *restrict v, const double *restrict y)
{
    const int n = ws->n, k = ws->k;
    if ((size_t)k * n >= BLAS_MIN_ENTRIES) {
        cdyn_dense_ger(k, n, alpha, v, y, ws->BT, n);
        return;
    }
    double *restrict bt = ws->BT;
    for (int p = 0; p < n; ++p) {
        double *restrict col = bt + (size_t)p * n;
        const double a = alpha * y[p];
        for (int s = 0; s < k; ++s)
            col[s] += a * v[s];
    }
}

/* y := col (n values); returns max |y_p|. */
static inline double copy_max(const double *restrict col, double *restrict y, int n)
{
    double ymax = 0.0;
    for (int p = 0; p < n; ++p) {
        y[p] = col[p];
        ymax = MAXD(ymax, fabs(col[p]));
    }
    return ymax;
}

/* y := B^{-1} a for the column a of variable var; returns max |y_p| (for the ratio test).
 * For a z-type variable, a = -src: y = -BT[0:k, :]^T src[R] (the stored columns of B^{-1}), and
 * a position p holding w_l adds -src[l] (its column of B^{-1} is the unit e_l). */
static double entering_column(lemke_ws *ws, int var)
{
    const int n = ws->n, k = ws->k;
    const double *restrict bt = ws->BT;
    double *restrict y = ws->y;
    double ymax = 0.0;
    if (ws->T != NULL) { /* tableau mode: the column is stored */
        const double *restrict col = ws->T + (size_t)ws->tcol[var] * n;
        TINY_N_SWITCH(n, ymax = copy_max(col, y, N));
        return ymax;
    }
    if (IS_W(var, n)) { /* a = e_var: its slot row of BT */
        const double *restrict row = bt + ws->slot_of_row[var];
        for (int p = 0; p < n; ++p) {
            const double e = row[(size_t)p * n];
            y[p] = e;
            ymax = MAXD(ymax, fabs(e));
        }
        return ymax;
    }
    const double *restrict src = zsrc(ws, var);
    const int *restrict rs = ws->row_of_slot, *restrict va = ws->var_at;
    double *restrict g = ws->g;
    for (int s = 0; s < k; ++s)
        g[s] = src[rs[s]];
    if ((size_t)k * n >= BLAS_MIN_ENTRIES) {
        cdyn_dense_gemv_t(k, n, -1.0, bt, n, g, 0.0, y);
        for (int p = 0; p < n; ++p) {
            if (IS_W(va[p], n))
                y[p] -= src[va[p]];
            ymax = MAXD(ymax, fabs(y[p]));
        }
        return ymax;
    }
    for (int p = 0; p < n; ++p) {
        const double *restrict col = bt + (size_t)p * n;
        double sum = 0.0;
        for (int s = 0; s < k; ++s)
            sum += col[s] * g[s];
        double e = -sum;
        if (IS_W(va[p], n))
            e -= src[va[p]];
        y[p] = e;
        ymax = MAXD(ymax, fabs(e));
    }
    return ymax;
}

/* (B^{-1} a_v)[p] in tableau mode: a column of T, or for a basic v the unit vector at its
 * position. */
static inline double tableau_entry(const lemke_ws *ws, int p, int v)
{
    const int t = ws->tcol[v];
    return t >= 0 ? ws->T[p + (size_t)t * ws->n] : (ws->pos[v] == p ? 1.0 : 0.0);
}

/* Entry (p, c) of B^{-1} B0, the lexicographic tie-breaking rows (B0: starting basis), for a
 * column c with B0 e_c = e_c: B^{-1} e_c, a stored column or a unit vector. */
static inline double lex_entry_unit(const lemke_ws *ws, int p, int c)
{
    if (ws->T != NULL)
        return tableau_entry(ws, p, c);
    const int s = ws->slot_of_row[c];
    return s >= 0 ? ws->BT[s + (size_t)p * ws->n] : (ws->var_at[p] == c ? 1.0 : 0.0);
}

/* The same for a column c of a warm start's B0 that holds z_c: B0 e_c = -M[:, c]. */
static double lex_entry_z(const lemke_ws *ws, int p, int c)
{
    const int n = ws->n;
    if (ws->T != NULL)
        return tableau_entry(ws, p, n + c);
    const double *btp = ws->BT + (size_t)p * n;
    const int wp = IS_W(ws->var_at[p], n) ? ws->var_at[p] : -1;
    const double *mc = ws->M + (size_t)c * n;
    double sum = wp >= 0 ? mc[wp] : 0.0;
    for (int s = 0; s < ws->k; ++s)
        sum += btp[s] * mc[ws->row_of_slot[s]];
    return -sum;
}

/* Lexicographic minimum of the rows (B^{-1} B0)[p, :] / sp[p] over the candidates, whose first
 * (ratio) entries tie. Only columns up to the first decisive one are ever formed. */
static int lex_choose(lemke_ws *ws, int ncand, const double *sp)
{
    const int n = ws->n;
    int *cand = ws->cand;
    /* Entries below tie_tol times the largest candidate row entry count as equal. */
    double scale = 0.0;
    for (int i = 0; i < ncand; ++i) {
        int p = cand[i];
        double m = 0.0; /* max |(B^{-1})[p, :]| */
        if (ws->T != NULL) {
            for (int c = 0; c < n; ++c)
                m = fmax_inline(m, fabs(tableau_entry(ws, p, c)));
        } else {
            m = IS_W(ws->var_at[p], n) ? 1.0 : 0.0;
            for (int s = 0; s < ws->k; ++s)
                m = fmax_inline(m, fabs(ws->BT[s + (size_t)p * n]));
        }
        scale = fmax_inline(scale, m / sp[p]);
    }
    const double tol = ws->tie_tol * scale;
    for (int c = 0; c < n && ncand > 1; ++c) {
        double vmin = INFINITY;
        const int unit = ws->b0_z == NULL || !ws->b0_z[c];
        for (int i = 0; i < ncand; ++i) {
            const int p = cand[i];
            const double e = unit ? lex_entry_unit(ws, p, c) : lex_entry_z(ws, p, c);
            ws->lexv[i] = e / sp[p];
            vmin = fmin_inline(vmin, ws->lexv[i]);
        }
        int kept = 0;
        for (int i = 0; i < ncand; ++i)
            if (ws->lexv[i] <= vmin + tol)
                cand[kept++] = cand[i];
        ncand = kept;
    }
    int best = cand[0]; /* still tied (only possible through rounding): largest pivot */
    for (int i = 1; i < ncand; ++i)
        if (sp[cand[i]] > sp[best])
            best = cand[i];
    return best;
}

/* Minimum-ratio test for the column y (ymax = max |y|): the position that leaves, or -1 (no
 * positive entry: a ray). Ratios within tie_tol*||x||/max(y) of the minimum are ties, i.e.
 * taking any of them would leave the others at most tie_tol*||x|| below zero; ties prefer z0,
 * then the lexicographic rule. *z0_near is set when z0 misses the tie band but lies within
 * Z0_NEAR of it: a decision that drift in x can get wrong. For every eligible row p, v[p]
 * receives the ratio max(x_p, 0) / y_p (x clamped at 0: a tiny negative left by rounding never
 * moves the entering variable backwards), the step if p leaves. (Reciprocals 1 / y_p computed
 * here too, to take a division off the path after the choice, cost more in divider throughput
 * than they saved: 14% on lcp_exp_murty2.) */
static int ratio_test(lemke_ws *ws, double ymax, int *z0_near)
{
    const int n = ws->n;
    const double *restrict x = ws->x, *restrict y = ws->y;
    double *restrict ratios = ws->v;
    int *restrict cand = ws->cand;
    *z0_near = 0;
    const double ptol = ws->pivot_tol * ymax;
    double theta = INFINITY, ycmax = 0.0, xmax = 0.0;
    int nelig = 0; /* eligible pivot rows, listed in cand */
    for (int p = 0; p < n; ++p) {
        xmax = MAXD(xmax, fabs(x[p]));
        if (y[p] > ptol) {
            const double ratio = MAXD(x[p], 0.0) / y[p];
            ratios[p] = ratio;
            theta = ratio < theta ? ratio : theta;
            ycmax = MAXD(ycmax, y[p]);
            cand[nelig++] = p;
        }
    }
    if (!(ycmax > 0.0))
        return -1;
    if (nelig == 1) /* it is the minimum; the tie band below (>= tie_tol * x_p) would keep it */
        return cand[0];
    const double xrel = xmax / ycmax;
    const double bound = theta + ws->tie_tol * xrel;
    const int z0pos = ws->pos[2 * n];
    int ncand = 0;
    for (int i = 0; i < nelig; ++i) {
        const int p = cand[i];
        if (MAXD(x[p], 0.0) <= bound * y[p]) {
            if (p == z0pos)
                return p;
            cand[ncand++] = p;
        }
    }
    if (z0pos >= 0 && y[z0pos] > ptol && MAXD(x[z0pos], 0.0) <= (theta + Z0_NEAR * xrel) * y[z0pos])
        *z0_near = 1;
    return ncand == 1 ? ws->cand[0] : lex_choose(ws, ncand, y);
}

/* Tableau mode: every column becomes E T[:, c] with E the elimination of the entering column y
 * at row r (inv = 1 / y_r): row r is scaled, the others lose y_i times it; columns with a zero in
 * row r do not change. The entering variable's column is taken over by the leaving one, whose
 * column e_r becomes E e_r = (e_r - y) / y_r + e_r. x moves by the step theta. */
static inline void tableau_update(double *restrict T, double *restrict x, const double *restrict y,
                                  int n, int r, int te, double theta, double inv)
{
    for (int c = 0; c <= n; ++c) {
        double *restrict col = T + (size_t)c * n;
        const double a = col[r] * inv;
        if (a != 0.0 && c != te) {
            for (int i = 0; i < n; ++i)
                col[i] -= y[i] * a;
            col[r] = a;
        }
    }
    double *restrict col = T + (size_t)te * n;
    for (int i = 0; i < n; ++i) {
        col[i] = -y[i] * inv;
        x[i] -= theta * y[i];
    }
    col[r] = inv;
    x[r] = theta;
}

static void tableau_pivot(lemke_ws *ws, int r, int var, int leave, double theta, double inv)
{
    const int te = ws->tcol[var];
    TINY_N_SWITCH(ws->n, tableau_update(ws->T, ws->x, ws->y, N, r, te, theta, inv));
    ws->tcol[leave] = te;
    ws->tcol[var] = -1;
}

/* Exchange: the entering variable var takes position r with the step theta (inv = 1 / y_r); x and
 * the stored inverse follow. */
static void pivot(lemke_ws *ws, int r, int var, double theta, double inv)
{
    const int n = ws->n;
    const double *restrict y = ws->y;
    const int leave = ws->var_at[r];
    int k = ws->k;
    if (ws->T != NULL) {
        /* The slots are not needed while pivoting on the tableau: index_slots rebuilds them. */
        tableau_pivot(ws, r, var, leave, theta, inv);
    } else {
        if (k > 0) {
            /* B_new^{-1} = B^{-1} - (y - e_r) (row r of B^{-1}) / y_r, on the stored columns. */
            double *btr = ws->BT + (size_t)r * n;
            for (int s = 0; s < k; ++s)
                ws->v[s] = btr[s];
            bt_ger(ws, -inv, ws->v, y);
            for (int s = 0; s < k; ++s)
                btr[s] = ws->v[s] * inv;
        }
        if (IS_W(leave, n)) { /* row `leave` joins R: its column of B_new^{-1} is
                                 -y/y_r + e_r/y_r */
            ws->slot_of_row[leave] = k;
            ws->row_of_slot[k] = leave;
            for (int p = 0; p < n; ++p)
                ws->BT[k + (size_t)p * n] = -y[p] * inv;
            ws->BT[k + (size_t)r * n] = inv;
            ++k;
        }
        if (IS_W(var, n)) { /* row `var` leaves R: its column becomes the unit e_r, drop the
                               slot */
            int s = ws->slot_of_row[var], last = k - 1;
            if (s != last) {
                for (int p = 0; p < n; ++p)
                    ws->BT[s + (size_t)p * n] = ws->BT[last + (size_t)p * n];
                ws->row_of_slot[s] = ws->row_of_slot[last];
                ws->slot_of_row[ws->row_of_slot[s]] = s;
            }
            ws->slot_of_row[var] = -1;
            --k;
        }
        ws->k = k;
        double *restrict x = ws->x;
        for (int p = 0; p < n; ++p)
            x[p] -= theta * y[p];
        x[r] = theta;
    }
    ws->pos[leave] = -1;
    ws->pos[var] = r;
    ws->var_at[r] = var;
}

/* ---- the method ------------------------------------------------------------------ */

typedef struct lemke_run {
    int max_pivots, refactor_every;
    int pivots; /* accumulated over attempts */
} lemke_run;

/* Run complementary pivoting from the current basis (x and BT fresh, z0 nonbasic, x has a
 * negative entry) until z0 leaves. unit_z0_column: the z0 column is -ones in the current basis
 * (warm start); otherwise the basis is the cold start's B = I, where it is -d. On CDYN_OK the
 * final basis is complementary. Each helper has one call site, so that it is inlined: for tiny
 * problems calls cost as much as the loops. */
static cdyn_status run_pivots(lemke_ws *ws, lemke_run *run, int unit_z0_column, cdyn_report *rep)
{
    const int n = ws->n, z0 = 2 * n;
    /* First pivot: z0 enters at the lexicographically most negative x_p / s_p, s = -column of
       z0 (> 0); the tie rows of B^{-1} B0 = I are unit rows, so the largest index wins a tie. */
    for (int p = 0; p < n; ++p)
        ws->y[p] = unit_z0_column ? -1.0 : -ws->d[p];
    double theta = INFINITY, smax = 0.0, xmax = 0.0, *ratio = ws->v; /* v: scratch here */
    for (int p = 0; p < n; ++p) {
        if (!(-ws->y[p] > 0.0))
            return cdyn_fail(rep, CDYN_ENUMERIC, "covering column is not positive in the basis");
        ratio[p] = ws->x[p] / -ws->y[p];
        theta = ratio[p] < theta ? ratio[p] : theta;
        smax = MAXD(smax, -ws->y[p]);
        xmax = MAXD(xmax, fabs(ws->x[p]));
    }
    if (!(theta < 0.0))
        return cdyn_fail(rep, CDYN_ENUMERIC, "starting basis has no negative value to cover");
    const double bound = theta + ws->tie_tol * xmax / smax;
    int r = -1;
    for (int p = 0; p < n; ++p)
        if (ratio[p] <= bound)
            r = p;
    if (r < 0) /* the ratios overflowed (Inf - Inf in the bound): no row to pivot on */
        return cdyn_fail(rep, CDYN_ENUMERIC, "starting basis has non-finite values");
    double step = -ratio[r], inv = 1.0 / ws->y[r]; /* x_r / y_r, exactly */
    int entering = z0, since_refactor = 0, refactor_now = 0;
    for (;;) {
        const int leave = ws->var_at[r];
        pivot(ws, r, entering, step, inv);
        run->pivots++;
        since_refactor++;
        if (leave == z0)
            return CDYN_OK;
        entering = IS_W(leave, n) ? leave + n : leave - n; /* the complement of the leaving one */
        if (run->pivots >= run->max_pivots)
            return cdyn_fail(rep, CDYN_ENOCONV, "pivot limit %d reached", run->max_pivots);
        if (refactor_now || (run->refactor_every > 0 && since_refactor >= run->refactor_every)) {
            if (refactor(ws) != CDYN_OK)
                return cdyn_fail(rep, CDYN_ENUMERIC, "basis became singular after %d pivots",
                                 run->pivots);
            since_refactor = 0;
            refactor_now = 0;
        }
        double ymax;
        for (;;) {
            ymax = entering_column(ws, entering);
            int z0_near;
            r = ratio_test(ws, ymax, &z0_near);
            if (!((r < 0 || z0_near) && since_refactor > 0))
                break;
            /* Drift in the updated inverse fakes rays and hides the exit of z0: decide again
               with a fresh factorization. */
            if (refactor(ws) != CDYN_OK)
                return cdyn_fail(rep, CDYN_ENUMERIC, "basis became singular after %d pivots",
                                 run->pivots);
            since_refactor = 0;
        }
        if (r < 0) {
            ws->ray_var = entering; /* ws->y holds its column: the ray's direction */
            return cdyn_fail(rep, CDYN_ERAY, "ray termination after %d pivots", run->pivots);
        }
        if (ws->y[r] < SMALL_PIVOT * ymax)
            refactor_now = 1;
        step = ws->v[r]; /* see ratio_test */
        inv = 1.0 / ws->y[r];
    }
}

/* out := C^{-1} v (v: k values in slot order, out: k values in zpos order), from the maintained
 * inverse, whose columns BT[:, zpos] hold C^{-1} (C = B[R, Z], see factor_basis): O(k^2) and no
 * factorization, which for tiny problems costs more than all the pivots. */
static void cinv_apply(const lemke_ws *ws, const double *restrict v, double *restrict out)
{
    const int n = ws->n, k = ws->k;
    if (ws->T != NULL) {
        /* (C^{-1})[t, s] = (B^{-1})[zpos_t, R_s], the tableau entry in the column of w_{R_s}
           (nonbasic), which starts at off[s] (ipiv: scratch here) */
        int *restrict off = ws->ipiv;
        for (int s = 0; s < k; ++s)
            off[s] = ws->tcol[ws->row_of_slot[s]] * n;
        for (int t = 0; t < k; ++t) {
            const double *restrict trow = ws->T + ws->zpos[t];
            double sum = 0.0;
            for (int s = 0; s < k; ++s)
                sum += trow[off[s]] * v[s];
            out[t] = sum;
        }
        return;
    }
    for (int t = 0; t < k; ++t) {
        const double *restrict cinv = ws->BT + (size_t)ws->zpos[t] * n;
        double sum = 0.0;
        for (int s = 0; s < k; ++s)
            sum += cinv[s] * v[s];
        out[t] = sum;
    }
}

/* One step of iterative refinement of the basic z's xz (k values, z_{col_t} at slot t) on the
 * current basis: r = q_R + M[R, col] xz accumulated in long double, dx = C^{-1} r (the LU factors
 * of factor_basis when use_lu, else the maintained inverse), xz += dx. Returns max |dx| /
 * max |xz| after the step (NaN when either is not finite). */
static double refine_step(lemke_ws *ws, const int *col, double *xz, int use_lu)
{
    const int n = ws->n, k = ws->k;
    double *r = ws->v, *dx = ws->lexv;
    for (int s = 0; s < k; ++s) {
        const int row = ws->row_of_slot[s];
        long double acc = ws->q[row];
        for (int t = 0; t < k; ++t)
            acc += (long double)ws->M[row + (size_t)col[t] * n] * xz[t];
        r[s] = (double)acc;
    }
    if (use_lu) {
        for (int s = 0; s < k; ++s)
            dx[s] = r[s];
        cdyn_dense_lu_solve(0, k, ws->C, k, ws->ipiv, 1, dx, k);
    } else {
        cinv_apply(ws, r, dx);
    }
    double xmax = 0.0, dmax = 0.0;
    for (int t = 0; t < k; ++t) {
        xz[t] += dx[t];
        xmax = MAXD(xmax, fabs(xz[t]));
        dmax = MAXD(dmax, fabs(dx[t]));
    }
    return isfinite(xmax) && isfinite(dmax) ? (xmax > 0.0 ? dmax / xmax : 0.0) : NAN;
}

/* The candidate in x (its basic z's) against the certificate of lcp_cert.c: the z handed out
 * into ws->y, w = M z + q into ws->u (both as cdyn_lcp_certify leaves them), *res the residual
 * ||min(z, w)||_inf. Returns the certificate's largest violation in units of its row scale (the
 * candidate passes when <= tol). When record is set, a candidate better than the best so far is
 * kept in ws->bz, ws->bw: the point handed out with CDYN_EINACCURATE. */
static double certify_candidate(lemke_ws *ws, double tol, int record, double *res)
{
    const int n = ws->n;
    double *zraw = ws->v;
    for (int j = 0; j < n; ++j)
        zraw[j] = ws->pos[n + j] >= 0 ? ws->x[ws->pos[n + j]] : 0.0;
    const cdyn_lcp lcp = {n, ws->M, ws->q};
    const double ratio =
        cdyn_lcp_certify_clean(&lcp, zraw, tol, ws->lexv, ws->y, ws->u, res, ws->flags);
    if (record && ratio < INACCURATE_MAX && !(ratio >= ws->best_ratio)) {
        memcpy(ws->bz, ws->y, sizeof(double) * (size_t)n);
        memcpy(ws->bw, ws->u, sizeof(double) * (size_t)n);
        ws->best_ratio = ratio;
        ws->best_res = *res;
    }
    return ratio;
}

/* Final solution of the current complementary basis (z0 nonbasic); writes z and w only when it
 * passes the certificate (CDYN_OK). *res receives the residual of the last candidate.
 * The values of the basic z's come from the pivots' updates when have_inverse (BT or the tableau
 * is that of this basis), else from an LU solve with the factors of factor_basis (warm start
 * guess: then x is set completely, for pivoting on from it). Unless every entry of the basic
 * system's residual q_R - C x_Z (computed from the original data) is below REFINE_SKIP times the
 * size of its terms, one step of iterative refinement follows, the residual accumulated in
 * extended precision where long double has it (x86): the classic mixed-precision refinement,
 * whose step then lands on the rounded solution rather than a few ulps off it. With the updated
 * inverse, a correction above REFINE_TRUST relative means it has drifted; then, or when the
 * candidate fails the certificate, the LU path follows, and on it up to FINAL_REFINE_STEPS more
 * refinement steps while they improve the certificate. A basis whose solution still fails it
 * gives CDYN_EINACCURATE (the best candidate is kept when have_inverse: a guessed warm basis
 * that fails is no answer of the method). */
static cdyn_status finish(lemke_ws *ws, int have_inverse, double tol, double *z, double *w,
                          double *res, cdyn_report *rep)
{
    if (ws->T != NULL)
        index_slots(ws);
    const int n = ws->n, k = ws->k;
    double *xz = ws->g;
    int *col = ws->cand; /* z_j at zpos_t (z0 has left): col_t = j */
    list_zpos(ws);
    for (int t = 0; t < k; ++t)
        col[t] = ws->var_at[ws->zpos[t]] - n;
    for (int use_lu = !have_inverse;; use_lu = 1) {
        if (use_lu) {
            for (int s = 0; s < k; ++s)
                xz[s] = ws->q[ws->row_of_slot[s]];
            if (k > 0)
                cdyn_dense_lu_solve(0, k, ws->C, k, ws->ipiv, 1, xz, k);
        } else {
            for (int t = 0; t < k; ++t)
                xz[t] = ws->x[ws->zpos[t]];
        }
        int refine = 0; /* some |r_s| above REFINE_SKIP times the size of its terms */
        for (int s = 0; s < k && !refine; ++s) {
            const int row = ws->row_of_slot[s];
            double acc = ws->q[row], size = fabs(acc);
            for (int t = 0; t < k; ++t) {
                const double e = ws->M[row + (size_t)col[t] * n] * xz[t];
                acc += e;
                size += fabs(e);
            }
            refine = !(fabs(acc) <= REFINE_SKIP * size);
        }
        int trusted = 1;
        if (refine) {
            const double step = refine_step(ws, col, xz, use_lu);
            trusted = use_lu || step <= REFINE_TRUST; /* 0 for NaN */
        }
        for (int t = 0; t < k; ++t)
            ws->x[ws->zpos[t]] = xz[t];
        if (use_lu) { /* the w's too: the warm start goes on pivoting from x */
            basic_rest(ws, xz);
            store_basic(ws, xz);
        }
        double ratio = NAN;
        if (trusted) {
            ratio = certify_candidate(ws, tol, have_inverse, res);
            if (ratio <= tol) {
                memcpy(z, ws->y, sizeof(double) * (size_t)n);
                memcpy(w, ws->u, sizeof(double) * (size_t)n);
                return CDYN_OK;
            }
        }
        if (use_lu) {
            /* More refinement on the final basis while it helps: a badly scaled basis can need
               several steps before every row is accurate relative to its own terms. */
            for (int it = 0; it < FINAL_REFINE_STEPS && k > 0; ++it) {
                refine_step(ws, col, xz, 1);
                for (int t = 0; t < k; ++t)
                    ws->x[ws->zpos[t]] = xz[t];
                const double next = certify_candidate(ws, tol, have_inverse, res);
                if (next <= tol) {
                    memcpy(z, ws->y, sizeof(double) * (size_t)n);
                    memcpy(w, ws->u, sizeof(double) * (size_t)n);
                    return CDYN_OK;
                }
                if (!(next < 0.5 * ratio))
                    break;
                ratio = next;
            }
            basic_rest(ws, xz);
            store_basic(ws, xz);
            if (!isfinite(ratio))
                return cdyn_fail(rep, CDYN_ENUMERIC,
                                 "the final basic solution is not finite (overflow)");
            return cdyn_fail(rep, CDYN_EINACCURATE,
                             "the final basic solution fails the componentwise certificate "
                             "(largest violation %.3g of its row's scale > tol %.3g)",
                             ratio, tol);
        }
        if (factor_basis(ws) != CDYN_OK)
            return cdyn_fail(rep, CDYN_ENUMERIC, "final basis is singular");
    }
}

void cdyn_lemke_defaults(cdyn_lemke_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->max_pivots = 0;
    opts->pivot_tol = 1e-12;
    opts->tie_tol = 1e-12;
    opts->refactor_every = 64;
    opts->tol = 1e-10;
}

cdyn_status cdyn_lcp_validate(const cdyn_lcp *lcp, double *mnorm, cdyn_report *rep)
{
    if (lcp == NULL)
        return cdyn_fail(rep, CDYN_EINVAL, "lcp is NULL");
    if (lcp->n <= 0)
        return cdyn_fail(rep, CDYN_EINVAL, "n = %d must be positive", lcp->n);
    if (lcp->M == NULL || lcp->q == NULL)
        return cdyn_fail(rep, CDYN_EINVAL, "lcp->%s is NULL", lcp->M == NULL ? "M" : "q");
    const int n = lcp->n;
    /* n*n doubles must fit in size_t (the same test as cdyn_mem_matrix_len, whose integer
       division costs more than the rest of this function for tiny n; n^2 < 2^62 here) */
    if ((uint64_t)n * (uint64_t)n > SIZE_MAX / sizeof(double))
        return cdyn_fail(rep, CDYN_EINVAL, "n = %d is too large", n);
    for (int i = 0; i < n; ++i)
        if (!isfinite(lcp->q[i]))
            return cdyn_fail(rep, CDYN_EINVAL, "q has a NaN or infinite entry");
    /* Induced inf-norm (largest absolute row sum). A NaN or infinite entry makes its row sum
       non-finite, and only then is the entry looked for. Beyond tiny n the rows go in blocks so
       that M is read by columns. */
    enum { ROWS = 64 };
    double norm = 0.0;
    int finite = 1;
    if (n <= 16) {
        for (int i = 0; i < n; ++i) {
            double s = 0.0;
            for (int j = 0; j < n; ++j)
                s += fabs(lcp->M[i + (size_t)j * n]);
            finite &= isfinite(s) != 0;
            norm = MAXD(norm, s);
        }
    } else {
        double rowsum[ROWS];
        for (int i0 = 0; i0 < n; i0 += ROWS) {
            const int m = n - i0 < ROWS ? n - i0 : ROWS;
            for (int i = 0; i < m; ++i)
                rowsum[i] = fabs(lcp->M[i0 + i]);
            for (int j = 1; j < n; ++j) {
                const double *col = lcp->M + i0 + (size_t)j * n;
                for (int i = 0; i < m; ++i)
                    rowsum[i] += fabs(col[i]);
            }
            for (int i = 0; i < m; ++i) {
                finite &= isfinite(rowsum[i]) != 0;
                norm = MAXD(norm, rowsum[i]);
            }
        }
    }
    if (!finite) /* or finite entries whose row sum overflows: then the norm is infinite */
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (!isfinite(lcp->M[i + (size_t)j * n]))
                    return cdyn_fail(rep, CDYN_EINVAL, "M(%d,%d) is NaN or infinite", i, j);
    if (mnorm != NULL)
        *mnorm = norm;
    return CDYN_OK;
}

cdyn_status cdyn_lemke_check_options(const cdyn_lemke_options *o, int n, cdyn_report *rep)
{
    if (o->max_pivots < 0)
        return cdyn_fail(rep, CDYN_EINVAL, "max_pivots = %d is negative", o->max_pivots);
    if (!(o->pivot_tol >= 0.0 && o->pivot_tol < 1.0))
        return cdyn_fail(rep, CDYN_EINVAL, "pivot_tol must be in [0, 1)");
    if (!(o->tie_tol >= 0.0 && o->tie_tol < 1.0))
        return cdyn_fail(rep, CDYN_EINVAL, "tie_tol must be in [0, 1)");
    if (!(o->tol >= 0.0 && o->tol < 1.0))
        return cdyn_fail(rep, CDYN_EINVAL, "tol must be in [0, 1) (0: default)");
    if (o->covering != NULL)
        for (int i = 0; i < n; ++i)
            if (!isfinite(o->covering[i]) || !(o->covering[i] > 0.0))
                return cdyn_fail(rep, CDYN_EINVAL,
                                 "covering vector entry %d must be finite and positive", i);
    return CDYN_OK;
}

/* Cold start: all w basic (B = B0 = I), x = q. */
static void cold_basis(lemke_ws *ws, const double *covering)
{
    const int n = ws->n;
    for (int p = 0; p < n; ++p) { /* what index_basis would find: w_p at p, no slots */
        ws->var_at[p] = p;
        ws->pos[p] = p;
        ws->pos[n + p] = -1;
        ws->slot_of_row[p] = -1;
        ws->x[p] = ws->q[p];
        ws->d[p] = covering != NULL ? covering[p] : 1.0;
    }
    ws->pos[2 * n] = -1;
    ws->k = 0;
    ws->b0_z = NULL;
}

/* The tableau of the cold start: B = I, the z_j and z0 are nonbasic: T = [-M, -d]. */
static void cold_tableau(lemke_ws *ws)
{
    const int n = ws->n;
    const size_t nn = (size_t)n * n;
    for (size_t e = 0; e < nn; ++e)
        ws->T[e] = -ws->M[e];
    for (int i = 0; i < n; ++i) {
        ws->T[nn + i] = -ws->d[i];
        ws->tcol[i] = -1;
        ws->tcol[n + i] = i;
    }
    ws->tcol[2 * n] = n;
}

/* Warm start basis: z_i at position i where warm[i] != 0, else w_i. */
static void warm_basis(lemke_ws *ws, const int *warm)
{
    const int n = ws->n;
    for (int p = 0; p < n; ++p)
        ws->var_at[p] = warm[p] ? n + p : p;
    ws->b0_z = warm;
    index_basis(ws);
}

/* Principal pivoting from the final basis when its solution has sign violations (block
 * principal pivoting after Judice & Pires 1994: exchange z_i and w_i on every violating row;
 * once a block exchange fails to reduce their number, Murty's least-index rule, one row at a
 * time, which terminates for P-matrices; Cottle, Pang & Stone 2009, section 4.2). Lemke's ratio
 * test treats values within tie_tol of the largest as ties, so data noise (friction rows with
 * q_i = -2e-16 next to entries of order 1e-2) can end it on a basis whose solution has
 * w_i = q_i < 0, a few exchanges away from the exact solution. At most POLISH_MAX solves; the
 * certificate decides, so this only ever turns a failure into a certified answer. */
static cdyn_status polish(lemke_ws *ws, double tol, double *z, double *w, double *res)
{
    const int n = ws->n;
    int *basis = ws->polish_basis; /* the basis whose solution ws->flags describes */
    for (int i = 0; i < n; ++i)
        basis[i] = ws->pos[n + i] >= 0;
    int best = n + 1, murty = 0, skip = 0;
    for (int it = 0; it < POLISH_MAX; ++it) {
        int count = 0;
        for (int i = 0; i < n; ++i)
            count += ws->flags[i] != 0;
        if (count == 0)
            return CDYN_EINACCURATE; /* an accuracy failure: another basis will not help */
        murty |= count >= best;
        best = count < best ? count : best;
        int pick = murty ? skip % count : -1; /* Murty: the pick-th violating row */
        for (int i = 0; i < n; ++i) {
            int flip = ws->flags[i] != 0;
            if (flip && murty)
                flip = pick-- == 0;
            ws->var_at[i] = (basis[i] != 0) != flip ? n + i : i;
        }
        index_basis(ws);
        if (factor_basis(ws) != CDYN_OK) { /* singular: a smaller exchange, or the next row */
            skip += murty;
            murty = 1;
            continue;
        }
        skip = 0;
        if (finish(ws, 0, tol, z, w, res, NULL) == CDYN_OK)
            return CDYN_OK;
        for (int i = 0; i < n; ++i)
            basis[i] = ws->var_at[i] == n + i;
    }
    return CDYN_EINACCURATE;
}

/* The ray's direction in z (ws->y is the entering column B^{-1} a_v: along the ray the basic
 * values move by -t y and the entering variable by t) into dz, negatives clamped to 0. */
static void ray_direction(const lemke_ws *ws, double *dz)
{
    const int n = ws->n;
    for (int j = 0; j < n; ++j) {
        const int p = ws->pos[n + j];
        double d = p >= 0 ? -ws->y[p] : (ws->ray_var == n + j ? 1.0 : 0.0);
        dz[j] = d > 0.0 ? d : 0.0;
    }
}

/* After every attempt failed with st: a proof of infeasibility when a cheap one holds (the ray's
 * z-part as a Farkas vector, which for copositive-plus M is one; a row with q_i < 0 and
 * M_i. <= 0), else the best candidate that failed the certificate as CDYN_EINACCURATE (z, w and
 * *res receive it), else st with z and w untouched. */
static cdyn_status conclude_failure(lemke_ws *ws, cdyn_status st, double *z, double *w,
                                    double *res, cdyn_report *rep)
{
    const int n = ws->n;
    const cdyn_lcp lcp = {n, ws->M, ws->q};
    if (st == CDYN_ERAY && ws->ray_var >= 0) {
        ray_direction(ws, ws->v);
        if (cdyn_lcp_farkas_check(&lcp, ws->v)) {
            if (rep != NULL)
                rep->proven = 1;
            return cdyn_fail(rep, CDYN_EINFEASIBLE,
                             "ray termination; its direction y >= 0 has M^T y <= 0 and q^T y < 0 "
                             "(checked with rounding bounds): no z >= 0 has M z + q >= 0 "
                             "(proven)");
        }
    }
    const int row = cdyn_lcp_infeasible_row(&lcp);
    if (row >= 0) {
        if (rep != NULL)
            rep->proven = 1;
        return cdyn_fail(rep, CDYN_EINFEASIBLE,
                         "row %d has q < 0 and no positive entry of M: w_%d < 0 for every z >= 0 "
                         "(proven)",
                         row, row);
    }
    if (ws->best_ratio < INACCURATE_MAX) {
        memcpy(z, ws->bz, sizeof(double) * (size_t)n);
        memcpy(w, ws->bw, sizeof(double) * (size_t)n);
        *res = ws->best_res;
        return cdyn_fail(rep, CDYN_EINACCURATE,
                         "no basic solution passed the componentwise certificate; z, w hold the "
                         "best (largest violation %.3g of its row's scale), after: %s",
                         ws->best_ratio, st == CDYN_EINACCURATE ? "refinement" : cdyn_status_str(st));
    }
    if (st == CDYN_EINACCURATE) { /* a candidate too far off to be an answer; finish's message
                                     stays */
        if (rep != NULL)
            rep->status = CDYN_ENUMERIC;
        return CDYN_ENUMERIC;
    }
    return st;
}

cdyn_status cdyn_lemke(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z, double *w,
                       cdyn_report *report)
{
    return cdyn_lemke_ex(lcp, opts, z, w, NULL, report);
}

cdyn_status cdyn_lemke_ex(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z, double *w,
                          int *basis, cdyn_report *report)
{
    cdyn_report_clear(report, "lemke");
    cdyn_status st = cdyn_lcp_validate(lcp, NULL, report);
    if (st != CDYN_OK)
        return st;
    return cdyn_lemke_validated(lcp, opts, z, w, basis, report);
}

cdyn_status cdyn_lemke_validated(const cdyn_lcp *lcp, const cdyn_lemke_options *opts, double *z,
                                 double *w, int *basis, cdyn_report *report)
{
    cdyn_lemke_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_lemke_defaults(&o);
    if (z == NULL || w == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "output %s is NULL", z == NULL ? "z" : "w");
    const int n = lcp->n;
    cdyn_status st = cdyn_lemke_check_options(&o, n, report);
    if (st != CDYN_OK)
        return st;
    if (o.max_pivots == 0)
        o.max_pivots = (n + 1) > INT_MAX / 50 ? INT_MAX : 50 * (n + 1);
    if (o.refactor_every == 0)
        o.refactor_every = 64;
    if (o.tol == 0.0)
        o.tol = 1e-10;

    /* One block: 2 n*n + 9 n doubles (+ the tableau for tiny n), then 12 n + 4 ints (n*n*8
       fits in size_t, validated). */
    const size_t nn = (size_t)n * (size_t)n;
    const size_t ntab = n <= TABLEAU_MAX_N ? (size_t)n * ((size_t)n + 1) : 0;
    const size_t extra = ntab + 9 * (size_t)n + (12 * (size_t)n + 4) / 2;
    if (nn > (SIZE_MAX / sizeof(double) - extra) / 2)
        return cdyn_fail(report, CDYN_ENOMEM, "workspace size overflows (n = %d)", n);
    /* Without a caller's allocator a small workspace lives on the stack: next to a solve that
       takes a few hundred nanoseconds, malloc and free are a noticeable cost. */
    double stack_block[LEMKE_STACK_DOUBLES];
    const int on_stack = o.allocator == NULL && 2 * nn + extra <= LEMKE_STACK_DOUBLES;
    double *block =
        on_stack ? stack_block : cdyn_mem_array(o.allocator, 2 * nn + extra, sizeof(double));
    if (block == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the Lemke workspace (n = %d)", n);
    lemke_ws ws = {.n = n,
                   .M = lcp->M,
                   .q = lcp->q,
                   .tie_tol = o.tie_tol,
                   .pivot_tol = o.pivot_tol,
                   .ray_var = -1,
                   .best_ratio = INFINITY,
                   .best_res = NAN};
    double *dp = block;
    ws.BT = dp, dp += nn;
    ws.C = dp, dp += nn;
    ws.T = ntab > 0 ? dp : NULL, dp += ntab;
    ws.d = dp, dp += n;
    ws.x = dp, dp += n;
    ws.y = dp, dp += n;
    ws.v = dp, dp += n;
    ws.g = dp, dp += n;
    ws.u = dp, dp += n;
    ws.lexv = dp, dp += n;
    ws.bz = dp, dp += n;
    ws.bw = dp, dp += n;
    int *ip = (int *)dp;
    ws.ipiv = ip, ip += n;
    ws.var_at = ip, ip += n;
    ws.pos = ip, ip += 2 * (size_t)n + 2;
    ws.slot_of_row = ip, ip += n;
    ws.row_of_slot = ip, ip += n;
    ws.zpos = ip, ip += n;
    ws.cand = ip, ip += n;
    ws.tcol = ip, ip += 2 * (size_t)n + 2;
    ws.flags = ip, ip += n;
    ws.polish_basis = ip;
    int trivial = 1; /* q >= 0 */
    for (int i = 0; i < n; ++i)
        trivial &= lcp->q[i] >= 0.0;

    lemke_run run = {.max_pivots = o.max_pivots, .refactor_every = o.refactor_every};
    double res = NAN;
    st = CDYN_ERAY;
    if (o.warm_basis != NULL) {
        warm_basis(&ws, o.warm_basis);
        if (factor_basis(&ws) == CDYN_OK) {
            /* The guessed basis may already be the answer. */
            st = finish(&ws, 0, o.tol, z, w, &res, NULL);
            if (st != CDYN_OK) {
                /* Lemke from this basis with d = B0 * ones, so that its column is -ones. */
                for (int i = 0; i < n; ++i)
                    ws.d[i] = o.warm_basis[i] ? 0.0 : 1.0;
                for (int j = 0; j < n; ++j)
                    if (o.warm_basis[j])
                        for (int i = 0; i < n; ++i)
                            ws.d[i] -= lcp->M[i + (size_t)j * n];
                rebuild_inverse(&ws); /* LU factors and x are still those of B0 */
                if (ws.T != NULL)
                    tableau_from_inverse(&ws);
                st = run_pivots(&ws, &run, 1, NULL);
                if (st == CDYN_OK)
                    st = finish(&ws, 1, o.tol, z, w, &res, NULL);
            }
        }
    }
    if (st != CDYN_OK) {
        cold_basis(&ws, o.covering);
        if (trivial) { /* z = 0, w = q: certified exactly (w_i = q_i >= 0, min(z_i, w_i) = 0) */
            for (int i = 0; i < n; ++i) {
                z[i] = 0.0;
                w[i] = lcp->q[i];
            }
            res = 0.0;
            st = CDYN_OK;
        } else {
            res = NAN;
            if (ws.T != NULL)
                cold_tableau(&ws);
            st = run_pivots(&ws, &run, 0, report);
            if (st == CDYN_OK)
                st = finish(&ws, 1, o.tol, z, w, &res, report);
            if (st == CDYN_EINACCURATE && polish(&ws, o.tol, z, w, &res) == CDYN_OK) {
                st = CDYN_OK;
                cdyn_report_method(report, "lemke+polish");
            }
        }
    }
    if (st == CDYN_OK && basis != NULL)
        for (int i = 0; i < n; ++i)
            basis[i] = ws.pos[n + i] >= 0;
    if (st != CDYN_OK)
        st = conclude_failure(&ws, st, z, w, &res, report);
    if (report != NULL) {
        report->iterations = run.pivots;
        report->status = st;
        report->residual = st == CDYN_OK || st == CDYN_EINACCURATE ? res : NAN;
        if (st == CDYN_OK)
            report->message[0] = '\0';
    }
    if (!on_stack)
        cdyn_mem_free(o.allocator, block);
    return st;
}
