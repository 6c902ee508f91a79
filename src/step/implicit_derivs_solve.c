/* The derivative's linear systems (implicit_derivs_solve.h): the step's Jacobian on the active
 * set, split into islands, each factored once by dense LU (LAPACK) or KLU. */
#include "step/implicit_derivs_solve.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <float.h>
#include <math.h>
#include <string.h>

cdyn_status ift_jacobians(ift_system *sys, ncp_form *f, const double *x0, const double *y,
                          const int *colptr, const int *rowind, double *Jx,
                          const cdyn_allocator *as, cdyn_report *r)
{
    const int n = f->ny;
    memset(sys, 0, sizeof *sys);
    sys->n = n;
    sys->as = as;
    sys->colptr = colptr;
    sys->rowind = rowind;
    ncp_sink jx = {NCP_SINK_DENSE, Jx, n, NULL, NULL, NULL, 0, NULL, NULL, 0};
    ncp_sink jy = {NCP_SINK_DENSE, NULL, n, NULL, NULL, NULL, 0, NULL, NULL, 0};
    memset(Jx, 0, (size_t)n * f->nx * sizeof(double));
    if (colptr == NULL) {
        sys->J = cdyn_mem_array(as, (size_t)n * n + 1, sizeof(double));
        if (sys->J == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        memset(sys->J, 0, (size_t)n * n * sizeof(double));
        jy.dense = sys->J;
    } else {
        sys->nnz = colptr[n];
        sys->values = cdyn_mem_array(as, (size_t)sys->nnz + 1, sizeof(double));
        if (sys->values == NULL)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        memset(sys->values, 0, (size_t)sys->nnz * sizeof(double));
        jy.mode = NCP_SINK_CSC;
        jy.values = sys->values;
        jy.colptr = colptr;
        jy.rowind = rowind;
    }
    if (ncp_form_jac(f, x0, y, &jy, &jx) != 0)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the step's Jacobian cannot "
                         "be evaluated at its solution");
    return CDYN_OK;
}

/* ---- islands: union-find over J~'s entries ---- */

static int root(int *parent, int i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static void join(int *parent, int i, int j)
{
    i = root(parent, i);
    j = root(parent, j);
    if (i != j)
        parent[i > j ? i : j] = i < j ? i : j;
}

/* The entries of J~'s column j: fn(ctx, i, j, value). */
static void visit_col(const ift_system *sys, const int *eq, int j,
                      void (*fn)(void *, int, int, double), void *ctx)
{
    const int n = sys->n;
    if (sys->J != NULL) {
        for (int i = 0; i < n; i++)
            if (eq[i] && sys->J[i + (size_t)j * n] != 0.0)
                fn(ctx, i, j, sys->J[i + (size_t)j * n]);
    } else {
        for (int p = sys->colptr[j]; p < sys->colptr[j + 1]; p++)
            if (eq[sys->rowind[p]])
                fn(ctx, sys->rowind[p], j, sys->values[p]);
    }
    if (!eq[j])
        fn(ctx, j, j, 1.0);
}

static void join_entry(void *ctx, int i, int j, double v)
{
    (void)v;
    join(ctx, i, j);
}

/* The island being assembled: dense block or triplets. */
typedef struct fill {
    const ift_system *sys;
    int island;
    double *dense;
    int *ti, *tj;
    double *tx;
    int nt;
} fill;

static void fill_entry(void *ctx, int i, int j, double v)
{
    fill *F = ctx;
    if (F->sys->comp[j] != F->island)
        return;
    const int li = F->sys->local[i], lj = F->sys->local[j];
    if (F->dense != NULL) {
        F->dense[li + (size_t)lj * F->sys->island[F->island].size] += v;
    } else {
        F->ti[F->nt] = li;
        F->tj[F->nt] = lj;
        F->tx[F->nt++] = v;
    }
}

static cdyn_status singular(cdyn_report *r, double rc)
{
    return cdyn_fail(r, CDYN_ESINGULAR, "cdyn_step_derivatives: the step's Jacobian on its "
                     "active set is singular at the solution (rcond %.3g): no derivative", rc);
}

static cdyn_status factor_dense(ift_system *sys, const int *eq, int c, cdyn_report *r)
{
    ift_island *is = &sys->island[c];
    const int m = is->size;
    is->lu = cdyn_mem_array(sys->as, (size_t)m * m + 4 * (size_t)m + 1, sizeof(double));
    is->ipiv = cdyn_mem_array(sys->as, 2 * (size_t)m + 1, sizeof(int));
    if (is->lu == NULL || is->ipiv == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    memset(is->lu, 0, (size_t)m * m * sizeof(double));
    fill F = {sys, c, is->lu, NULL, NULL, NULL, 0};
    for (int t = is->start; t < is->start + m; t++)
        visit_col(sys, eq, sys->member[t], fill_entry, &F);
    const double anorm = cdyn_dense_norm1(m, m, is->lu, m);
    cdyn_status st = cdyn_dense_lu(m, is->lu, m, is->ipiv);
    const double rc = st == CDYN_OK ? cdyn_dense_lu_rcond(m, is->lu, m, anorm,
                                                          is->lu + (size_t)m * m, is->ipiv + m)
                                    : 0.0;
    if (st == CDYN_ESINGULAR || (st == CDYN_OK && !(rc > DBL_EPSILON)))
        return singular(r, rc);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "cdyn_step_derivatives: LU of the step's Jacobian failed");
    return CDYN_OK;
}

static cdyn_status factor_sparse(ift_system *sys, const int *eq, int c, cdyn_report *r)
{
    ift_island *is = &sys->island[c];
    const size_t cap = (size_t)sys->nnz + sys->n + 1;
    fill F = {sys, c, NULL, cdyn_mem_array(sys->as, cap, sizeof(int)),
              cdyn_mem_array(sys->as, cap, sizeof(int)),
              cdyn_mem_array(sys->as, cap, sizeof(double)), 0};
    cdyn_status st = CDYN_ENOMEM;
    if (F.ti == NULL || F.tj == NULL || F.tx == NULL) {
        cdyn_fail(r, st, "cdyn_step_derivatives: out of memory");
        goto done;
    }
    for (int t = is->start; t < is->start + is->size; t++) {
        const int j = sys->member[t];
        visit_col(sys, eq, j, fill_entry, &F);
        if (eq[j])
            fill_entry(&F, j, j, 0.0); /* the diagonal, present for KLU even where it is 0 */
    }
    if ((st = cdyn_csc_assembly_init(&is->H, is->size, is->size, F.nt, F.ti, F.tj, sys->as,
                                     r)) != CDYN_OK)
        goto done;
    cdyn_csc_assembly_set_values(&is->H, F.tx);
    if ((st = cdyn_sparse_lu_create(&is->H.A, sys->as, &is->klu, r)) != CDYN_OK)
        goto done;
    if ((st = cdyn_sparse_lu_factor(is->klu, &is->H.A, r)) == CDYN_ESINGULAR)
        singular(r, cdyn_sparse_lu_rcond(is->klu));
done:
    cdyn_mem_free(sys->as, F.ti);
    cdyn_mem_free(sys->as, F.tj);
    cdyn_mem_free(sys->as, F.tx);
    return st;
}

cdyn_status ift_factor(ift_system *sys, const int *eq, cdyn_report *r)
{
    const int n = sys->n;
    sys->comp = cdyn_mem_array(sys->as, 3 * (size_t)n + 1, sizeof(int));
    if (sys->comp == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    sys->member = sys->comp + n;
    sys->local = sys->member + n;
    int *parent = sys->member; /* scratch until the islands are numbered */
    for (int i = 0; i < n; i++)
        parent[i] = i;
    for (int j = 0; j < n; j++)
        visit_col(sys, eq, j, join_entry, parent);
    /* islands numbered by their smallest unknown; members in increasing order */
    int nis = 0;
    for (int i = 0; i < n; i++)
        sys->local[i] = root(parent, i) == i ? nis++ : -1;
    for (int i = 0; i < n; i++)
        sys->comp[i] = sys->local[root(parent, i)]; /* roots are visited first: i >= root */
    sys->nisland = nis;
    sys->island = cdyn_mem_array(sys->as, (size_t)nis + 1, sizeof(ift_island));
    if (sys->island == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    memset(sys->island, 0, ((size_t)nis + 1) * sizeof(ift_island));
    for (int i = 0; i < n; i++)
        sys->island[sys->comp[i]].size++;
    for (int c = 1; c < nis; c++)
        sys->island[c].start = sys->island[c - 1].start + sys->island[c - 1].size;
    for (int c = 0; c < nis; c++)
        sys->island[c].size = 0;
    for (int i = 0; i < n; i++) {
        ift_island *is = &sys->island[sys->comp[i]];
        sys->local[i] = is->size;
        sys->member[is->start + is->size++] = i;
    }
    for (int c = 0; c < nis; c++) {
        const int dense = sys->J != NULL || sys->island[c].size <= IFT_DENSE_MAX;
        const cdyn_status st = dense ? factor_dense(sys, eq, c, r) : factor_sparse(sys, eq, c, r);
        if (st != CDYN_OK)
            return st;
    }
    return CDYN_OK;
}

/* Each (column j, island c) with an entry of column j on island c, once: pos[c]++ and, when
 * cols is not NULL, cols[pos[c]] = j first. stamp: nisland ints of scratch. */
static void island_columns(const ift_system *sys, const ift_columns *rhs, int *stamp, int *pos,
                           int *cols)
{
    for (int c = 0; c < sys->nisland; c++)
        stamp[c] = -1;
    for (int j = 0; j < rhs->n; j++)
        for (int p = rhs->colptr[j]; p < rhs->colptr[j + 1]; p++) {
            const int c = sys->comp[rhs->rowind[p]];
            if (stamp[c] != j) {
                stamp[c] = j;
                if (cols != NULL)
                    cols[pos[c]] = j;
                pos[c]++;
            }
        }
}

cdyn_status ift_plan(ift_system *sys, const ift_columns *rhs, cdyn_report *r)
{
    const int nis = sys->nisland, ncol = rhs->n;
    for (int p = 0; p < rhs->colptr[ncol]; p++)
        if (!isfinite(rhs->values[p]))
            return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the step's derivative "
                             "in its start is not finite");
    /* the columns reaching each island: cols[first[c] .. first[c + 1]) (a column whose entries
     * lie on several islands is listed on each) */
    int *first = sys->first = cdyn_mem_array(sys->as, 2 * (size_t)nis + 2, sizeof(int));
    if (first == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    int *stamp = first + nis + 1;
    for (int c = 0; c <= nis; c++)
        first[c] = 0;
    island_columns(sys, rhs, stamp, first + 1, NULL);
    size_t wmax = 1;
    for (int c = 0; c < nis; c++) {
        const size_t w = (size_t)sys->island[c].size * first[c + 1];
        wmax = w > wmax ? w : wmax;
        first[c + 1] += first[c];
    }
    sys->cols = cdyn_mem_array(sys->as, (size_t)first[nis] + 1, sizeof(int));
    sys->work = cdyn_mem_array(sys->as, wmax, sizeof(double));
    if (sys->cols == NULL || sys->work == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    island_columns(sys, rhs, stamp, first, sys->cols);
    for (int c = nis; c > 0; c--) /* first[c] is now the end of island c: shift back */
        first[c] = first[c - 1];
    first[0] = 0;
    return CDYN_OK;
}

cdyn_status ift_solve(ift_system *sys, const ift_columns *rhs, const ift_columns *out,
                      double *const *outcol, cdyn_report *r)
{
    const int nis = sys->nisland, *first = sys->first;
    cdyn_status st = CDYN_OK;
    for (int c = 0; c < nis && st == CDYN_OK; c++) {
        const ift_island *is = &sys->island[c];
        const int m = is->size, nc = first[c + 1] - first[c], *cols = sys->cols + first[c];
        if (nc == 0)
            continue;
        double *w = sys->work;
        memset(w, 0, (size_t)m * nc * sizeof(double));
        for (int u = 0; u < nc; u++)
            for (int p = rhs->colptr[cols[u]]; p < rhs->colptr[cols[u] + 1]; p++)
                if (sys->comp[rhs->rowind[p]] == c)
                    w[sys->local[rhs->rowind[p]] + (size_t)u * m] += rhs->values[p];
        if (is->klu == NULL)
            cdyn_dense_lu_solve(0, m, is->lu, m, is->ipiv, nc, w, m);
        else
            st = cdyn_sparse_lu_solve(is->klu, 0, nc, w, w, r);
        /* out(:, j) += P(:, island) w(:, u) */
        for (int u = 0; u < nc && st == CDYN_OK; u++) {
            double *o = outcol[cols[u]];
            if (o == NULL)
                continue;
            for (int t = 0; t < m; t++) {
                const double wt = w[t + (size_t)u * m];
                const int k = sys->member[is->start + t];
                if (wt != 0.0)
                    for (int p = out->colptr[k]; p < out->colptr[k + 1]; p++)
                        o[out->rowind[p]] += out->values[p] * wt;
            }
        }
    }
    return st;
}

void ift_free(ift_system *sys)
{
    for (int c = 0; sys->island != NULL && c < sys->nisland; c++) {
        ift_island *is = &sys->island[c];
        cdyn_sparse_lu_free(is->klu);
        cdyn_csc_assembly_free(&is->H);
        cdyn_mem_free(sys->as, is->lu);
        cdyn_mem_free(sys->as, is->ipiv);
    }
    cdyn_mem_free(sys->as, sys->island);
    cdyn_mem_free(sys->as, sys->comp);
    cdyn_mem_free(sys->as, sys->J);
    cdyn_mem_free(sys->as, sys->values);
    cdyn_mem_free(sys->as, sys->work);
    cdyn_mem_free(sys->as, sys->cols);
    cdyn_mem_free(sys->as, sys->first);
    memset(sys, 0, sizeof *sys);
}
