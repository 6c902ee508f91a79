/* The implicit step's derivatives by the implicit function theorem (docs/theory.md, "Per-step
 * derivatives of the implicit step"). At the step's solution y of the MCP F(x0, y, tau) (the
 * form of implicit_ncp_form.h), each complementarity pair is either an equation (its variable
 * off its bound: F_i = 0 holds nearby) or a bound (F_i > 0: y_i stays at its bound); pairs at
 * their switch take the side asked. With the rows of the bounds replaced by dy_i = 0,
 *     J~ dy = -(dF/dx0)~ dx0 - (dF/dtau)~ dtau,
 * one factorization of J~ (dense LU or KLU, as the step's backend: implicit_derivs_solve.c)
 * and one solve per input column; then the tangent maps G(q0) in and H(q+) out. */
#include "step/implicit_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "step/implicit_derivs_solve.h"
#include "step/step_internal.h"

#include <math.h>
#include <string.h>

/* Which rows of J~ are equations (eq[i] = 1) and which bounds (0), and the report's margins. */
static void classify(const ncp_form *f, const double *x0, const double *y, const double *F,
                     double tol, cdyn_deriv_side side, int *eq, cdyn_step_deriv_report *rep)
{
    const int nd = f->nd, k = f->k, od = f->nq + f->nv, ol = f->nx, ob = ol + k * nd;
    const ncp_scr s = ncp_scratch(f);
    for (int i = 0; i < f->ny; i++)
        eq[i] = 1;
    for (int c = 0; c < k; c++) {
        const int in = ol + c * nd, row = f->rows[c], qp = ncp_row_qp(f, c);
        const double ln = y[in], Fn = F[in], sn = ncp_normal_scale(f, c), mu = f->mu[c];
        /* the normal pair (lambda_n, s_n (Psi_n + delta_n)), both in newtons */
        const int degn = fmax(ln, Fn) <= tol;
        int held = degn ? side == CDYN_DERIV_HELD : ln > Fn;
        if (degn) {
            rep->degenerate++;
            if (held && !qp && mu > 0) {
                held = 0; /* no held-side derivative: lambda_T ~ sqrt(lambda_n) (gamma) */
                rep->forced_released++;
            }
        }
        const double mn = fmax(ln, Fn) / sn;
        if (mn < rep->normal_margin) {
            rep->normal_margin = mn;
            rep->normal_row = row;
        }
        if (!held)
            eq[in] = 0;
        if (qp) {
            /* lambda_T - P(lambda_n, ...) and beta (pinned at 0) stay equations; the QP's own
             * stick / slip switch follows its solution */
            if (!held || !(mu > 0))
                continue;
            double lt = 0, sl = 0;
            for (int d = 1; d < nd; d++) {
                lt = hypot(lt, y[in + d]);
                sl = hypot(sl, (y[od + c * nd + d] - x0[od + c * nd + d]) / f->h +
                                   s.gv[c * (nd - 1) + d - 1]);
            }
            if (s.qp[c].sol.on_boundary) {
                if (sl < rep->slip_margin) {
                    rep->slip_margin = sl;
                    rep->slip_row = row;
                }
            } else if (1.0 - lt / (mu * ln) < rep->cone_margin) {
                rep->cone_margin = 1.0 - lt / (mu * ln);
                rep->cone_row = row;
            }
            continue;
        }
        if (!held || !(mu > 0)) {
            /* no friction law to speak of: lambda_T = beta = 0, as the step pins them */
            for (int d = 1; d < nd; d++)
                eq[in + d] = 0;
            eq[ob + c] = 0;
            continue;
        }
        /* the cone pair (beta, mu lambda_n + gamma - rho) */
        const double b = y[ob + c], Fb = F[ob + c];
        const int degb = fmax(b, Fb) <= tol;
        rep->degenerate += degb;
        const int slip = degb ? side == CDYN_DERIV_HELD : b > Fb;
        if (!slip) {
            eq[ob + c] = 0;
            if (Fb / (mu * ln) < rep->cone_margin) {
                rep->cone_margin = Fb / (mu * ln);
                rep->cone_row = row;
            }
        } else {
            double sl = 0;
            for (int d = 1; d < nd; d++)
                sl = hypot(sl, (y[od + c * nd + d] - x0[od + c * nd + d]) / f->h +
                                   s.gv[c * (nd - 1) + d - 1]);
            if (sl < rep->slip_margin) {
                rep->slip_margin = sl;
                rep->slip_row = row;
            }
        }
    }
}

/* The right-hand sides R (ny x ncol): -dF/dx0 G(q0) for the tangent q columns, -dF/dx0 for v0
 * and delta0, -dF/dtau = h on the dynamics rows for tau; zero on the bound rows. */
static void rhs(const ncp_form *f, const double *x0, const double *Jx, const int *eq, int ntau,
                double *R)
{
    const int nq = f->nq, nv = f->nv, ny = f->ny, nr = f->nx - nq - nv;
    const size_t ld = (size_t)ny;
    memset(R, 0, ld * (size_t)(2 * nv + nr + ntau) * sizeof(double));
    for (int j = 0; j < nv; j++) {
        int qi[4];
        double G[4];
        const int n = cdyn_model_tangent_map(f->model, x0, j, qi, G, NULL);
        for (int m = 0; m < n; m++)
            for (int i = 0; i < ny; i++)
                R[i + j * ld] -= Jx[i + (size_t)qi[m] * ld] * G[m];
    }
    for (int j = 0; j < nv + nr; j++)
        for (int i = 0; i < ny; i++)
            R[i + (size_t)(nv + j) * ld] = -Jx[i + (size_t)(nq + j) * ld];
    for (int j = 0; j < ntau; j++)
        R[nq + j + (size_t)(2 * nv + nr + j) * ld] = f->h;
    for (int i = 0; i < ny; i++)
        if (!eq[i])
            for (int j = 0; j < 2 * nv + nr + ntau; j++)
                R[i + j * ld] = 0.0;
}

/* Z (ny x ncol, dy per input column) into A and B: rows H(q+) dq, dv, ddelta of the model rows;
 * columns the tangent q, v0, delta0 of the model rows, tau. hq, hv: nv x 4 scratch for H's
 * rows (their q indices and values, looked up once). */
static void scatter(const cdyn_stepper *s, const ncp_form *f, const double *y, const double *Z,
                    double *A, double *B, int *hq, double *hv)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k, od = nq + nv, ny = f->ny;
    const int nx = 2 * nv + 3 * s->nc, nr = k * nd;
    const size_t ld = (size_t)ny;
    int *hn = hq + 4 * (size_t)nv;
    for (int i = 0; i < nv; i++)
        hn[i] = cdyn_model_tangent_map(f->model, y, i, hq + 4 * i, NULL, hv + 4 * i);
    if (A != NULL)
        memset(A, 0, (size_t)nx * nx * sizeof(double));
    if (B != NULL)
        memset(B, 0, (size_t)nx * nv * sizeof(double));
    for (int zc = 0; zc < 2 * nv + nr + (B != NULL ? nv : 0); zc++) {
        double *out;
        if (zc >= 2 * nv + nr)
            out = B + (size_t)(zc - 2 * nv - nr) * nx;
        else if (A == NULL)
            continue;
        else if (zc < 2 * nv)
            out = A + (size_t)zc * nx;
        else
            out = A + (size_t)(2 * nv + 3 * f->rows[(zc - 2 * nv) / nd] + (zc - 2 * nv) % nd) * nx;
        const double *z = Z + (size_t)zc * ld;
        for (int i = 0; i < nv; i++) {
            double acc = 0;
            for (int m = 0; m < hn[i]; m++)
                acc += hv[4 * i + m] * z[hq[4 * i + m]];
            out[i] = acc;
            out[nv + i] = z[nq + i];
        }
        for (int c = 0; c < k; c++)
            for (int d = 0; d < nd; d++)
                out[2 * nv + 3 * f->rows[c] + d] = z[od + c * nd + d];
    }
}

cdyn_status ncp_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 cdyn_step_deriv_report *rep)
{
    cdyn_report *r = &rep->solver;
    ncp_last L;
    if (ncp_last_step(s, &L) != 0)
        return cdyn_fail(r, CDYN_EINVAL, "cdyn_step_derivatives: the stepper has no successful "
                         "step to differentiate");
    ncp_form f = L.f;
    f.scale_normal = 1; /* the normal pairs in newtons (their members compared below) */
    const int ny = f.ny, nxf = f.nx, nv = f.nv, nr = nxf - f.nq - nv;
    const int ntau = B != NULL ? nv : 0, ncol = 2 * nv + nr + ntau;
    const int sparse = L.colptr != NULL;
    rep->rows = f.k;
    const cdyn_allocator *as = &s->arena.as;
    double *F = cdyn_mem_array(as, (size_t)ny, sizeof(double));
    double *Jx = cdyn_mem_array(as, (size_t)ny * nxf + 1, sizeof(double));
    double *R = cdyn_mem_array(as, (size_t)ny * ncol + 1, sizeof(double));
    int *eq = cdyn_mem_array(as, (size_t)ny, sizeof(int));
    int *hq = cdyn_mem_array(as, 5 * (size_t)nv + 1, sizeof(int));
    double *hv = cdyn_mem_array(as, 4 * (size_t)nv + 1, sizeof(double));
    if (F == NULL || Jx == NULL || R == NULL || eq == NULL || hq == NULL || hv == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    if (ncp_form_F(&f, L.x0, L.y, F) != 0)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the model cannot be "
                         "evaluated at the step's solution");
    ift_system sys;
    cdyn_status st = ift_jacobians(&sys, &f, L.x0, L.y, L.colptr, L.rowind, Jx, as, r);
    if (st == CDYN_OK) {
        classify(&f, L.x0, L.y, F, 100.0 * s->opts.mcp.tol, side, eq, rep);
        st = ift_factor(&sys, eq, r);
    }
    if (st == CDYN_OK) {
        rhs(&f, L.x0, Jx, eq, ntau, R);
        st = ift_solve(&sys, ncol, R, r);
    }
    ift_free(&sys);
    if (st != CDYN_OK)
        return st;
    scatter(s, &f, L.y, R, A, B, hq, hv);
    cdyn_report_method(r, sparse ? "implicit-ncp-ift-sparse" : "implicit-ncp-ift-dense");
    return CDYN_OK;
}
