/* Friction-cone QP: the per-run layout (which contacts are full cones, rays, disks or fixed),
 * the maps between variables and cone vectors, products with H, and the certificates. */
#include <cblas.h>
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"
#include "linalg/dense.h"
#include "solvers/coneqp/coneqp_internal.h"

void cdyn_cq_hmul(const cdyn_coneqp *p, int n, const double *x, double *y)
{
    if (p->H != NULL)
        cblas_dsymv(CblasColMajor, CblasLower, n, 1.0, p->H, n, x, 1, 0.0, y, 1);
    else
        cdyn_csc_symv_lower(1.0, p->Hs, x, 0.0, y);
}

void cdyn_cq_layout(cdyn_coneqp_solver *w, const cdyn_coneqp *p)
{
    w->p = p;
    w->ncones = 0;
    memset(w->fixed, 0, sizeof(int) * (size_t)w->n);
    for (int i = 0; i < w->nc; ++i) {
        cq_contact *c = &w->ct[i];
        const double mu = p->mu[i];
        c->a = 1.0;
        c->r = 0.0;
        if (!w->disk) {
            c->kind = mu > 0.0 ? CQ_FULL : CQ_RAY;
            c->m = mu > 0.0 ? c->d : 1;
            if (mu > 0.0)
                c->a = mu;
            else
                for (int k = 1; k < c->nv; ++k)
                    w->fixed[c->vo + k] = 1;
        } else {
            c->r = mu * p->normal[i];
            c->kind = c->r > 0.0 ? CQ_BALL : CQ_FIXED;
            c->m = c->r > 0.0 ? c->d : 0;
            if (c->m == 0)
                for (int k = 0; k < c->nv; ++k)
                    w->fixed[c->vo + k] = 1;
        }
        w->ncones += c->m > 0;
    }

    const int n = w->n;
    double hmax = 0.0, hdiag = 0.0;
    if (p->H != NULL) {
        const size_t nn = (size_t)n;
        for (size_t j = 0; j < nn; ++j) {
            for (size_t i = j; i < nn; ++i)
                hmax = fmax(hmax, fabs(p->H[i + j * nn]));
            if (!w->fixed[j])
                hdiag = fmax(hdiag, p->H[j + j * nn]);
        }
    } else {
        const cdyn_csc *A = p->Hs;
        for (int j = 0; j < n; ++j)
            for (int k = A->colptr[j]; k < A->colptr[j + 1]; ++k) {
                if (A->rowind[k] < j)
                    continue;
                hmax = fmax(hmax, fabs(A->values[k]));
                if (A->rowind[k] == j && !w->fixed[j])
                    hdiag = fmax(hdiag, A->values[k]);
            }
    }
    w->hmax = hmax;
    w->hdiag = hdiag;
    w->cmax = cdyn_dense_norm_inf(n, p->c);
}

void cdyn_cq_cone_from_x(const cq_contact *c, const double *x, double *v)
{
    const double *xi = x + c->vo;
    switch (c->kind) {
    case CQ_FULL:
        v[0] = c->a * xi[0];
        for (int k = 1; k < c->m; ++k)
            v[k] = xi[k];
        break;
    case CQ_RAY:
        v[0] = xi[0];
        break;
    case CQ_BALL:
        v[0] = 0.0;
        for (int k = 1; k < c->m; ++k)
            v[k] = xi[k - 1];
        break;
    default:
        break;
    }
}

void cdyn_cq_x_add_cone(const cq_contact *c, const double *v, double *x)
{
    double *xi = x + c->vo;
    switch (c->kind) {
    case CQ_FULL:
        xi[0] += c->a * v[0];
        for (int k = 1; k < c->m; ++k)
            xi[k] += v[k];
        break;
    case CQ_RAY:
        xi[0] += v[0];
        break;
    case CQ_BALL:
        for (int k = 1; k < c->m; ++k)
            xi[k - 1] += v[k];
        break;
    default:
        break;
    }
}

static double norm_tail(int len, const double *v)
{
    return len <= 0 ? 0.0 : len == 1 ? fabs(v[0]) : hypot(v[0], v[1]);
}

void cdyn_cq_certify(const cdyn_coneqp *p, int n, const double *x, const double *u,
                     const double *hx, cdyn_coneqp_info *info)
{
    double pres = 0.0, dcone = 0.0, gap = 0.0, rterm = 0.0;
    int vo = 0;
    for (int i = 0; i < p->ncontacts; ++i) {
        const int d = cdyn_cq_dim(p, i);
        const double mu = p->mu[i];
        if (p->normal == NULL) {
            const double xn = x[vo], un = u[vo];
            const double xt = norm_tail(d - 1, x + vo + 1), ut = norm_tail(d - 1, u + vo + 1);
            pres = fmax(pres, fmax(0.0, fmax(xt - mu * xn, -xn)));
            dcone = fmax(dcone, fmax(0.0, mu * ut - un));
            for (int k = 0; k < d; ++k)
                gap += x[vo + k] * u[vo + k];
            vo += d;
        } else {
            const double r = mu * p->normal[i];
            const double xt = norm_tail(d - 1, x + vo), ut = norm_tail(d - 1, u + vo);
            pres = fmax(pres, fmax(0.0, xt - r));
            for (int k = 0; k < d - 1; ++k)
                gap += x[vo + k] * u[vo + k];
            const double rut = r != 0.0 ? r * ut : 0.0; /* 0, also when ||u_i|| overflows */
            gap += rut;
            rterm += rut;
            vo += d - 1;
        }
    }
    double dres = 0.0, xhx = 0.0, cx = 0.0;
    for (int j = 0; j < n; ++j) {
        const double e = fabs(hx[j] + p->c[j] - u[j]);
        dres = (e > dres || isnan(e)) ? e : dres;
        xhx += x[j] * hx[j];
        cx += p->c[j] * x[j];
    }
    info->primal_residual = pres;
    info->dual_residual = dres;
    info->dual_cone_residual = dcone;
    info->gap = gap;
    info->primal_objective = 0.5 * xhx + cx;
    info->dual_objective = -0.5 * xhx - rterm;
}

cdyn_status cdyn_coneqp_certify(const cdyn_coneqp *p, const double *x, const double *u,
                                const cdyn_allocator *allocator, cdyn_coneqp_info *info,
                                cdyn_report *report)
{
    cdyn_report_clear(report, "coneqp-certify");
    int n = 0;
    cdyn_status st = cdyn_cq_check_structure(p, 1, &n, report);
    if (st == CDYN_OK)
        st = cdyn_cq_check_values(p, n, report);
    if (st != CDYN_OK)
        return st;
    if (x == NULL || info == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "x or info is NULL");
    if (!cdyn_dense_all_finite(n, x) || (u != NULL && !cdyn_dense_all_finite(n, u)))
        return cdyn_fail(report, CDYN_EINVAL, "x or u contains NaN or Inf");
    double *hx = cdyn_mem_array(allocator, (size_t)n * (u == NULL ? 2 : 1), sizeof(double));
    if (hx == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate %d doubles", n);
    cdyn_cq_hmul(p, n, x, hx);
    if (u == NULL) {
        double *uu = hx + n;
        for (int j = 0; j < n; ++j)
            uu[j] = hx[j] + p->c[j];
        u = uu;
    }
    cdyn_cq_certify(p, n, x, u, hx, info);
    cdyn_mem_free(allocator, hx);
    return CDYN_OK;
}
