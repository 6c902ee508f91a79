/* Friction-cone QP: the Newton matrix K = H + G'W^{-2}G (+ shift I) and its Cholesky
 * factorization, dense (LAPACK) or sparse (CHOLMOD, pattern analyzed once at create). Rows and
 * columns of fixed variables are replaced by the identity so K stays positive definite and the
 * fixed steps come out as 0. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "solvers/coneqp/coneqp_internal.h"

/* Copy the message of a helper's scratch report into r under the given status. */
static cdyn_status pass(cdyn_report *r, cdyn_status st, const cdyn_report *inner, const char *what)
{
    return cdyn_fail(r, st, "%s: %s", what, inner->message);
}

/* The identity rows of fixed variables get the largest diagonal entry of the free part, so
 * that they neither decide nor distort a condition estimate (min/max of the pivots). */
static void set_fixed_diagonal(cdyn_coneqp_solver *w)
{
    double d = w->hdiag;
    for (int i = 0; i < w->nc; ++i)
        for (int a = 0; a < w->ct[i].nv; ++a)
            d = fmax(d, w->blk[9 * i + 4 * a]);
    w->fixdiag = d > 0.0 ? d : 1.0;
}

/* ---- dense ---- */

static cdyn_status dense_factor(cdyn_coneqp_solver *w, double shift, cdyn_report *r)
{
    const size_t n = (size_t)w->n;
    const double *H = w->p->H;
    double *K = w->K;
    const int *fx = w->fixed;
    set_fixed_diagonal(w);
    for (size_t j = 0; j < n; ++j)
        for (size_t i = j; i < n; ++i)
            K[i + j * n] = (fx[i] || fx[j]) ? (i == j ? w->fixdiag : 0.0) : H[i + j * n];
    for (int c = 0; c < w->nc; ++c) {
        const cq_contact *ct = &w->ct[c];
        const double *B = w->blk + 9 * c;
        for (int b = 0; b < ct->nv; ++b)
            for (int a = b; a < ct->nv; ++a) {
                const size_t ga = (size_t)(ct->vo + a), gb = (size_t)(ct->vo + b);
                if (!fx[ga] && !fx[gb])
                    K[ga + gb * n] += B[a + 3 * b] + (a == b ? shift : 0.0);
            }
    }
    /* No condition test on the pivots: the ill-conditioning of interior-point Newton matrices
     * near the solution is structured and Cholesky solves them well (tested: rejecting
     * (min/max diag L)^2 < eps and shifting instead cost accuracy and convergence). */
    const cdyn_status st = cdyn_dense_chol(w->n, K, w->n);
    if (st == CDYN_ESINGULAR)
        return cdyn_fail(r, st, "Newton matrix is not positive definite (LAPACK dpotrf)");
    if (st != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "Newton matrix contains NaN or Inf");
    return CDYN_OK;
}

static cdyn_status dense_solve(cdyn_coneqp_solver *w, double *b, cdyn_report *r)
{
    (void)r;
    cdyn_dense_chol_solve(w->n, w->K, w->n, 1, b, w->n);
    return CDYN_OK;
}

const cq_kkt_ops cdyn_cq_dense_ops = {dense_factor, dense_solve};

/* ---- sparse ---- */

static cdyn_status sparse_factor(cdyn_coneqp_solver *w, double shift, cdyn_report *r)
{
    const cdyn_csc *Hs = w->p->Hs;
    const int *fx = w->fixed;
    double *tx = w->tx;
    set_fixed_diagonal(w);
    for (int k = 0; k < w->na; ++k)
        tx[k] = (fx[w->ti[k]] || fx[w->tj[k]]) ? 0.0 : Hs->values[w->src[k]];
    int k = w->na;
    for (int c = 0; c < w->nc; ++c) {
        const cq_contact *ct = &w->ct[c];
        const double *B = w->blk + 9 * c;
        for (int b = 0; b < ct->nv; ++b)
            for (int a = b; a < ct->nv; ++a) {
                const int ga = ct->vo + a, gb = ct->vo + b;
                if (fx[ga] || fx[gb])
                    tx[k++] = a == b ? w->fixdiag : 0.0;
                else
                    tx[k++] = B[a + 3 * b] + (a == b ? shift : 0.0);
            }
    }
    cdyn_csc_assembly_set_values(&w->as, tx);
    cdyn_report inner;
    const cdyn_status st = cdyn_sparse_chol_factor(w->chol, &w->as.A, &inner);
    if (st == CDYN_ESINGULAR)
        return pass(r, st, &inner, "Newton matrix");
    if (st == CDYN_EINVAL)
        return pass(r, CDYN_ENUMERIC, &inner, "Newton matrix");
    if (st != CDYN_OK)
        return pass(r, st, &inner, "Newton matrix");
    return CDYN_OK;
}

static cdyn_status sparse_solve(cdyn_coneqp_solver *w, double *b, cdyn_report *r)
{
    cdyn_report inner;
    const cdyn_status st = cdyn_sparse_chol_solve(w->chol, 1, b, b, &inner);
    if (st == CDYN_EINVAL)
        return pass(r, CDYN_ENUMERIC, &inner, "Newton solve");
    if (st != CDYN_OK)
        return pass(r, st, &inner, "Newton solve");
    return CDYN_OK;
}

const cq_kkt_ops cdyn_cq_sparse_ops = {sparse_factor, sparse_solve};

cdyn_status cdyn_cq_sparse_setup(cdyn_coneqp_solver *w, const cdyn_csc *Hs, cdyn_report *r)
{
    const cdyn_allocator *al = w->opts.allocator;
    const int n = w->n, nnz = Hs->colptr[n];
    int na = 0;
    long long nb = 0;
    for (int j = 0; j < n; ++j)
        for (int k = Hs->colptr[j]; k < Hs->colptr[j + 1]; ++k)
            na += Hs->rowind[k] >= j;
    for (int c = 0; c < w->nc; ++c)
        nb += (long long)w->ct[c].nv * (w->ct[c].nv + 1) / 2;
    if ((long long)na + nb > 0x7fffffff)
        return cdyn_fail(r, CDYN_ETOOBIG, "Newton matrix has too many entries for int indices");
    w->na = na;
    w->ntrip = na + (int)nb;
    const size_t nt = (size_t)w->ntrip;
    w->hcolptr = cdyn_mem_array(al, (size_t)n + 1, sizeof(int));
    w->hrowind = cdyn_mem_array(al, (size_t)nnz, sizeof(int));
    w->ti = cdyn_mem_array(al, nt, sizeof(int));
    w->tj = cdyn_mem_array(al, nt, sizeof(int));
    w->src = cdyn_mem_array(al, (size_t)na, sizeof(int));
    w->tx = cdyn_mem_array(al, nt, sizeof(double));
    if (!w->hcolptr || !w->hrowind || !w->ti || !w->tj || !w->src || !w->tx)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the sparse Newton-matrix triplets");
    memcpy(w->hcolptr, Hs->colptr, sizeof(int) * ((size_t)n + 1));
    if (nnz > 0)
        memcpy(w->hrowind, Hs->rowind, sizeof(int) * (size_t)nnz);
    int t = 0;
    for (int j = 0; j < n; ++j)
        for (int k = Hs->colptr[j]; k < Hs->colptr[j + 1]; ++k)
            if (Hs->rowind[k] >= j) {
                w->ti[t] = Hs->rowind[k];
                w->tj[t] = j;
                w->src[t++] = k;
            }
    for (int c = 0; c < w->nc; ++c) {
        const cq_contact *ct = &w->ct[c];
        for (int b = 0; b < ct->nv; ++b)
            for (int a = b; a < ct->nv; ++a) {
                w->ti[t] = ct->vo + a;
                w->tj[t++] = ct->vo + b;
            }
    }
    cdyn_report inner;
    cdyn_status st = cdyn_csc_assembly_init(&w->as, n, n, w->ntrip, w->ti, w->tj, al, &inner);
    if (st != CDYN_OK)
        return pass(r, st, &inner, "Newton-matrix pattern");
    st = cdyn_sparse_chol_create_threads(&w->as.A, al, w->opts.threads, &w->chol, &inner);
    if (st != CDYN_OK)
        return pass(r, st, &inner, "Newton-matrix analysis");
    /* As on the dense path: no condition test on the pivots (see dense_factor). */
    cdyn_sparse_chol_set_rcond_min(w->chol, 0.0);
    return CDYN_OK;
}

void cdyn_cq_sparse_cleanup(cdyn_coneqp_solver *w)
{
    const cdyn_allocator *al = w->opts.allocator;
    cdyn_sparse_chol_free(w->chol);
    cdyn_csc_assembly_free(&w->as);
    cdyn_mem_free(al, w->hcolptr);
    cdyn_mem_free(al, w->hrowind);
    cdyn_mem_free(al, w->ti);
    cdyn_mem_free(al, w->tj);
    cdyn_mem_free(al, w->src);
    cdyn_mem_free(al, w->tx);
    w->chol = NULL;
}
