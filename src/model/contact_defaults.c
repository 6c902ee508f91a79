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

/* The mean of Gamma_n M^-1 Gamma_n^T over the rows of pair p, with L the Cholesky factor of M at
 * the data's evaluation; y: nv doubles of scratch. */
static double mean_inverse_mass(const cdyn_model *m, const cdyn_data *d, const double *L,
                                const mpair *p, double *y)
{
    const double *Jn = cdyn_data_jacobian(d, CDYN_DIR_N);
    double sum = 0.0;
    for (int r = p->row; r < p->row + p->nrows; ++r) {
        for (int j = 0; j < m->nv; ++j)
            y[j] = Jn[r + (size_t)j * (size_t)m->nc];
        cdyn_dense_chol_lsolve(m->nv, L, m->nv, 1, y, m->nv);
        for (int j = 0; j < m->nv; ++j)
            sum += y[j] * y[j];
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
    const int nv = m->nv;
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 1;
    dopt.allocator = m->allocator;
    cdyn_data *d = NULL;
    cdyn_report local;
    cdyn_status st = cdyn_data_create(m, &dopt, &d, &local);
    double *work = cdyn_mem_array(m->allocator, (size_t)nv * ((size_t)nv + 1) + (size_t)m->nq,
                                  sizeof(double));
    if (st != CDYN_OK || work == NULL) {
        cdyn_data_free(d);
        cdyn_mem_free(m->allocator, work);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed (contact defaults)");
    }
    double *L = work, *y = work + (size_t)nv * nv, *q = y + nv;
    cdyn_model_default_q(m, q);
    st = cdyn_eval(m, d, q, NULL, CDYN_EVAL_MASS | CDYN_EVAL_CONTACTS, &local);
    if (st == CDYN_OK) {
        memcpy(L, cdyn_data_mass(d), (size_t)nv * nv * sizeof(double));
        st = cdyn_dense_chol(nv, L, nv);
    }
    if (st != CDYN_OK) {
        cdyn_data_free(d);
        cdyn_mem_free(m->allocator, work);
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
            w = mean_inverse_mass(m, d, L, pr, y);
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
    return st;
}
