/* The implicit compliant step's residual and Jacobian (implicit_ncp.h). */
#include "step/implicit_ncp.h"

#include "linalg/dense.h"
#include "step/friction_qp.h"

#include <math.h>
#include <string.h>

size_t ncp_form_scratch(int nq, int nv, int k, int nd)
{
    /* qdot, qp, qm; f1, f1p, f1m; psi, psip, psim; gv, gvp, gvm (k (nd - 1) each); vp; acc,
     * lam3, mask (k is the model's row count here, so that k >= f->nc) */
    return 3 * (size_t)nq + 3 * (size_t)nv + 3 * (size_t)k + 3 * (size_t)k * (nd - 1) +
           2 * (size_t)nv + 4 * (size_t)k + 8;
}

/* Scratch layout. */
typedef struct ncp_scr {
    double *qdot, *qp, *qm, *f1, *f1p, *f1m, *psi, *psip, *psim, *gv, *gvp, *gvm, *vp;
    double *acc, *lam3; /* nv, 3 nc: the derivatives' a and lambda */
    int *mask;          /* nc */
} ncp_scr;

static ncp_scr scratch(const ncp_form *f)
{
    ncp_scr s;
    const int nq = f->nq, nv = f->nv, k = f->k, t = k * (f->nd - 1);
    double *p = f->scratch;
    s.qdot = p, p += nq;
    s.qp = p, p += nq;
    s.qm = p, p += nq;
    s.f1 = p, p += nv;
    s.f1p = p, p += nv;
    s.f1m = p, p += nv;
    s.psi = p, p += k;
    s.psip = p, p += k;
    s.psim = p, p += k;
    s.gv = p, p += t;
    s.gvp = p, p += t;
    s.gvm = p, p += t;
    s.vp = p, p += nv;
    s.acc = p, p += nv;
    s.lam3 = p, p += 3 * (size_t)f->nc;
    s.mask = (int *)(void *)p; /* nc ints in nc doubles of scratch */
    return s;
}

/* Parts of F that need the model at (q, v): f1 = M(q)(v - v0) - h (tau - bias) - h Gamma' lambda,
 * psi_i = Psi_n(q) of row i, gv_{i,d} = Gamma_d(q) v (d = 1 .. nd-1). */
static int model_terms(ncp_form *f, const double *q, const double *v, const double *v0,
                       const double *lam, double *f1, double *psi, double *gv)
{
    if (cdyn_eval(f->model, f->data, q, v, CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS,
                  NULL) != CDYN_OK)
        return 1;
    const int nv = f->nv, nc = f->nc, nd = f->nd, k = f->k;
    const double *M = cdyn_data_mass(f->data), *bias = cdyn_data_bias(f->data);
    const double *gap = cdyn_data_gap(f->data);
    const double *J[3] = {cdyn_data_jacobian(f->data, CDYN_DIR_N),
                          cdyn_data_jacobian(f->data, CDYN_DIR_T),
                          cdyn_data_jacobian(f->data, CDYN_DIR_O)};
    for (int i = 0; i < nv; i++) {
        double acc = -f->h * ((f->tau != NULL ? f->tau[i] : 0.0) - bias[i]);
        for (int j = 0; j < nv; j++)
            acc += M[i + (size_t)j * nv] * (v[j] - v0[j]);
        f1[i] = acc;
    }
    for (int c = 0; c < k; c++) {
        const int r = f->rows[c];
        psi[c] = gap[r];
        for (int d = 0; d < nd; d++) {
            const double l = lam[c * nd + d];
            if (l != 0.0)
                for (int j = 0; j < nv; j++)
                    f1[j] -= f->h * J[d][r + (size_t)j * nc] * l;
        }
        for (int d = 1; d < nd; d++) {
            double acc = 0;
            for (int j = 0; j < nv; j++)
                acc += J[d][r + (size_t)j * nc] * v[j];
            gv[c * (nd - 1) + d - 1] = acc;
        }
    }
    return 0;
}

/* The model's derivatives at the (q, v) of the last model_terms: a = (v - v0)/h, the k rows'
 * forces spread over the model's rows (s->lam3, 3 nc), d(Gamma_T v)/dq for those rows only. */
static int model_derivs(ncp_form *f, const ncp_scr *s, const double *v, const double *v0,
                        const double *lam)
{
    const int nv = f->nv, nc = f->nc, nd = f->nd;
    for (int i = 0; i < nv; i++)
        s->acc[i] = (v[i] - v0[i]) / f->h;
    memset(s->lam3, 0, 3 * (size_t)nc * sizeof(double));
    memset(s->mask, 0, (size_t)nc * sizeof(int));
    for (int c = 0; c < f->k; c++) {
        const int r = f->rows[c];
        s->mask[r] = 1;
        for (int d = 0; d < nd; d++)
            s->lam3[3 * r + d] = lam[c * nd + d];
    }
    return cdyn_eval_derivatives(f->model, f->data, s->acc, s->lam3, s->mask, NULL) != CDYN_OK;
}

/* The normal gap row is scaled by the normal stiffness K_nn (when positive; else by
 * (K + C/h)_nn, else 1): the complementarity pair (lambda_n, Psi + delta_n) then has both members
 * in newtons, balanced as lambda_n = K_nn delta_n at rest. The solution set does not change; the
 * Fischer-Burmeister function, which adds its arguments, needs the balance (forces of 1 N against
 * gaps of 1e-4 m stalled its line search). The stiffness rather than (K + C/h) keeps the row's
 * rounding (|q| eps K_nn) below the solver's tolerance at small h. */
static double normal_scale(const ncp_form *f, int c)
{
    const size_t b = (size_t)c * f->nd * f->nd;
    const double k = f->A[b] - f->Ch[b], a = f->A[b];
    if (!f->scale_normal)
        return 1.0;
    return k > 0 ? k : a > 0 ? a : 1.0;
}

/* The constitutive rows lambda - (K + C/h) delta + (C/h) delta0 are divided by (K + C/h)_dd
 * (when scale_normal is set and it is positive): their entries otherwise reach 1e7 next to
 * entries of order 1 (stiff contact, small h), which the Newton matrix's conditioning and the
 * merit's balance suffer from. */
static double row_scale(const ncp_form *f, int c, int d)
{
    const double a = f->A[(size_t)c * f->nd * f->nd + d + d * f->nd];
    return f->scale_normal && a > 0 ? 1.0 / a : 1.0;
}

/* Row c's friction QP (implicit_ncp.h) at lambda_n = ln with the slip's rigid part gv = Gamma_T v:
 * the solution, and the derivatives of d in lambda_n (dln) and in delta0 (dd0, (nd-1) x nd
 * column-major); drdln = dr/dlambda_n. */
typedef struct qp_row {
    friction_qp_sol sol;
    double dln[2], dd0[6], drdln;
} qp_row;

/* A^-1 of row c (nd x nd); 1 when singular. */
static int row_inverse(const ncp_form *f, int c, double *Ai)
{
    const int nd = f->nd;
    double LU[9];
    int ipiv[3];
    memcpy(LU, f->A + (size_t)c * nd * nd, (size_t)nd * nd * sizeof(double));
    if (cdyn_dense_lu(nd, LU, nd, ipiv) != CDYN_OK)
        return 1;
    for (int i = 0; i < nd * nd; i++)
        Ai[i] = i % (nd + 1) == 0;
    cdyn_dense_lu_solve(0, nd, LU, nd, ipiv, nd, Ai, nd);
    return 0;
}

static int qp_row_solve(const ncp_form *f, int c, double ln, const double *d0, const double *gv,
                        qp_row *o)
{
    const int nd = f->nd, nt = nd - 1;
    const double *Ch = f->Ch + (size_t)c * nd * nd;
    double Ai[9], AiCh[9], S[4], d[2];
    if (row_inverse(f, c, Ai) != 0)
        return 1;
    for (int i = 0; i < nd; i++)
        for (int e = 0; e < nd; e++) {
            double acc = 0;
            for (int l = 0; l < nd; l++)
                acc += Ai[i + l * nd] * Ch[l + e * nd];
            AiCh[i + e * nd] = acc;
        }
    for (int g = 0; g < nt; g++) {
        const int i = g + 1;
        for (int e = 0; e < nt; e++)
            S[g + e * nt] = 0.5 * (Ai[i + (e + 1) * nd] + Ai[(e + 1) + i * nd]) / f->h;
        double acc = Ai[i] * ln - d0[i];
        for (int e = 0; e < nd; e++) {
            acc += AiCh[i + e * nd] * d0[e];
            o->dd0[g + e * nt] = (AiCh[i + e * nd] - (double)(i == e)) / f->h;
        }
        d[g] = acc / f->h + gv[g];
        o->dln[g] = Ai[i] / f->h;
    }
    o->drdln = ln > 0 ? f->mu[c] : 0.0;
    return friction_qp_solve(nt, S, d, f->mu[c] * fmax(ln, 0.0), &o->sol);
}

int ncp_form_check_qp(const ncp_form *f)
{
    const int nd = f->nd;
    for (int c = 0; c < f->k; c++) {
        const double *A = f->A + (size_t)c * nd * nd;
        double amax = 0, Ai[9];
        for (int i = 0; i < nd * nd; i++)
            amax = fmax(amax, fabs(A[i]));
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < i; j++)
                if (fabs(A[i + j * nd] - A[j + i * nd]) > 1e-12 * amax)
                    return c + 1;
        if (row_inverse(f, c, Ai) != 0)
            return c + 1;
        const double s00 = Ai[1 + nd];
        const double det = nd == 3 ? Ai[1 + nd] * Ai[2 + 2 * nd] - Ai[2 + nd] * Ai[1 + 2 * nd] : s00;
        if (!(s00 > 0) || !(det > 0))
            return c + 1;
    }
    return 0;
}

int ncp_form_F(ncp_form *f, const double *x0, const double *y, double *F)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k;
    const double *q = y, *v = y + nq, *del = y + nq + nv, *lam = del + k * nd, *beta = lam + k * nd;
    const double *q0 = x0, *v0 = x0 + nq, *del0 = x0 + nq + nv;
    ncp_scr s = scratch(f);
    if (model_terms(f, q, v, v0, lam, s.f1, s.psi, s.gv) != 0)
        return 1;
    for (int j = 0; j < nq; j++)
        s.qm[j] = 0.5 * (q[j] + q0[j]);
    if (cdyn_model_qdot(f->model, s.qm, v, s.qdot, NULL) != CDYN_OK)
        return 1;
    for (int j = 0; j < nq; j++)
        F[j] = q[j] - q0[j] - f->h * s.qdot[j];
    memcpy(F + nq, s.f1, (size_t)nv * sizeof(double));
    double *Fd = F + nq + nv, *Fl = Fd + k * nd, *Fb = Fl + k * nd;
    for (int c = 0; c < k; c++) {
        const double *A = f->A + (size_t)c * nd * nd, *Ch = f->Ch + (size_t)c * nd * nd;
        const double *dc = del + c * nd, *d0 = del0 + c * nd, *lc = lam + c * nd;
        for (int d = 0; d < nd; d++) {
            double acc = lc[d];
            for (int e = 0; e < nd; e++)
                acc += -A[d + e * nd] * dc[e] + Ch[d + e * nd] * d0[e];
            Fd[c * nd + d] = acc * row_scale(f, c, d);
        }
        double rho2 = f->gamma * f->gamma;
        for (int d = 1; d < nd; d++)
            rho2 += lc[d] * lc[d];
        const double rho = sqrt(rho2), mln = f->mu[c] * lc[0];
        Fl[c * nd] = normal_scale(f, c) * (s.psi[c] + dc[0]);
        if (f->friction_qp) {
            qp_row qr;
            if (qp_row_solve(f, c, lc[0], d0, s.gv + c * (nd - 1), &qr) != 0)
                return 1;
            for (int d = 1; d < nd; d++)
                Fl[c * nd + d] = lc[d] - qr.sol.x[d - 1];
            Fb[c] = beta[c];
            continue;
        }
        for (int d = 1; d < nd; d++) {
            const double sd = (dc[d] - d0[d]) / f->h + s.gv[c * (nd - 1) + d - 1];
            Fl[c * nd + d] = mln * sd + (rho > 0 ? beta[c] * lc[d] / rho : 0.0);
        }
        Fb[c] = mln + f->gamma - rho;
    }
    return 0;
}

/* Row c's friction rows lambda_T - P and beta with friction_qp: dP = Dd dd + Dr dr, d depending on
 * lambda_n, v and q (Gamma_T(q) v) and delta0. On entry Jy's q columns of the friction rows hold
 * d(Gamma_T v)/dq (ncp_form_J's differences). */
static int friction_qp_J(ncp_form *f, int c, const double *y, const double *x0, const double *gv,
                         double *Jy, double *Jx)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, nt = nd - 1, k = f->k, ny = f->ny, nc = f->nc;
    const int ov = nq, od = nq + nv, ol = od + k * nd, ob = ol + k * nd, r = f->rows[c];
    qp_row qr;
    if (qp_row_solve(f, c, y[ol + c * nd], x0 + od + c * nd, gv, &qr) != 0)
        return 1;
    const double *Dd = qr.sol.Dd;
    if (Jy != NULL) {
        const double *Jd[2] = {cdyn_data_jacobian(f->data, CDYN_DIR_T),
                               cdyn_data_jacobian(f->data, CDYN_DIR_O)};
        for (int j = 0; j < nq; j++) {
            double raw[2];
            for (int g = 0; g < nt; g++)
                raw[g] = Jy[ol + c * nd + 1 + g + (size_t)j * ny];
            for (int d = 0; d < nt; d++) {
                double acc = 0;
                for (int g = 0; g < nt; g++)
                    acc += Dd[d + g * nt] * raw[g];
                Jy[ol + c * nd + 1 + d + (size_t)j * ny] = -acc;
            }
        }
        for (int d = 0; d < nt; d++) {
            const size_t row = (size_t)ol + c * nd + 1 + d;
            for (int j = 0; j < nv; j++) {
                double acc = 0;
                for (int g = 0; g < nt; g++)
                    acc += Dd[d + g * nt] * Jd[g][r + (size_t)j * nc];
                Jy[row + (size_t)(ov + j) * ny] = -acc;
            }
            double acc = qr.sol.Dr[d] * qr.drdln;
            for (int g = 0; g < nt; g++)
                acc += Dd[d + g * nt] * qr.dln[g];
            Jy[row + (size_t)(ol + c * nd) * ny] = -acc;
            Jy[row + (size_t)(row + 0) * ny] = 1.0;
        }
        Jy[(size_t)(ob + c) * (ny + 1)] = 1.0;
    }
    if (Jx != NULL)
        for (int d = 0; d < nt; d++)
            for (int e = 0; e < nd; e++) {
                double acc = 0;
                for (int g = 0; g < nt; g++)
                    acc += Dd[d + g * nt] * qr.dd0[g + e * nt];
                Jx[(size_t)ol + c * nd + 1 + d + (size_t)(od + c * nd + e) * ny] = -acc;
            }
    return 0;
}

int ncp_form_J(ncp_form *f, const double *x0, const double *y, double *Jy, double *Jx)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k, ny = f->ny, nx = f->nx;
    const int oq = 0, ov = nq, od = nq + nv, ol = od + k * nd, ob = ol + k * nd;
    const double *q = y, *v = y + nq, *del = y + od, *lam = y + ol, *beta = y + ob;
    const double *v0 = x0 + nq, *del0 = x0 + od;
    const double h = f->h;
    ncp_scr s = scratch(f);
    if (Jy != NULL)
        memset(Jy, 0, (size_t)ny * ny * sizeof(double));
    if (Jx != NULL)
        memset(Jx, 0, (size_t)ny * nx * sizeof(double));
#define JY(i, j) Jy[(size_t)(i) + (size_t)(j) * ny]
#define JX(i, j) Jx[(size_t)(i) + (size_t)(j) * ny]
    /* The model at (q, v) and its analytic derivatives (cdyn_eval_derivatives) with
     * a = (v - v0)/h and the rows' forces: the dynamics rows are h id(q, v, a, lambda) - h tau. */
    if (model_terms(f, q, v, v0, lam, s.f1, s.psi, s.gv) != 0)
        return 1;
    if (Jy != NULL) {
        if (model_derivs(f, &s, v, v0, lam) != 0)
            return 1;
        const double *Dq = cdyn_data_id_dq(f->data), *Dv = cdyn_data_id_dv(f->data);
        const double *Mq = cdyn_data_mass(f->data);
        const double *Jn = cdyn_data_jacobian(f->data, CDYN_DIR_N);
        const double *Q[3] = {NULL, cdyn_data_jacobian_dq_v(f->data, CDYN_DIR_T),
                              cdyn_data_jacobian_dq_v(f->data, CDYN_DIR_O)};
        /* q columns: tangent column t of each derivative times row t of H(q) */
        for (int t = 0; t < nv; ++t) {
            int qi[4];
            double wt[4];
            const int nt = cdyn_model_tangent_map(f->model, q, t, qi, wt);
            if (nt == 0)
                return 1;
            for (int u = 0; u < nt; ++u) {
                const int j = qi[u];
                for (int i = 0; i < nv; i++)
                    JY(ov + i, j) += h * Dq[i + (size_t)t * nv] * wt[u];
                for (int c = 0; c < k; c++) {
                    const size_t rt = (size_t)f->rows[c] + (size_t)t * f->nc;
                    JY(ol + c * nd, j) += normal_scale(f, c) * Jn[rt] * wt[u];
                    /* with friction_qp the raw d(Gamma_T v)/dq, mapped through dP/dd below */
                    const double scale = f->friction_qp ? 1.0 : f->mu[c] * lam[c * nd];
                    for (int d = 1; d < nd; d++)
                        JY(ol + c * nd + d, j) += scale * Q[d][rt] * wt[u];
                }
            }
        }
        for (int j = 0; j < nv; j++)
            for (int i = 0; i < nv; i++)
                JY(ov + i, ov + j) = Mq[i + (size_t)j * nv] + h * Dv[i + (size_t)j * nv];
    }
    /* The kinematic rows q - q0 - h G(m) v with the midpoint m = (q + q0)/2: d/dq = I - h/2
     * d(G(m) v)/dm and d/dq0 = -I - h/2 d(G(m) v)/dm, nonzero off the identity only in the
     * quaternion blocks (cdyn_model_quat_rate_de). */
    for (int j = 0; j < nq; j++) {
        if (Jy != NULL)
            JY(oq + j, j) = 1.0;
        if (Jx != NULL)
            JX(oq + j, j) = -1.0;
    }
    for (int b = 0; b < cdyn_model_nbody(f->model); b++) {
        double D[16];
        if (cdyn_model_quat_rate_de(f->model, b, v, D) != CDYN_OK)
            continue;
        cdyn_body_info bi;
        cdyn_model_body_info(f->model, b, &bi);
        const int e0 = oq + bi.qadr + 3;
        for (int i = 0; i < 4; i++)
            for (int l = 0; l < 4; l++) {
                if (Jy != NULL)
                    JY(e0 + i, e0 + l) -= 0.5 * h * D[i + 4 * l];
                if (Jx != NULL)
                    JX(e0 + i, e0 + l) -= 0.5 * h * D[i + 4 * l];
            }
    }
    const int nc = f->nc;
    const double *M = cdyn_data_mass(f->data);
    const double *Jd[3] = {cdyn_data_jacobian(f->data, CDYN_DIR_N),
                           cdyn_data_jacobian(f->data, CDYN_DIR_T),
                           cdyn_data_jacobian(f->data, CDYN_DIR_O)};
    if (Jy != NULL) {
        /* q rows, v columns: -h G(m) (G's columns are G(m) e_j). */
        for (int i = 0; i < nq; i++)
            s.qm[i] = 0.5 * (q[i] + x0[i]);
        memset(s.vp, 0, (size_t)nv * sizeof(double));
        for (int j = 0; j < nv; j++) {
            s.vp[j] = 1.0;
            if (cdyn_model_qdot(f->model, s.qm, s.vp, s.qdot, NULL) != CDYN_OK)
                return 1;
            s.vp[j] = 0.0;
            for (int i = 0; i < nq; i++)
                JY(oq + i, ov + j) = -h * s.qdot[i];
        }
    }
    for (int c = 0; c < k; c++) {
        const int r = f->rows[c];
        const double *A = f->A + (size_t)c * nd * nd, *Ch = f->Ch + (size_t)c * nd * nd;
        const double *lc = lam + c * nd, *dc = del + c * nd, *d0 = del0 + c * nd;
        double rho2 = f->gamma * f->gamma;
        for (int d = 1; d < nd; d++)
            rho2 += lc[d] * lc[d];
        const double rho = sqrt(rho2), mu = f->mu[c], mln = mu * lc[0];
        if (Jy != NULL) {
            for (int d = 0; d < nd; d++) {
                /* dynamics: -h Gamma_d' */
                for (int j = 0; j < nv; j++)
                    JY(ov + j, ol + c * nd + d) = -h * Jd[d][r + (size_t)j * nc];
                /* constitutive rows (scaled) */
                const double rs = row_scale(f, c, d);
                JY(od + c * nd + d, ol + c * nd + d) = rs;
                for (int e = 0; e < nd; e++)
                    JY(od + c * nd + d, od + c * nd + e) = -A[d + e * nd] * rs;
            }
            JY(ol + c * nd, od + c * nd) = normal_scale(f, c); /* Psi + delta_n, scaled */
        }
        if (Jx != NULL)
            for (int d = 0; d < nd; d++)
                for (int e = 0; e < nd; e++)
                    JX(od + c * nd + d, od + c * nd + e) = Ch[d + e * nd] * row_scale(f, c, d);
        if (f->friction_qp) {
            if (friction_qp_J(f, c, y, x0, s.gv + c * (nd - 1), Jy, Jx) != 0)
                return 1;
            continue;
        }
        if (Jy != NULL) {
            for (int d = 1; d < nd; d++) {
                const int row = ol + c * nd + d;
                const double sd = (dc[d] - d0[d]) / h + s.gv[c * (nd - 1) + d - 1];
                for (int j = 0; j < nv; j++)
                    JY(row, ov + j) = mln * Jd[d][r + (size_t)j * nc];
                JY(row, od + c * nd + d) = mln / h;
                JY(row, ol + c * nd) = mu * sd;
                for (int e = 1; e < nd; e++)
                    JY(row, ol + c * nd + e) =
                        beta[c] * ((d == e) / rho - lc[d] * lc[e] / (rho * rho * rho));
                JY(row, ob + c) = lc[d] / rho;
            }
            JY(ob + c, ol + c * nd) = mu;
            for (int e = 1; e < nd; e++)
                JY(ob + c, ol + c * nd + e) = -lc[e] / rho;
        }
        if (Jx != NULL)
            for (int d = 1; d < nd; d++)
                JX(ol + c * nd + d, od + c * nd + d) = -mln / h;
    }
    if (Jx != NULL) {
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < nv; j++)
                JX(ov + i, nq + j) = -M[i + (size_t)j * nv];
    }
#undef JY
#undef JX
    return 0;
}

void ncp_form_setup(ncp_form *f, const cdyn_model *m, cdyn_data *data, int k, const int *rows,
                    double *mu, double *A, double *Ch, double h, double gamma)
{
    const int nd = cdyn_model_dim(m) == 2 ? 2 : 3;
    for (int c = 0; c < k; c++) {
        cdyn_pair_info pi;
        double K[9], C[9];
        int pair = 0;
        /* the row's pair: rows of pairs are consecutive (cdyn_model_pair_info gives the range) */
        for (int p = 0; p < cdyn_model_npair(m); p++) {
            cdyn_model_pair_info(m, p, &pi);
            if (rows[c] >= pi.row && rows[c] < pi.row + pi.nrows) {
                pair = p;
                break;
            }
        }
        cdyn_model_pair_info(m, pair, &pi);
        cdyn_model_contact_compliance(m, rows[c], K, C);
        mu[c] = pi.mu;
        for (int d = 0; d < nd; d++)
            for (int e = 0; e < nd; e++) {
                A[(size_t)c * nd * nd + d + e * nd] = K[d + 3 * e] + C[d + 3 * e] / h;
                Ch[(size_t)c * nd * nd + d + e * nd] = C[d + 3 * e] / h;
            }
    }
    f->model = m;
    f->data = data;
    f->nq = cdyn_model_nq(m);
    f->nv = cdyn_model_nv(m);
    f->nc = cdyn_model_ncontact(m);
    f->nd = nd;
    f->k = k;
    f->nx = f->nq + f->nv + k * nd;
    f->ny = f->nx + k * nd + k;
    f->rows = rows;
    f->mu = mu;
    f->A = A;
    f->Ch = Ch;
    f->h = h;
    f->gamma = gamma;
    for (int i = 0; i < f->ny; i++) {
        f->lower[i] = -INFINITY;
        f->upper[i] = INFINITY;
    }
    const int ol = f->nx, ob = ol + k * nd;
    for (int c = 0; c < k; c++) {
        f->lower[ol + c * nd] = 0.0;
        f->lower[ob + c] = 0.0;
    }
}

void ncp_form_qtree(const cdyn_model *m, const int *dof_tree, int *qtree)
{
    for (int b = 0; b < cdyn_model_nbody(m); b++) {
        cdyn_body_info bi;
        cdyn_model_body_info(m, b, &bi);
        const int T = bi.nv > 0 ? dof_tree[bi.vadr] : -1;
        for (int j = 0; j < bi.nq; j++)
            qtree[bi.qadr + j] = T;
    }
}

#define MARK(m, i, j, n)                                                                          \
    ((m)[((size_t)(i) + (size_t)(j) * (n)) >> 3] |=                                             \
     (unsigned char)(1u << (((size_t)(i) + (size_t)(j) * (n)) & 7)))

void ncp_form_pattern(const ncp_form *f, const int *qtree, const int *dof_tree, const cdyn_csc *Jn,
                      int *pos, unsigned char *marky)
{
    const int n = f->ny, nq = f->nq, nv = f->nv, nd = f->nd, k = f->k;
    const int ov = nq, od = nq + nv, ol = od + k * nd, ob = ol + k * nd;
    memset(marky, 0, (size_t)n * n / 8 + 1);
    /* q and v rows against q and v columns of the same tree */
    for (int i = 0; i < nq + nv; i++) {
        const int Ti = i < nq ? qtree[i] : dof_tree[i - nq];
        for (int j = 0; j < nq + nv; j++) {
            const int Tj = j < nq ? qtree[j] : dof_tree[j - nq];
            if (Ti == Tj)
                MARK(marky, i, j, n);
        }
    }
    /* contact rows: the dofs of their bodies (the model's Jacobian pattern) and the q of their
     * trees */
    for (int i = 0; i < f->nc; i++)
        pos[i] = -1;
    for (int c = 0; c < k; c++)
        pos[f->rows[c]] = c;
    for (int j = 0; j < nv; j++)
        for (int p = Jn->colptr[j]; p < Jn->colptr[j + 1]; p++) {
            const int c = pos[Jn->rowind[p]];
            if (c < 0)
                continue;
            const int T = dof_tree[j];
            for (int d = 0; d < nd; d++) {
                MARK(marky, ov + j, ol + c * nd + d, n); /* dynamics: Gamma' lambda */
                MARK(marky, ol + c * nd + d, ov + j, n); /* slip: Gamma v */
                for (int qj = 0; qj < nq; qj++)          /* q of the row's trees */
                    if (qtree[qj] == T)
                        MARK(marky, ol + c * nd + d, qj, n);
            }
        }
    for (int c = 0; c < k; c++) {
        for (int d = 0; d < nd; d++) {
            MARK(marky, od + c * nd + d, ol + c * nd + d, n);
            for (int e = 0; e < nd; e++) {
                MARK(marky, od + c * nd + d, od + c * nd + e, n);
                MARK(marky, ol + c * nd + d, ol + c * nd + e, n);
            }
            MARK(marky, ol + c * nd + d, od + c * nd + d, n);
            MARK(marky, ol + c * nd + d, ob + c, n);
            MARK(marky, ob + c, ol + c * nd + d, n);
        }
        MARK(marky, ob + c, ob + c, n); /* friction_qp pins beta by its own row */
    }
}

#undef MARK
