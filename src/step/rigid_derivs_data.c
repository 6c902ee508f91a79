/* What the rigid schemes' derivatives read from the step and the model (rigid_derivs.h): the
 * kept step, the data's matrices dense, the rows' scales and the normal pair's side. */
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "step/contact_space.h"

#include <math.h>
#include <string.h>

void rigid_keep_rows(cdyn_stepper *s, const cs_problem *p, const double *imp)
{
    s->rlast.k = p->k;
    s->rlast.rows = p->rows;
    s->rlast.mu = p->mu;
    s->rlast.imp = imp;
}

int rigid_keep(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
               const cdyn_state *x1)
{
    rigid_last *L = &s->rlast;
    const size_t nq = (size_t)s->nq, nv = (size_t)s->nv;
    double *b = cdyn_mem_array(&s->arena.as, 2 * nq + 3 * nv, sizeof(double));
    if (b == NULL)
        return 1;
    memcpy(b, x0->q, nq * sizeof(double));
    memcpy(b + nq, x1->q, nq * sizeof(double));
    memcpy(b + 2 * nq, x0->v, nv * sizeof(double));
    memcpy(b + 2 * nq + nv, x1->v, nv * sizeof(double));
    if (tau != NULL)
        memcpy(b + 2 * nq + 2 * nv, tau, nv * sizeof(double));
    else
        memset(b + 2 * nq + 2 * nv, 0, nv * sizeof(double));
    L->q0 = b;
    L->q1 = b + nq;
    L->v0 = b + 2 * nq;
    L->v1 = b + 2 * nq + nv;
    L->tau = b + 2 * nq + 2 * nv;
    L->h = h;
    L->ok = 1;
    return 0;
}

/* A CSC matrix dense (column-major) in the arena; mirror: it holds one triangle of a
 * symmetric matrix. NULL for memory. */
static double *csc_dense(const cdyn_allocator *as, const cdyn_csc *A, int mirror)
{
    const size_t m = (size_t)A->nrows;
    double *D = cdyn_mem_array(as, m * (size_t)A->ncols + 1, sizeof(double));
    if (D == NULL)
        return NULL;
    memset(D, 0, m * (size_t)A->ncols * sizeof(double));
    for (int j = 0; j < A->ncols; j++)
        for (int p = A->colptr[j]; p < A->colptr[j + 1]; p++) {
            D[A->rowind[p] + (size_t)j * m] = A->values[p];
            if (mirror)
                D[j + (size_t)A->rowind[p] * m] = A->values[p];
        }
    return D;
}


const double *rigid_dense_jac(const cdyn_stepper *s, const cdyn_allocator *as, int d, int dq)
{
    const double *D = dq ? cdyn_data_jacobian_dq_v(s->data, (cdyn_dir)d)
                         : cdyn_data_jacobian(s->data, (cdyn_dir)d);
    cdyn_csc J;
    if (D != NULL || (dq ? cdyn_data_jacobian_dq_v_csc(s->data, (cdyn_dir)d, &J)
                         : cdyn_data_jacobian_csc(s->data, (cdyn_dir)d, &J)) != CDYN_OK)
        return D;
    return csc_dense(as, &J, 0);
}

int rigid_mats(const cdyn_stepper *s, const cdyn_allocator *as, int id, rmats *m)
{
    cdyn_csc C;
    m->M = cdyn_data_mass(s->data);
    if (m->M == NULL && (cdyn_data_mass_csc(s->data, &C) != CDYN_OK ||
                         (m->M = csc_dense(as, &C, 1)) == NULL))
        return 1;
    m->idq = m->idv = NULL;
    if (id) {
        m->idq = cdyn_data_id_dq(s->data);
        m->idv = cdyn_data_id_dv(s->data);
        if (m->idq == NULL && (cdyn_data_id_dq_csc(s->data, &C) != CDYN_OK ||
                               (m->idq = csc_dense(as, &C, 0)) == NULL))
            return 1;
        if (m->idv == NULL && (cdyn_data_id_dv_csc(s->data, &C) != CDYN_OK ||
                               (m->idv = csc_dense(as, &C, 0)) == NULL))
            return 1;
    }
    for (int d = 0; d < 3; d++)
        m->G[d] = rigid_dense_jac(s, as, d, 0);
    return m->G[0] == NULL || m->G[1] == NULL;
}

static int row_scales(cdyn_stepper *s, const rigid_last *L, double *wnn, double *u)
{
    const int nv = s->nv, nc = s->nc, nd = L->nd;
    double *Mf = cdyn_mem_array(&s->arena.as, (size_t)nv * nv + 1, sizeof(double));
    double *y = cdyn_mem_array(&s->arena.as, (size_t)nv + 1, sizeof(double));
    double *dmp = cdyn_mem_array(&s->arena.as, (size_t)nv + 1, sizeof(double));
    rmats mt;
    if (Mf == NULL || y == NULL || dmp == NULL || rigid_mats(s, &s->arena.as, 0, &mt) != 0)
        return 1;
    memcpy(Mf, mt.M, (size_t)nv * nv * sizeof(double));
    cdyn_model_joint_damping(s->model, dmp);
    for (int i = 0; i < nv; i++)
        Mf[i + (size_t)i * nv] += L->h * dmp[i];
    if (cdyn_dense_chol(nv, Mf, nv) != CDYN_OK)
        return 1;
    const double *gap = cdyn_data_gap(s->data);
    for (int c = 0; c < L->k; c++) {
        const int row = L->rows[c];
        for (int d = 0; d < nd; d++) {
            const double *G = mt.G[d];
            double v = d == 0 ? gap[row] / L->h : 0.0;
            for (int j = 0; j < nv; j++)
                v += G[row + (size_t)j * nc] * L->v1[j];
            u[c * nd + d] = v;
        }
        const double *Gn = mt.G[0];
        for (int j = 0; j < nv; j++)
            y[j] = Gn[row + (size_t)j * nc];
        cdyn_dense_chol_lsolve(nv, Mf, nv, 1, y, nv);
        double w = 0;
        for (int j = 0; j < nv; j++)
            w += y[j] * y[j];
        wnn[c] = w;
    }
    return 0;
}

cdyn_status rigid_row_scales(cdyn_stepper *s, const rigid_last *L, double *wnn, double *u,
                             double *tol, cdyn_report *r)
{
    cdyn_report mr;
    if (cdyn_eval(s->model, s->data, L->q0, L->v1, CDYN_EVAL_MASS | CDYN_EVAL_CONTACTS, &mr) !=
        CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: %s", mr.message);
    if (row_scales(s, L, wnn, u) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory, or the mass "
                         "matrix is not positive definite at the step's start");
    double vs = 1.0;
    for (int j = 0; j < s->nv; j++)
        vs = fmax(vs, fabs(L->v1[j]));
    *tol = 1e-8 * vs;
    return CDYN_OK;
}

int rigid_normal_held(const rigid_last *L, int c, double pn, double wnn, double un, double tol,
                      cdyn_deriv_side side, cdyn_step_deriv_report *rep)
{
    const double zn = pn * wnn, mn = fmax(zn, un);
    const int deg = mn <= tol;
    rep->degenerate += deg;
    if (L->h * mn < rep->normal_margin) {
        rep->normal_margin = L->h * mn;
        rep->normal_row = L->rows[c];
    }
    return deg ? side == CDYN_DERIV_HELD : zn > un;
}

