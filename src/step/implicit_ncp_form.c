/* The implicit compliant step's residual and Jacobian (implicit_ncp_form.h). */
#include "step/implicit_ncp_form.h"

#include "linalg/dense.h"
#include "step/friction_qp.h"
#include "step/implicit_limits.h"

#include <math.h>
#include <string.h>

size_t ncp_form_scratch(int nq, int nv, int k, int nd)
{
    /* qdot, qm; f1, acc; psi, gv (k (nd - 1)); lam3 (3 k), pos (k ints); the QP rows (k is the
     * model's row count here, so that k >= f->nc) */
    const size_t qp = sizeof(ncp_qp_row) / sizeof(double) + 1;
    return 2 * (size_t)nq + 2 * (size_t)nv + (size_t)k * (nd - 1) + 5 * (size_t)k +
           qp * (size_t)k + 8;
}

ncp_scr ncp_scratch(const ncp_form *f)
{
    ncp_scr s;
    const int nq = f->nq, nv = f->nv, k = f->k, nc = f->nc;
    double *p = f->scratch;
    s.qdot = p, p += nq;
    s.qm = p, p += nq;
    s.f1 = p, p += nv;
    s.acc = p, p += nv;
    s.psi = p, p += k;
    s.gv = p, p += (size_t)k * (f->nd - 1);
    s.lam3 = p, p += 3 * (size_t)nc;
    s.pos = (int *)(void *)p; /* nc ints in nc doubles */
    p += nc;
    s.qp = (ncp_qp_row *)(void *)p;
    return s;
}

/* Parts of F that need the model at (q, v): f1 = M(q)(v - v0) - h (tau - bias) - h Gamma' lambda,
 * psi_c = Psi_n(q) of row c, gv_{c,d} = Gamma_d(q) v (d = 1 .. nd-1); pos maps model rows to
 * c + 1 (0: not taking part). Sparse throughout: O(nnz of M and Gamma). */
int ncp_form_model(ncp_form *f, const ncp_scr *s, const double *q, const double *v,
                   const double *v0, const double *lam)
{
    if (cdyn_eval_pairs(f->model, f->data, q, v,
                        CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS, f->pairs,
                        NULL) != CDYN_OK)
        return 1;
    const int nv = f->nv, nd = f->nd, k = f->k;
    const double *bias = cdyn_data_bias(f->data), *gap = cdyn_data_gap(f->data);
    cdyn_csc M, J[3];
    cdyn_data_mass_csc(f->data, &M);
    for (int d = 0; d < nd; d++)
        cdyn_data_jacobian_csc(f->data, (cdyn_dir)d, &J[d]);
    double *f1 = s->f1;
    for (int i = 0; i < nv; i++) {
        f1[i] = -f->h * ((f->tau != NULL ? f->tau[i] : 0.0) - bias[i]);
        s->acc[i] = v[i] - v0[i];
    }
    for (int j = 0; j < nv; j++)
        for (int p = M.colptr[j]; p < M.colptr[j + 1]; p++) {
            const int i = M.rowind[p];
            f1[i] += M.values[p] * s->acc[j];
            if (i != j)
                f1[j] += M.values[p] * s->acc[i];
        }
    memset(s->pos, 0, (size_t)f->nc * sizeof(int));
    for (int c = 0; c < k; c++) {
        s->pos[f->rows[c]] = c + 1;
        s->psi[c] = gap[f->rows[c]];
    }
    memset(s->gv, 0, (size_t)k * (nd - 1) * sizeof(double));
    for (int j = 0; j < nv; j++)
        for (int p = J[0].colptr[j]; p < J[0].colptr[j + 1]; p++) {
            const int c = s->pos[J[0].rowind[p]] - 1;
            if (c < 0)
                continue;
            for (int d = 0; d < nd; d++) {
                f1[j] -= f->h * J[d].values[p] * lam[c * nd + d];
                if (d > 0)
                    s->gv[c * (nd - 1) + d - 1] += J[d].values[p] * v[j];
            }
        }
    return 0;
}

/* The model's derivatives at the (q, v) of the last ncp_form_model: a = (v - v0)/h, the k rows'
 * forces spread over the model's rows (lam3, 3 nc), d(Gamma_T v)/dq for those rows only. */
int ncp_form_derivs(ncp_form *f, const ncp_scr *s, const double *v, const double *v0,
                    const double *lam)
{
    const int nv = f->nv, nd = f->nd;
    for (int i = 0; i < nv; i++)
        s->acc[i] = (v[i] - v0[i]) / f->h;
    memset(s->lam3, 0, 3 * (size_t)f->nc * sizeof(double));
    for (int c = 0; c < f->k; c++)
        for (int d = 0; d < nd; d++)
            s->lam3[3 * f->rows[c] + d] = lam[c * nd + d];
    return cdyn_eval_derivatives(f->model, f->data, s->acc, s->lam3, s->pos, NULL) != CDYN_OK;
}

/* The normal gap row is scaled by the normal stiffness K_nn (when positive; else by
 * (K + C/h)_nn, else 1): the complementarity pair (lambda_n, Psi + delta_n) then has both members
 * in newtons, balanced as lambda_n = K_nn delta_n at rest. The solution set does not change; the
 * Fischer-Burmeister function, which adds its arguments, needs the balance (forces of 1 N against
 * gaps of 1e-4 m stalled its line search). The stiffness rather than (K + C/h) keeps the row's
 * rounding (|q| eps K_nn) below the solver's tolerance at small h. */
double ncp_normal_scale(const ncp_form *f, int c)
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
double ncp_row_scale(const ncp_form *f, int c, int d)
{
    const double a = f->A[(size_t)c * f->nd * f->nd + d + d * f->nd];
    return f->scale_normal && a > 0 ? 1.0 / a : 1.0;
}

/* A^-1 of row c (nd x nd), computed; 1 when singular. */
static int invert_row(const ncp_form *f, int c, double *Ai)
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

/* NaN-filled blocks mark rows without an inverse in f->Ai. */
void ncp_form_invert(ncp_form *f)
{
    const int nd = f->nd;
    for (int c = 0; c < f->k; c++) {
        double *Ai = f->Ai + (size_t)c * nd * nd;
        if (invert_row(f, c, Ai) != 0)
            for (int i = 0; i < nd * nd; i++)
                Ai[i] = NAN;
    }
}

int ncp_row_inverse(const ncp_form *f, int c, double *Ai)
{
    if (f->Ai == NULL)
        return invert_row(f, c, Ai);
    const int nd = f->nd;
    memcpy(Ai, f->Ai + (size_t)c * nd * nd, (size_t)nd * nd * sizeof(double));
    return !(Ai[0] == Ai[0]);
}

int ncp_qp_row_solve(const ncp_form *f, int c, double ln, const double *d0, const double *gv,
                     ncp_qp_row *o)
{
    const int nd = f->nd, nt = nd - 1;
    const double *Ch = f->Ch + (size_t)c * nd * nd;
    double Ai[9], AiCh[9], S[4], d[2];
    if (ncp_row_inverse(f, c, Ai) != 0)
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
    /* r = mu max(lambda_n, 0): at lambda_n = 0 the right derivative, the side the bound keeps */
    o->drdln = ln >= 0 ? f->mu[c] : 0.0;
    return friction_qp_solve(nt, S, d, f->mu[c] * fmax(ln, 0.0), &o->sol);
}

int ncp_form_qp_rows(const ncp_form *f, int *ok)
{
    const int nd = f->nd;
    int bad = 0;
    for (int c = 0; c < f->k; c++) {
        const double *A = f->A + (size_t)c * nd * nd;
        double amax = 0, Ai[9];
        ok[c] = 1;
        for (int i = 0; i < nd * nd; i++)
            amax = fmax(amax, fabs(A[i]));
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < i; j++)
                if (fabs(A[i + j * nd] - A[j + i * nd]) > 1e-12 * amax)
                    ok[c] = 0;
        if (ok[c] && ncp_row_inverse(f, c, Ai) != 0)
            ok[c] = 0;
        if (ok[c]) {
            const double s00 = Ai[1 + nd];
            const double det =
                nd == 3 ? Ai[1 + nd] * Ai[2 + 2 * nd] - Ai[2 + nd] * Ai[1 + 2 * nd] : s00;
            ok[c] = s00 > 0 && det > 0;
        }
        bad += !ok[c];
    }
    return bad;
}

int ncp_form_F(ncp_form *f, const double *x0, const double *y, double *F)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k;
    const double *q = y, *v = y + nq, *del = y + nq + nv, *lam = del + k * nd, *beta = lam + k * nd;
    const double *q0 = x0, *v0 = x0 + nq, *del0 = x0 + nq + nv;
    ncp_scr s = ncp_scratch(f);
    if (ncp_form_model(f, &s, q, v, v0, lam) != 0)
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
            Fd[c * nd + d] = acc * ncp_row_scale(f, c, d);
        }
        double rho2 = f->gamma * f->gamma;
        for (int d = 1; d < nd; d++)
            rho2 += lc[d] * lc[d];
        const double rho = sqrt(rho2), mln = f->mu[c] * lc[0];
        Fl[c * nd] = ncp_normal_scale(f, c) * (s.psi[c] + dc[0]);
        if (ncp_row_qp(f, c)) {
            ncp_qp_row qr;
            if (ncp_qp_row_solve(f, c, lc[0], d0, s.gv + c * (nd - 1), &qr) != 0)
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
    ncp_limits_F(f, y, F);
    return 0;
}

void ncp_form_setup(ncp_form *f, const cdyn_model *m, cdyn_data *data, int k, const int *rows,
                    double *mu, double *A, double *Ch, double h, double gamma)
{
    const int nd = cdyn_model_dim(m) == 2 ? 2 : 3;
    for (int c = 0; c < k; c++) {
        cdyn_pair_info pi;
        double K[9], C[9];
        /* the row's pair: rows of pairs are consecutive and increasing (binary search) */
        int lo = 0, hi = cdyn_model_npair(m) - 1;
        while (lo < hi) {
            const int mid = (lo + hi + 1) / 2;
            cdyn_model_pair_info(m, mid, &pi);
            if (pi.row <= rows[c])
                lo = mid;
            else
                hi = mid - 1;
        }
        const int pair = lo;
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
    f->qp_rows = NULL;
    f->pairs = NULL;
    f->der_keep = NULL;
    f->Ai = NULL;
    f->lim = NULL;
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
