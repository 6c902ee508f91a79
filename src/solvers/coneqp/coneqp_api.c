/* Friction-cone QP entry points: options, solver creation (all allocation happens here),
 * run (validation, positive-semidefiniteness test, iteration, certificates, copy-back), free,
 * and the one-shot solve. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "linalg/csc.h"
#include "solvers/coneqp/coneqp_internal.h"

void cdyn_coneqp_defaults(cdyn_coneqp_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->tol_rel = 1e-9;
    opts->tol_abs = 1e-12;
    opts->max_iter = 100;
    opts->step_fraction = 0.99;
    opts->check_psd = 1;
    opts->threads = 1;
    opts->allocator = NULL;
}

cdyn_status cdyn_coneqp_check_options(const cdyn_coneqp_options *o, cdyn_report *r)
{
    if (!(o->tol_rel >= 0.0) || !isfinite(o->tol_rel) || !(o->tol_abs >= 0.0) ||
        !isfinite(o->tol_abs) || (o->tol_rel == 0.0 && o->tol_abs == 0.0))
        return cdyn_fail(r, CDYN_EINVAL,
                         "tolerances tol_rel = %g, tol_abs = %g: finite, >= 0, not both 0",
                         o->tol_rel, o->tol_abs);
    if (o->max_iter < 1)
        return cdyn_fail(r, CDYN_EINVAL, "max_iter = %d, must be >= 1", o->max_iter);
    if (!(o->step_fraction > 0.0 && o->step_fraction < 1.0))
        return cdyn_fail(r, CDYN_EINVAL, "step_fraction = %g, must be in (0, 1)", o->step_fraction);
    if (o->threads < 0)
        return cdyn_fail(r, CDYN_EINVAL, "threads = %d, must be >= 0", o->threads);
    return CDYN_OK;
}

static const char *method_name(const cdyn_coneqp *p)
{
    return p != NULL && p->Hs != NULL && p->H == NULL ? "coneqp-ipm-sparse" : "coneqp-ipm-dense";
}

void cdyn_coneqp_solver_free(cdyn_coneqp_solver *w)
{
    if (w == NULL)
        return;
    const cdyn_allocator *al = w->opts.allocator;
    cdyn_cq_kkt_free(w);
    cdyn_mem_free(al, w->ct);
    cdyn_mem_free(al, w->fixed);
    cdyn_mem_free(al, w->block);
    cdyn_mem_free(al, w);
}

cdyn_status cdyn_coneqp_solver_create(const cdyn_coneqp *p, const cdyn_coneqp_options *opts,
                               cdyn_coneqp_solver **out, cdyn_report *r)
{
    cdyn_report_clear(r, method_name(p));
    if (out == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "output solver pointer is NULL");
    *out = NULL;
    cdyn_coneqp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_coneqp_defaults(&o);
    cdyn_status st = cdyn_coneqp_check_options(&o, r);
    int n = 0;
    if (st == CDYN_OK)
        st = cdyn_cq_check_structure(p, 0, &n, r);
    if (st != CDYN_OK)
        return st;

    const cdyn_allocator *al = o.allocator;
    cdyn_coneqp_solver *w = cdyn_mem_alloc(al, sizeof *w);
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the solver");
    memset(w, 0, sizeof *w);
    w->opts = o;
    w->nc = p->ncontacts;
    w->n = n;
    w->disk = p->normal != NULL;
    w->sparse = p->Hs != NULL;
    w->ct = cdyn_mem_array(al, (size_t)w->nc, sizeof *w->ct);
    w->fixed = cdyn_mem_array(al, (size_t)n, sizeof(int));
    if (w->ct == NULL || w->fixed == NULL) {
        cdyn_coneqp_solver_free(w);
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the contact tables");
    }
    int vo = 0, co = 0;
    for (int i = 0; i < w->nc; ++i) {
        cq_contact *c = &w->ct[i];
        memset(c, 0, sizeof *c);
        c->d = cdyn_cq_dim(p, i);
        c->nv = w->disk ? c->d - 1 : c->d;
        c->vo = vo;
        c->co = co;
        vo += c->nv;
        co += c->d;
    }
    w->mcap = co;

    /* One block: 7 n-vectors, 10 cone vectors, 3 x 9 doubles per contact. */
    const size_t nn = (size_t)n, mc = (size_t)w->mcap, ncs = (size_t)w->nc;
    const size_t len = 7 * nn + 10 * mc + 27 * ncs;
    w->block = cdyn_mem_array(al, len, sizeof(double));
    if (w->block == NULL) {
        cdyn_coneqp_solver_free(w);
        return cdyn_fail(r, CDYN_ENOMEM, "cannot allocate the workspace (%zu doubles)", len);
    }
    memset(w->block, 0, len * sizeof(double));
    double *d = w->block;
    double **nvec[] = {&w->x, &w->dx, &w->rx, &w->hx, &w->rhs, &w->xt, &w->res};
    for (size_t k = 0; k < sizeof nvec / sizeof nvec[0]; ++k, d += nn)
        *nvec[k] = d;
    double **mvec[] = {&w->s,  &w->z,  &w->lam, &w->dsa, &w->dza,
                       &w->ds, &w->dz, &w->tm,  &w->zt,  &w->st};
    for (size_t k = 0; k < sizeof mvec / sizeof mvec[0]; ++k, d += mc)
        *mvec[k] = d;
    w->W = d;
    w->Winv = d + 9 * ncs;
    w->blk = d + 18 * ncs;

    st = cdyn_cq_kkt_create(w, p->Hs, r);
    if (st != CDYN_OK) {
        cdyn_coneqp_solver_free(w);
        return st;
    }
    *out = w;
    return CDYN_OK;
}

/* p has the structure w was created for. */
static cdyn_status check_same_structure(const cdyn_coneqp_solver *w, const cdyn_coneqp *p, int n,
                                        cdyn_report *r)
{
    if (p->ncontacts != w->nc || n != w->n || (p->normal != NULL) != w->disk ||
        (p->Hs != NULL) != w->sparse)
        return cdyn_fail(r, CDYN_EINVAL,
                         "the problem's structure (ncontacts, n, variant, dense/sparse H) differs "
                         "from the one the solver was created for");
    for (int i = 0; i < w->nc; ++i)
        if (cdyn_cq_dim(p, i) != w->ct[i].d)
            return cdyn_fail(r, CDYN_EINVAL,
                             "contact %d has dimension %d, the solver was created with %d", i,
                             cdyn_cq_dim(p, i), w->ct[i].d);
    if (w->sparse && !cdyn_csc_has_pattern(p->Hs, w->n, w->n, w->hcolptr, w->hrowind))
        return cdyn_fail(r, CDYN_EINVAL,
                         "Hs has a different sparsity pattern from the one given at create");
    return CDYN_OK;
}

static void info_nan(cdyn_coneqp_info *info)
{
    if (info != NULL)
        info->primal_residual = info->dual_residual = info->dual_cone_residual = info->gap =
            info->primal_objective = info->dual_objective = NAN;
}

/* H + 1e-10 max|H_ij| I (fixed rows excluded) must factor: H has no eigenvalue below about
 * -1e-10 max|H_ij| on the free variables. */
static cdyn_status check_psd(cdyn_coneqp_solver *w, cdyn_report *r)
{
    if (!(w->hmax > 0.0))
        return CDYN_OK;
    memset(w->blk, 0, 9 * (size_t)w->nc * sizeof(double));
    cdyn_report inner;
    cdyn_report_clear(&inner, NULL);
    const cdyn_status st = cdyn_cq_kkt_factor(w, CQ_PSD_SHIFT * w->hmax, &inner);
    if (st == CDYN_ESINGULAR)
        return cdyn_fail(r, CDYN_EINVAL,
                         "H is not positive semidefinite: H + %.1e max|H_ij| I does not factor "
                         "(%s)",
                         CQ_PSD_SHIFT, inner.message);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "positive-semidefiniteness test: %s", inner.message);
    return CDYN_OK;
}

cdyn_status cdyn_coneqp_solver_solve(cdyn_coneqp_solver *w, const cdyn_coneqp *p, double *x,
                                     double *u, cdyn_coneqp_info *info, cdyn_report *r)
{
    cdyn_report_clear(r, method_name(p));
    info_nan(info);
    if (w == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "solver is NULL");
    int n = 0;
    cdyn_status st = cdyn_cq_check_structure(p, 1, &n, r);
    if (st == CDYN_OK)
        st = check_same_structure(w, p, n, r);
    if (st != CDYN_OK)
        return st;
    if (x == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "x (the output) is NULL");
    if ((st = cdyn_cq_check_values(p, n, r)) != CDYN_OK)
        return st;
    cdyn_cq_layout(w, p);
    if (w->opts.check_psd && (st = check_psd(w, r)) != CDYN_OK)
        return st;

    int iters = 0;
    st = cdyn_cq_ipm(w, &iters, r);
    if (r != NULL)
        r->iterations = iters;
    /* Certificates of the last iterate, measured on the vectors handed out. */
    cdyn_coneqp_info inf;
    cdyn_cq_hmul(p, n, w->x, w->hx);
    cdyn_cq_dual_vector(w, w->hx, w->res);
    cdyn_cq_certify(p, n, w->x, w->res, w->hx, &inf);
    if (info != NULL)
        *info = inf;
    if (r != NULL)
        r->residual = fmax(inf.primal_residual, fmax(inf.dual_residual, inf.dual_cone_residual));
    if (st == CDYN_OK) /* data near DBL_MAX can overflow u = Hx + c (found by fuzzing) */
        for (int i = 0; i < n && st == CDYN_OK; ++i)
            if (!isfinite(w->x[i]) || !isfinite(w->res[i]))
                st = cdyn_fail(r, CDYN_ENUMERIC, "the solution overflowed (x or u not finite)");
    if (st != CDYN_OK)
        return st;
    if (r != NULL) { /* a retried (shifted) factorization may have left a note and its status */
        r->status = CDYN_OK;
        r->message[0] = '\0';
    }
    memcpy(x, w->x, sizeof(double) * (size_t)n);
    if (u != NULL)
        memcpy(u, w->res, sizeof(double) * (size_t)n);
    return CDYN_OK;
}

cdyn_status cdyn_coneqp_solve(const cdyn_coneqp *p, const cdyn_coneqp_options *opts, double *x,
                              double *u, cdyn_coneqp_info *info, cdyn_report *r)
{
    info_nan(info);
    cdyn_coneqp_solver *w = NULL;
    cdyn_status st = cdyn_coneqp_solver_create(p, opts, &w, r);
    if (st != CDYN_OK)
        return st;
    st = cdyn_coneqp_solver_solve(w, p, x, u, info, r);
    cdyn_coneqp_solver_free(w);
    return st;
}
