/* The rigid schemes' per-step derivatives by the implicit function theorem (docs/theory.md,
 * "Time stepping" Sec. 9a). A rigid step is, with a = (v+ - v0) / h and lambda = P / h,
 *     id(q0, v0, a, lambda) + D (v+ - v0) - tau = 0           (the impulse balance, n_v rows)
 * plus each contact row's equations of its mode (rigid_row), and q+ = normalize(q0 + h G(q0) v+).
 * Unknowns y = (v+, then per row P and the mode's own unknowns); one dense LU of dE/dy, the
 * right-hand sides -dE/dx from the model's analytic derivatives (cdyn_eval_derivatives: the
 * inverse dynamics at (q0, v0), d(Gamma v)/dq at v+). Dense: the rigid schemes' derivatives are
 * meant for the small scenes a planner steps. */
#include "step/rigid_derivs.h"
#include "step/rigid_param_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

static int row_size(const rigid_last *L, const rigid_row *rr, int c)
{
    int n = L->nd;
    for (int g = 0; g < 2 && rr[c].kind == RD_PYR_SLIP; g++)
        n += (rr[c].slide >> g & 1) ? rr[c].gnb[g] + 1 : 0;
    return n;
}

/* Row c's friction law P_T + mu P_n u_T / |u_T| = 0 (rows e + 1 .. e + nd - 1, their P_T
 * entries set by the caller): the P_n column and, through K = mu P_n (I - t t') / |u_T| (t the
 * slip direction), the v+ and q columns of u_T = Gamma_T v+. relaxed: row e is
 * u_n - mu |u_T| (its u_n entries set by the caller), adding -mu t' du_T. */
static void slip_rows(const cdyn_stepper *s, const rigid_last *L, const rmats *mt, int c, int e,
                      int ny, int relaxed, const double *dgv, double *Jy, double *Jx)
{
    const int nv = s->nv, nc = s->nc, nd = L->nd, row = L->rows[c];
    const size_t ld = (size_t)ny;
    const double *const *G = mt->G;
    double ut[3] = {0, 0, 0}, n = 0;
    for (int d = 1; d < nd; d++) {
        for (int j = 0; j < nv; j++)
            ut[d] += G[d][row + (size_t)j * nc] * L->v1[j];
        n = hypot(n, ut[d]);
    }
    const double pn = L->imp[c * nd], mu = L->mu[c];
    for (int d = 1; d < nd; d++) {
        Jy[(e + d) + e * ld] = mu * ut[d] / n;
        for (int j = 0; j < nv && relaxed; j++) {
            Jy[e + j * ld] -= mu * ut[d] / n * G[d][row + (size_t)j * nc];
            Jx[e + j * ld] -= mu * ut[d] / n * dgv[(size_t)d * nc * nv + row + (size_t)j * nc];
        }
        for (int d2 = 1; d2 < nd; d2++) {
            const double K = mu * pn * ((d == d2) - ut[d] * ut[d2] / (n * n)) / n;
            for (int j = 0; j < nv; j++) {
                Jy[(e + d) + j * ld] += K * G[d2][row + (size_t)j * nc];
                Jx[(e + d) + j * ld] += K * dgv[(size_t)d2 * nc * nv + row + (size_t)j * nc];
            }
        }
    }
}

/* The rows of E and their derivatives in y (Jy, ny x ny) and in x = (q tangent, v0, tau) (Jx,
 * ny x 3 n_v), the data evaluated at q0 with the derivatives in place. dgv: d(Gamma_d v+)/dq,
 * 3 planes of n_c x n_v. */
static void assemble(const cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                     const rmats *mt, const int *yo, int ny, const double *dgv, double *Jy,
                     double *Jx)
{
    const int nv = s->nv, nc = s->nc, nd = L->nd;
    const size_t ld = (size_t)ny;
    const double h = L->h, *M = mt->M, *idq = mt->idq, *idv = mt->idv;
    const double *const *G = mt->G;
    double *Dd = (double *)Jx + ld * 3 * nv; /* n_v scratch after Jx (see the caller) */
    cdyn_model_joint_damping(s->model, Dd);
    memset(Jy, 0, ld * ny * sizeof(double));
    memset(Jx, 0, ld * 3 * nv * sizeof(double));
    /* the impulse balance */
    for (int i = 0; i < nv; i++) {
        for (int j = 0; j < nv; j++) {
            Jy[i + j * ld] = M[i + (size_t)j * nv] / h + (i == j ? Dd[i] : 0.0);
            Jx[i + j * ld] = idq[i + (size_t)j * nv];
            Jx[i + (nv + j) * ld] = idv[i + (size_t)j * nv] - Jy[i + j * ld];
        }
        Jx[i + (2 * nv + i) * ld] = -1.0;
        for (int c = 0; c < L->k; c++)
            for (int d = 0; d < nd; d++)
                Jy[i + (yo[c] + d) * ld] = -G[d][L->rows[c] + (size_t)i * nc] / h;
    }
    /* each row's equations: e = yo[c] .. yo[c] + row_size */
    for (int c = 0; c < L->k; c++) {
        const int row = L->rows[c], e = yo[c], kind = rr[c].kind;
        /* row e + d holds u_d when set (its v+ and q entries) */
        for (int d = 0; d < nd; d++) {
            if (!rigid_velocity_row(L, &rr[c], d)) {
                Jy[(e + d) + (e + d) * ld] = 1.0; /* P_d = 0, or P_T's law below */
                continue;
            }
            for (int j = 0; j < nv; j++) {
                Jy[(e + d) + j * ld] = G[d][row + (size_t)j * nc];
                Jx[(e + d) + j * ld] = dgv[(size_t)d * nc * nv + row + (size_t)j * nc] +
                                       (d == 0 ? G[0][row + (size_t)j * nc] / h : 0.0);
            }
        }
        if (kind == RD_COULOMB_SLIP || kind == RD_CONE_SLIP)
            slip_rows(s, L, mt, c, e, ny, kind == RD_CONE_SLIP, dgv, Jy, Jx);
        if (kind != RD_PYR_SLIP)
            continue;
        /* per sliding group, after the row's P: rows (unknowns) beta_k (k in S_g) then the
         * sum mu P_n - sum beta = 0 (unknown sigma_g); P_g's law on rows e + d: P_d -
         * sum beta_k d_k = 0; d_k . u_T + sigma_g = 0 */
        const int *dir = rr[c].dir;
        for (int g = 0, o = e + nd; g < 2; g++) {
            if (!(rr[c].slide >> g & 1))
                continue;
            const int nb = rr[c].gnb[g], es = o + nb;
            for (int b = 0; b < nb; b++) {
                const int kdir = *dir++;
                const double dk[3] = {0.0, L->cosk[kdir], L->sink[kdir]};
                for (int d = 1; d < nd; d++)
                    if (!rigid_velocity_row(L, &rr[c], d))
                        Jy[(e + d) + (o + b) * ld] = -dk[d];
                Jy[es + (o + b) * ld] = -1.0;
                for (int d = 1; d < nd; d++)
                    for (int j = 0; j < nv; j++) {
                        Jy[(o + b) + j * ld] += dk[d] * G[d][row + (size_t)j * nc];
                        Jx[(o + b) + j * ld] += dk[d] * dgv[(size_t)d * nc * nv + row +
                                                            (size_t)j * nc];
                    }
                Jy[(o + b) + es * ld] = 1.0;
            }
            Jy[es + e * ld] = L->mu[c];
            o = es + 1;
        }
    }
}

/* d(normalize(q0 + h G(q0) v+)) in tangent coordinates, for the columns X (ny x nx, rows
 * 0 .. n_v: dv+/dx; the first n_v columns are q's, the model parameters' after x and tau):
 * into out's q rows. S = H(q+) / |q~| (blockwise), T = dq~/dx. */
static cdyn_status q_rows(const cdyn_stepper *s, const rigid_last *L, const double *X, int ny,
                          int nx, double *T, double *G0, double *H1, double *nrm, double *out,
                          cdyn_report *r)
{
    const int nq = s->nq, nv = s->nv;
    cdyn_report mr;
    if (cdyn_model_G(s->model, L->q0, G0, &mr) != CDYN_OK ||
        cdyn_model_G_pinv(s->model, L->q1, H1, &mr) != CDYN_OK ||
        cdyn_model_qdot(s->model, L->q0, L->v1, nrm, &mr) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: %s", mr.message);
    /* T = h G0 dv+/dx, plus (I + h dG v+/dq) G0 on the q columns */
    memset(T, 0, (size_t)nq * nx * sizeof(double));
    cdyn_dense_gemm(0, 0, nq, nx, nv, L->h, G0, nq, X, ny, 0.0, T, nq);
    for (int j = 0; j < nv; j++)
        for (int i = 0; i < nq; i++)
            T[i + (size_t)j * nq] += G0[i + (size_t)j * nq];
    for (int b = 0; b < cdyn_model_nbody(s->model); b++) {
        double D[16];
        if (cdyn_model_quat_rate_de(s->model, b, L->v1, D) != CDYN_OK)
            continue;
        cdyn_body_info bi;
        cdyn_model_body_info(s->model, b, &bi);
        const int e0 = bi.qadr + 3;
        double n2 = 0;
        for (int i = 0; i < 4; i++)
            n2 += (L->q0[e0 + i] + L->h * nrm[e0 + i]) * (L->q0[e0 + i] + L->h * nrm[e0 + i]);
        for (int j = 0; j < nv; j++) {
            double g[4];
            for (int i = 0; i < 4; i++)
                g[i] = G0[e0 + i + (size_t)j * nq];
            for (int i = 0; i < 4; i++)
                for (int l = 0; l < 4; l++)
                    T[e0 + i + (size_t)j * nq] += L->h * D[i + 4 * l] * g[l];
        }
        for (int j = 0; j < nx; j++)
            for (int i = 0; i < 4; i++)
                T[e0 + i + (size_t)j * nq] /= sqrt(n2);
    }
    cdyn_dense_gemm(0, 0, nv, nx, nq, 1.0, H1, nv, T, nq, 0.0, out, nv);
    return CDYN_OK;
}

cdyn_status rigid_jacobians(cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                            const int *lheld, double *A, double *B, int np,
                            const cdyn_param *params, double *P, cdyn_report *r)
{
    const int nv = s->nv, nq = s->nq, nc = s->nc, nd = L->nd, nx = 2 * nv, ncol = 3 * nv + np;
    const cdyn_allocator *as = &s->arena.as;
    int *yo = cdyn_mem_array(as, (size_t)L->k + 1, sizeof(int));
    if (yo == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    int ny = nv;
    for (int c = 0; c < L->k; c++) {
        yo[c] = ny;
        ny += row_size(L, rr, c);
    }
    const int el = ny; /* the limit rows' unknowns (p_l) last */
    ny += L->nl;
    const size_t n = (size_t)ny;
    double *Jy = cdyn_mem_array(as, n * n, sizeof(double));
    double *Jx = cdyn_mem_array(as, n * ncol + nv, sizeof(double));
    double *dgv = cdyn_mem_array(as, 3 * (size_t)nc * nv + 1, sizeof(double));
    double *lam = cdyn_mem_array(as, 3 * (size_t)nc + 1, sizeof(double));
    double *acc = cdyn_mem_array(as, (size_t)nv, sizeof(double));
    double *T = cdyn_mem_array(as, (size_t)nq * ncol, sizeof(double));
    double *G0 = cdyn_mem_array(as, (size_t)nq * nv, sizeof(double));
    double *H1 = cdyn_mem_array(as, (size_t)nq * nv, sizeof(double));
    double *nrm = cdyn_mem_array(as, (size_t)nq, sizeof(double));
    double *dq = cdyn_mem_array(as, (size_t)nv * ncol, sizeof(double));
    double *Jp = cdyn_mem_array(as, n * np + 1, sizeof(double));
    int *ipiv = cdyn_mem_array(as, n, sizeof(int));
    int *rowsel = cdyn_mem_array(as, (size_t)nc + 1, sizeof(int));
    if (Jy == NULL || Jx == NULL || dgv == NULL || lam == NULL || acc == NULL || T == NULL ||
        G0 == NULL || H1 == NULL || nrm == NULL || dq == NULL || ipiv == NULL || rowsel == NULL ||
        Jp == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    /* d(Gamma_d v)/dq at v+, for the problem's rows */
    memset(rowsel, 0, (size_t)nc * sizeof(int));
    memset(lam, 0, 3 * (size_t)nc * sizeof(double));
    for (int c = 0; c < L->k; c++) {
        rowsel[L->rows[c]] = 1;
        for (int d = 0; d < nd; d++)
            lam[3 * L->rows[c] + d] = L->imp[c * nd + d] / L->h;
    }
    for (int i = 0; i < nv; i++)
        acc[i] = (L->v1[i] - L->v0[i]) / L->h;
    cdyn_report mr;
    const unsigned fl = CDYN_EVAL_MASS | CDYN_EVAL_BIAS | CDYN_EVAL_CONTACTS;
    if (cdyn_eval(s->model, s->data, L->q0, L->v1, CDYN_EVAL_CONTACTS, &mr) != CDYN_OK ||
        cdyn_eval_derivatives(s->model, s->data, NULL, NULL, rowsel, &mr) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: %s", mr.message);
    for (int d = 0; d < 3; d++) {
        const double *D = rigid_dense_jac(s, as, d, 1);
        if (D == NULL && d < 2)
            return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
        if (D != NULL)
            memcpy(dgv + (size_t)d * nc * nv, D, (size_t)nc * nv * sizeof(double));
    }
    /* the parameters' columns need the data at (q0, v+), as here (rigid_param_derivs.c) */
    cdyn_status st = rigid_param_rhs(s, L, rr, yo, ny, lam, rowsel, np, params, Jp, r);
    if (st != CDYN_OK)
        return st;
    /* the inverse dynamics at (q0, v0) with the step's acceleration and forces */
    if (cdyn_eval(s->model, s->data, L->q0, L->v0, fl, &mr) != CDYN_OK ||
        cdyn_eval_derivatives(s->model, s->data, acc, lam, rowsel, &mr) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: %s", mr.message);
    rmats mt;
    if (rigid_mats(s, as, 1, &mt) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    assemble(s, L, rr, &mt, yo, ny, dgv, Jy, Jx);
    rigid_limit_rows(s, L, lheld, el, ny, Jy, Jx);
    memcpy(Jx + n * 3 * nv, Jp, n * np * sizeof(double)); /* over assemble's scratch */
    /* a nearly singular matrix is judged singular: the mode's equations lost their rank */
    const double anorm = cdyn_dense_norm1(ny, ny, Jy, ny);
    double *work = cdyn_mem_array(as, 4 * n, sizeof(double));
    int *iw = cdyn_mem_array(as, n, sizeof(int));
    if (work == NULL || iw == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    st = cdyn_dense_lu(ny, Jy, ny, ipiv);
    if (st != CDYN_OK || !(cdyn_dense_lu_rcond(ny, Jy, ny, anorm, work, iw) > 1e-14))
        return cdyn_fail(r, CDYN_ESINGULAR, "cdyn_step_derivatives: the step's active-set "
                         "equations are singular at its solution (rows whose impulses are not "
                         "unique, or a degenerate mode)");
    for (size_t i = 0; i < n * ncol; i++)
        Jx[i] = -Jx[i];
    cdyn_dense_lu_solve(0, ny, Jy, ny, ipiv, ncol, Jx, ny);
    if (!cdyn_dense_all_finite((int)(n * ncol), Jx))
        return cdyn_fail(r, CDYN_ESINGULAR, "cdyn_step_derivatives: the step's active-set "
                         "equations are singular at its solution (rows whose impulses are not "
                         "unique, or a degenerate mode)");
    st = q_rows(s, L, Jx, ny, ncol, T, G0, H1, nrm, dq, r);
    if (st != CDYN_OK)
        return st;
    /* outputs: rows (q tangent, v), columns (q tangent, v0) for A, tau for B, p for P */
    for (int j = 0; j < ncol; j++) {
        double *col = j < nx       ? (A != NULL ? A + (size_t)j * nx : NULL)
                      : j < 3 * nv ? (B != NULL ? B + (size_t)(j - nx) * nx : NULL)
                                   : P + (size_t)(j - 3 * nv) * nx;
        if (col == NULL)
            continue;
        for (int i = 0; i < nv; i++) {
            col[i] = dq[i + (size_t)j * nv];
            col[nv + i] = Jx[i + (size_t)j * n];
        }
    }
    return CDYN_OK;
}
