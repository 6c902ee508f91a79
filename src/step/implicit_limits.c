/* The implicit scheme's compliant joint-limit rows: see implicit_limits.h. */
#include "step/implicit_limits.h"
#include "step/implicit_ncp_sink.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

/* (M^-1)_jj of every row's dof at the default q: one dense factor of M, at creation only. */
static cdyn_status inverse_mass_diag(const cdyn_model *m, const lim_rows *lim,
                                     const cdyn_allocator *a, double *out, cdyn_report *r)
{
    const int nv = cdyn_model_nv(m), nq = cdyn_model_nq(m);
    cdyn_data_options o;
    cdyn_data_defaults(&o);
    o.dense = 1;
    o.allocator = a;
    cdyn_data *d = NULL;
    double *L = cdyn_mem_array(a, (size_t)nv * nv + nv + nq, sizeof(double));
    cdyn_status st = L == NULL ? CDYN_ENOMEM : cdyn_data_create(m, &o, &d, r);
    if (st == CDYN_OK) {
        double *e = L + (size_t)nv * nv, *q = e + nv, *v = e; /* v = 0: e is set after eval */
        memset(v, 0, (size_t)nv * sizeof(double));
        cdyn_model_default_q(m, q);
        st = cdyn_eval(m, d, q, v, CDYN_EVAL_MASS, r);
        if (st == CDYN_OK) {
            memcpy(L, cdyn_data_mass(d), (size_t)nv * nv * sizeof(double));
            if (cdyn_dense_chol(nv, L, nv) != CDYN_OK)
                st = cdyn_fail(r, CDYN_ESINGULAR, "implicit NCP: joint limits: M is not "
                               "positive definite at the default q");
        }
        for (int k = 0; st == CDYN_OK && k < lim->n; k++) {
            memset(e, 0, (size_t)nv * sizeof(double));
            e[lim->dof[k]] = 1.0;
            cdyn_dense_chol_solve(nv, L, nv, 1, e, nv);
            out[k] = e[lim->dof[k]];
        }
    } else if (L == NULL) {
        cdyn_fail(r, st, "implicit NCP: joint limits: out of memory");
    }
    cdyn_data_free(d);
    cdyn_mem_free(a, L);
    return st;
}

cdyn_status ncp_limits_create(const cdyn_model *m, const lim_rows *lim, const cdyn_allocator *a,
                              ncp_limits *L, cdyn_report *r)
{
    memset(L, 0, sizeof *L);
    L->rows = lim;
    if (lim->n == 0)
        return CDYN_OK;
    const size_t n = (size_t)lim->n;
    L->K = cdyn_mem_array(a, 3 * n, sizeof(double));
    if (L->K == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: joint limits: out of memory");
    L->C = L->K + n;
    L->d0 = L->C + n;
    cdyn_status st = inverse_mass_diag(m, lim, a, L->d0, r);
    if (st != CDYN_OK) {
        ncp_limits_free(L, a);
        return st;
    }
    for (size_t k = 0; k < n; k++) {
        /* m_eff delta'' + C delta' + K delta = 0: decay rate 1/tau, damping ratio zeta (the
         * contacts' solref defaults, src/model/contact_defaults.c) */
        const double meff = 1.0 / L->d0[k], tz = lim->tau[k] * lim->zeta[k];
        L->K[k] = meff / (tz * tz);
        L->C[k] = 2.0 * meff / lim->tau[k];
        L->d0[k] = 0.0;
    }
    L->n = lim->n;
    return CDYN_OK;
}

void ncp_limits_free(ncp_limits *L, const cdyn_allocator *a)
{
    cdyn_mem_free(a, L->K);
    memset(L, 0, sizeof *L);
}

void ncp_limits_bounds(const ncp_form *f)
{
    if (f->lim == NULL)
        return;
    const int ol = ncp_limits_offset(f) + f->lim->n;
    for (int l = 0; l < f->lim->n; l++)
        f->lower[ol + l] = 0.0;
}

void ncp_limits_attach(ncp_form *f, const ncp_limits *L)
{
    if (L == NULL || L->n == 0)
        return;
    f->lim = L;
    const int o = f->ny;
    f->ny += 2 * L->n;
    for (int i = o; i < f->ny; i++) {
        f->lower[i] = -INFINITY;
        f->upper[i] = INFINITY;
    }
    ncp_limits_bounds(f);
}

/* The rows' scalings: the gap row by K (forces against forces, as the contacts' K_nn), the
 * constitutive row by 1 / (K + C/h). */
static double gap_scale(const ncp_form *f, int l)
{
    return f->scale_normal && f->lim->K[l] > 0 ? f->lim->K[l] : 1.0;
}

static double law_scale(const ncp_form *f, int l)
{
    const double a = f->lim->K[l] + f->lim->C[l] / f->h;
    return f->scale_normal && a > 0 ? 1.0 / a : 1.0;
}

double ncp_limits_gap_scale(const ncp_form *f, int l)
{
    return gap_scale(f, l);
}

double ncp_limits_d0_coef(const ncp_form *f, int l)
{
    return f->lim->C[l] / f->h * law_scale(f, l);
}

void ncp_limits_F(const ncp_form *f, const double *y, double *F)
{
    const ncp_limits *L = f->lim;
    if (L == NULL)
        return;
    const int od = ncp_limits_offset(f), ol = od + L->n;
    for (int l = 0; l < L->n; l++) {
        const lim_rows *R = L->rows;
        const double del = y[od + l], lam = y[ol + l], ch = L->C[l] / f->h;
        F[f->nq + R->dof[l]] -= f->h * R->sign[l] * lam;
        F[od + l] = (lam - (L->K[l] + ch) * del + ch * L->d0[l]) * law_scale(f, l);
        F[ol + l] = gap_scale(f, l) * (lim_gap(R, l, y) + del);
    }
}

void ncp_limits_jac(const ncp_form *f, ncp_sink *JY)
{
    const ncp_limits *L = f->lim;
    if (L == NULL || JY == NULL)
        return;
    const int od = ncp_limits_offset(f), ol = od + L->n;
    for (int l = 0; l < L->n; l++) {
        const lim_rows *R = L->rows;
        const double ls = law_scale(f, l), gs = gap_scale(f, l);
        ncp_sink_put(JY, f->nq + R->dof[l], ol + l, -f->h * R->sign[l]);
        ncp_sink_put(JY, od + l, ol + l, ls);
        ncp_sink_put(JY, od + l, od + l, -(L->K[l] + L->C[l] / f->h) * ls);
        ncp_sink_put(JY, ol + l, R->qadr[l], gs * R->sign[l]);
        ncp_sink_put(JY, ol + l, od + l, gs);
    }
}

void ncp_limits_start(const ncp_form *f, ncp_limits *L, const cdyn_state *x0, double h,
                      double *y)
{
    if (f->lim == NULL)
        return;
    const int od = ncp_limits_offset(f), ol = od + L->n;
    const lim_rows *R = L->rows;
    for (int l = 0; l < L->n; l++) {
        L->d0[l] = x0->limit_delta[l];
        y[od + l] = x0->limit_delta[l];
        y[ol + l] = fmax(0.0, x0->limit_lambda[l]);
        const double g = lim_gap(R, l, x0->q);
        const double pen = -(g + h * R->sign[l] * x0->v[R->dof[l]] + y[od + l]);
        if (y[ol + l] > 0 || !(pen > 0))
            continue;
        y[ol + l] = 0.5 * L->K[l] * pen;
        y[od + l] = -g - 0.5 * pen;
    }
}

void ncp_limits_store(const ncp_form *f, const double *y, cdyn_state *x1)
{
    const ncp_limits *L = f->lim;
    if (L == NULL)
        return;
    const int od = ncp_limits_offset(f), ol = od + L->n;
    double lmax = 1.0; /* N or N m: a stop with less than 1e-9 of this carries no force */
    for (int l = 0; l < L->n; l++)
        lmax = fmax(lmax, y[ol + l]);
    for (int l = 0; l < L->n; l++) {
        x1->limit_delta[l] = y[od + l];
        x1->limit_lambda[l] = y[ol + l];
        x1->limit_mode[l] = y[ol + l] > 1e-9 * lmax ? lim_acting(L->rows, l) : CDYN_LIMIT_FREE;
    }
}
