/* Dense revised simplex with an explicit basis inverse (see simplex.h and docs/theory.md).
 *
 * Storage: B^{-1} is an m-by-m column-major array. A pivot replaces it by E B^{-1} with the
 * elementary matrix E of the pivot column (one BLAS rank-one update, O(m^2)); every
 * `refactor_every` pivots, and before any answer is accepted, B is rebuilt from its columns and
 * inverted through an LU factorization (LAPACK), which removes the rounding the updates have
 * accumulated. */
#include "solvers/lp/simplex.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

struct cdyn_splx {
    int m, n;
    cdyn_lp_options o;
    double *A;     /* m*n, rows multiplied by rsign so that b >= 0 */
    double *b;     /* m */
    double *rsign; /* m */
    double *c;     /* n + m: objective of the current phase (artificials last) */
    double bnorm, amax, cnorm;
    int *basis;   /* m: column in basis position p (n + p: artificial of row p) */
    int *where;   /* n + m: basis position or -1 */
    double *Binv; /* m*m */
    double *xB;   /* m */
    double *lu;   /* m*m */
    int *ipiv;    /* m */
    double *u;    /* m: B^{-1} a_q */
    double *pi;   /* m: simplex multipliers */
    double *d;    /* n: reduced costs */
    double *row;  /* max(m, n) scratch */
    int since;    /* pivots since the last LU refresh */
    int pivots;
    /* adjacency search */
    int max_nb, nb_count, max_bases;
    double *nb_pts; /* max_nb*n */
    int *nb_bases;  /* max_nb*m */
    int *q_bases;   /* max_bases*m: bases of the current vertex, queue order */
    int *q_keys;    /* max_bases*m: the same, sorted (set identity) */
    int *save;      /* m */
    int *key;       /* m */
    double *x0;     /* n */
    double *T;      /* m*n: B^{-1} A */
    const cdyn_allocator *al;
    void *block;
};

cdyn_status cdyn_splx_create(int m, int n, const double *A, const double *b,
                             const cdyn_lp_options *opts, int max_neighbors, cdyn_splx **out)
{
    *out = NULL;
    cdyn_lp_options o;
    cdyn_lp_defaults(&o);
    if (opts != NULL) {
        o = *opts;
        cdyn_lp_options def;
        cdyn_lp_defaults(&def);
        if (o.max_iterations <= 0)
            o.max_iterations = 100 * (m + n) + 1000;
        if (!(o.feas_tol > 0.0))
            o.feas_tol = def.feas_tol;
        if (!(o.opt_tol > 0.0))
            o.opt_tol = def.opt_tol;
        if (!(o.pivot_tol > 0.0))
            o.pivot_tol = def.pivot_tol;
        if (o.refactor_every <= 0)
            o.refactor_every = def.refactor_every;
        if (o.max_bases <= 0)
            o.max_bases = def.max_bases;
    } else {
        o.max_iterations = 100 * (m + n) + 1000;
    }
    cdyn_carve cv = {sizeof(struct cdyn_splx), 0};
    size_t M = (size_t)m, N = (size_t)n, MN = cdyn_carve_mul(&cv, M, N),
           MM = cdyn_carve_mul(&cv, M, M);
    size_t nbmax = max_neighbors > 0 ? (size_t)max_neighbors : 0;
    size_t qb = (size_t)o.max_bases;
    size_t oA = cdyn_carve_take(&cv, MN, sizeof(double)),
           ob = cdyn_carve_take(&cv, M, sizeof(double));
    size_t ors = cdyn_carve_take(&cv, M, sizeof(double)),
           oc = cdyn_carve_take(&cv, N + M, sizeof(double));
    size_t obs = cdyn_carve_take(&cv, M, sizeof(int)),
           owh = cdyn_carve_take(&cv, N + M, sizeof(int));
    size_t obi = cdyn_carve_take(&cv, MM, sizeof(double)),
           oxb = cdyn_carve_take(&cv, M, sizeof(double));
    size_t olu = cdyn_carve_take(&cv, MM, sizeof(double)),
           oip = cdyn_carve_take(&cv, M, sizeof(int));
    size_t ou = cdyn_carve_take(&cv, M, sizeof(double)),
           opi = cdyn_carve_take(&cv, M, sizeof(double));
    size_t od = cdyn_carve_take(&cv, N, sizeof(double));
    size_t orow = cdyn_carve_take(&cv, M > N ? M : N, sizeof(double));
    size_t onp = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, nbmax, N), sizeof(double));
    size_t onb = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, nbmax, M), sizeof(int));
    size_t oqb = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, qb, M), sizeof(int));
    size_t oqk = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, qb, M), sizeof(int));
    size_t osv = cdyn_carve_take(&cv, M, sizeof(int)), okey = cdyn_carve_take(&cv, M, sizeof(int));
    size_t ox0 = cdyn_carve_take(&cv, N, sizeof(double));
    size_t oT = cdyn_carve_take(&cv, nbmax > 0 ? MN : 0, sizeof(double));
    if (cv.overflow)
        return CDYN_ENOMEM;
    char *blk = cdyn_mem_alloc(o.allocator, cv.off);
    if (blk == NULL)
        return CDYN_ENOMEM;
    cdyn_splx *s = (cdyn_splx *)blk;
    memset(s, 0, sizeof *s);
    s->block = blk;
    s->al = o.allocator;
    s->o = o;
    s->m = m;
    s->n = n;
    s->A = (double *)(blk + oA);
    s->b = (double *)(blk + ob);
    s->rsign = (double *)(blk + ors);
    s->c = (double *)(blk + oc);
    s->basis = (int *)(blk + obs);
    s->where = (int *)(blk + owh);
    s->Binv = (double *)(blk + obi);
    s->xB = (double *)(blk + oxb);
    s->lu = (double *)(blk + olu);
    s->ipiv = (int *)(blk + oip);
    s->u = (double *)(blk + ou);
    s->pi = (double *)(blk + opi);
    s->d = (double *)(blk + od);
    s->row = (double *)(blk + orow);
    s->nb_pts = (double *)(blk + onp);
    s->nb_bases = (int *)(blk + onb);
    s->q_bases = (int *)(blk + oqb);
    s->q_keys = (int *)(blk + oqk);
    s->save = (int *)(blk + osv);
    s->key = (int *)(blk + okey);
    s->x0 = (double *)(blk + ox0);
    s->T = (double *)(blk + oT);
    s->max_nb = (int)nbmax;
    s->max_bases = o.max_bases;

    s->bnorm = 0.0;
    s->amax = 0.0;
    for (int i = 0; i < m; ++i) {
        double sg = b[i] < 0.0 ? -1.0 : 1.0;
        s->rsign[i] = sg;
        s->b[i] = sg * b[i];
        if (s->b[i] > s->bnorm)
            s->bnorm = s->b[i];
        for (int j = 0; j < n; ++j) {
            double a = sg * A[i + (size_t)j * M];
            s->A[i + (size_t)j * M] = a;
            if (fabs(a) > s->amax)
                s->amax = fabs(a);
        }
    }
    for (int j = 0; j < n + m; ++j)
        s->where[j] = -1;
    for (int p = 0; p < m; ++p) {
        s->basis[p] = n + p;
        s->where[n + p] = p;
    }
    *out = s;
    return CDYN_OK;
}

void cdyn_splx_free(cdyn_splx *s)
{
    if (s != NULL)
        cdyn_mem_free(s->al, s->block);
}

int cdyn_splx_pivots(const cdyn_splx *s)
{
    return s->pivots;
}
int cdyn_splx_rows(const cdyn_splx *s)
{
    return s->m;
}
int cdyn_splx_cols(const cdyn_splx *s)
{
    return s->n;
}

/* ---- factorization ------------------------------------------------------------------------- */

static double primal_tol(const cdyn_splx *s)
{
    return s->o.feas_tol * (1.0 + s->bnorm);
}

/* Rebuild B^{-1} and x_B from an LU factorization of the basis columns. CDYN_ENUMERIC when the
 * basis is numerically singular or the refreshed x_B is infeasible beyond the tolerance. */
static cdyn_status refactor(cdyn_splx *s)
{
    const int m = s->m, n = s->n;
    s->since = 0;
    if (m <= 0)
        return CDYN_OK;
    double bmax = 0.0;
    for (int p = 0; p < m; ++p) {
        double *col = s->lu + (size_t)p * m;
        int j = s->basis[p];
        if (j < n)
            memcpy(col, s->A + (size_t)j * m, sizeof(double) * (size_t)m);
        else {
            memset(col, 0, sizeof(double) * (size_t)m);
            col[j - n] = 1.0;
        }
        for (int i = 0; i < m; ++i)
            if (fabs(col[i]) > bmax)
                bmax = fabs(col[i]);
    }
    if (cdyn_dense_lu(m, s->lu, m, s->ipiv) != CDYN_OK)
        return CDYN_ENUMERIC;
    /* Partial pivoting: a diagonal of U tiny against the largest entry of B means that B is
     * singular up to rounding. */
    for (int p = 0; p < m; ++p)
        if (!(fabs(s->lu[p + (size_t)p * m]) > 1e-13 * bmax))
            return CDYN_ENUMERIC;
    memset(s->Binv, 0, sizeof(double) * (size_t)m * (size_t)m);
    for (int p = 0; p < m; ++p)
        s->Binv[p + (size_t)p * m] = 1.0;
    cdyn_dense_lu_solve(0, m, s->lu, m, s->ipiv, m, s->Binv, m);
    memcpy(s->xB, s->b, sizeof(double) * (size_t)m);
    cdyn_dense_lu_solve(0, m, s->lu, m, s->ipiv, 1, s->xB, m);
    double tol = primal_tol(s);
    for (int p = 0; p < m; ++p) {
        if (!isfinite(s->xB[p]) || s->xB[p] < -tol)
            return CDYN_ENUMERIC;
        if (s->xB[p] < 0.0)
            s->xB[p] = 0.0;
    }
    return CDYN_OK;
}

/* u = B^{-1} a_j (j structural). */
static void ftran(cdyn_splx *s, int j)
{
    cdyn_dense_gemv(s->m, s->m, 1.0, s->Binv, s->m, s->A + (size_t)j * s->m, 0.0, s->u);
}

/* Pivot column q (u = B^{-1} a_q already in s->u) into basis position r. */
static void pivot(cdyn_splx *s, int q, int r)
{
    const int m = s->m;
    double ur = s->u[r];
    double theta = (s->xB[r] > 0.0 ? s->xB[r] : 0.0) / ur;
    for (int i = 0; i < m; ++i)
        s->xB[i] -= theta * s->u[i];
    s->xB[r] = theta;
    for (int k = 0; k < m; ++k)
        s->row[k] = s->Binv[r + (size_t)k * m];
    s->u[r] = ur - 1.0; /* rank-one form of E B^{-1}: subtract (u - e_r)/u_r times row r */
    cdyn_dense_ger(m, m, -1.0 / ur, s->u, s->row, s->Binv, m);
    s->u[r] = ur;
    s->where[s->basis[r]] = -1;
    s->basis[r] = q;
    s->where[q] = r;
    s->since++;
    s->pivots++;
}

/* ---- pricing and ratio test ---------------------------------------------------------------- */

/* Multipliers pi = B^{-T} c_B and reduced costs d = c - A^T pi. */
static void compute_duals(cdyn_splx *s)
{
    const int m = s->m, n = s->n;
    for (int p = 0; p < m; ++p)
        s->row[p] = s->c[s->basis[p]];
    if (m > 0)
        cdyn_dense_gemv_t(m, m, 1.0, s->Binv, m, s->row, 0.0, s->pi);
    memcpy(s->d, s->c, sizeof(double) * (size_t)n);
    if (m > 0)
        cdyn_dense_gemv_t(m, n, -1.0, s->A, m, s->pi, 1.0, s->d);
}

static int price(cdyn_splx *s, cdyn_lp_rule rule, double tol)
{
    compute_duals(s);
    int q = -1;
    double best = -tol;
    for (int j = 0; j < s->n; ++j) {
        if (s->where[j] >= 0 || !(s->d[j] < -tol))
            continue;
        if (rule == CDYN_LP_RULE_BLAND)
            return j;
        if (s->d[j] < best) {
            best = s->d[j];
            q = j;
        }
    }
    return q;
}

static int lex_less(const cdyn_splx *s, int a, int b)
{
    /* Compare rows a and b of B^{-1}, scaled by 1/u, lexicographically. */
    const int m = s->m;
    for (int k = 0; k < m; ++k) {
        double va = s->Binv[a + (size_t)k * m] / s->u[a];
        double vb = s->Binv[b + (size_t)k * m] / s->u[b];
        double tol = 1e-11 * fmax(fabs(va), fabs(vb)) + 1e-15;
        if (va < vb - tol)
            return 1;
        if (va > vb + tol)
            return 0;
    }
    return 0;
}

/* Leaving basis position for entering column with u = B^{-1} a_q, or -1 (unbounded edge). */
static int ratio(cdyn_splx *s, cdyn_lp_rule rule)
{
    const int m = s->m;
    double umax = 0.0;
    for (int i = 0; i < m; ++i)
        if (fabs(s->u[i]) > umax)
            umax = fabs(s->u[i]);
    double thr = s->o.pivot_tol * umax;
    double theta = INFINITY;
    for (int i = 0; i < m; ++i)
        if (s->u[i] > thr) {
            double t = (s->xB[i] > 0.0 ? s->xB[i] : 0.0) / s->u[i];
            if (t < theta)
                theta = t;
        }
    if (theta == INFINITY)
        return -1;
    double tie = theta + 1e-12 * (1.0 + theta);
    int r = -1;
    for (int i = 0; i < m; ++i) {
        if (!(s->u[i] > thr) || (s->xB[i] > 0.0 ? s->xB[i] : 0.0) / s->u[i] > tie)
            continue;
        if (r < 0)
            r = i;
        else if (rule == CDYN_LP_RULE_BLAND) {
            if (s->basis[i] < s->basis[r])
                r = i;
        } else if (rule == CDYN_LP_RULE_LEXICOGRAPHIC) {
            if (lex_less(s, i, r))
                r = i;
        } /* textbook: keep the lowest row */
    }
    return r;
}

/* Every row of [x_B, B^{-1}] lexicographically positive? Then the lexicographic rule cannot
 * cycle from this basis. */
static int lex_positive(const cdyn_splx *s)
{
    const int m = s->m;
    for (int i = 0; i < m; ++i) {
        if (s->xB[i] > 0.0)
            continue;
        double rmax = 0.0;
        for (int k = 0; k < m; ++k)
            rmax = fmax(rmax, fabs(s->Binv[i + (size_t)k * m]));
        for (int k = 0; k < m; ++k) {
            double v = s->Binv[i + (size_t)k * m];
            if (fabs(v) > 1e-12 * rmax) {
                if (v < 0.0)
                    return 0;
                break;
            }
        }
    }
    return 1;
}

/* Simplex iterations on the current objective from the current feasible basis. */
static cdyn_status iterate(cdyn_splx *s, cdyn_report *r)
{
    cdyn_lp_rule rule = s->o.rule;
    if (rule == CDYN_LP_RULE_LEXICOGRAPHIC && !lex_positive(s))
        rule = CDYN_LP_RULE_BLAND;
    double cn = 0.0;
    for (int j = 0; j < s->n + s->m; ++j)
        cn = fmax(cn, fabs(s->c[j]));
    s->cnorm = cn;
    const double dtol = s->o.opt_tol * (1.0 + cn);
    int count = 0;
    for (;;) {
        if (s->since >= s->o.refactor_every && refactor(s) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENUMERIC, "simplex: basis numerically singular");
        int q = price(s, rule, dtol);
        if (q < 0) {
            if (s->since > 0) { /* confirm optimality with a fresh inverse */
                if (refactor(s) != CDYN_OK)
                    return cdyn_fail(r, CDYN_ENUMERIC, "simplex: basis numerically singular");
                continue;
            }
            return CDYN_OK;
        }
        ftran(s, q);
        int lv = ratio(s, rule);
        if (lv < 0) {
            if (s->since > 0) {
                if (refactor(s) != CDYN_OK)
                    return cdyn_fail(r, CDYN_ENUMERIC, "simplex: basis numerically singular");
                continue;
            }
            return cdyn_fail(r, CDYN_EUNBOUNDED, "simplex: column %d is an improving ray", q);
        }
        if (count >= s->o.max_iterations)
            return cdyn_fail(r, CDYN_ENOCONV, "simplex: %d pivots without reaching the optimum",
                             count);
        pivot(s, q, lv);
        count++;
        if (r != NULL)
            r->iterations++;
    }
}

/* ---- phase 1 ------------------------------------------------------------------------------- */

cdyn_status cdyn_splx_phase1(cdyn_splx *s, cdyn_report *r)
{
    const int m = s->m, n = s->n;
    for (int j = 0; j < n + m; ++j)
        s->where[j] = -1;
    for (int p = 0; p < m; ++p) {
        s->basis[p] = n + p;
        s->where[n + p] = p;
    }
    /* Crash: a column with one positive entry (a slack) starts basic in its row. Columns are
     * scanned from the last, where slack columns conventionally sit. */
    for (int j = n - 1; j >= 0; --j) {
        int row = -1, nnz = 0;
        for (int i = 0; i < m; ++i)
            if (s->A[i + (size_t)j * m] != 0.0) {
                nnz++;
                row = i;
            }
        if (nnz == 1 && s->A[row + (size_t)j * m] > 0.0 && s->basis[row] >= n) {
            s->where[s->basis[row]] = -1;
            s->basis[row] = j;
            s->where[j] = row;
        }
    }
    if (refactor(s) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "simplex: initial basis singular");
    int nart = 0;
    for (int p = 0; p < m; ++p)
        nart += s->basis[p] >= n;
    if (nart > 0) {
        memset(s->c, 0, sizeof(double) * (size_t)n);
        for (int i = 0; i < m; ++i)
            s->c[n + i] = 1.0;
        cdyn_status st = iterate(s, r);
        if (st == CDYN_EUNBOUNDED) /* impossible: the phase-1 objective is bounded below */
            st = cdyn_fail(r, CDYN_ENUMERIC, "simplex: phase 1 lost accuracy");
        if (st != CDYN_OK)
            return st;
        double infeas = 0.0;
        for (int p = 0; p < m; ++p)
            if (s->basis[p] >= n)
                infeas += s->xB[p];
        if (infeas > primal_tol(s))
            return cdyn_fail(r, CDYN_EINFEASIBLE,
                             "simplex: no x >= 0 with A x = b (phase-1 infeasibility %.3g)",
                             infeas);
        /* Drive zero-level artificials out; a row with no usable pivot is dependent. */
        for (int p = 0; p < m; ++p) {
            if (s->basis[p] < n)
                continue;
            double bi = 0.0;
            for (int k = 0; k < m; ++k) {
                s->row[k] = s->Binv[p + (size_t)k * m];
                bi = fmax(bi, fabs(s->row[k]));
            }
            int best = -1;
            double bv = 1e-9 * bi * s->amax;
            for (int j = 0; j < n; ++j) {
                if (s->where[j] >= 0)
                    continue;
                double rho = 0.0;
                for (int k = 0; k < m; ++k)
                    rho += s->row[k] * s->A[k + (size_t)j * m];
                if (fabs(rho) > bv) {
                    bv = fabs(rho);
                    best = j;
                }
            }
            if (best >= 0) {
                s->xB[p] = 0.0;
                ftran(s, best);
                pivot(s, best, p);
            }
        }
        if (refactor(s) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENUMERIC, "simplex: basis numerically singular");
    }
    memset(s->c, 0, sizeof(double) * (size_t)(n + m));
    return CDYN_OK;
}

cdyn_status cdyn_splx_minimize(cdyn_splx *s, const double *c, cdyn_report *r)
{
    memcpy(s->c, c, sizeof(double) * (size_t)s->n);
    memset(s->c + s->n, 0, sizeof(double) * (size_t)s->m);
    return iterate(s, r);
}

/* ---- results -------------------------------------------------------------------------------- */

void cdyn_splx_point(const cdyn_splx *s, double *x)
{
    memset(x, 0, sizeof(double) * (size_t)s->n);
    for (int p = 0; p < s->m; ++p)
        if (s->basis[p] < s->n)
            x[s->basis[p]] = s->xB[p] > 0.0 ? s->xB[p] : 0.0;
}

void cdyn_splx_duals(cdyn_splx *s, double *y)
{
    compute_duals(s);
    for (int i = 0; i < s->m; ++i)
        y[i] = s->rsign[i] * s->pi[i];
}

double cdyn_splx_residual(cdyn_splx *s)
{
    const int m = s->m, n = s->n;
    compute_duals(s);
    double res = 0.0;
    for (int j = 0; j < n; ++j)
        res = fmax(res, -s->d[j]);
    /* ||A x - b||: x from the basic values (clamped as returned). */
    for (int i = 0; i < m; ++i)
        s->u[i] = -s->b[i];
    for (int p = 0; p < m; ++p) {
        int j = s->basis[p];
        double v = s->xB[p] > 0.0 ? s->xB[p] : 0.0;
        if (j < n)
            for (int i = 0; i < m; ++i)
                s->u[i] += s->A[i + (size_t)j * m] * v;
        else
            s->u[j - n] += v; /* artificial of a dependent row (value ~ 0) */
    }
    for (int i = 0; i < m; ++i)
        res = fmax(res, fabs(s->u[i]));
    return res;
}

void cdyn_splx_get_basis(const cdyn_splx *s, int *basis)
{
    for (int p = 0; p < s->m; ++p)
        basis[p] = s->basis[p] < s->n ? s->basis[p] : -1;
}

/* Load positions (internal numbering) without feasibility checks; CDYN_ENUMERIC if singular. */
static cdyn_status load(cdyn_splx *s, const int *cols)
{
    for (int j = 0; j < s->n + s->m; ++j)
        s->where[j] = -1;
    for (int p = 0; p < s->m; ++p) {
        s->basis[p] = cols[p];
        s->where[cols[p]] = p;
    }
    return refactor(s);
}

cdyn_status cdyn_splx_set_basis(cdyn_splx *s, const int *basis)
{
    const int m = s->m, n = s->n;
    for (int p = 0; p < m; ++p) {
        int j = basis[p] < 0 ? n + p : basis[p];
        if (basis[p] < -1 || basis[p] >= n)
            return CDYN_EINVAL;
        for (int k = 0; k < p; ++k)
            if (basis[k] >= 0 && basis[k] == basis[p])
                return CDYN_EINVAL;
        s->key[p] = j;
    }
    memcpy(s->save, s->basis, sizeof(int) * (size_t)m);
    if (load(s, s->key) == CDYN_OK) {
        /* An artificial may stay basic only at level zero (a dependent row). */
        int ok = 1;
        for (int p = 0; p < m; ++p)
            if (s->basis[p] >= n && s->xB[p] > primal_tol(s))
                ok = 0;
        if (ok)
            return CDYN_OK;
    }
    memcpy(s->key, s->save, sizeof(int) * (size_t)m);
    (void)load(s, s->key);
    return CDYN_EINVAL;
}

/* ---- adjacent extreme points ---------------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static void sort_ints(int *v, int k)
{
    /* insertion sort: bases are short and this runs rarely */
    for (int i = 1; i < k; ++i) {
        int t = v[i], j = i - 1;
        while (j >= 0 && cmp_int(&v[j], &t) > 0) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = t;
    }
}

static int same_point(const double *a, const double *b, int n, double tol)
{
    for (int j = 0; j < n; ++j)
        if (fabs(a[j] - b[j]) > tol)
            return 0;
    return 1;
}

int cdyn_splx_adjacent(cdyn_splx *s, int *partial)
{
    const int m = s->m, n = s->n;
    *partial = 0;
    s->nb_count = 0;
    if (s->max_nb <= 0)
        return 0;
    memcpy(s->save, s->basis, sizeof(int) * (size_t)m);
    cdyn_splx_point(s, s->x0);
    double xscale = 0.0;
    for (int j = 0; j < n; ++j)
        xscale = fmax(xscale, s->x0[j]);
    const double ptol = 1e-9 * (1.0 + xscale);
    const double dtol = primal_tol(s);
    int nq = 1;
    memcpy(s->q_bases, s->basis, sizeof(int) * (size_t)m);
    memcpy(s->q_keys, s->basis, sizeof(int) * (size_t)m);
    sort_ints(s->q_keys, m);
    for (int qi = 0; qi < nq; ++qi) {
        if (qi > 0 && load(s, s->q_bases + (size_t)qi * m) != CDYN_OK)
            continue;
        if (m > 0)
            cdyn_dense_gemm(0, 0, m, n, m, 1.0, s->Binv, m, s->A, m, 0.0, s->T, m);
        for (int j = 0; j < n; ++j) {
            if (s->where[j] >= 0)
                continue;
            memcpy(s->u, s->T + (size_t)j * m, sizeof(double) * (size_t)m);
            double umax = 0.0;
            for (int i = 0; i < m; ++i)
                umax = fmax(umax, fabs(s->u[i]));
            double thr = s->o.pivot_tol * umax, theta = INFINITY;
            int rmin = -1;
            for (int i = 0; i < m; ++i)
                if (s->u[i] > thr) {
                    double t = (s->xB[i] > 0.0 ? s->xB[i] : 0.0) / s->u[i];
                    if (t < theta) {
                        theta = t;
                        rmin = i;
                    }
                }
            if (rmin < 0)
                continue; /* an unbounded edge: no vertex at its end */
            if (theta * fmax(1.0, umax) > dtol) {
                if (s->nb_count >= s->max_nb) {
                    *partial = 1;
                    continue;
                }
                double *pt = s->nb_pts + (size_t)s->nb_count * n;
                memset(pt, 0, sizeof(double) * (size_t)n);
                for (int p = 0; p < m; ++p)
                    if (s->basis[p] < n) {
                        double v = s->xB[p] - theta * s->u[p];
                        pt[s->basis[p]] = v > 0.0 ? v : 0.0;
                    }
                pt[j] = theta;
                int dup = same_point(pt, s->x0, n, ptol);
                for (int k = 0; k < s->nb_count && !dup; ++k)
                    dup = same_point(pt, s->nb_pts + (size_t)k * n, n, ptol);
                if (!dup) {
                    int *nbb = s->nb_bases + (size_t)s->nb_count * m;
                    for (int p = 0; p < m; ++p)
                        nbb[p] = s->basis[p] < n ? s->basis[p] : -1;
                    nbb[rmin] = j;
                    s->nb_count++;
                }
                continue;
            }
            /* Degenerate direction: every tied leaving row gives another basis of this vertex. */
            for (int i = 0; i < m; ++i) {
                if (!(s->u[i] > thr) ||
                    (s->xB[i] > 0.0 ? s->xB[i] : 0.0) * fmax(1.0, umax) > dtol * s->u[i])
                    continue;
                memcpy(s->key, s->basis, sizeof(int) * (size_t)m);
                s->key[i] = j;
                const int *cand = s->key;
                /* its sorted copy (the basis as a set) goes to the next free queue slot */
                if (nq >= s->max_bases) {
                    *partial = 1;
                    continue;
                }
                int *slot_key = s->q_keys + (size_t)nq * m;
                memcpy(slot_key, cand, sizeof(int) * (size_t)m);
                sort_ints(slot_key, m);
                int seen = 0;
                for (int k = 0; k < nq && !seen; ++k)
                    seen =
                        memcmp(slot_key, s->q_keys + (size_t)k * m, sizeof(int) * (size_t)m) == 0;
                if (!seen) {
                    memcpy(s->q_bases + (size_t)nq * m, cand, sizeof(int) * (size_t)m);
                    nq++;
                }
            }
        }
    }
    (void)load(s, s->save);
    return s->nb_count;
}

const double *cdyn_splx_neighbor(const cdyn_splx *s, int k)
{
    return s->nb_pts + (size_t)k * s->n;
}

const int *cdyn_splx_neighbor_basis(const cdyn_splx *s, int k)
{
    return s->nb_bases + (size_t)k * s->m;
}
