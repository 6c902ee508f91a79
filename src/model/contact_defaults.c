/* Contact defaults from solref (cdyn_contact_pair_desc_defaults in cdyn/model.h): when a model
 * is built, a pair with a time constant tau > 0 whose K and C are all zero gets
 * K = m_eff / (tau zeta)^2 I, C = 2 m_eff / tau I, and one whose Baumgarte gains are all zero
 * gets alpha = (1 / (tau zeta)^2, 2 / tau, 0): MuJoCo's solref without its impedance. m_eff is
 * 1 / mean over the pair's rows of Gamma_n M^-1 Gamma_n^T at the reference configuration
 * (docs/api.md, "Contact defaults"). */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "model/model_internal.h"

static int all_zero(const double *x, int n)
{
    for (int i = 0; i < n; ++i)
        if (x[i] != 0.0)
            return 0;
    return 1;
}

/* What pair p needs from its solref (CDYN_PAIR_DEFAULT_* bits). */
static unsigned needs(const mpair *p)
{
    if (!(p->solref[0] > 0.0))
        return 0u;
    unsigned need = 0u;
    if (all_zero(p->K, 9) && all_zero(p->C, 9))
        need |= CDYN_PAIR_DEFAULT_COMPLIANCE;
    if (all_zero(p->baumgarte, 3))
        need |= CDYN_PAIR_DEFAULT_BAUMGARTE;
    return need;
}

/* M is block diagonal by kinematic tree, so Gamma_n M^-1 Gamma_n^T is the sum over the trees a
 * row touches of Gamma_T M_T^-1 Gamma_T^T: one dense Cholesky factor per tree (trees are small:
 * a free body is 6 dofs), never an n_v x n_v matrix. */
typedef struct tree_factors {
    int *tree;   /* nv: the tree of each dof (its root body) */
    int *local;  /* nv: the dof's index within its tree */
    int *size;   /* nbody: dofs of the tree rooted at that body (0 for other bodies) */
    size_t *off; /* nbody: offset of that tree's factor in L */
    double *L;
} tree_factors;

/* The trees, each dof's place in its tree and the factors' offsets; returns the doubles the
 * factors need. */
static size_t layout_trees(const cdyn_model *m, tree_factors *t)
{
    for (int k = 0; k < m->nbody; ++k)
        t->size[k] = 0;
    for (int j = 0; j < m->nv; ++j) {
        int k = m->dof_body[j];
        while (m->bodies[k].parent >= 0)
            k = m->bodies[k].parent;
        t->tree[j] = k;
        t->local[j] = t->size[k]++;
    }
    size_t off = 0;
    for (int k = 0; k < m->nbody; ++k) {
        t->off[k] = off;
        off += (size_t)t->size[k] * (size_t)t->size[k];
    }
    return off;
}

/* The trees' factors from the evaluated (sparse) M into t->L (layout_trees' size). CDYN_EINVAL
 * when one is not positive definite. */
static cdyn_status factor_trees(const cdyn_model *m, const cdyn_data *d, tree_factors *t,
                                size_t nL)
{
    cdyn_csc M;
    cdyn_data_mass_csc(d, &M);
    memset(t->L, 0, nL * sizeof(double));
    for (int j = 0; j < m->nv; ++j)
        for (int p = M.colptr[j]; p < M.colptr[j + 1]; ++p) {
            const int i = M.rowind[p], T = t->tree[j], n = t->size[T];
            double *L = t->L + t->off[T];
            L[t->local[i] + (size_t)t->local[j] * n] = M.values[p];
            L[t->local[j] + (size_t)t->local[i] * n] = M.values[p];
        }
    for (int k = 0; k < m->nbody; ++k)
        if (t->size[k] > 0 && cdyn_dense_chol(t->size[k], t->L + t->off[k], t->size[k]) != CDYN_OK)
            return CDYN_EINVAL;
    return CDYN_OK;
}

/* The mean of Gamma_n M^-1 Gamma_n^T over the rows of pair p; y: nv doubles of scratch. */
static double mean_inverse_mass(const cdyn_model *m, const cdyn_data *d, const tree_factors *t,
                                const mpair *p, double *y)
{
    cdyn_csc J;
    cdyn_data_jacobian_csc(d, CDYN_DIR_N, &J);
    const int *cols = m->pair_cols + p->col0;
    double sum = 0.0;
    for (int r = 0; r < p->nrows; ++r)
        for (int a = 0; a < p->ncols; ++a) {
            const int T = t->tree[cols[a]], n = t->size[T];
            int first = 1; /* solve each tree once per row: at its first column */
            for (int b = 0; b < a && first; ++b)
                first = t->tree[cols[b]] != T;
            if (!first)
                continue;
            for (int i = 0; i < n; ++i)
                y[i] = 0.0;
            for (int b = a; b < p->ncols; ++b)
                if (t->tree[cols[b]] == T)
                    y[t->local[cols[b]]] = J.values[m->jac_map[p->map0 + r * p->ncols + b]];
            cdyn_dense_chol_lsolve(n, t->L + t->off[T], n, 1, y, n);
            for (int i = 0; i < n; ++i)
                sum += y[i] * y[i];
        }
    return sum / p->nrows;
}

static void set_defaults(cdyn_model *m, mpair *p, unsigned need, double w)
{
    const double tau = p->solref[0], zeta = p->solref[1];
    if (need & CDYN_PAIR_DEFAULT_COMPLIANCE) {
        const double meff = 1.0 / w, k = meff / (tau * zeta * tau * zeta), c = 2.0 * meff / tau;
        const int nd = m->dim == 2 ? 2 : 3;
        for (int i = 0; i < nd; ++i) {
            p->K[4 * i] = k;
            p->C[4 * i] = c;
        }
    }
    if (need & CDYN_PAIR_DEFAULT_BAUMGARTE) {
        p->baumgarte[0] = 1.0 / (tau * zeta * tau * zeta);
        p->baumgarte[1] = 2.0 / tau;
        p->baumgarte[2] = 0.0;
    }
    p->defaults = need;
}

cdyn_status cdyn_model_contact_defaults(cdyn_model *m, cdyn_report *report)
{
    int todo = 0;
    for (int p = 0; p < m->npair; ++p)
        todo += needs(&m->pairs[p]) != 0u;
    if (todo == 0)
        return CDYN_OK;
    const int nv = m->nv, nb = m->nbody;
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 0; /* the sparse M and Jacobians: never n_v x n_v */
    dopt.allocator = m->allocator;
    cdyn_data *d = NULL;
    cdyn_report local;
    cdyn_status st = cdyn_data_create(m, &dopt, &d, &local);
    int *ints = cdyn_mem_array(m->allocator, 2 * (size_t)nv + (size_t)nb + 1, sizeof(int));
    size_t *offs = cdyn_mem_array(m->allocator, (size_t)nb + 1, sizeof(size_t));
    tree_factors t = {ints, ints + nv, ints + 2 * (size_t)nv, offs, NULL};
    const size_t nL = ints != NULL && offs != NULL ? layout_trees(m, &t) : 0;
    double *work = cdyn_mem_array(m->allocator, nL + (size_t)nv + (size_t)m->nq, sizeof(double));
    if (st != CDYN_OK || work == NULL || ints == NULL || offs == NULL) {
        cdyn_data_free(d);
        cdyn_mem_free(m->allocator, work);
        cdyn_mem_free(m->allocator, ints);
        cdyn_mem_free(m->allocator, offs);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed (contact defaults)");
    }
    t.L = work;
    double *y = work + nL, *q = y + nv;
    cdyn_model_default_q(m, q);
    st = cdyn_eval(m, d, q, NULL, CDYN_EVAL_MASS | CDYN_EVAL_CONTACTS, &local);
    if (st == CDYN_OK && m->broad)
        cdyn_model_contacts(m, d, 0, NULL); /* every pair: the broad phase skips distant ones */
    if (st == CDYN_OK)
        st = factor_trees(m, d, &t, nL);
    if (st != CDYN_OK) {
        cdyn_data_free(d);
        cdyn_mem_free(m->allocator, work);
        cdyn_mem_free(m->allocator, ints);
        cdyn_mem_free(m->allocator, offs);
        return cdyn_fail(report, CDYN_EINVAL,
                         "contact defaults: the mass matrix at the reference configuration is "
                         "not positive definite");
    }
    for (int p = 0; p < m->npair && st == CDYN_OK; ++p) {
        mpair *pr = &m->pairs[p];
        const unsigned need = needs(pr);
        if (need == 0u)
            continue;
        double w = 0.0;
        if (need & CDYN_PAIR_DEFAULT_COMPLIANCE) {
            w = mean_inverse_mass(m, d, &t, pr, y);
            if (!(w > 0.0) || !isfinite(w))
                st = cdyn_fail(report, CDYN_EINVAL,
                               "pair %d: stiffness and damping are unset and its rows cannot "
                               "move at the reference configuration (Gamma_n M^-1 Gamma_n' = "
                               "0), so solref gives no effective mass; set them, or solref[0] "
                               "= 0 for none", p);
        }
        if (st == CDYN_OK)
            set_defaults(m, pr, need, w);
    }
    cdyn_data_free(d);
    cdyn_mem_free(m->allocator, work);
    cdyn_mem_free(m->allocator, ints);
    cdyn_mem_free(m->allocator, offs);
    return st;
}
