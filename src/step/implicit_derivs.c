/* The implicit step's derivatives by the implicit function theorem (docs/theory.md, "Per-step
 * derivatives of the implicit step"). At the step's solution y of the MCP F(x0, y, tau) (the
 * form of implicit_ncp_form.h), each complementarity pair is either an equation (its variable
 * off its bound: F_i = 0 holds nearby) or a bound (F_i > 0: y_i stays at its bound); pairs at
 * their switch take the side asked. With the rows of the bounds replaced by dy_i = 0,
 *     J~ dy = -(dF/dx0)~ dx0 - (dF/dtau)~ dtau,
 * J~ factored once by islands (implicit_derivs_solve.c), the right-hand sides as sparse columns
 * (the tangent map G(q0) folded in), the solutions mapped straight into A and B through the
 * output map (H(q+) on q, the model rows' slots for delta). The joint-limit rows
 * (implicit_limits.h) are pairs like the contacts' normal ones: (lambda_l, K_l (g_l + delta_l)),
 * a stop released or held; their deformation delta_l is state (the next step's delta0_l). */
#include "step/implicit_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "step/implicit_derivs_solve.h"
#include "step/implicit_limits.h"
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

/* The joint-limit pairs (lambda_l, K_l (g_l + delta_l)), both in newtons (or N m) as the normal
 * ones: a stop held (at the stop's compliant law) or released (lambda_l = 0), and the report's
 * limit margin. */
static void classify_limits(const ncp_form *f, const double *y, const double *F, double tol,
                            cdyn_deriv_side side, int *eq, cdyn_step_deriv_report *rep)
{
    const int nl = f->lim != NULL ? f->lim->n : 0, ol = ncp_limits_offset(f) + nl;
    for (int l = 0; l < nl; l++) {
        const double lam = y[ol + l], Fg = F[ol + l];
        const int deg = fmax(lam, Fg) <= tol;
        rep->degenerate += deg;
        const double m = fmax(lam, Fg) / ncp_limits_gap_scale(f, l);
        if (m < rep->limit_margin) {
            rep->limit_margin = m;
            rep->limit_row = l;
        }
        if (!(deg ? side == CDYN_DERIV_HELD : lam > Fg))
            eq[ol + l] = 0;
    }
}

/* Sparse columns out of the arena (cap entries). */
typedef struct cols_buf {
    int *colptr, *rowind;
    double *values;
} cols_buf;

static int cols_alloc(const cdyn_allocator *as, int n, size_t cap, cols_buf *b)
{
    b->colptr = cdyn_mem_array(as, (size_t)n + 1, sizeof(int));
    b->rowind = cdyn_mem_array(as, cap + 1, sizeof(int));
    b->values = cdyn_mem_array(as, cap + 1, sizeof(double));
    return b->colptr == NULL || b->rowind == NULL || b->values == NULL;
}

/* The right-hand sides, sparse, one column per input: -dF/dx0 G(q0) for the tangent q columns,
 * -dF/dx0 for v0 and delta0, then -dF/d delta0_l for the nl limit rows (the first nst columns:
 * all of them, or none when A is not wanted), -dF/dtau = h on the dynamics rows for tau, -dF/dp
 * for the np parameters (dFp dense, ny x np); nothing on the bound rows. Jx is dense (ny x nx);
 * acc: ny doubles of scratch, zero on entry and exit; touched and mark: ny ints (mark < 0 on
 * entry). 0, or 1 (memory). */
static int rhs(const ncp_form *f, const double *x0, const double *Jx, const int *eq, int nst,
               int ntau, int np, const double *dFp, const cdyn_allocator *as, double *acc,
               int *touched, int *mark, cols_buf *R)
{
    const int nq = f->nq, nv = f->nv, ny = f->ny;
    const int ncol = nst + ntau, ntot = ncol + np, ox = nv + f->nx - nq; /* the limits' d0 */
    const int nl = f->lim != NULL ? f->lim->n : 0;
    const size_t ld = (size_t)ny;
    /* the columns of Jx by their nonzero rows (bound rows left out) */
    cols_buf X;
    size_t nnz = 0;
    for (int j = 0; j < f->nx; j++)
        for (int i = 0; i < ny; i++)
            nnz += eq[i] && Jx[i + j * ld] != 0.0;
    if (cols_alloc(as, f->nx, nnz, &X))
        return 1;
    nnz = 0;
    for (int j = 0; j < f->nx; j++) {
        X.colptr[j] = (int)nnz;
        for (int i = 0; i < ny; i++)
            if (eq[i] && Jx[i + j * ld] != 0.0) {
                X.rowind[nnz] = i;
                X.values[nnz++] = Jx[i + j * ld];
            }
    }
    X.colptr[f->nx] = (int)nnz;
    /* every q column gathers at most 4 columns of Jx */
    if (cols_alloc(as, ntot, 4 * nnz + (size_t)ntau + (size_t)nl + (size_t)np * ny, R))
        return 1;
    size_t t = 0;
    for (int j = 0; j < ncol; j++) {
        R->colptr[j] = (int)t;
        if (j >= nst) {
            R->rowind[t] = nq + j - nst;
            R->values[t++] = f->h;
            continue;
        }
        if (j >= ox) { /* delta0_l: its constitutive row only */
            const int l = j - ox, i = ncp_limits_offset(f) + l;
            if (eq[i]) {
                R->rowind[t] = i;
                R->values[t++] = -ncp_limits_d0_coef(f, l);
            }
            continue;
        }
        int qi[4], n = 1, nt = 0;
        double G[4] = {1, 0, 0, 0};
        if (j < nv)
            n = cdyn_model_tangent_map(f->model, x0, j, qi, G, NULL);
        else
            qi[0] = nq + j - nv; /* v0, then delta0: Jx's columns nq .. */
        for (int m = 0; m < n; m++)
            for (int p = X.colptr[qi[m]]; p < X.colptr[qi[m] + 1]; p++) {
                const int i = X.rowind[p];
                if (mark[i] != j) {
                    mark[i] = j;
                    touched[nt++] = i;
                }
                acc[i] -= X.values[p] * G[m];
            }
        for (int u = 0; u < nt; u++) {
            R->rowind[t] = touched[u];
            R->values[t++] = acc[touched[u]];
            acc[touched[u]] = 0.0;
        }
    }
    for (int j = 0; j < np; j++) {
        R->colptr[ncol + j] = (int)t;
        for (int i = 0; i < ny; i++)
            if (eq[i] && dFp[i + (size_t)j * ny] != 0.0) {
                R->rowind[t] = i;
                R->values[t++] = -dFp[i + (size_t)j * ny];
            }
    }
    R->colptr[ntot] = (int)t;
    return 0;
}

/* The output map P (one column per unknown of y; rows: the 2 nv + 3 nc + nl state
 * coordinates): H(q+) on q, the identity on v, delta of row c into the model row's slot, delta_l
 * of limit row l into slot 2 nv + 3 nc + l. 0, or 1 (memory). */
static int outmap(const ncp_form *f, const double *y, const cdyn_allocator *as, cols_buf *P)
{
    const int nq = f->nq, nv = f->nv, nd = f->nd, k = f->k, od = nq + nv, ny = f->ny;
    const int nl = f->lim != NULL ? f->lim->n : 0, odl = ncp_limits_offset(f);
    int *hq = cdyn_mem_array(as, 5 * (size_t)nv + 1, sizeof(int));
    double *hv = cdyn_mem_array(as, 4 * (size_t)nv + 1, sizeof(double));
    if (hq == NULL || hv == NULL ||
        cols_alloc(as, ny, 5 * (size_t)nv + (size_t)k * nd + (size_t)nl, P))
        return 1;
    int *hn = hq + 4 * (size_t)nv;
    memset(P->colptr, 0, ((size_t)ny + 1) * sizeof(int));
    for (int i = 0; i < nv; i++) {
        hn[i] = cdyn_model_tangent_map(f->model, y, i, hq + 4 * i, NULL, hv + 4 * i);
        for (int m = 0; m < hn[i]; m++)
            P->colptr[hq[4 * i + m] + 1]++;
        P->colptr[nq + i + 1]++;
    }
    for (int c = 0; c < k * nd; c++)
        P->colptr[od + c + 1]++;
    for (int l = 0; l < nl; l++)
        P->colptr[odl + l + 1]++;
    for (int u = 0; u < ny; u++)
        P->colptr[u + 1] += P->colptr[u];
    /* fill, advancing colptr[u] to the column's end, then shift back */
    for (int i = 0; i < nv; i++) {
        for (int m = 0; m < hn[i]; m++) {
            const int p = P->colptr[hq[4 * i + m]]++;
            P->rowind[p] = i;
            P->values[p] = hv[4 * i + m];
        }
        const int p = P->colptr[nq + i]++;
        P->rowind[p] = nv + i;
        P->values[p] = 1.0;
    }
    for (int c = 0; c < k; c++)
        for (int d = 0; d < nd; d++) {
            const int p = P->colptr[od + c * nd + d]++;
            P->rowind[p] = 2 * nv + 3 * f->rows[c] + d;
            P->values[p] = 1.0;
        }
    for (int l = 0; l < nl; l++) {
        const int p = P->colptr[odl + l]++;
        P->rowind[p] = 2 * nv + 3 * f->nc + l;
        P->values[p] = 1.0;
    }
    for (int u = ny; u > 0; u--)
        P->colptr[u] = P->colptr[u - 1];
    P->colptr[0] = 0;
    return 0;
}

cdyn_status ncp_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 int np, const cdyn_param *params, double *Pout,
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
    const int nl = f.lim != NULL ? f.lim->n : 0;
    /* the state's columns only when A is wanted */
    const int nst = A != NULL ? 2 * nv + nr + nl : 0, ntau = B != NULL ? nv : 0;
    const int ncol = nst + ntau;
    const int sparse = L.colptr != NULL;
    rep->rows = f.k;
    const cdyn_allocator *as = &s->arena.as;
    const int nxo = 2 * nv + 3 * s->nc + nl;
    double *F = cdyn_mem_array(as, (size_t)ny, sizeof(double));
    double *Jx = cdyn_mem_array(as, (size_t)ny * nxf + 1, sizeof(double));
    double *acc = cdyn_mem_array(as, (size_t)ny, sizeof(double));
    int *eq = cdyn_mem_array(as, 3 * (size_t)ny, sizeof(int));
    double **outcol = cdyn_mem_array(as, (size_t)ncol + np + 1, sizeof(double *));
    double *dFp = cdyn_mem_array(as, (size_t)ny * np + 1, sizeof(double));
    if (F == NULL || Jx == NULL || acc == NULL || eq == NULL || outcol == NULL || dFp == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    if (ncp_form_F(&f, L.x0, L.y, F) != 0)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the model cannot be "
                         "evaluated at the step's solution");
    ift_system sys;
    cols_buf R = {NULL, NULL, NULL}, P = {NULL, NULL, NULL};
    cdyn_status st = ift_jacobians(&sys, &f, L.x0, L.y, L.colptr, L.rowind, Jx, as, r);
    if (st == CDYN_OK) {
        classify(&f, L.x0, L.y, F, 100.0 * s->opts.mcp.tol, side, eq, rep);
        classify_limits(&f, L.y, F, 100.0 * s->opts.mcp.tol, side, eq, rep);
        st = ift_factor(&sys, eq, r);
    }
    if (st == CDYN_OK && np > 0)
        st = ncp_param_columns(&f, L.x0, L.y, np, params, as, dFp, r);
    memset(acc, 0, (size_t)ny * sizeof(double));
    for (int i = 0; i < ny; i++)
        eq[2 * ny + i] = -1;
    if (st == CDYN_OK && (rhs(&f, L.x0, Jx, eq, nst, ntau, np, dFp, as, acc, eq + ny,
                              eq + 2 * ny, &R) != 0 ||
                          outmap(&f, L.y, as, &P) != 0))
        st = cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    const ift_columns rc = {ncol + np, R.colptr, R.rowind, R.values};
    if (st == CDYN_OK)
        st = ift_plan(&sys, &rc, r);
    if (st == CDYN_OK) {
        /* the outputs are written from here on: ift_solve allocates nothing and its right-hand
         * sides are finite (ift_plan) */
        if (A != NULL)
            memset(A, 0, (size_t)nxo * nxo * sizeof(double));
        if (B != NULL)
            memset(B, 0, (size_t)nxo * nv * sizeof(double));
        if (Pout != NULL)
            memset(Pout, 0, (size_t)nxo * np * sizeof(double));
        for (int j = 0; j < np; j++)
            outcol[ncol + j] = Pout != NULL ? Pout + (size_t)j * nxo : NULL;
        for (int j = 0; j < ncol; j++) {
            if (j >= nst)
                outcol[j] = B + (size_t)(j - nst) * nxo;
            else if (j < 2 * nv)
                outcol[j] = A + (size_t)j * nxo;
            else if (j >= 2 * nv + nr) /* delta0_l */
                outcol[j] = A + (size_t)(2 * nv + 3 * s->nc + j - 2 * nv - nr) * nxo;
            else
                outcol[j] = A + (size_t)(2 * nv + 3 * f.rows[(j - 2 * nv) / f.nd] +
                                         (j - 2 * nv) % f.nd) * nxo;
        }
        const ift_columns pc = {ny, P.colptr, P.rowind, P.values};
        st = ift_solve(&sys, &rc, &pc, outcol, r);
    }
    ift_free(&sys);
    if (st != CDYN_OK)
        return st;
    cdyn_report_method(r, sparse ? "implicit-ncp-ift-sparse" : "implicit-ncp-ift-dense");
    return CDYN_OK;
}
