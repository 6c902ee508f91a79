/* The Coulomb and cone steps' derivatives (docs/theory.md, "Time stepping" Sec. 9a): each row's
 * mode from its impulse P and velocity u (free: P = 0; sticking: u = 0 with |P_T| < mu P_n;
 * sliding: P_T = -mu P_n u_T / |u_T| with u_n = 0 (Coulomb) or u_n = mu |u_T| (the cone step's
 * relaxation: P and u on their cones' boundaries, orthogonal)), then rigid_jacobians. Pairs
 * compared in velocity units (rigid_row_scales): the normal pair is (P_n W_nn, u_n) (cone:
 * u_n - mu |u_T|, the distance into the dual cone), the stick / slip pair (|u_T|,
 * (mu P_n - |P_T|) W_nn). */
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

cdyn_status cones_step_derivatives(cdyn_stepper *s, int relaxed, cdyn_deriv_side side,
                                   double *A, double *B, int np, const cdyn_param *params,
                                   double *dxdp, cdyn_step_deriv_report *rep)
{
    cdyn_report *r = &rep->solver;
    const rigid_last L = s->rlast;
    const int k = L.k, nd = L.nd;
    rep->rows = k;
    const cdyn_allocator *as = &s->arena.as;
    rigid_row *rr = cdyn_mem_array(as, (size_t)k + 1, sizeof(rigid_row));
    double *wnn = cdyn_mem_array(as, (size_t)k + 1, sizeof(double));
    double *u = cdyn_mem_array(as, (size_t)k * nd + 1, sizeof(double));
    if (rr == NULL || wnn == NULL || u == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    double tol;
    cdyn_status st = rigid_row_scales(s, &L, wnn, u, &tol, r);
    if (st != CDYN_OK)
        return st;
    for (int c = 0; c < k; c++) {
        const double *P = L.imp + (size_t)c * nd, *uc = u + (size_t)c * nd;
        memset(&rr[c], 0, sizeof rr[c]); /* RD_FREE */
        const double ut = hypot(uc[1], nd == 3 ? uc[2] : 0.0);
        const double un = relaxed ? uc[0] - L.mu[c] * ut : uc[0];
        if (!rigid_normal_held(&L, c, P[0], wnn[c], un, tol, side, rep))
            continue;
        if (!(L.mu[c] > 0)) {
            rr[c].kind = RD_SMOOTH;
            continue;
        }
        const double slack = (L.mu[c] * P[0] - hypot(P[1], nd == 3 ? P[2] : 0.0)) * wnn[c];
        int slip;
        if (!(P[0] > 0)) {
            slip = ut > tol; /* held at p_n = 0: the contact closes sliding iff u_T != 0 */
        } else if (fmax(ut, slack) <= tol) {
            rep->degenerate++;
            slip = side == CDYN_DERIV_HELD;
        } else {
            slip = ut > slack;
        }
        if (slip && !(ut > 0))
            return cdyn_fail(r, CDYN_ENOTSUP, "cdyn_step_derivatives: row %d slips at zero "
                             "speed (held at its switch): the sliding direction is undefined",
                             L.rows[c]);
        if (!slip) {
            rr[c].kind = RD_STICK;
            const double cm = P[0] > 0 ? slack / (L.mu[c] * P[0] * wnn[c]) : 1.0;
            if (cm < rep->cone_margin) {
                rep->cone_margin = cm;
                rep->cone_row = L.rows[c];
            }
            continue;
        }
        rr[c].kind = relaxed ? RD_CONE_SLIP : RD_COULOMB_SLIP;
        if (ut < rep->slip_margin) {
            rep->slip_margin = ut;
            rep->slip_row = L.rows[c];
        }
    }
    int *lheld = cdyn_mem_array(as, (size_t)L.nl + 1, sizeof(int));
    if (lheld == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    st = rigid_limit_modes(s, &L, tol, side, lheld, rep);
    if (st == CDYN_OK)
        st = rigid_jacobians(s, &L, rr, lheld, A, B, np, params, dxdp, r);
    if (st == CDYN_OK)
        cdyn_report_method(r, relaxed ? "cone-step-ift" : "coulomb-step-ift");
    return st;
}
