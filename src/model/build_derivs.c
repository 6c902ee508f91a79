/* The sparsity pattern of the model's derivatives (cdyn_eval_derivatives): column j of d id/dq
 * and d id/dv holds every dof i on one root-to-leaf path with j (the tree part, M's pattern in
 * both triangles) and every column of a contact pair that j moves (the contact forces couple the
 * two bodies of a pair). Built once with the model. */
#include <stdlib.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Rows of column j into col (unsorted), marking them with j + 1 in mark; returns their count.
 * stack: nbody ints. */
static int column_rows(const cdyn_model *m, int j, int *mark, int *pmark, int *stack, int *col)
{
    int n = 0;
    const int bj = m->dof_body[j];
#define ADD(i)                                                                                    \
    do {                                                                                          \
        if (mark[i] != j + 1) {                                                                   \
            mark[i] = j + 1;                                                                      \
            col[n++] = i;                                                                         \
        }                                                                                         \
    } while (0)
    for (int k = bj; k >= 0; k = m->bodies[k].parent)
        for (int t = 0; t < m->bodies[k].nv; ++t)
            ADD(m->bodies[k].vadr + t);
    int top = 0;
    stack[top++] = bj;
    while (top > 0) {
        const int k = stack[--top];
        for (int t = 0; t < m->bodies[k].nv; ++t)
            ADD(m->bodies[k].vadr + t);
        for (int c = m->child_ptr[k]; c < m->child_ptr[k + 1]; ++c)
            stack[top++] = m->child_list[c];
    }
    for (int p = m->jac_colptr[j]; p < m->jac_colptr[j + 1]; ++p) {
        const int pair = m->row_pair[m->jac_rowind[p]];
        if (pmark[pair] == j + 1)
            continue;
        pmark[pair] = j + 1;
        const mpair *pr = &m->pairs[pair];
        for (int k = 0; k < pr->ncols; ++k)
            ADD(m->pair_cols[pr->col0 + k]);
    }
#undef ADD
    return n;
}

/* Whether body a is body b or one of its ancestors, or the other way round. */
static int on_one_path(const cdyn_model *m, int a, int b)
{
    for (int k = a; k >= 0; k = m->bodies[k].parent)
        if (k == b)
            return 1;
    for (int k = b; k >= 0; k = m->bodies[k].parent)
        if (k == a)
            return 1;
    return 0;
}

cdyn_status cdyn_model_build_derivs(cdyn_model *m, cdyn_report *report)
{
    const size_t nv = (size_t)m->nv, nb = (size_t)m->nbody, np = (size_t)m->npair;
    int *work = cdyn_mem_array(m->allocator, 3 * nv + nb + np + 1, sizeof(int));
    if (work == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed");
    int *mark = work, *col = work + nv, *stack = work + 2 * nv, *pmark = stack + nb;
    memset(mark, 0, nv * sizeof(int));
    memset(pmark, 0, np * sizeof(int));
    size_t nnz = 0, nmap = 0;
    for (int j = 0; j < m->nv; ++j)
        nnz += (size_t)column_rows(m, j, mark, pmark, stack, col);
    for (size_t p = 0; p < np; ++p)
        nmap += (size_t)m->pairs[p].ncols * (size_t)m->pairs[p].ncols;
    cdyn_carve cv = {0, 0};
    const size_t o_cp = cdyn_carve_take(&cv, nv + 1, sizeof(int));
    const size_t o_ri = cdyn_carve_take(&cv, nnz, sizeof(int));
    const size_t o_map = cdyn_carve_take(&cv, nmap, sizeof(int));
    const size_t o_tree = cdyn_carve_take(&cv, nnz, 1);
    if (cv.overflow || nnz > (1u << 30)) {
        cdyn_mem_free(m->allocator, work);
        return cdyn_fail(report, CDYN_ETOOBIG, "model too large for int sparse indices");
    }
    char *block = cdyn_mem_alloc(m->allocator, cv.off);
    if (block == NULL) {
        cdyn_mem_free(m->allocator, work);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed");
    }
    m->der_block = block;
    m->der_colptr = (int *)(block + o_cp);
    m->der_rowind = (int *)(block + o_ri);
    m->der_map = (int *)(block + o_map);
    m->der_tree = (unsigned char *)(block + o_tree);
    memset(mark, 0, nv * sizeof(int));
    memset(pmark, 0, np * sizeof(int));
    m->der_colptr[0] = 0;
    for (int j = 0; j < m->nv; ++j) {
        const int n = column_rows(m, j, mark, pmark, stack, col);
        qsort(col, (size_t)n, sizeof(int), cmp_int);
        memcpy(m->der_rowind + m->der_colptr[j], col, (size_t)n * sizeof(int));
        m->der_colptr[j + 1] = m->der_colptr[j] + n;
    }
    m->der_nnz = m->der_colptr[m->nv];
    for (int j = 0; j < m->nv; ++j)
        for (int p = m->der_colptr[j]; p < m->der_colptr[j + 1]; ++p)
            m->der_tree[p] = (unsigned char)on_one_path(m, m->dof_body[m->der_rowind[p]],
                                                        m->dof_body[j]);
    int map = 0;
    for (int p = 0; p < m->npair; ++p) {
        mpair *pr = &m->pairs[p];
        pr->dmap0 = map;
        for (int kc = 0; kc < pr->ncols; ++kc) {
            const int j = m->pair_cols[pr->col0 + kc];
            const int *rows = m->der_rowind + m->der_colptr[j];
            const size_t len = (size_t)(m->der_colptr[j + 1] - m->der_colptr[j]);
            for (int kr = 0; kr < pr->ncols; ++kr) {
                const int i = m->pair_cols[pr->col0 + kr];
                const int *hit = bsearch(&i, rows, len, sizeof(int), cmp_int);
                m->der_map[map++] = (int)(hit - m->der_rowind); /* always found: ADD above */
            }
        }
    }
    cdyn_mem_free(m->allocator, work);
    return CDYN_OK;
}
