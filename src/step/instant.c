/* cdyn_instant_solve: options, input checks, the touching rows, one workspace block, the
 * reduction to contact space (instant_setup.c), the formulation (instant_pyramid.c or
 * instant_cone.c), then modes and outputs. docs/theory.md. */
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "linalg/dense.h"
#include "step/instant_problem.h"

/* Distinct feasible solutions kept for the comparison (more are counted, not stored). */
#define INST_NSTORE 8

void cdyn_instant_defaults(cdyn_instant_options *o)
{
    if (o == NULL)
        return;
    o->friction = CDYN_INSTANT_PYRAMID;
    o->gap_tol = 1e-8;
    o->vel_tol = 1e-8;
    o->mode_tol = 1e-8;
    o->check_pmatrix = 1;
    o->max_combinations = 4096;
    cdyn_lcp_defaults(&o->lcp);
    o->ncp_solver = CDYN_INSTANT_BOX_MERIT;
    o->ncp_start = CDYN_INSTANT_START_ROLLING;
    o->ncp_retry = 1;
    cdyn_box_merit_defaults(&o->box_merit);
    cdyn_mcp_defaults(&o->fb_newton);
    /* docs/theory.md (instantaneous contact problem), Sec. 5 */
    o->fb_newton.nonmonotone_memory = 10;
    o->allocator = NULL;
}

const char *cdyn_instant_mode_str(cdyn_instant_mode mode)
{
    switch (mode) {
    case CDYN_INSTANT_SEPARATED:
        return "separated";
    case CDYN_INSTANT_ROLL_ROLL:
        return "rolling->rolling";
    case CDYN_INSTANT_ROLL_SLIDE:
        return "rolling->sliding";
    case CDYN_INSTANT_ROLL_BREAK:
        return "rolling->breaking";
    case CDYN_INSTANT_SLIDE_SLIDE:
        return "sliding->sliding";
    case CDYN_INSTANT_SLIDE_BREAK:
        return "sliding->breaking";
    }
    return "unknown mode";
}

static int pos_finite(double x)
{
    return x > 0.0 && isfinite(x);
}

static cdyn_status check_options(const cdyn_instant_options *o, cdyn_report *r)
{
    if (o->friction != CDYN_INSTANT_PYRAMID && o->friction != CDYN_INSTANT_CONE)
        return cdyn_fail(r, CDYN_EINVAL, "options: unknown friction model %d", (int)o->friction);
    if (!pos_finite(o->gap_tol) || !pos_finite(o->vel_tol) || !pos_finite(o->mode_tol))
        return cdyn_fail(r, CDYN_EINVAL,
                         "options: gap_tol, vel_tol and mode_tol must be finite and > 0");
    if (o->max_combinations < 1)
        return cdyn_fail(r, CDYN_EINVAL, "options: max_combinations must be >= 1");
    if (o->ncp_solver != CDYN_INSTANT_BOX_MERIT && o->ncp_solver != CDYN_INSTANT_FB_NEWTON)
        return cdyn_fail(r, CDYN_EINVAL, "options: unknown ncp_solver %d", (int)o->ncp_solver);
    if (o->ncp_start != CDYN_INSTANT_START_ROLLING && o->ncp_start != CDYN_INSTANT_START_NORMAL &&
        o->ncp_start != CDYN_INSTANT_START_ZERO)
        return cdyn_fail(r, CDYN_EINVAL, "options: unknown ncp_start %d", (int)o->ncp_start);
    return CDYN_OK;
}

/* Sign bits k of the pyramid (rolling contacts with mu > 0 times tangents): 2^k combinations. */
static cdyn_status check_combinations(const inst_counts *cnt, int ntan,
                                      const cdyn_instant_options *o, cdyn_report *r)
{
    const int k = cnt->nrf * ntan;
    if (k >= 31 || (1L << k) > (long)o->max_combinations)
        return cdyn_fail(r, CDYN_ETOOBIG,
                         "%d rolling contacts with friction give 2^%d sign combinations, more than "
                         "max_combinations = %d",
                         cnt->nrf, k, o->max_combinations);
    return CDYN_OK;
}

/* Modes of the touching contacts from the contact-space accelerations (Yashima–Yamaguchi
 * Sec. III.C (a1)-(b2)); thresholds relative to the problem's acceleration scale. */
static void classify(const inst_problem *p, const double *lamf, const double *a, double mode_tol,
                     cdyn_instant_mode *mode)
{
    const double lnorm = cdyn_dense_norm_inf(p->mall, lamf);
    const double thr = mode_tol * fmax(cdyn_dense_norm_inf(p->mall, p->g0), p->dnorm * lnorm);
    for (int c = 0; c < p->nc; ++c) {
        const double an = a[c * p->nd];
        double at2 = 0.0;
        for (int d = 1; d < p->nd; ++d)
            at2 += a[c * p->nd + d] * a[c * p->nd + d];
        cdyn_instant_mode md;
        if (an > thr)
            md = p->slide[c] ? CDYN_INSTANT_SLIDE_BREAK : CDYN_INSTANT_ROLL_BREAK;
        else if (p->slide[c])
            md = CDYN_INSTANT_SLIDE_SLIDE;
        else
            md = sqrt(at2) > thr ? CDYN_INSTANT_ROLL_SLIDE : CDYN_INSTANT_ROLL_ROLL;
        mode[p->row[c]] = md;
    }
}

/* Everything the call needs, carved from one block. */
typedef struct inst_work {
    inst_problem p;
    inst_pyr_work pyr;
    inst_cone_work cone;
    double *L, *lamf, *a, *vdot, *lam, *acc;
    cdyn_instant_mode *mode;
} inst_work;

/* Offsets of the arrays for the counted sizes (first pass, block == NULL) or the pointers
 * (second pass). Returns the byte count; *overflow on size_t overflow. */
static size_t layout(inst_work *w, char *block, int nv, int ncm, int ntan, const inst_counts *cnt,
                     cdyn_instant_friction fr, int *overflow)
{
    const size_t nd = (size_t)ntan + 1, nc = (size_t)cnt->nc, mall = nc * nd;
    const size_t nvs = (size_t)nv;
    const size_t npyr = nc + (size_t)cnt->nrf * (size_t)ntan;
    const size_t ncone = nc + (size_t)cnt->nrf * ((size_t)ntan + 1);
    cdyn_carve cv = {0, 0};
#define TAKE(ptr, count, type)                                                                     \
    do {                                                                                           \
        size_t off_ = cdyn_carve_take(&cv, (count), sizeof(type));                                 \
        if (block != NULL)                                                                         \
            (ptr) = (type *)(void *)(block + off_);                                                \
    } while (0)
    inst_problem *p = &w->p;
    TAKE(p->row, nc, int);
    TAKE(p->rf, nc, int);
    TAKE(p->slide, nc, int);
    TAKE(p->mu, nc, double);
    TAKE(p->mut, nc * (size_t)ntan, double);
    TAKE(p->GT, cdyn_carve_mul(&cv, nvs, mall), double);
    TAKE(p->Y, cdyn_carve_mul(&cv, nvs, mall), double);
    TAKE(p->D, cdyn_carve_mul(&cv, mall, mall), double);
    TAKE(p->y0, nvs, double);
    TAKE(p->g0, mall, double);
    TAKE(w->L, cdyn_carve_mul(&cv, nvs, nvs), double);
    TAKE(w->lamf, mall, double);
    TAKE(w->a, mall, double);
    TAKE(w->vdot, nvs, double);
    TAKE(w->lam, 3 * (size_t)ncm, double);
    TAKE(w->acc, 3 * (size_t)ncm, double);
    TAKE(w->mode, (size_t)ncm, cdyn_instant_mode);
    if (fr == CDYN_INSTANT_PYRAMID) {
        inst_pyr_work *k = &w->pyr;
        TAKE(k->C.cnt, npyr, int);
        TAKE(k->C.idx, npyr * nd, int);
        TAKE(k->C.val, npyr * nd, double);
        TAKE(k->rowk, npyr, int);
        TAKE(k->rowsgn, npyr, double);
        TAKE(k->A, cdyn_carve_mul(&cv, npyr, npyr), double);
        TAKE(k->b, npyr, double);
        TAKE(k->z, npyr, double);
        TAKE(k->w, npyr, double);
        TAKE(k->store, INST_NSTORE * mall, double);
        TAKE(k->lamf_try, mall, double);
        k->nstore = INST_NSTORE;
    } else {
        inst_cone_work *k = &w->cone;
        const size_t n0 = npyr;
        TAKE(k->C.cnt, ncone, int);
        TAKE(k->C.idx, ncone * nd, int);
        TAKE(k->C.val, ncone * nd, double);
        TAKE(k->DC, cdyn_carve_mul(&cv, mall, ncone), double);
        TAKE(k->x, ncone, double);
        TAKE(k->lo, ncone, double);
        TAKE(k->up, ncone, double);
        TAKE(k->S, cdyn_carve_mul(&cv, n0, n0), double);
        TAKE(k->srhs, n0, double);
        TAKE(k->rwork, 4 * n0, double);
        TAKE(k->ipiv, 2 * n0, int);
        TAKE(k->a, mall, double);
    }
#undef TAKE
    *overflow = cv.overflow;
    return cv.off;
}

cdyn_status cdyn_instant_solve(const cdyn_model *model, cdyn_data *data, const double *q,
                               const double *v, const double *tau, const cdyn_instant_options *opts,
                               cdyn_instant_result *result, cdyn_report *report)
{
    cdyn_report_clear(report, "instant");
    if (model == NULL || data == NULL || q == NULL || v == NULL || tau == NULL || result == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model, data, q, v, tau and result are required");
    cdyn_instant_options def;
    if (opts == NULL) {
        cdyn_instant_defaults(&def);
        opts = &def;
    }
    cdyn_status st = check_options(opts, report);
    if (st != CDYN_OK)
        return st;
    const int nv = cdyn_model_nv(model), ncm = cdyn_model_ncontact(model);
    const int ntan = cdyn_model_dim(model) == 2 ? 1 : 2;
    int fb, lb;
    const int nfric = cdyn_model_joint_friction_count(model, &fb);
    const int nlim = cdyn_model_joint_limit_count(model, &lb);
    if (nfric > 0 || nlim > 0) /* joint damping is in h(q, v), which this problem takes */
        return cdyn_fail(report, CDYN_ENOTSUP,
                         "body %d has joint %s: the instantaneous problem does not take joint "
                         "friction or limits yet",
                         nfric > 0 ? fb : lb, nfric > 0 ? "friction" : "limits");
    if (!cdyn_dense_all_finite(nv, tau))
        return cdyn_fail(report, CDYN_EINVAL, "tau has a NaN or Inf entry");
    st = cdyn_eval(model, data, q, v, CDYN_EVAL_ALL, report);
    if (st != CDYN_OK)
        return st;
    cdyn_report_clear(report, "instant");
    if (cdyn_data_mass(data) == NULL || (ncm > 0 && cdyn_data_jacobian(data, CDYN_DIR_N) == NULL))
        return cdyn_fail(report, CDYN_EINVAL, "data must be created with dense = 1");

    inst_counts cnt;
    st = cdyn_inst_scan(model, data, v, opts, &cnt, report);
    if (st == CDYN_OK && opts->friction == CDYN_INSTANT_PYRAMID)
        st = check_combinations(&cnt, ntan, opts, report);
    if (st != CDYN_OK)
        return st;

    inst_work w;
    memset(&w, 0, sizeof w);
    int overflow = 0;
    const size_t bytes = layout(&w, NULL, nv, ncm, ntan, &cnt, opts->friction, &overflow);
    if (overflow)
        return cdyn_fail(report, CDYN_ETOOBIG, "the instantaneous problem is too large");
    char *block = cdyn_mem_alloc(opts->allocator, bytes > 0 ? bytes : 1);
    if (block == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cannot allocate the workspace (%zu bytes)", bytes);
    layout(&w, block, nv, ncm, ntan, &cnt, opts->friction, &overflow);

    inst_problem *p = &w.p;
    p->nv = nv;
    p->ncm = ncm;
    p->ntan = ntan;
    p->nd = ntan + 1;
    cdyn_inst_fill(model, data, v, opts, p);
    st = cdyn_inst_reduce(data, tau, p, w.L, report);

    cdyn_instant_result counts;
    memset(&counts, 0, sizeof counts);
    counts.combinations = counts.feasible = counts.distinct = 1;
    counts.pmatrix = -1;
    counts.determinate = 1; /* no contact: vdot = M^-1 (tau - h) is unique */
    double residual = 0.0;
    if (st == CDYN_OK && p->mall > 0)
        memset(w.lamf, 0, (size_t)p->mall * sizeof(double));
    if (st == CDYN_OK && p->nc > 0) {
        if (opts->friction == CDYN_INSTANT_PYRAMID)
            st = cdyn_inst_pyramid(p, opts, &w.pyr, w.lamf, &counts, &residual, report);
        else
            st = cdyn_inst_cone(p, opts, &w.cone, w.lamf, &counts, &residual, report);
    }
    if (st == CDYN_OK) {
        inst_solution s = {w.lamf, w.a, w.vdot};
        cdyn_inst_evaluate(p, &s);
        for (int i = 0; i < ncm; ++i)
            w.mode[i] = CDYN_INSTANT_SEPARATED;
        classify(p, w.lamf, w.a, opts->mode_tol, w.mode);
        cdyn_inst_outputs(data, p, w.lamf, w.vdot, w.lam, w.acc);

        const size_t sc = (size_t)ncm * sizeof(double);
        if (result->vdot)
            memcpy(result->vdot, w.vdot, (size_t)nv * sizeof(double));
        double *dst[6] = {result->lambda_n, result->lambda_t, result->lambda_o,
                          result->acc_n,    result->acc_t,    result->acc_o};
        for (int k = 0; k < 6; ++k)
            if (dst[k] != NULL && ncm > 0)
                memcpy(dst[k], (k < 3 ? w.lam : w.acc) + (size_t)(k % 3) * (size_t)ncm, sc);
        if (result->mode && ncm > 0)
            memcpy(result->mode, w.mode, (size_t)ncm * sizeof(cdyn_instant_mode));
        result->n_touching = p->nc;
        result->n_rolling = p->nroll;
        result->size = counts.size;
        result->combinations = counts.combinations;
        result->feasible = counts.feasible;
        result->distinct = counts.distinct;
        result->pmatrix = counts.pmatrix;
        result->determinate = counts.determinate;
        if (report) {
            report->status = CDYN_OK;
            report->residual = residual;
            cdyn_report_method(
                report, opts->friction == CDYN_INSTANT_PYRAMID       ? "instant-pyramid-lemke"
                        : opts->ncp_solver == CDYN_INSTANT_BOX_MERIT ? "instant-cone-box-merit"
                                                                     : "instant-cone-fb-newton");
        }
    }
    cdyn_mem_free(opts->allocator, block);
    return st;
}
