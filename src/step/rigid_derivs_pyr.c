/* The pyramid LCP step's derivatives (docs/theory.md, "Time stepping" Sec. 9a): each row's mode
 * from the final LCP solution, then rigid_jacobians. A pair is compared in velocity units: an
 * impulse z times the row's W_nn against its complementary velocity; both within tol
 * (rigid_row_scales) is a switch, taken on the side asked. */
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

/* A sliding row's basis S (dir, returns |S|): the directions whose beta is basic (beta W_nn
 * above its velocity w_k = d_k . u_T + sigma), a pair at its switch on the side asked; a row
 * held at p_n = 0 (no betas yet) takes the directions most opposed to u_T. */
static int slip_basis(const rigid_last *L, const double *zc, const double *uc, double wnn,
                      double tol, cdyn_deriv_side side, int *dir, cdyn_step_deriv_report *rep)
{
    const int ndir = L->ndir;
    const double sigma = zc[1 + ndir];
    double dmin = INFINITY;
    for (int k = 0; k < ndir; k++)
        dmin = fmin(dmin, L->cosk[k] * uc[1] + (L->nd == 3 ? L->sink[k] * uc[2] : 0.0));
    int nb = 0;
    for (int k = 0; k < ndir; k++) {
        const double dk = L->cosk[k] * uc[1] + (L->nd == 3 ? L->sink[k] * uc[2] : 0.0);
        const double b = zc[1 + k] * wnn, wk = dk + sigma;
        int in;
        if (!(zc[0] > 0)) {
            in = dk <= dmin + tol;
        } else if (fmax(b, wk) <= tol) {
            rep->degenerate++;
            in = side == CDYN_DERIV_HELD;
        } else {
            in = b > wk;
        }
        if (in)
            dir[nb++] = k;
    }
    return nb;
}

cdyn_status pyr_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 cdyn_step_deriv_report *rep)
{
    cdyn_report *r = &rep->solver;
    const rigid_last L = s->rlast;
    const char *no = pyr_deriv_unsupported(s);
    if (no != NULL)
        return cdyn_fail(r, CDYN_ENOTSUP, "cdyn_step_derivatives: the pyramid step's "
                         "derivatives do not take %s yet", no);
    const int k = L.k, nd = L.nd, ndir = L.ndir, per = 2 + ndir;
    rep->rows = k;
    const cdyn_allocator *as = &s->arena.as;
    rigid_row *rr = cdyn_mem_array(as, (size_t)k + 1, sizeof(rigid_row));
    int *dirs = cdyn_mem_array(as, (size_t)k * ndir + 1, sizeof(int));
    double *wnn = cdyn_mem_array(as, (size_t)k + 1, sizeof(double));
    double *u = cdyn_mem_array(as, (size_t)k * nd + 1, sizeof(double));
    if (rr == NULL || dirs == NULL || wnn == NULL || u == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    double tol;
    cdyn_status st = rigid_row_scales(s, &L, wnn, u, &tol, r);
    if (st != CDYN_OK)
        return st;
    for (int c = 0; c < k; c++) {
        const double *zc = L.z + (size_t)c * per, *uc = u + (size_t)c * nd;
        const int row = L.rows[c];
        rr[c].kind = RD_FREE;
        rr[c].nb = 0;
        rr[c].dir = dirs + (size_t)c * ndir;
        if (!rigid_normal_held(&L, c, zc[0], wnn[c], uc[0], tol, side, rep))
            continue;
        if (!(L.mu[c] > 0)) {
            rr[c].kind = RD_SMOOTH;
            continue;
        }
        /* the cone pair (sigma, (mu p_n - sum beta) W_nn); at p_n = 0: slides iff u_T != 0 */
        double sb = 0;
        for (int a = 0; a < ndir; a++)
            sb += zc[1 + a];
        const double ws = (L.mu[c] * zc[0] - sb) * wnn[c], sig = zc[1 + ndir];
        const double ut = hypot(uc[1], nd == 3 ? uc[2] : 0.0);
        int slip;
        if (!(zc[0] > 0)) {
            slip = ut > tol;
        } else if (fmax(sig, ws) <= tol) {
            rep->degenerate++;
            slip = side == CDYN_DERIV_HELD;
        } else {
            slip = sig > ws;
        }
        if (!slip) {
            rr[c].kind = RD_STICK;
            const double cm = zc[0] > 0 ? ws / (L.mu[c] * zc[0] * wnn[c]) : 1.0;
            if (cm < rep->cone_margin) {
                rep->cone_margin = cm;
                rep->cone_row = row;
            }
            continue;
        }
        rr[c].kind = RD_PYR_SLIP;
        rr[c].nb = slip_basis(&L, zc, uc, wnn[c], tol, side, dirs + (size_t)c * ndir, rep);
        if (ut < rep->slip_margin) {
            rep->slip_margin = ut;
            rep->slip_row = row;
        }
    }
    st = rigid_jacobians(s, &L, rr, A, B, r);
    if (st == CDYN_OK)
        cdyn_report_method(r, "pyramid-lcp-ift");
    return st;
}
