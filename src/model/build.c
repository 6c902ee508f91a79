/* cdyn_builder_build: lay the builder's contents out in one allocation, assign coordinates
 * (qadr, vadr), number the contact rows, and compute the fixed sparsity patterns of the contact
 * Jacobians and of M. */
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"

/* Dofs of body k and of its ancestors: call fn for each (in increasing dof order per body,
 * bodies from k up to the root). */
static int count_path_dofs(const mbody *bodies, int k)
{
    int n = 0;
    for (; k >= 0; k = bodies[k].parent)
        n += bodies[k].nv;
    return n;
}

cdyn_status cdyn_builder_build(const cdyn_builder *b, cdyn_model **out, cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "out is NULL");
    *out = NULL;
    if (b == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder is NULL");

    /* Coordinates. */
    int nq = 0, nv = 0;
    for (int k = 0; k < b->nbody; ++k) {
        nq += b->bodies[k].nq;
        nv += b->bodies[k].nv;
    }
    if (nv == 0)
        return cdyn_fail(report, CDYN_EINVAL,
                         "the model has no degree of freedom (add a body with a moving joint)");

    /* Sizes of the pair tables. */
    int nc = 0;
    long long ncols_total = 0, jac_nnz = 0;
    for (int p = 0; p < b->npair; ++p) {
        const mpair *pr = &b->pairs[p];
        const int ba = b->geoms[pr->ga].body, bb = b->geoms[pr->gb].body;
        const int nca = count_path_dofs(b->bodies, ba), ncb = count_path_dofs(b->bodies, bb);
        ncols_total += nca + ncb; /* upper bound (shared ancestors counted twice) */
        jac_nnz += (long long)pr->nrows * (nca + ncb);
        nc += pr->nrows;
    }
    long long mass_nnz = 0;
    for (int k = 0; k < b->nbody; ++k)
        mass_nnz += (long long)b->bodies[k].nv * count_path_dofs(b->bodies, k);
    if (jac_nnz > (1 << 30) || mass_nnz > (1 << 30) || ncols_total > (1 << 30))
        return cdyn_fail(report, CDYN_ETOOBIG, "model too large for int sparse indices");

    cdyn_carve cv = {0, 0};
    const size_t o_model = cdyn_carve_take(&cv, 1, sizeof(cdyn_model));
    const size_t o_bodies = cdyn_carve_take(&cv, (size_t)b->nbody, sizeof(mbody));
    const size_t o_geoms = cdyn_carve_take(&cv, (size_t)b->ngeom, sizeof(mgeom));
    const size_t o_verts = cdyn_carve_take(&cv, 2 * (size_t)b->nvert, sizeof(double));
    const size_t o_pairs = cdyn_carve_take(&cv, (size_t)b->npair, sizeof(mpair));
    const size_t o_dofb = cdyn_carve_take(&cv, (size_t)nv, sizeof(int));
    const size_t o_pcols = cdyn_carve_take(&cv, (size_t)ncols_total, sizeof(int));
    const size_t o_pflags = cdyn_carve_take(&cv, (size_t)ncols_total, 1);
    const size_t o_rpair = cdyn_carve_take(&cv, (size_t)nc, sizeof(int));
    const size_t o_rindex = cdyn_carve_take(&cv, (size_t)nc, sizeof(int));
    const size_t o_jcp = cdyn_carve_take(&cv, (size_t)nv + 1, sizeof(int));
    const size_t o_jri = cdyn_carve_take(&cv, (size_t)jac_nnz, sizeof(int));
    const size_t o_jmap = cdyn_carve_take(&cv, (size_t)jac_nnz, sizeof(int));
    const size_t o_mcp = cdyn_carve_take(&cv, (size_t)nv + 1, sizeof(int));
    const size_t o_mri = cdyn_carve_take(&cv, (size_t)mass_nnz, sizeof(int));
    const size_t o_chp = cdyn_carve_take(&cv, (size_t)b->nbody + 1, sizeof(int));
    const size_t o_chl = cdyn_carve_take(&cv, (size_t)b->nbody, sizeof(int));
    if (cv.overflow)
        return cdyn_fail(report, CDYN_ETOOBIG, "model too large");
    int *work = cdyn_mem_array(b->allocator, 2 * (size_t)nv + 1, sizeof(int));
    if (work == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed");
    char *block = cdyn_mem_alloc(b->allocator, cv.off);
    if (block == NULL) {
        cdyn_mem_free(b->allocator, work);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed");
    }
    memset(block, 0, cv.off);
    cdyn_model *m = (cdyn_model *)(block + o_model);
    m->allocator = b->allocator;
    m->dim = b->dim;
    m->nq = nq;
    m->nv = nv;
    m->nbody = b->nbody;
    m->ngeom = b->ngeom;
    m->npair = b->npair;
    m->nc = nc;
    m->broad = b->broad_phase;
    memcpy(m->gravity, b->gravity, sizeof(m->gravity));
    m->bodies = (mbody *)(block + o_bodies);
    m->geoms = (mgeom *)(block + o_geoms);
    m->verts = (double *)(block + o_verts);
    m->pairs = (mpair *)(block + o_pairs);
    m->dof_body = (int *)(block + o_dofb);
    m->pair_cols = (int *)(block + o_pcols);
    m->pair_colflags = (unsigned char *)(block + o_pflags);
    m->row_pair = (int *)(block + o_rpair);
    m->row_index = (int *)(block + o_rindex);
    m->jac_colptr = (int *)(block + o_jcp);
    m->jac_rowind = (int *)(block + o_jri);
    m->jac_map = (int *)(block + o_jmap);
    m->mass_colptr = (int *)(block + o_mcp);
    m->mass_rowind = (int *)(block + o_mri);
    m->child_ptr = (int *)(block + o_chp);
    m->child_list = (int *)(block + o_chl);
    if (b->nbody > 0)
        memcpy(m->bodies, b->bodies, sizeof(mbody) * (size_t)b->nbody);
    if (b->ngeom > 0)
        memcpy(m->geoms, b->geoms, sizeof(mgeom) * (size_t)b->ngeom);
    if (b->nvert > 0)
        memcpy(m->verts, b->verts, sizeof(double) * 2 * (size_t)b->nvert);
    if (b->npair > 0)
        memcpy(m->pairs, b->pairs, sizeof(mpair) * (size_t)b->npair);

    int qa = 0, va = 0;
    for (int k = 0; k < m->nbody; ++k) {
        mbody *bd = &m->bodies[k];
        bd->qadr = qa;
        bd->vadr = va;
        for (int i = 0; i < bd->nv; ++i)
            m->dof_body[va + i] = k;
        qa += bd->nq;
        va += bd->nv;
    }

    /* Pair columns: sorted union of the dofs moving body a and body b, with membership flags. */
    int *flag = work; /* nv */
    memset(flag, 0, sizeof(int) * (size_t)nv);
    int col = 0, row = 0;
    for (int p = 0; p < m->npair; ++p) {
        mpair *pr = &m->pairs[p];
        const int bodyab[2] = {m->geoms[pr->ga].body, m->geoms[pr->gb].body};
        for (int s = 0; s < 2; ++s)
            for (int k = bodyab[s]; k >= 0; k = m->bodies[k].parent)
                for (int i = 0; i < m->bodies[k].nv; ++i)
                    flag[m->bodies[k].vadr + i] |= s == 0 ? COL_IN_A : COL_IN_B;
        pr->col0 = col;
        for (int j = 0; j < nv; ++j)
            if (flag[j]) {
                m->pair_cols[col] = j;
                m->pair_colflags[col] = (unsigned char)flag[j];
                col++;
                flag[j] = 0;
            }
        pr->ncols = col - pr->col0;
        if (pr->ncols > m->max_pair_cols)
            m->max_pair_cols = pr->ncols;
        pr->row = row;
        for (int r = 0; r < pr->nrows; ++r) {
            m->row_pair[row + r] = p;
            m->row_index[row + r] = r;
        }
        row += pr->nrows;
    }

    /* Jacobian pattern: column j holds the rows of every pair that involves dof j. */
    int *next = work + nv; /* nv + 1 */
    memset(next, 0, sizeof(int) * ((size_t)nv + 1));
    for (int p = 0; p < m->npair; ++p) {
        const mpair *pr = &m->pairs[p];
        for (int k = 0; k < pr->ncols; ++k)
            next[m->pair_cols[pr->col0 + k]] += pr->nrows;
    }
    m->jac_colptr[0] = 0;
    for (int j = 0; j < nv; ++j)
        m->jac_colptr[j + 1] = m->jac_colptr[j] + next[j];
    m->jac_nnz = m->jac_colptr[nv];
    for (int j = 0; j < nv; ++j)
        next[j] = m->jac_colptr[j];
    int map = 0;
    for (int p = 0; p < m->npair; ++p) {
        mpair *pr = &m->pairs[p];
        pr->map0 = map;
        for (int r = 0; r < pr->nrows; ++r)
            for (int k = 0; k < pr->ncols; ++k) {
                const int j = m->pair_cols[pr->col0 + k];
                const int pos = next[j]++;
                m->jac_rowind[pos] = pr->row + r;
                m->jac_map[map++] = pos;
            }
    }

    /* Mass pattern, lower triangle: (i, j), i >= j, when body(j) is body(i) or an ancestor. */
    memset(next, 0, sizeof(int) * ((size_t)nv + 1));
    for (int i = 0; i < nv; ++i)
        for (int k = m->dof_body[i]; k >= 0; k = m->bodies[k].parent)
            for (int t = 0; t < m->bodies[k].nv; ++t)
                if (m->bodies[k].vadr + t <= i)
                    next[m->bodies[k].vadr + t]++;
    m->mass_colptr[0] = 0;
    for (int j = 0; j < nv; ++j)
        m->mass_colptr[j + 1] = m->mass_colptr[j] + next[j];
    m->mass_nnz = m->mass_colptr[nv];
    for (int j = 0; j < nv; ++j)
        next[j] = m->mass_colptr[j];
    for (int i = 0; i < nv; ++i)
        for (int k = m->dof_body[i]; k >= 0; k = m->bodies[k].parent)
            for (int t = 0; t < m->bodies[k].nv; ++t) {
                const int j = m->bodies[k].vadr + t;
                if (j <= i)
                    m->mass_rowind[next[j]++] = i;
            }

    /* Children lists, in increasing body order. */
    memset(m->child_ptr, 0, sizeof(int) * ((size_t)m->nbody + 1));
    for (int k = 0; k < m->nbody; ++k)
        if (m->bodies[k].parent >= 0)
            m->child_ptr[m->bodies[k].parent + 1]++;
    for (int k = 0; k < m->nbody; ++k)
        m->child_ptr[k + 1] += m->child_ptr[k];
    cdyn_mem_free(b->allocator, work);
    work = cdyn_mem_array(b->allocator, (size_t)m->nbody + 1, sizeof(int));
    if (work == NULL) {
        cdyn_mem_free(b->allocator, block);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed");
    }
    memcpy(work, m->child_ptr, sizeof(int) * (size_t)m->nbody);
    for (int k = 0; k < m->nbody; ++k)
        if (m->bodies[k].parent >= 0)
            m->child_list[work[m->bodies[k].parent]++] = k;
    cdyn_mem_free(b->allocator, work);
    cdyn_status st = cdyn_model_build_derivs(m, report);
    if (st != CDYN_OK) {
        cdyn_mem_free(b->allocator, block);
        return st;
    }
    st = cdyn_model_build_broad(m, report);
    if (st != CDYN_OK) {
        cdyn_model_free(m);
        return st;
    }
    /* contact defaults evaluate the model: after everything else is in place */
    st = cdyn_model_contact_defaults(m, report);
    if (st != CDYN_OK) {
        cdyn_model_free(m);
        return st;
    }
    *out = m;
    return CDYN_OK;
}

void cdyn_model_free(cdyn_model *m)
{
    if (m == NULL)
        return;
    cdyn_mem_free(m->allocator, m->der_block);
    cdyn_mem_free(m->allocator, m->bp_block);
    /* The model struct is the first object of its block. */
    cdyn_mem_free(m->allocator, m);
}
