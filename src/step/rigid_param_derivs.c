/* The rigid schemes' step equations E (rigid_derivs.c) differentiated in model parameters: dE/dp,
 * the right-hand sides of P = dx+/dp = -(dE/dy)^-1 dE/dp on the rows' modes at the solution
 * (docs/theory.md, "Time stepping" Sec. 9a). E depends on
 *   mu        through the friction laws: P_T + mu P_n u_T / |u_T| (Coulomb and cone sliding),
 *             u_n - mu |u_T| (the cone step's relaxed normal row), mu P_n - sum beta (a
 *             pyramid's sliding group);
 *   geometry  through Psi_n(q) (u_n = Gamma_n v+ + Psi_n / h), Gamma(q)' P / h (the impulse
 *             balance) and Gamma(q) v+ (every velocity, friction law and pyramid direction
 *             row), all from cdyn_eval_geom_derivatives, as the implicit scheme's columns;
 *   K, C      not at all: no rigid step reads a pair's stiffness or damping (nor its Baumgarte
 *             gains; its restitution only under options.restitution, whose derivatives are
 *             refused), so their columns are 0.
 * mu = 0 is a frictionless row's switch (mu < 0 is no model): its column is the right
 * derivative. Held and sliding (|u_T| > tol), the row slides at mu = 0+: the sliding law's
 * dE/dmu (its dE/dy at mu = 0 is the frictionless row's); at zero slip speed (within tol) it
 * sticks with P_T = 0 for mu > 0: a zero column. The pyramid's most opposed direction must be
 * unique (and in the box bound both axes must slide), else CDYN_ENOTSUP. */
#include "step/rigid_param_derivs.h"
#include "step/rigid_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

static int is_geom(cdyn_param_kind k)
{
    return k >= CDYN_PARAM_GEOM_POS && k <= CDYN_PARAM_GEOM_VERTEX;
}

/* Row c's tangential velocity u_T = Gamma_T v+ (ut[1 .. nd - 1]); returns |u_T|. */
static double slip_velocity(const cdyn_stepper *s, const rigid_last *L, const rmats *mt, int c,
                            double ut[3])
{
    const int nv = s->nv, nc = s->nc, row = L->rows[c];
    double n = 0;
    ut[0] = ut[1] = ut[2] = 0;
    for (int d = 1; d < L->nd; d++) {
        for (int j = 0; j < nv; j++)
            ut[d] += mt->G[d][row + (size_t)j * nc] * L->v1[j];
        n = hypot(n, ut[d]);
    }
    return n;
}

/* mu = 0+ on a held frictionless pyramid row sliding at |u_T| > tol: per group the direction
 * most opposed to u_T takes the impulse mu P_n (P_T = mu P_n d_k), so dE/dmu = -P_n d_k on the
 * rows P_T = 0. 0, or 1 when a group's most opposed direction is within tol of a tie or does
 * not oppose u_T (the box bound: an axis at rest while the other slides). */
static int pyr_mu_zero(const rigid_last *L, const double *ut, double pn, double tol, int e,
                       double *col)
{
    for (int g = 0; g < L->ngroup; g++) {
        int best = -1;
        double d1 = INFINITY, d2 = INFINITY;
        for (int k = 0; k < L->ndir; k++) {
            if (L->ngroup == 2 && (k & 1) != g)
                continue; /* the box's group g: directions k = g, g + 2 (rigid_derivs_pyr.c) */
            const double w = L->cosk[k] * ut[1] + (L->nd == 3 ? L->sink[k] * ut[2] : 0.0);
            if (w < d1) {
                d2 = d1;
                d1 = w;
                best = k;
            } else if (w < d2) {
                d2 = w;
            }
        }
        if (!(d1 < -tol) || !(d2 - d1 > tol))
            return 1;
        col[e + 1] -= pn * L->cosk[best];
        if (L->nd == 3)
            col[e + 2] -= pn * L->sink[best];
    }
    return 0;
}

/* dE/dmu of pair `pair` into col (ny, zero on entry). */
static cdyn_status mu_column(const cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                             const rmats *mt, const int *yo, int pair, int j, double tol,
                             double *col, cdyn_report *r)
{
    const int nd = L->nd, cone = s->opts.scheme == CDYN_SCHEME_CONE_STEP;
    cdyn_pair_info pi;
    cdyn_model_pair_info(s->model, pair, &pi);
    for (int c = 0; c < L->k; c++) {
        const int row = L->rows[c], e = yo[c], kind = rr[c].kind;
        const double pn = L->imp[c * nd];
        if (row < pi.row || row >= pi.row + pi.nrows)
            continue;
        double ut[3];
        const double n = slip_velocity(s, L, mt, c, ut);
        if (kind == RD_PYR_SLIP) {
            /* per sliding group, after its betas: mu P_n - sum beta = 0 */
            for (int g = 0, o = e + nd; g < 2; g++) {
                if (!(rr[c].slide >> g & 1))
                    continue;
                col[o + rr[c].gnb[g]] = pn;
                o += rr[c].gnb[g] + 1;
            }
            continue;
        }
        const int slide = kind == RD_COULOMB_SLIP || kind == RD_CONE_SLIP;
        if (!slide && !(kind == RD_SMOOTH && pn > 0))
            continue; /* free, sticking (|P_T| < mu P_n: mu not active), or not pressed */
        if (kind == RD_SMOOTH && !(n > tol))
            continue; /* it sticks at mu = 0+ with P_T = 0 */
        if (kind == RD_SMOOTH && s->opts.scheme == CDYN_SCHEME_PYRAMID_LCP) {
            if (pyr_mu_zero(L, ut, pn, tol, e, col) != 0)
                return cdyn_fail(r, CDYN_ENOTSUP, "cdyn_step_param_derivatives: params[%d]: "
                                 "row %d is frictionless (mu = 0, its switch) and slips in no "
                                 "unique direction of the pyramid", j, row);
            continue;
        }
        for (int d = 1; d < nd; d++)
            col[e + d] = pn * ut[d] / n;
        if (cone)
            col[e] = -n;
    }
    return CDYN_OK;
}

/* dE/dp of geometric parameter p into col (ny, zero on entry); g: 4 n_c + n_v doubles. */
static cdyn_status geom_column(cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                               const rmats *mt, const int *yo, const double *lam,
                               const int *rowsel, const cdyn_param *p, int j, double *g,
                               double *col, cdyn_report *r)
{
    const int nv = s->nv, nc = s->nc, nd = L->nd;
    double *dgap = g, *dgv = g + nc, *dforce = g + 4 * (size_t)nc;
    cdyn_report mr;
    const cdyn_status st = cdyn_eval_geom_derivatives(
        s->model, s->data, (cdyn_geom_param)(p->kind - CDYN_PARAM_GEOM_POS), p->id,
        p->component, lam, rowsel, dgap, dgv, dforce, &mr);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "cdyn_step_param_derivatives: params[%d]: %s", j, mr.message);
    for (int i = 0; i < nv; i++)
        col[i] = -dforce[i]; /* the balance's -Gamma' P / h */
    for (int c = 0; c < L->k; c++) {
        const int row = L->rows[c], e = yo[c], kind = rr[c].kind;
        const double *du = dgv + 3 * (size_t)row; /* d(Gamma_d v+)/dp */
        for (int d = 0; d < nd; d++)
            if (rigid_velocity_row(L, &rr[c], d))
                col[e + d] = du[d] + (d == 0 ? dgap[row] / L->h : 0.0);
        if (kind == RD_COULOMB_SLIP || kind == RD_CONE_SLIP) {
            /* P_T + mu P_n t: K du_T, K = mu P_n (I - t t') / |u_T|; the cone's u_n - mu |u_T|:
               -mu t' du_T */
            double ut[3];
            const double n = slip_velocity(s, L, mt, c, ut), mu = L->mu[c];
            const double pn = L->imp[c * nd];
            double tdu = 0;
            for (int d = 1; d < nd; d++)
                tdu += ut[d] / n * du[d];
            for (int d = 1; d < nd; d++)
                col[e + d] = mu * pn * (du[d] - ut[d] / n * tdu) / n;
            if (kind == RD_CONE_SLIP)
                col[e] -= mu * tdu;
        } else if (kind == RD_PYR_SLIP) {
            /* a sliding group's rows d_k . u_T + sigma_g = 0 */
            const int *dir = rr[c].dir;
            for (int gr = 0, o = e + nd; gr < 2; gr++) {
                if (!(rr[c].slide >> gr & 1))
                    continue;
                for (int b = 0; b < rr[c].gnb[gr]; b++, dir++)
                    col[o + b] = L->cosk[*dir] * du[1] + (nd == 3 ? L->sink[*dir] * du[2] : 0.0);
                o += rr[c].gnb[gr] + 1;
            }
        }
    }
    return CDYN_OK;
}

cdyn_status rigid_param_rhs(cdyn_stepper *s, const rigid_last *L, const rigid_row *rr,
                            const int *yo, int ny, const double *lam, const int *rowsel, int np,
                            const cdyn_param *params, double *Jp, cdyn_report *r)
{
    if (np == 0)
        return CDYN_OK;
    const cdyn_allocator *as = &s->arena.as;
    double *g = cdyn_mem_array(as, 4 * (size_t)s->nc + s->nv + 1, sizeof(double));
    rmats mt; /* Gamma only: the data holds contacts alone here */
    memset(&mt, 0, sizeof mt);
    for (int d = 0; d < 3; d++)
        mt.G[d] = rigid_dense_jac(s, as, d, 0);
    if (g == NULL || mt.G[0] == NULL || mt.G[1] == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cdyn_step_param_derivatives: out of memory");
    /* rigid_row_scales' velocity below which a slip speed counts as 0 */
    double vs = 1.0;
    for (int i = 0; i < s->nv; i++)
        vs = fmax(vs, fabs(L->v1[i]));
    const double tol = 1e-8 * vs;
    memset(Jp, 0, (size_t)ny * np * sizeof(double));
    for (int j = 0; j < np; j++) {
        double *col = Jp + (size_t)j * ny;
        cdyn_status st = CDYN_OK;
        if (is_geom(params[j].kind))
            st = geom_column(s, L, rr, &mt, yo, lam, rowsel, &params[j], j, g, col, r);
        else if (params[j].kind == CDYN_PARAM_MU)
            st = mu_column(s, L, rr, &mt, yo, params[j].id, j, tol, col, r);
        if (st != CDYN_OK)
            return st;
    }
    return CDYN_OK;
}
