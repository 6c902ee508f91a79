/* X, Y and recovery for the quasistatic UCP (see ucp_build.h; equations from Pang–Trinkle–Lo,
 * Section 2: (2) object equilibrium, (3) joint equilibrium, (4)-(5) contact velocities,
 * (7) friction cone, and the polyhedra X, Y above Theorem 1). */
#include "solvers/ucp/ucp_build.h"

#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "linalg/svd.h"

/* Rank decisions on P: singular values below this fraction of the largest count as zero. */
#define UCP_RANK_TOL 1e-10
/* Entries of the unit-norm rows of Z below this are set to zero (see below). */
#define UCP_ZERO_TOL 1e-13

static int in_alpha(const cdyn_ucp_problem *p, int j)
{
    return p->alpha == NULL || p->alpha[j];
}

static int finite_or_null(int n, const double *v)
{
    return v == NULL || cdyn_dense_all_finite(n, v);
}

cdyn_status cdyn_ucp_check(const cdyn_ucp_problem *p, cdyn_report *r)
{
    if (p == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "ucp: NULL problem");
    if (p->nc < 1 || p->nq < 1 || p->ntheta < 0)
        return cdyn_fail(r, CDYN_EINVAL, "ucp: need nc >= 1, nq >= 1, ntheta >= 0 (got %d, %d, %d)",
                         p->nc, p->nq, p->ntheta);
    if (p->nc > 20000 || p->nq > 20000 || p->ntheta > 40000)
        return cdyn_fail(r, CDYN_ETOOBIG, "ucp: problem too large for the dense method");
    const int nc = p->nc, nq = p->nq, nt = p->ntheta;
    if (p->Wn == NULL || p->Wt == NULL || p->mu == NULL || p->g_obj == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "ucp: NULL Wn, Wt, mu or g_obj");
    if (nt > 0 && (p->Jn == NULL || p->Jt == NULL))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: NULL Jn or Jt with ntheta = %d", nt);
    if (!cdyn_dense_all_finite(nq * nc, p->Wn) || !cdyn_dense_all_finite(nq * nc, p->Wt))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: Wn or Wt has a NaN or infinite entry");
    if (nt > 0 &&
        (!cdyn_dense_all_finite(nc * nt, p->Jn) || !cdyn_dense_all_finite(nc * nt, p->Jt)))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: Jn or Jt has a NaN or infinite entry");
    if (!cdyn_dense_all_finite(nq, p->g_obj))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: g_obj has a NaN or infinite entry");
    if (nt > 0 && !finite_or_null(nt, p->g_man))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: g_man has a NaN or infinite entry");
    for (int i = 0; i < nc; ++i)
        if (!(p->mu[i] >= 0.0) || !isfinite(p->mu[i]))
            return cdyn_fail(r, CDYN_EINVAL, "ucp: mu[%d] = %g (need a finite value >= 0)", i,
                             p->mu[i]);
    for (int j = 0; j < nt; ++j) {
        if (in_alpha(p, j)) {
            if (p->theta_dot == NULL)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "ucp: joint %d is velocity-controlled but "
                                 "theta_dot is NULL",
                                 j);
            if (!isfinite(p->theta_dot[j]))
                return cdyn_fail(r, CDYN_EINVAL, "ucp: theta_dot[%d] is NaN or infinite", j);
        } else {
            if (p->tau == NULL)
                return cdyn_fail(r, CDYN_EINVAL,
                                 "ucp: joint %d is effort-controlled but tau is "
                                 "NULL",
                                 j);
            if (!isfinite(p->tau[j]))
                return cdyn_fail(r, CDYN_EINVAL, "ucp: tau[%d] is NaN or infinite", j);
        }
    }
    return CDYN_OK;
}

cdyn_status cdyn_ucp_check_options(const cdyn_ucp_options *o, cdyn_report *r)
{
    if (!(o->comp_tol >= 0.0) || !isfinite(o->comp_tol))
        return cdyn_fail(r, CDYN_EINVAL, "ucp: comp_tol must be finite and >= 0");
    if (o->max_pairs < 1 || o->max_restarts < 0 || o->max_adjacent < 1)
        return cdyn_fail(r, CDYN_EINVAL,
                         "ucp: need max_pairs >= 1, max_restarts >= 0, "
                         "max_adjacent >= 1");
    if ((unsigned)o->escape > (unsigned)CDYN_UCP_ESCAPE_NONE)
        return cdyn_fail(r, CDYN_EINVAL, "ucp: unknown escape mode %d", (int)o->escape);
    if ((unsigned)o->lp.rule > (unsigned)CDYN_LP_RULE_TEXTBOOK)
        return cdyn_fail(r, CDYN_EINVAL, "ucp: unknown LP pivoting rule %d", (int)o->lp.rule);
    return CDYN_OK;
}

cdyn_status cdyn_ucp_prepare(const cdyn_ucp_problem *p, const cdyn_ucp_options *opts,
                             cdyn_ucp_options *o, cdyn_report *r)
{
    if (opts != NULL)
        *o = *opts;
    else
        cdyn_ucp_defaults(o);
    o->lp.allocator = o->allocator;
    cdyn_status s = cdyn_ucp_check_options(o, r);
    if (s == CDYN_OK)
        s = cdyn_ucp_check(p, r);
    return s;
}

void cdyn_ucp_sys_free(cdyn_ucp_sys *s)
{
    if (s != NULL)
        cdyn_mem_free(s->al, s->block);
}

cdyn_status cdyn_ucp_sys_create(const cdyn_ucp_problem *p, const cdyn_allocator *al,
                                cdyn_ucp_sys **out)
{
    *out = NULL;
    const int nc = p->nc, nq = p->nq, nt = p->ntheta, n2 = 2 * nc, nx = 3 * nc;
    int nabar = 0;
    for (int j = 0; j < nt; ++j)
        nabar += !in_alpha(p, j);
    const int np = nq + nabar, kmin = n2 < np ? n2 : np;
    const int mY = nc + nq + nabar;
    int lwork = cdyn_svd_full_lwork(n2, np);
    if (lwork < 0)
        return CDYN_ENUMERIC;

    cdyn_carve cv = {sizeof(cdyn_ucp_sys), 0};
    size_t o_abar = cdyn_carve_take(&cv, (size_t)nabar, sizeof(int));
    size_t o_AX = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)n2, (size_t)nx), sizeof(double));
    size_t o_bX = cdyn_carve_take(&cv, (size_t)n2, sizeof(double));
    size_t o_AY = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)mY, (size_t)nx), sizeof(double));
    size_t o_bY = cdyn_carve_take(&cv, (size_t)mY, sizeof(double));
    size_t o_U = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)n2, (size_t)n2), sizeof(double));
    size_t o_sv = cdyn_carve_take(&cv, (size_t)kmin, sizeof(double));
    size_t o_VT = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)np, (size_t)np), sizeof(double));
    size_t o_g = cdyn_carve_take(&cv, (size_t)n2, sizeof(double));
    size_t nwork = (size_t)(8 * nc + 2 * np + 3 * nt + nq + 16);
    size_t o_w = cdyn_carve_take(&cv, nwork, sizeof(double));
    size_t o_P = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)n2, (size_t)np), sizeof(double));
    size_t o_lw = cdyn_carve_take(&cv, (size_t)lwork, sizeof(double));
    if (cv.overflow)
        return CDYN_ENOMEM;
    char *blk = cdyn_mem_alloc(al, cv.off);
    if (blk == NULL)
        return CDYN_ENOMEM;
    cdyn_ucp_sys *s = (cdyn_ucp_sys *)blk;
    memset(s, 0, sizeof *s);
    s->block = blk;
    s->al = al;
    s->nc = nc, s->nq = nq, s->nth = nt, s->nabar = nabar, s->np = np, s->nx = nx, s->mY = mY;
    s->abar = (int *)(blk + o_abar);
    s->AX = (double *)(blk + o_AX);
    s->bX = (double *)(blk + o_bX);
    s->AY = (double *)(blk + o_AY);
    s->bY = (double *)(blk + o_bY);
    s->U = (double *)(blk + o_U);
    s->sv = (double *)(blk + o_sv);
    s->VT = (double *)(blk + o_VT);
    s->g = (double *)(blk + o_g);
    s->work = (double *)(blk + o_w);
    double *P = (double *)(blk + o_P), *lw = (double *)(blk + o_lw);

    for (int j = 0, k = 0; j < nt; ++j)
        if (!in_alpha(p, j))
            s->abar[k++] = j;
    /* P = [W^T  J_abar]: rows 0..nc-1 normal, nc..2nc-1 tangential. */
    for (int i = 0; i < nc; ++i)
        for (int k = 0; k < nq; ++k) {
            P[i + (size_t)k * n2] = p->Wn[k + (size_t)i * nq];
            P[nc + i + (size_t)k * n2] = p->Wt[k + (size_t)i * nq];
        }
    for (int t = 0; t < nabar; ++t) {
        int j = s->abar[t];
        for (int i = 0; i < nc; ++i) {
            P[i + (size_t)(nq + t) * n2] = p->Jn[i + (size_t)j * nc];
            P[nc + i + (size_t)(nq + t) * n2] = p->Jt[i + (size_t)j * nc];
        }
    }
    /* g = J_alpha thetadot_alpha */
    for (int i = 0; i < n2; ++i)
        s->g[i] = 0.0;
    for (int j = 0; j < nt; ++j)
        if (in_alpha(p, j))
            for (int i = 0; i < nc; ++i) {
                s->g[i] += p->Jn[i + (size_t)j * nc] * p->theta_dot[j];
                s->g[nc + i] += p->Jt[i + (size_t)j * nc] * p->theta_dot[j];
            }
    if (cdyn_svd_full(n2, np, P, n2, s->sv, s->U, n2, s->VT, np, lw, lwork) != CDYN_OK) {
        cdyn_mem_free(al, blk);
        return CDYN_ENUMERIC;
    }
    s->rank = cdyn_svd_rank(kmin, s->sv, UCP_RANK_TOL);
    s->mX = n2 - s->rank;

    /* X: rows of Z = U(:, rank:)^T acting on (v_n, v_t^+, v_t^-) as [Z_n  Z_t  -Z_t]. */
    const int mX = s->mX;
    /* Z's rows have unit norm: entries below UCP_ZERO_TOL are rounding noise of the SVD (e.g. the
     * columns of a contact whose finger is entirely effort-controlled, which are exactly zero in
     * exact arithmetic) and would otherwise be taken as pivots. */
    for (int k = 0; k < mX; ++k)
        for (int i = 0; i < n2; ++i) {
            double *z = s->U + (size_t)(s->rank + k) * n2 + i;
            if (fabs(*z) < UCP_ZERO_TOL)
                *z = 0.0;
        }
    for (int k = 0; k < mX; ++k) {
        const double *z = s->U + (size_t)(s->rank + k) * n2;
        double zg = 0.0;
        for (int i = 0; i < n2; ++i)
            zg += z[i] * s->g[i];
        s->bX[k] = -zg;
        for (int i = 0; i < nc; ++i) {
            s->AX[k + (size_t)i * mX] = z[i];
            s->AX[k + (size_t)(nc + i) * mX] = z[nc + i];
            s->AX[k + (size_t)(2 * nc + i) * mX] = -z[nc + i];
        }
    }
    /* Y: C y + d = 0 written as C y = -d. */
    memset(s->AY, 0, sizeof(double) * (size_t)mY * (size_t)nx);
    for (int i = 0; i < nc; ++i) {
        s->AY[i + (size_t)i * mY] = 2.0 * p->mu[i];
        s->AY[i + (size_t)(nc + i) * mY] = -1.0;
        s->AY[i + (size_t)(2 * nc + i) * mY] = -1.0;
        s->bY[i] = 0.0;
    }
    for (int k = 0; k < nq; ++k) {
        int row = nc + k;
        for (int i = 0; i < nc; ++i) {
            double wn = p->Wn[k + (size_t)i * nq], wt = p->Wt[k + (size_t)i * nq];
            s->AY[row + (size_t)i * mY] = wn - wt * p->mu[i];
            s->AY[row + (size_t)(nc + i) * mY] = wt;
        }
        s->bY[row] = -p->g_obj[k];
    }
    for (int t = 0; t < nabar; ++t) {
        int row = nc + nq + t, j = s->abar[t];
        for (int i = 0; i < nc; ++i) {
            double jn = p->Jn[i + (size_t)j * nc], jt = p->Jt[i + (size_t)j * nc];
            s->AY[row + (size_t)i * mY] = jn - jt * p->mu[i];
            s->AY[row + (size_t)(nc + i) * mY] = jt;
        }
        double gm = p->g_man != NULL ? p->g_man[j] : 0.0;
        s->bY[row] = p->tau[j] - gm;
    }
    *out = s;
    return CDYN_OK;
}

static double amax(int n, const double *v)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(v[i]));
    return m;
}

static int all_finite(int n, const double *v)
{
    for (int i = 0; i < n; ++i)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

double cdyn_ucp_recover(const cdyn_ucp_sys *s, const cdyn_ucp_problem *p, const double *x,
                        const double *y, cdyn_ucp_solution *sol)
{
    const int nc = s->nc, nq = s->nq, nt = s->nth, n2 = 2 * nc, np = s->np;
    double *w = s->work;
    double *cn = w, *ct = cn + nc, *v = ct + nc, *rhs = v + n2, *beta = rhs + n2, *tmp = beta + np,
           *th = tmp + np, *tau = th + nt, *res = tau + nt;
    for (int i = 0; i < nc; ++i) {
        cn[i] = y[i];
        ct[i] = y[nc + i] - p->mu[i] * y[i];
        v[i] = x[i];
        v[nc + i] = x[nc + i] - x[2 * nc + i];
    }
    /* P beta = v + J_alpha thetadot_alpha, beta = (qdot, -thetadot_abar): minimum-norm solution
     * beta = V_r diag(1/s_r) U_r^T (v + g). */
    for (int i = 0; i < n2; ++i)
        rhs[i] = v[i] + s->g[i];
    for (int k = 0; k < np; ++k)
        tmp[k] = 0.0;
    for (int k = 0; k < s->rank; ++k) {
        double dot = 0.0;
        for (int i = 0; i < n2; ++i)
            dot += s->U[i + (size_t)k * n2] * rhs[i];
        tmp[k] = dot / s->sv[k];
    }
    for (int j = 0; j < np; ++j) {
        double acc = 0.0;
        for (int k = 0; k < s->rank; ++k)
            acc += s->VT[k + (size_t)j * np] * tmp[k];
        beta[j] = acc;
    }
    for (int j = 0; j < nt; ++j) {
        th[j] = in_alpha(p, j) ? p->theta_dot[j] : 0.0;
        tau[j] = in_alpha(p, j) ? 0.0 : p->tau[j];
    }
    for (int t = 0; t < s->nabar; ++t)
        th[s->abar[t]] = -beta[nq + t];
    /* efforts of the velocity-controlled joints from (3): tau = J^T c + g_man */
    for (int j = 0; j < nt; ++j) {
        if (!in_alpha(p, j))
            continue;
        double acc = p->g_man != NULL ? p->g_man[j] : 0.0;
        for (int i = 0; i < nc; ++i)
            acc += p->Jn[i + (size_t)j * nc] * cn[i] + p->Jt[i + (size_t)j * nc] * ct[i];
        tau[j] = acc;
    }

    /* Residuals of (2)-(7), each relative to the size of its terms. */
    double worst = 0.0, wmax = fmax(amax(nq * nc, p->Wn), amax(nq * nc, p->Wt));
    double jmax = nt > 0 ? fmax(amax(nc * nt, p->Jn), amax(nc * nt, p->Jt)) : 0.0;
    double cmax = fmax(amax(nc, cn), amax(nc, ct)), qmax = amax(nq, beta), tmax = amax(nt, th);
    for (int k = 0; k < nq; ++k) { /* (2) W_n c_n + W_t c_t + g_obj = 0 */
        double acc = p->g_obj[k];
        for (int i = 0; i < nc; ++i)
            acc += p->Wn[k + (size_t)i * nq] * cn[i] + p->Wt[k + (size_t)i * nq] * ct[i];
        worst = fmax(worst, fabs(acc) / (1.0 + amax(nq, p->g_obj) + nc * wmax * cmax));
    }
    for (int j = 0; j < nt; ++j) { /* (3) J^T c = tau - g_man */
        double acc = (p->g_man != NULL ? p->g_man[j] : 0.0) - tau[j];
        for (int i = 0; i < nc; ++i)
            acc += p->Jn[i + (size_t)j * nc] * cn[i] + p->Jt[i + (size_t)j * nc] * ct[i];
        worst = fmax(worst, fabs(acc) / (1.0 + fabs(tau[j]) + nc * jmax * cmax));
    }
    for (int i = 0; i < n2; ++i) { /* (4)-(5) v = W^T qdot - J thetadot */
        const double *W = i < nc ? p->Wn : p->Wt;
        const double *J = i < nc ? p->Jn : p->Jt;
        int ii = i < nc ? i : i - nc;
        double acc = -v[i];
        for (int k = 0; k < nq; ++k)
            acc += W[k + (size_t)ii * nq] * beta[k];
        for (int j = 0; j < nt; ++j)
            acc -= J[ii + (size_t)j * nc] * th[j];
        res[0] = fabs(acc) / (1.0 + amax(n2, v) + nq * wmax * qmax + nt * jmax * tmax);
        worst = fmax(worst, res[0]);
    }
    for (int i = 0; i < nc; ++i) /* (6)-(7) v_n >= 0, |c_t| <= mu c_n */
        worst = fmax(worst, fmax(0.0, fabs(ct[i]) - p->mu[i] * cn[i]) / (1.0 + cmax));
    /* fmax drops NaN terms: a recovered value that overflowed (extreme data, found by fuzzing)
     * must fail every accuracy check instead. */
    if (!all_finite(nc, cn) || !all_finite(nc, ct) || !all_finite(n2, v) ||
        !all_finite(nq, beta) || !all_finite(nt, th) || !all_finite(nt, tau))
        worst = NAN;

    if (sol != NULL) {
        if (sol->x != NULL)
            memcpy(sol->x, x, sizeof(double) * (size_t)(3 * nc));
        if (sol->y != NULL)
            memcpy(sol->y, y, sizeof(double) * (size_t)(3 * nc));
        if (sol->c_n != NULL)
            memcpy(sol->c_n, cn, sizeof(double) * (size_t)nc);
        if (sol->c_t != NULL)
            memcpy(sol->c_t, ct, sizeof(double) * (size_t)nc);
        if (sol->v_n != NULL)
            memcpy(sol->v_n, v, sizeof(double) * (size_t)nc);
        if (sol->v_t != NULL)
            memcpy(sol->v_t, v + nc, sizeof(double) * (size_t)nc);
        if (sol->qdot != NULL)
            memcpy(sol->qdot, beta, sizeof(double) * (size_t)nq);
        if (sol->theta_dot != NULL && nt > 0)
            memcpy(sol->theta_dot, th, sizeof(double) * (size_t)nt);
        if (sol->tau != NULL && nt > 0)
            memcpy(sol->tau, tau, sizeof(double) * (size_t)nt);
    }
    return worst;
}
