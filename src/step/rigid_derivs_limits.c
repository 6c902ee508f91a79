/* The rigid schemes' joint-limit rows in their per-step derivatives (rigid_derivs.h;
 * docs/theory.md, "Time stepping" Sec. 9a). A stop l (limit_rows.h: dof j, g_l = sign e_j, gap
 * g_l(q) = sign (q_j - bound)) is a row 0 <= p_l ⊥ u_l = g_l' v+ + gap_l(q0) / h >= 0 of the
 * step's problem (joint_rows.h), the normal row of a frictionless contact in joint space: held,
 * its equation u_l = 0 (the joint ends the step on the stop: q+_j = bound); released, p_l = 0.
 * Newton restitution replaces gap_l / h by a target speed that depends on v0 and the free motion
 * in a way the derivative does not take: such a step is refused. */
#include "step/joint_rows.h"
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"

#include <math.h>
#include <string.h>

int rigid_keep_limits(cdyn_stepper *s, const jrows *j, const double *fj)
{
    rigid_last *L = &s->rlast;
    const int nl = j->n - j->nfric;
    L->nl = nl;
    L->limp = NULL;
    L->lnewton = NULL;
    if (nl <= 0) {
        L->nl = 0;
        return 0;
    }
    double *p = cdyn_mem_array(&s->arena.as, (size_t)nl, sizeof(double));
    int *nw = cdyn_mem_array(&s->arena.as, (size_t)nl, sizeof(int));
    if (p == NULL || nw == NULL)
        return 1;
    memcpy(p, fj + j->nfric, (size_t)nl * sizeof(double));
    memcpy(nw, j->newton + j->nfric, (size_t)nl * sizeof(int));
    L->limp = p;
    L->lnewton = nw;
    return 0;
}

cdyn_status rigid_limit_modes(cdyn_stepper *s, const rigid_last *L, double tol,
                              cdyn_deriv_side side, int *lheld, cdyn_step_deriv_report *rep)
{
    cdyn_report *r = &rep->solver;
    const lim_rows *R = &s->lim;
    const int nv = s->nv, nl = L->nl;
    if (nl == 0)
        return CDYN_OK;
    for (int l = 0; l < nl; l++)
        if (L->lnewton[l])
            return cdyn_fail(r, CDYN_ENOTSUP, "cdyn_step_derivatives: limit row %d took Newton "
                             "restitution in the step (options.restitution with its joint's "
                             "limit_restitution > 0): the derivative of the stop's rebound law "
                             "is not available", l);
    /* W_ll = ((M + h D)^-1)_jj from the data's M at q0 (rigid_row_scales) */
    const cdyn_allocator *as = &s->arena.as;
    double *Mf = cdyn_mem_array(as, (size_t)nv * nv + 2 * (size_t)nv, sizeof(double));
    rmats mt;
    if (Mf == NULL || rigid_mats(s, as, 0, &mt) != 0)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    double *dmp = Mf + (size_t)nv * nv, *e = dmp + nv;
    memcpy(Mf, mt.M, (size_t)nv * nv * sizeof(double));
    cdyn_model_joint_damping(s->model, dmp);
    for (int i = 0; i < nv; i++)
        Mf[i + (size_t)i * nv] += L->h * dmp[i];
    if (cdyn_dense_chol(nv, Mf, nv) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "cdyn_step_derivatives: the mass matrix is not "
                         "positive definite at the step's start");
    for (int l = 0; l < nl; l++) {
        const int j = R->dof[l];
        memset(e, 0, (size_t)nv * sizeof(double));
        e[j] = 1.0;
        cdyn_dense_chol_solve(nv, Mf, nv, 1, e, nv);
        const double zl = L->limp[l] * e[j];
        const double ul = R->sign[l] * L->v1[j] + lim_gap(R, l, L->q0) / L->h;
        const double m = fmax(zl, ul);
        const int deg = m <= tol;
        rep->degenerate += deg;
        if (L->h * m < rep->limit_margin) {
            rep->limit_margin = L->h * m;
            rep->limit_row = l;
        }
        lheld[l] = deg ? side == CDYN_DERIV_HELD : zl > ul;
    }
    return CDYN_OK;
}

void rigid_limit_rows(const cdyn_stepper *s, const rigid_last *L, const int *lheld, int e0,
                      int ny, double *Jy, double *Jx)
{
    const lim_rows *R = &s->lim;
    const size_t ld = (size_t)ny;
    for (int l = 0; l < L->nl; l++) {
        const int e = e0 + l, j = R->dof[l];
        const double g = R->sign[l];
        Jy[j + (size_t)e * ld] = -g / L->h; /* the balance: its generalized impulse g_l p_l */
        if (!lheld[l]) {
            Jy[e + (size_t)e * ld] = 1.0;
            continue;
        }
        /* u_l = g v+_j + g (q0_j - bound) / h: the dof's own tangent coordinate is q_j */
        Jy[e + (size_t)j * ld] = g;
        Jx[e + (size_t)j * ld] = g / L->h;
    }
}
