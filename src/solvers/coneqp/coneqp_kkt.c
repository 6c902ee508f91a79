/* Friction-cone QP: the Newton matrix K = H + G'W^{-2}G (+ shift I) and its Cholesky
 * factorization on the linear-system layer (src/linalg/linsys.h), dense (LAPACK) or sparse
 * (CHOLMOD, pattern analyzed once at create, thread budget from the options). Rows and
 * columns of fixed variables are replaced by the identity so K stays positive definite and the
 * fixed steps come out as 0. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
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

/* Dense: the lower triangle of K in the layer's own n*n buffer. */
static void dense_form(cdyn_coneqp_solver *w, double shift, double *K)
{
    const size_t n = (size_t)w->n;
    const double *H = w->p->H;
    const int *fx = w->fixed;
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
}

/* Sparse: the triplets (H's lower triangle, then each contact's lower block) summed into the
   assembled pattern's values. */
static const double *sparse_form(cdyn_coneqp_solver *w, double shift)
{
    const cdyn_csc *Hs = w->p->Hs;
    const int *fx = w->fixed;
    double *tx = w->tx;
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
    return w->as.A.values;
}

cdyn_status cdyn_cq_kkt_factor(cdyn_coneqp_solver *w, double shift, cdyn_report *r)
{
    set_fixed_diagonal(w);
    const double *values = NULL;
    if (w->sparse) {
        values = sparse_form(w, shift);
    } else {
        dense_form(w, shift, cdyn_linsys_values(w->ls));
        values = cdyn_linsys_values(w->ls);
    }
    /* No condition test on the pivots (rcond_min 0 at create): the ill-conditioning of
     * interior-point Newton matrices near the solution is structured and Cholesky solves them
     * well (tested: rejecting (min/max diag L)^2 < eps and shifting instead cost accuracy and
     * convergence). */
    cdyn_report inner;
    const cdyn_status st = cdyn_linsys_factor(w->ls, values, &inner);
    if (st == CDYN_OK)
        return CDYN_OK;
    return pass(r, st == CDYN_EINVAL ? CDYN_ENUMERIC : st, &inner, "Newton matrix");
}

cdyn_status cdyn_cq_kkt_solve(cdyn_coneqp_solver *w, double *b, cdyn_report *r)
{
    cdyn_report inner;
    const cdyn_status st = cdyn_linsys_solve(w->ls, 0, 1, b, &inner);
    if (st == CDYN_OK)
        return CDYN_OK;
    return pass(r, st == CDYN_EINVAL ? CDYN_ENUMERIC : st, &inner, "Newton solve");
}

/* Sparse: copy H's pattern and build the Newton-matrix triplets and their assembled pattern. */
static cdyn_status sparse_setup(cdyn_coneqp_solver *w, const cdyn_csc *Hs, cdyn_report *r)
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
    return CDYN_OK;
}

cdyn_status cdyn_cq_kkt_create(cdyn_coneqp_solver *w, const cdyn_csc *Hs, cdyn_report *r)
{
    cdyn_linsys_spec spec = cdyn_linsys_spec_default(
        w->sparse ? CDYN_LINSYS_CHOLMOD : CDYN_LINSYS_DENSE_CHOL, w->n, w->opts.allocator);
    spec.rcond_min = 0.0; /* see cdyn_cq_kkt_factor */
    spec.threads = w->opts.threads;
    if (w->sparse) {
        const cdyn_status st = sparse_setup(w, Hs, r);
        if (st != CDYN_OK)
            return st;
        spec.colptr = w->as.A.colptr;
        spec.rowind = w->as.A.rowind;
    }
    cdyn_report inner;
    const cdyn_status st = cdyn_linsys_create(&spec, &w->ls, &inner);
    if (st != CDYN_OK)
        return pass(r, st, &inner, "Newton-matrix analysis");
    return CDYN_OK;
}

void cdyn_cq_kkt_free(cdyn_coneqp_solver *w)
{
    const cdyn_allocator *al = w->opts.allocator;
    cdyn_linsys_free(w->ls);
    cdyn_csc_assembly_free(&w->as);
    cdyn_mem_free(al, w->hcolptr);
    cdyn_mem_free(al, w->hrowind);
    cdyn_mem_free(al, w->ti);
    cdyn_mem_free(al, w->tj);
    cdyn_mem_free(al, w->src);
    cdyn_mem_free(al, w->tx);
    w->ls = NULL;
}
