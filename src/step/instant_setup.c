/* The instantaneous problem in contact space: which rows touch, roll or slide, and the reduced
 * quantities Y = M^-1 G^T, D = G M^-1 G^T, y0 = M^-1 (tau - h), g0 = G y0 + (dG/dt) v
 * (docs/theory.md (instantaneous contact problem), Sec. 3). Only the public model API is used. */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "linalg/dense.h"
#include "step/instant_problem.h"

static double row_dot(const double *J, int nrows, int row, int nv, const double *v)
{
    double s = 0.0;
    for (int j = 0; j < nv; ++j)
        s += J[row + (size_t)j * (size_t)nrows] * v[j];
    return s;
}

/* Tangential relative velocity (v_t, v_o) of a row (v_o = 0 in planar models). */
static void tangential_velocity(const cdyn_data *d, int ncm, int nv, int row, const double *v,
                                double vt[2])
{
    vt[0] = row_dot(cdyn_data_jacobian(d, CDYN_DIR_T), ncm, row, nv, v);
    vt[1] = row_dot(cdyn_data_jacobian(d, CDYN_DIR_O), ncm, row, nv, v);
}

static double mu_of_row(const cdyn_model *m, const cdyn_data *d, int row)
{
    cdyn_contact c;
    cdyn_pair_info pi;
    cdyn_data_contact(d, row, &c);
    cdyn_model_pair_info(m, c.pair, &pi);
    return pi.mu;
}

/* 1 touching, 0 not touching or separating; -1 penetration, -2 impact (vn receives v_n). */
static int row_state(const cdyn_data *d, int ncm, int nv, int row, const double *v,
                     const cdyn_instant_options *o, double *vn)
{
    const double gap = cdyn_data_gap(d)[row];
    *vn = 0.0;
    if (!cdyn_data_active(d)[row] || gap > o->gap_tol)
        return 0;
    if (gap < -o->gap_tol)
        return -1;
    *vn = row_dot(cdyn_data_jacobian(d, CDYN_DIR_N), ncm, row, nv, v);
    if (*vn < -o->vel_tol)
        return -2;
    return *vn > o->vel_tol ? 0 : 1;
}

cdyn_status cdyn_inst_scan(const cdyn_model *m, const cdyn_data *d, const double *v,
                           const cdyn_instant_options *o, inst_counts *cnt, cdyn_report *r)
{
    const int ncm = cdyn_model_ncontact(m), nv = cdyn_model_nv(m);
    memset(cnt, 0, sizeof *cnt);
    for (int i = 0; i < ncm; ++i) {
        double vn;
        const int s = row_state(d, ncm, nv, i, v, o, &vn);
        if (s == -1)
            return cdyn_fail(r, CDYN_EINVAL,
                             "contact row %d penetrates (gap %.3g < -gap_tol): the instantaneous "
                             "problem needs touching rows with gap 0",
                             i, cdyn_data_gap(d)[i]);
        if (s == -2)
            return cdyn_fail(r, CDYN_EINVAL,
                             "contact row %d approaches at v_n = %.3g (an impact): the "
                             "instantaneous problem needs v_n = 0 at touching rows",
                             i, vn);
        if (s == 0)
            continue;
        ++cnt->nc;
        double vt[2];
        tangential_velocity(d, ncm, nv, i, v, vt);
        if (hypot(vt[0], vt[1]) <= o->vel_tol) {
            ++cnt->nroll;
            if (mu_of_row(m, d, i) > 0.0)
                ++cnt->nrf;
        }
    }
    return CDYN_OK;
}

void cdyn_inst_fill(const cdyn_model *m, const cdyn_data *d, const double *v,
                    const cdyn_instant_options *o, inst_problem *p)
{
    const int ncm = p->ncm, nv = p->nv;
    int c = 0, nrf = 0;
    p->nroll = 0;
    for (int i = 0; i < ncm; ++i) {
        double vn, vt[2];
        if (row_state(d, ncm, nv, i, v, o, &vn) != 1)
            continue;
        tangential_velocity(d, ncm, nv, i, v, vt);
        const double speed = hypot(vt[0], vt[1]);
        p->row[c] = i;
        p->mu[c] = mu_of_row(m, d, i);
        p->slide[c] = speed > o->vel_tol;
        p->rf[c] = (!p->slide[c] && p->mu[c] > 0.0) ? nrf++ : -1;
        p->nroll += !p->slide[c];
        for (int k = 0; k < p->ntan; ++k) /* Yashima-Yamaguchi eq. (5) */
            p->mut[c * p->ntan + k] = p->slide[c] ? -p->mu[c] * vt[k] / speed : 0.0;
        ++c;
    }
    p->nc = c;
    p->nrf = nrf;
    p->mall = c * p->nd;
}

cdyn_status cdyn_inst_reduce(const cdyn_data *d, const double *tau, inst_problem *p, double *L,
                             cdyn_report *r)
{
    const int nv = p->nv, mall = p->mall, nd = p->nd, ncm = p->ncm;
    memcpy(L, cdyn_data_mass(d), (size_t)nv * (size_t)nv * sizeof(double));
    if (cdyn_dense_chol(nv, L, nv) != CDYN_OK)
        return cdyn_fail(r, CDYN_ESINGULAR, "the mass matrix is not positive definite");
    const double *h = cdyn_data_bias(d);
    for (int j = 0; j < nv; ++j)
        p->y0[j] = tau[j] - h[j];
    cdyn_dense_chol_solve(nv, L, nv, 1, p->y0, nv);
    p->dnorm = 0.0;
    if (mall == 0)
        return CDYN_OK;

    static const cdyn_dir dirs[3] = {CDYN_DIR_N, CDYN_DIR_T, CDYN_DIR_O};
    for (int c = 0; c < p->nc; ++c)
        for (int k = 0; k < nd; ++k) {
            const double *J = cdyn_data_jacobian(d, dirs[k]);
            double *col = p->GT + (size_t)(c * nd + k) * (size_t)nv;
            for (int j = 0; j < nv; ++j)
                col[j] = J[p->row[c] + (size_t)j * (size_t)ncm];
        }
    memcpy(p->Y, p->GT, (size_t)nv * (size_t)mall * sizeof(double));
    cdyn_dense_chol_solve(nv, L, nv, mall, p->Y, nv);
    cdyn_dense_gemm(1, 0, mall, mall, nv, 1.0, p->GT, nv, p->Y, nv, 0.0, p->D, mall);
    cdyn_dense_gemv_t(nv, mall, 1.0, p->GT, nv, p->y0, 0.0, p->g0);
    for (int c = 0; c < p->nc; ++c)
        for (int k = 0; k < nd; ++k)
            p->g0[c * nd + k] += cdyn_data_jacobian_dot_v(d, dirs[k])[p->row[c]];
    for (int i = 0; i < mall; ++i) {
        double s = 0.0;
        for (int j = 0; j < mall; ++j)
            s += fabs(p->D[i + (size_t)j * (size_t)mall]);
        p->dnorm = fmax(p->dnorm, s);
    }
    return CDYN_OK;
}

void cdyn_inst_map_apply(const inst_problem *p, const inst_map *C, const double *x, double *lamf)
{
    memset(lamf, 0, (size_t)p->mall * sizeof(double));
    for (int j = 0; j < C->n; ++j)
        for (int e = 0; e < C->cnt[j]; ++e)
            lamf[C->idx[j * p->nd + e]] += C->val[j * p->nd + e] * x[j];
}

void cdyn_inst_evaluate(const inst_problem *p, inst_solution *s)
{
    memcpy(s->vdot, p->y0, (size_t)p->nv * sizeof(double));
    if (p->mall == 0)
        return;
    cdyn_dense_gemv(p->nv, p->mall, 1.0, p->Y, p->nv, s->lamf, 1.0, s->vdot);
    memcpy(s->a, p->g0, (size_t)p->mall * sizeof(double));
    cdyn_dense_gemv(p->mall, p->mall, 1.0, p->D, p->mall, s->lamf, 1.0, s->a);
}

void cdyn_inst_outputs(const cdyn_data *d, const inst_problem *p, const double *lamf,
                       const double *vdot, double *lam, double *acc)
{
    const int ncm = p->ncm, nv = p->nv;
    static const cdyn_dir dirs[3] = {CDYN_DIR_N, CDYN_DIR_T, CDYN_DIR_O};
    memset(lam, 0, 3 * (size_t)ncm * sizeof(double));
    for (int c = 0; c < p->nc; ++c)
        for (int k = 0; k < p->nd; ++k)
            lam[(size_t)k * (size_t)ncm + (size_t)p->row[c]] = lamf[c * p->nd + k];
    for (int k = 0; k < 3; ++k) {
        const double *J = cdyn_data_jacobian(d, dirs[k]);
        const double *jd = cdyn_data_jacobian_dot_v(d, dirs[k]);
        for (int i = 0; i < ncm; ++i)
            acc[(size_t)k * (size_t)ncm + (size_t)i] = row_dot(J, ncm, i, nv, vdot) + jd[i];
    }
}
