/* The implicit step's Newton matrix (implicit_ncp_form.h), assembled from the analytic derivatives of
 * the model's terms (cdyn_eval_derivatives) straight into a dense array or a sparse pattern:
 * every loop walks the model's sparse structures (M, Gamma, the derivative pattern) and each
 * row's own block, so the cost is linear in the scene. Derivation: docs/theory.md, "The implicit
 * step's Newton matrix". */
#include "step/implicit_ncp_form.h"
#include "step/implicit_ncp_sink.h"

#include "linalg/csc.h"
#include "step/implicit_limits.h"

#include <math.h>
#include <string.h>

/* Rows q - q0 - h G(m) v, m = (q + q0)/2: the identity and the quaternion blocks -h/2 d(G(m) v)/dm
 * in q (and q0), -h G(m) in v. */
static int kinematic_rows(ncp_form *f, const ncp_scr *s, const double *v, ncp_sink *JY,
                          ncp_sink *JX)
{
    const int nq = f->nq, ov = nq;
    for (int j = 0; j < nq; j++) {
        ncp_sink_put(JY, j, j, 1.0);
        ncp_sink_put(JX, j, j, -1.0);
    }
    for (int b = 0; b < cdyn_model_nbody(f->model); b++) {
        double D[16];
        if (cdyn_model_quat_rate_de(f->model, b, v, D) != CDYN_OK)
            continue;
        cdyn_body_info bi;
        cdyn_model_body_info(f->model, b, &bi);
        const int e0 = bi.qadr + 3;
        for (int l = 0; l < 4; l++)
            for (int i = 0; i < 4; i++) {
                ncp_sink_put(JY, e0 + i, e0 + l, -0.5 * f->h * D[i + 4 * l]);
                ncp_sink_put(JX, e0 + i, e0 + l, -0.5 * f->h * D[i + 4 * l]);
            }
    }
    for (int t = 0; t < f->nv && JY != NULL; t++) {
        int qi[4];
        double g[4];
        const int n = cdyn_model_tangent_map(f->model, s->qm, t, qi, g, NULL);
        if (n == 0)
            return 1;
        for (int u = 0; u < n; u++)
            ncp_sink_put(JY, qi[u], ov + t, -f->h * g[u]);
    }
    return 0;
}

/* The rows' friction coupling to q and v: the NCP rows mu lambda_n d(Gamma_T v), the friction
 * QP's -dP/dd d(Gamma_T v) (values raw[g] of Gamma_{t,o} v's derivative, or of Gamma_{t,o}). */
static void friction_entries(const ncp_form *f, const ncp_scr *s, const double *lam, int c,
                             const double *raw, int col, double w, ncp_sink *JY)
{
    const int nd = f->nd, nt = nd - 1, ol = f->nx;
    for (int d = 0; d < nt; d++) {
        double val;
        if (ncp_row_qp(f, c)) {
            const double *Dd = s->qp[c].sol.Dd;
            val = 0;
            for (int g = 0; g < nt; g++)
                val -= Dd[d + g * nt] * raw[g];
        } else {
            val = f->mu[c] * lam[c * nd] * raw[d];
        }
        ncp_sink_put(JY, ol + c * nd + 1 + d, col, val * w);
    }
}

/* d/dq and d/dv of the dynamics, normal and friction rows: the model's derivatives, tangent
 * column t spread over q by row t of H(q). */
static int model_columns(ncp_form *f, const ncp_scr *s, const double *q, const double *lam,
                         ncp_sink *JY)
{
    const int nv = f->nv, nd = f->nd, ov = f->nq, ol = f->nx;
    const double h = f->h;
    const unsigned char *keep = f->der_keep; /* the couplings of pairs taking part */
    cdyn_csc Dq, Dv, M, J[3], Q[3];
    cdyn_data_id_dq_csc(f->data, &Dq);
    cdyn_data_id_dv_csc(f->data, &Dv);
    cdyn_data_mass_csc(f->data, &M);
    for (int d = 0; d < nd; d++) {
        cdyn_data_jacobian_csc(f->data, (cdyn_dir)d, &J[d]);
        cdyn_data_jacobian_dq_v_csc(f->data, (cdyn_dir)d, &Q[d]);
    }
    for (int t = 0; t < nv; t++) {
        int qi[4];
        double w[4];
        const int n = cdyn_model_tangent_map(f->model, q, t, qi, NULL, w);
        if (n == 0)
            return 1;
        for (int p = Dq.colptr[t]; p < Dq.colptr[t + 1]; p++)
            for (int u = 0; u < n && (keep == NULL || keep[p]); u++)
                ncp_sink_put(JY, ov + Dq.rowind[p], qi[u], h * Dq.values[p] * w[u]);
        for (int p = J[0].colptr[t]; p < J[0].colptr[t + 1]; p++) {
            const int c = s->pos[J[0].rowind[p]] - 1;
            if (c < 0)
                continue;
            double raw[2] = {0, 0};
            for (int d = 1; d < nd; d++)
                raw[d - 1] = Q[d].values[p];
            for (int u = 0; u < n; u++) {
                ncp_sink_put(JY, ol + c * nd, qi[u], ncp_normal_scale(f, c) * J[0].values[p] * w[u]);
                friction_entries(f, s, lam, c, raw, qi[u], w[u], JY);
            }
        }
    }
    for (int j = 0; j < nv; j++) {
        for (int p = Dv.colptr[j]; p < Dv.colptr[j + 1]; p++)
            if (keep == NULL || keep[p])
                ncp_sink_put(JY, ov + Dv.rowind[p], ov + j, h * Dv.values[p]);
        for (int p = M.colptr[j]; p < M.colptr[j + 1]; p++) {
            const int i = M.rowind[p];
            ncp_sink_put(JY, ov + i, ov + j, M.values[p]);
            if (i != j)
                ncp_sink_put(JY, ov + j, ov + i, M.values[p]);
        }
        /* -h Gamma' in the dynamics rows; the friction rows' v columns */
        for (int p = J[0].colptr[j]; p < J[0].colptr[j + 1]; p++) {
            const int c = s->pos[J[0].rowind[p]] - 1;
            if (c < 0)
                continue;
            double raw[2] = {0, 0};
            for (int d = 0; d < nd; d++) {
                ncp_sink_put(JY, ov + j, ol + c * nd + d, -h * J[d].values[p]);
                if (d > 0)
                    raw[d - 1] = J[d].values[p];
            }
            friction_entries(f, s, lam, c, raw, ov + j, 1.0, JY);
        }
    }
    return 0;
}

/* Row c's own block: constitutive, normal and friction rows in delta, lambda, beta (and delta0). */
static void row_block(const ncp_form *f, const ncp_scr *s, const double *y, const double *x0,
                      int c, ncp_sink *JY, ncp_sink *JX)
{
    const int nd = f->nd, nt = nd - 1, k = f->k;
    const int od = f->nq + f->nv, ol = od + k * nd, ob = ol + k * nd;
    const double *A = f->A + (size_t)c * nd * nd, *Ch = f->Ch + (size_t)c * nd * nd;
    const double *lc = y + ol + c * nd, *dc = y + od + c * nd, *d0 = x0 + od + c * nd;
    const double h = f->h, mu = f->mu[c], mln = mu * lc[0], beta = y[ob + c];
    for (int d = 0; d < nd; d++) {
        const double rs = ncp_row_scale(f, c, d);
        ncp_sink_put(JY, od + c * nd + d, ol + c * nd + d, rs);
        for (int e = 0; e < nd; e++) {
            ncp_sink_put(JY, od + c * nd + d, od + c * nd + e, -A[d + e * nd] * rs);
            ncp_sink_put(JX, od + c * nd + d, od + c * nd + e, Ch[d + e * nd] * rs);
        }
    }
    ncp_sink_put(JY, ol + c * nd, od + c * nd, ncp_normal_scale(f, c)); /* Psi + delta_n, scaled */
    if (ncp_row_qp(f, c)) {
        const ncp_qp_row *qr = &s->qp[c];
        for (int d = 0; d < nt; d++) {
            const int row = ol + c * nd + 1 + d;
            double acc = qr->sol.Dr[d] * qr->drdln;
            for (int g = 0; g < nt; g++)
                acc += qr->sol.Dd[d + g * nt] * qr->dln[g];
            ncp_sink_put(JY, row, ol + c * nd, -acc);
            ncp_sink_put(JY, row, row, 1.0);
            for (int e = 0; e < nd; e++) {
                double a2 = 0;
                for (int g = 0; g < nt; g++)
                    a2 += qr->sol.Dd[d + g * nt] * qr->dd0[g + e * nt];
                ncp_sink_put(JX, row, od + c * nd + e, -a2);
            }
        }
        ncp_sink_put(JY, ob + c, ob + c, 1.0);
        return;
    }
    double rho2 = f->gamma * f->gamma;
    for (int d = 1; d < nd; d++)
        rho2 += lc[d] * lc[d];
    const double rho = sqrt(rho2);
    for (int d = 1; d < nd; d++) {
        const int row = ol + c * nd + d;
        const double sd = (dc[d] - d0[d]) / h + s->gv[c * nt + d - 1];
        ncp_sink_put(JY, row, od + c * nd + d, mln / h);
        ncp_sink_put(JY, row, ol + c * nd, mu * sd);
        for (int e = 1; e < nd; e++)
            ncp_sink_put(JY, row, ol + c * nd + e,
                beta * ((d == e) / rho - lc[d] * lc[e] / (rho * rho * rho)));
        ncp_sink_put(JY, row, ob + c, lc[d] / rho);
        ncp_sink_put(JX, row, od + c * nd + d, -mln / h);
    }
    ncp_sink_put(JY, ob + c, ol + c * nd, mu);
    for (int e = 1; e < nd; e++)
        ncp_sink_put(JY, ob + c, ol + c * nd + e, -lc[e] / rho);
}

int ncp_form_jac(ncp_form *f, const double *x0, const double *y, ncp_sink *JY, ncp_sink *JX)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k;
    const double *q = y, *v = y + nq, *lam = y + nq + nv + k * nd;
    const double *v0 = x0 + nq, *del0 = x0 + nq + nv;
    ncp_scr s = ncp_scratch(f);
    if (ncp_form_model(f, &s, q, v, v0, lam) != 0)
        return 1;
    if (JY != NULL && ncp_form_derivs(f, &s, v, v0, lam) != 0)
        return 1;
    for (int c = 0; c < k; c++)
        if (ncp_row_qp(f, c))
            if (ncp_qp_row_solve(f, c, lam[c * nd], del0 + c * nd, s.gv + c * (nd - 1),
                                 &s.qp[c]) != 0)
                return 1;
    for (int j = 0; j < nq; j++)
        s.qm[j] = 0.5 * (q[j] + x0[j]);
    if (kinematic_rows(f, &s, v, JY, JX) != 0)
        return 1;
    if (JY != NULL && model_columns(f, &s, q, lam, JY) != 0)
        return 1;
    if (JX != NULL) {
        cdyn_csc M;
        cdyn_data_mass_csc(f->data, &M);
        for (int j = 0; j < nv; j++)
            for (int p = M.colptr[j]; p < M.colptr[j + 1]; p++) {
                const int i = M.rowind[p];
                ncp_sink_put(JX, nq + i, nq + j, -M.values[p]);
                if (i != j)
                    ncp_sink_put(JX, nq + j, nq + i, -M.values[p]);
            }
    }
    for (int c = 0; c < k; c++)
        row_block(f, &s, y, x0, c, JY, JX);
    ncp_limits_jac(f, JY);
    return (JY != NULL && JY->missing > 0) || (JX != NULL && JX->missing > 0);
}

int ncp_form_J(ncp_form *f, const double *x0, const double *y, double *Jy, double *Jx)
{
    const int ny = f->ny;
    ncp_sink sy = {NCP_SINK_DENSE, Jy, ny, NULL, NULL, NULL, 0, NULL, NULL, 0};
    ncp_sink sx = {NCP_SINK_DENSE, Jx, ny, NULL, NULL, NULL, 0, NULL, NULL, 0};
    if (Jy != NULL)
        memset(Jy, 0, (size_t)ny * ny * sizeof(double));
    if (Jx != NULL)
        memset(Jx, 0, (size_t)ny * f->nx * sizeof(double));
    return ncp_form_jac(f, x0, y, Jy != NULL ? &sy : NULL, Jx != NULL ? &sx : NULL);
}

/* Central differences of F along the columns of one group at once (steps eps_j), into F+ - F-
 * in Fp (Fm scratch). 0, or 1 when F cannot be evaluated. */
static int group_difference(ncp_form *f, const double *x0, const double *y, const int *color,
                            int g, double *yy, double *Fp, double *Fm)
{
    const int n = f->ny;
    memcpy(yy, y, (size_t)n * sizeof(double));
    for (int j = 0; j < n; j++)
        if (color[j] == g)
            yy[j] += 1e-6 * fmax(1.0, fabs(y[j]));
    if (ncp_form_F(f, x0, yy, Fp) != 0)
        return 1;
    for (int j = 0; j < n; j++)
        if (color[j] == g)
            yy[j] = y[j] - 1e-6 * fmax(1.0, fabs(y[j]));
    if (ncp_form_F(f, x0, yy, Fm) != 0)
        return 1;
    for (int i = 0; i < n; i++)
        Fp[i] -= Fm[i];
    return 0;
}

int ncp_form_jac_fd(ncp_form *f, const double *x0, const double *y, ncp_sink *jy, double *work)
{
    const int n = f->ny;
    double *yy = work, *Fp = work + n, *Fm = work + 2 * (size_t)n;
    int *color = (int *)(void *)(work + 3 * (size_t)n), *mark = color + n;
    /* Columns whose rows (in a CSC sink's pattern) do not overlap share a difference (Curtis,
     * Powell and Reid): a greedy colouring, each group two residuals. A dense sink: one column
     * per group. */
    int ngroup = 0;
    for (int j = 0; j < n; j++)
        color[j] = jy->mode == NCP_SINK_CSC ? -1 : j;
    if (jy->mode == NCP_SINK_CSC)
        for (int colored = 0; colored < n; ngroup++) {
            for (int i = 0; i < n; i++)
                mark[i] = 0;
            for (int j = 0; j < n; j++) {
                if (color[j] >= 0)
                    continue;
                int free_rows = 1;
                for (int p = jy->colptr[j]; p < jy->colptr[j + 1] && free_rows; p++)
                    free_rows = !mark[jy->rowind[p]];
                if (!free_rows)
                    continue;
                color[j] = ngroup;
                colored++;
                for (int p = jy->colptr[j]; p < jy->colptr[j + 1]; p++)
                    mark[jy->rowind[p]] = 1;
            }
        }
    else
        ngroup = n;
    for (int g = 0; g < ngroup; g++) {
        if (group_difference(f, x0, y, color, g, yy, Fp, Fm) != 0)
            return 1;
        for (int j = 0; j < n; j++) {
            if (color[j] != g)
                continue;
            const double inv = 1.0 / (2e-6 * fmax(1.0, fabs(y[j])));
            if (jy->mode == NCP_SINK_CSC)
                for (int p = jy->colptr[j]; p < jy->colptr[j + 1]; p++)
                    jy->values[p] += Fp[jy->rowind[p]] * inv;
            else
                for (int i = 0; i < n; i++)
                    ncp_sink_put(jy, i, j, Fp[i] * inv);
        }
    }
    return 0;
}
