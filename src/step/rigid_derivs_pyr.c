/* The pyramid LCP step's derivatives (docs/theory.md, "Time stepping" Sec. 9a): each row's mode
 * from the final LCP solution, then rigid_jacobians. A pair is compared in velocity units: an
 * impulse z times the row's W_nn against its complementary velocity; both within tol
 * (rigid_row_scales) is a switch, taken on the side asked. */
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

/* Group g of direction k, and the group's velocity along d_k (the tangential velocity's part
 * on its axes: box group g, axis 1 + g; diamond, both). */
static int group_of(const rigid_last *L, int k)
{
    return L->ngroup == 2 ? (k & 1) : 0;
}

static double dir_speed(const rigid_last *L, int k, const double *uc)
{
    return L->cosk[k] * uc[1] + (L->nd == 3 ? L->sink[k] * uc[2] : 0.0);
}

/* Group g's slip speed: |u_T| (diamond) or |u_axis| (box). */
static double group_speed(const rigid_last *L, int g, const double *uc)
{
    if (L->ngroup == 2)
        return fabs(uc[1 + g]);
    return hypot(uc[1], L->nd == 3 ? uc[2] : 0.0);
}

/* A sliding group's basis S_g (appended to dir, returns |S_g|): the directions whose beta is
 * basic (beta W_nn above its velocity w_k = d_k . u_T + sigma_g), a pair at its switch on the
 * side asked; a row held at p_n = 0 (no betas yet) takes the group's directions most opposed
 * to u_T. */
static int slip_basis(const rigid_last *L, int g, const double *zc, const double *uc,
                      double wnn, double tol, cdyn_deriv_side side, int *dir,
                      cdyn_step_deriv_report *rep)
{
    const int ndir = L->ndir;
    const double sigma = zc[1 + ndir + g];
    double dmin = INFINITY;
    for (int k = 0; k < ndir; k++)
        if (group_of(L, k) == g)
            dmin = fmin(dmin, dir_speed(L, k, uc));
    int nb = 0;
    for (int k = 0; k < ndir; k++) {
        if (group_of(L, k) != g)
            continue;
        const double dk = dir_speed(L, k, uc), b = zc[1 + k] * wnn, wk = dk + sigma;
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

/* Row c's friction groups: each sticks or slides (its pair (sigma_g, (mu p_n - sum_g beta)
 * W_nn), at p_n = 0: slides iff its speed is not 0), the sliding ones with their bases; the
 * margins. */
static void friction_groups(const rigid_last *L, int c, const double *zc, const double *uc,
                            double wnn, double tol, cdyn_deriv_side side, int *dirs,
                            rigid_row *rc, cdyn_step_deriv_report *rep)
{
    const int ndir = L->ndir, row = L->rows[c];
    const double mu = L->mu[c];
    rc->slide = 0;
    rc->gnb[0] = rc->gnb[1] = 0;
    int nb = 0;
    for (int g = 0; g < L->ngroup; g++) {
        double sb = 0;
        for (int k = 0; k < ndir; k++)
            sb += group_of(L, k) == g ? zc[1 + k] : 0.0;
        const double ws = (mu * zc[0] - sb) * wnn, sig = zc[1 + ndir + g];
        const double ut = group_speed(L, g, uc);
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
            const double cm = zc[0] > 0 ? ws / (mu * zc[0] * wnn) : 1.0;
            if (cm < rep->cone_margin) {
                rep->cone_margin = cm;
                rep->cone_row = row;
            }
            continue;
        }
        rc->slide |= 1 << g;
        rc->gnb[g] = slip_basis(L, g, zc, uc, wnn, tol, side, dirs + nb, rep);
        nb += rc->gnb[g];
        if (ut < rep->slip_margin) {
            rep->slip_margin = ut;
            rep->slip_row = row;
        }
    }
    rc->kind = rc->slide ? RD_PYR_SLIP : RD_STICK;
}

cdyn_status pyr_step_derivatives(cdyn_stepper *s, cdyn_deriv_side side, double *A, double *B,
                                 int np, const cdyn_param *params, double *P,
                                 cdyn_step_deriv_report *rep)
{
    cdyn_report *r = &rep->solver;
    const rigid_last L = s->rlast;
    const char *no = pyr_deriv_unsupported(s);
    if (no != NULL)
        return cdyn_fail(r, CDYN_ENOTSUP, "cdyn_step_derivatives: the pyramid step's "
                         "derivatives do not take %s yet", no);
    const int k = L.k, nd = L.nd, ndir = L.ndir, per = 1 + ndir + L.ngroup;
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
        memset(&rr[c], 0, sizeof rr[c]);
        rr[c].kind = RD_FREE;
        rr[c].dir = dirs + (size_t)c * ndir;
        if (!rigid_normal_held(&L, c, zc[0], wnn[c], uc[0], tol, side, rep))
            continue;
        if (!(L.mu[c] > 0))
            rr[c].kind = RD_SMOOTH;
        else
            friction_groups(&L, c, zc, uc, wnn[c], tol, side, dirs + (size_t)c * ndir, &rr[c],
                            rep);
    }
    int *lheld = cdyn_mem_array(as, (size_t)L.nl + 1, sizeof(int));
    if (lheld == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_derivatives: out of memory");
    st = rigid_limit_modes(s, &L, tol, side, lheld, rep);
    if (st == CDYN_OK)
        st = rigid_jacobians(s, &L, rr, lheld, A, B, np, params, P, r);
    if (st == CDYN_OK)
        cdyn_report_method(r, "pyramid-lcp-ift");
    return st;
}
