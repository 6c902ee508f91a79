/* The implicit step's residual F differentiated in model parameters (dF/dp, the right-hand
 * sides of cdyn_step_param_derivatives; docs/theory.md, "Per-step derivatives in model
 * parameters"). At the solution y, F depends on
 *   mu, K, C  through the row's arrays mu, A = K + C/h and Ch = C/h: the constitutive rows
 *             (-dA delta + dCh delta0), the smoothed cone's rows (mu lambda_n), and the friction
 *             QP's minimizer x(S, d, r) (S x + d appears whole in its KKT system, so a change dS
 *             acts as dd = dS x: dx = Dd (dd + dS x) + Dr dr);
 *   geometry  through Psi_n(q) (the normal rows), Gamma(q)' lambda (the dynamics rows) and
 *             Gamma_T(q) v (the friction rows), from cdyn_eval_geom_derivatives.
 * The row scalings multiply their rows' residuals, which vanish at the solution: only the
 * unscaled rows' derivatives count. */
#include "step/implicit_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

static int is_geom(cdyn_param_kind k)
{
    return k >= CDYN_PARAM_GEOM_POS && k <= CDYN_PARAM_GEOM_VERTEX;
}

cdyn_status ncp_params_check(const cdyn_model *m, int np, const cdyn_param *params,
                             const char *who, int j0, cdyn_report *r)
{
    for (int j = 0; j < np; j++) {
        const cdyn_param *p = &params[j];
        if ((int)p->kind < CDYN_PARAM_MU || (int)p->kind > CDYN_PARAM_GEOM_VERTEX)
            return cdyn_fail(r, CDYN_EINVAL, "%s: params[%d]: kind %d is unknown", who, j0 + j,
                             (int)p->kind);
        const int n = is_geom(p->kind) ? cdyn_model_ngeom(m) : cdyn_model_npair(m);
        if (p->id < 0 || p->id >= n)
            return cdyn_fail(r, CDYN_EINVAL, "%s: params[%d]: id = %d is not one of the "
                             "model's %s 0..%d", who, j0 + j, p->id,
                             is_geom(p->kind) ? "geometries" : "pairs", n - 1);
    }
    return CDYN_OK;
}

/* Row c's change (dmu, dA, dCh) under contact parameter p (zero when c is not its pair's). */
static int contact_move(const ncp_form *f, const cdyn_param *p, int c, double *dmu, double *dA,
                        double *dCh)
{
    const int nd = f->nd;
    cdyn_pair_info pi;
    cdyn_model_pair_info(f->model, p->id, &pi);
    *dmu = 0;
    memset(dA, 0, (size_t)nd * nd * sizeof(double));
    memset(dCh, 0, (size_t)nd * nd * sizeof(double));
    if (f->rows[c] < pi.row || f->rows[c] >= pi.row + pi.nrows)
        return 0;
    if (p->kind == CDYN_PARAM_MU) {
        *dmu = 1.0;
        return 1;
    }
    const double share = 1.0 / (pi.patch_n > 1 ? pi.nrows : 1); /* cdyn_model_contact_compliance */
    const int normal = p->kind == CDYN_PARAM_STIFFNESS_N || p->kind == CDYN_PARAM_DAMPING_N;
    const int damping = p->kind == CDYN_PARAM_DAMPING_N || p->kind == CDYN_PARAM_DAMPING_T;
    for (int d = normal ? 0 : 1; d < (normal ? 1 : nd); d++) {
        dA[d + d * nd] = damping ? share / f->h : share;
        dCh[d + d * nd] = damping ? share / f->h : 0.0;
    }
    return 1;
}

/* The friction QP's rows under (dmu, dA, dCh): -dx, dx = Dd (dd + dS x) + Dr dr. */
static int qp_rows(const ncp_form *f, const ncp_scr *s, int c, double ln, const double *d0,
                   double dmu, const double *dA, const double *dCh, double *out)
{
    const int nd = f->nd, nt = nd - 1;
    const double *Ch = f->Ch + (size_t)c * nd * nd;
    const friction_qp_sol *sol = &s->qp[c].sol;
    double Ai[9], T[9], dAi[9], dN[9];
    if (ncp_row_inverse(f, c, Ai) != 0)
        return 1;
    /* dAi = -Ai dA Ai; dN = d(Ai Ch) = dAi Ch + Ai dCh */
    cdyn_dense_gemm(0, 0, nd, nd, nd, 1.0, dA, nd, Ai, nd, 0.0, T, nd);
    cdyn_dense_gemm(0, 0, nd, nd, nd, -1.0, Ai, nd, T, nd, 0.0, dAi, nd);
    cdyn_dense_gemm(0, 0, nd, nd, nd, 1.0, dAi, nd, Ch, nd, 0.0, dN, nd);
    cdyn_dense_gemm(0, 0, nd, nd, nd, 1.0, Ai, nd, dCh, nd, 1.0, dN, nd);
    double dd[2];
    for (int g = 0; g < nt; g++) {
        const int i = g + 1;
        double acc = dAi[i] * ln;
        for (int e = 0; e < nd; e++)
            acc += dN[i + e * nd] * d0[e];
        dd[g] = acc / f->h;
        for (int e = 0; e < nt; e++)
            dd[g] += 0.5 * (dAi[i + (e + 1) * nd] + dAi[(e + 1) + i * nd]) / f->h * sol->x[e];
    }
    const double dr = dmu * fmax(ln, 0.0);
    for (int d = 0; d < nt; d++) {
        double dx = sol->Dr[d] * dr;
        for (int g = 0; g < nt; g++)
            dx += sol->Dd[d + g * nt] * dd[g];
        out[d] = -dx;
    }
    return 0;
}

/* dF/dp of contact parameter p into col (ny, zero on entry). */
static int contact_column(const ncp_form *f, const ncp_scr *s, const double *x0, const double *y,
                          const cdyn_param *p, double *col)
{
    const int nd = f->nd, k = f->k, od = f->nq + f->nv, ol = od + k * nd, ob = ol + k * nd;
    for (int c = 0; c < k; c++) {
        double dmu, dA[9], dCh[9];
        if (!contact_move(f, p, c, &dmu, dA, dCh))
            continue;
        const double *dc = y + od + c * nd, *d0 = x0 + od + c * nd, ln = y[ol + c * nd];
        for (int d = 0; d < nd; d++) {
            double acc = 0;
            for (int e = 0; e < nd; e++)
                acc += -dA[d + e * nd] * dc[e] + dCh[d + e * nd] * d0[e];
            col[od + c * nd + d] = acc * ncp_row_scale(f, c, d);
        }
        if (ncp_row_qp(f, c)) {
            if (qp_rows(f, s, c, ln, d0, dmu, dA, dCh, col + ol + c * nd + 1) != 0)
                return 1;
            continue;
        }
        for (int d = 1; d < nd; d++)
            col[ol + c * nd + d] =
                dmu * ln * ((dc[d] - d0[d]) / f->h + s->gv[c * (nd - 1) + d - 1]);
        col[ob + c] = dmu * ln;
    }
    return 0;
}

/* dF/dp of geometric parameter p into col (ny, zero on entry); g: 4 nc + nv doubles. */
static cdyn_status geom_column(const ncp_form *f, const ncp_scr *s, const cdyn_param *p, int j,
                               double *g, double *col, cdyn_report *r)
{
    const int nd = f->nd, nt = nd - 1, k = f->k, nc = f->nc;
    const int ol = f->nq + f->nv + k * nd;
    double *dgap = g, *dgv = g + nc, *dforce = g + 4 * (size_t)nc;
    _Static_assert(CDYN_PARAM_GEOM_VERTEX - CDYN_PARAM_GEOM_POS == (int)CDYN_GEOM_PARAM_VERTEX &&
                       CDYN_PARAM_GEOM_SIZE - CDYN_PARAM_GEOM_POS == (int)CDYN_GEOM_PARAM_SIZE,
                   "the GEOM kinds are cdyn_geom_param's, offset");
    cdyn_report mr;
    const cdyn_status st = cdyn_eval_geom_derivatives(
        f->model, f->data, (cdyn_geom_param)(p->kind - CDYN_PARAM_GEOM_POS), p->id, p->component,
        s->lam3, s->pos, dgap, dgv, dforce, &mr);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "params[%d]: %s", j, mr.message);
    for (int i = 0; i < f->nv; i++)
        col[f->nq + i] = -f->h * dforce[i];
    for (int c = 0; c < k; c++) {
        const int row = f->rows[c];
        const double ln = s->lam3[3 * row];
        col[ol + c * nd] = ncp_normal_scale(f, c) * dgap[row];
        for (int d = 0; d < nt; d++) {
            double v;
            if (ncp_row_qp(f, c)) {
                v = 0;
                for (int e = 0; e < nt; e++)
                    v -= s->qp[c].sol.Dd[d + e * nt] * dgv[3 * row + 1 + e];
            } else {
                v = f->mu[c] * ln * dgv[3 * row + 1 + d];
            }
            col[ol + c * nd + 1 + d] = v;
        }
    }
    return CDYN_OK;
}

cdyn_status ncp_param_columns(const ncp_form *f, const double *x0, const double *y, int np,
                              const cdyn_param *params, const cdyn_allocator *as, double *dF,
                              cdyn_report *r)
{
    const ncp_scr s = ncp_scratch(f);
    double *g = cdyn_mem_array(as, 4 * (size_t)f->nc + f->nv + 1, sizeof(double));
    if (g == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_param_derivatives: out of memory");
    memset(dF, 0, (size_t)f->ny * np * sizeof(double));
    cdyn_status st = CDYN_OK;
    for (int j = 0; j < np && st == CDYN_OK; j++) {
        double *col = dF + (size_t)j * f->ny;
        if (is_geom(params[j].kind))
            st = geom_column(f, &s, &params[j], j, g, col, r);
        else if (contact_column(f, &s, x0, y, &params[j], col) != 0)
            st = cdyn_fail(r, CDYN_ENUMERIC, "params[%d]: the "
                           "friction QP's row has no inverse compliance", j);
    }
    cdyn_mem_free(as, g);
    return st;
}
