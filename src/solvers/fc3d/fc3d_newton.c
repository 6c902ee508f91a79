/* Semismooth Newton for the frictional contact problem on the Alart–Curnier or the
 * Fischer–Burmeister function: Phi(r) = phi(r, W r + q) contact by contact, Newton matrix
 * H = A + B W (A = dphi/dr and B = dphi/du block diagonal, so H has W's block pattern plus the
 * diagonal), a nonmonotone Armijo search on ||Phi||^2 / 2, dense LU or KLU. */
#include "solvers/fc3d/fc3d_internal.h"
#include "solvers/fc3d/fc3d_solvers.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "linalg/csc.h"
#include "linalg/linsys.h"

#define NEWTON_MEMORY_MAX 32
/* A Newton run whose best natural-map residual has not improved for this many iterations is
 * wandering (a failing run otherwise spends its whole budget): it stops as a stall, so that the
 * default chain moves on to its next stage. */
#define NEWTON_NO_PROGRESS 30

void cdyn_fc3d_newton_defaults(cdyn_fc3d_newton_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof *opts);
    opts->formulation = CDYN_FC3D_ALART_CURNIER;
    opts->max_iter = 100;
    opts->tol = 1e-10;
    opts->linear = CDYN_FC3D_LINEAR_AUTO;
    opts->dense_max = 8;
    opts->rho = 0.0;
    opts->armijo = 1e-4;
    opts->max_backtracks = 30;
    opts->nonmonotone = 5;
}

cdyn_status fc3d_newton_check_options(const cdyn_fc3d_newton_options *o, cdyn_fc3d_report *rep)
{
    if (o->formulation != CDYN_FC3D_ALART_CURNIER && o->formulation != CDYN_FC3D_FISCHER_BURMEISTER)
        return fc3d_fail(rep, CDYN_EINVAL, "newton options: unknown formulation %d",
                         o->formulation);
    if (o->max_iter < 0 || !(o->tol > 0.0) || !isfinite(o->tol))
        return fc3d_fail(rep, CDYN_EINVAL, "newton options: max_iter >= 0 and tol > 0 needed");
    if (o->linear < CDYN_FC3D_LINEAR_AUTO || o->linear > CDYN_FC3D_LINEAR_SPARSE ||
        o->dense_max < 0)
        return fc3d_fail(rep, CDYN_EINVAL, "newton options: bad linear solver choice");
    if (!(o->rho >= 0.0) || !isfinite(o->rho) || !(o->armijo > 0.0 && o->armijo < 1.0) ||
        o->max_backtracks < 0 || o->nonmonotone < 1 || o->nonmonotone > NEWTON_MEMORY_MAX)
        return fc3d_fail(rep, CDYN_EINVAL,
                         "newton options: rho >= 0, armijo in (0, 1), max_backtracks >= 0 and "
                         "nonmonotone in 1..%d needed",
                         NEWTON_MEMORY_MAX);
    return CDYN_OK;
}

struct fc3d_newton_ws {
    const fc3d_sys *sys;
    const cdyn_fc3d_newton_options *o;
    int n, m, dense;
    double *rho;             /* 2n: rho_n, rho_t per contact (Alart–Curnier) */
    double *phi, *A, *B, *d; /* 3n, 9n, 9n, 3n */
    double *rt, *ut, *pt;    /* trial point, 3n each */
    double *best;            /* 3n */
    double *H;               /* dense: m*m, the layer's buffer */
    int *slot_of_diag;       /* sparse: block slot of (i, i) */
    double *tx;              /* sparse: 9 values per slot */
    int nslots;
    cdyn_csc_assembly as;
    cdyn_linsys *ls; /* dense LU without condition test, or KLU with the GROWTH check */
    const cdyn_allocator *allocator;
    void *mem; /* one block: every array above but H, the assembly's and the layer's */
};
typedef struct fc3d_newton_ws newton_ws;

/* Phi at (r, u): fills phi (and A, B when jac), returns ||Phi||^2 / 2. */
static double eval_phi(newton_ws *w, const double *r, const double *u, double *phi, int jac)
{
    const fc3d_sys *s = w->sys;
    double m2 = 0.0;
    for (int i = 0; i < w->n; i++) {
        const double *ri = r + 3 * i, *ui = u + 3 * i;
        double *A = jac ? w->A + 9 * i : NULL, *B = jac ? w->B + 9 * i : NULL;
        if (w->o->formulation == CDYN_FC3D_ALART_CURNIER)
            fc3d_ac(s->mu[i], w->rho[2 * i], w->rho[2 * i + 1], ri, ui, phi + 3 * i, A, B);
        else
            fc3d_fb(s->mu[i], ri, ui, phi + 3 * i, A, B);
        for (int a = 0; a < 3; a++)
            m2 += phi[3 * i + a] * phi[3 * i + a];
    }
    return 0.5 * m2;
}

/* out = B_i W_blk (+ A_i), 3x3 column-major. */
static void block_product(const double *B, const double *Wb, const double *A, double *out)
{
    for (int b = 0; b < 3; b++)
        for (int a = 0; a < 3; a++) {
            double v = B[a] * Wb[3 * b] + B[a + 3] * Wb[1 + 3 * b] + B[a + 6] * Wb[2 + 3 * b];
            out[a + 3 * b] = v + (A != NULL ? A[a + 3 * b] : 0.0);
        }
}

/* The Newton matrix plus shift * I, into H (dense) or tx (sparse). */
static void assemble(newton_ws *w, double shift)
{
    const fc3d_sys *s = w->sys;
    double blk[9];
    if (w->dense)
        memset(w->H, 0, (size_t)w->m * (size_t)w->m * sizeof(double));
    for (int i = 0; i < w->n; i++) {
        const double *A = w->A + 9 * i, *B = w->B + 9 * i;
        for (int k = s->rowptr[i]; k < s->rowptr[i + 1]; k++) {
            int j = s->colind[k];
            block_product(B, s->values + 9 * (size_t)k, j == i ? A : NULL, blk);
            if (j == i)
                blk[0] += shift, blk[4] += shift, blk[8] += shift;
            if (w->dense) {
                for (int b = 0; b < 3; b++)
                    for (int a = 0; a < 3; a++)
                        w->H[(size_t)(3 * i + a) + (size_t)(3 * j + b) * (size_t)w->m] =
                            blk[a + 3 * b];
            } else {
                memcpy(w->tx + 9 * (size_t)k, blk, sizeof blk);
            }
        }
        if (s->diag[i] < 0) { /* W_ii = 0: H_ii = A_i */
            for (int c = 0; c < 9; c++)
                blk[c] = A[c];
            blk[0] += shift, blk[4] += shift, blk[8] += shift;
            if (w->dense) {
                for (int b = 0; b < 3; b++)
                    for (int a = 0; a < 3; a++)
                        w->H[(size_t)(3 * i + a) + (size_t)(3 * i + b) * (size_t)w->m] =
                            blk[a + 3 * b];
            } else {
                memcpy(w->tx + 9 * (size_t)w->slot_of_diag[i], blk, sizeof blk);
            }
        }
    }
    if (!w->dense)
        cdyn_csc_assembly_set_values(&w->as, w->tx);
}

/* Solve H d = -phi; the matrix is shifted by growing multiples of I when singular. */
static cdyn_status newton_direction(newton_ws *w, cdyn_fc3d_report *rep)
{
    double hmax = 0.0;
    for (int k = 0; k < 9 * w->n; k++)
        hmax = fmax(hmax, fabs(w->A[k]) + fabs(w->B[k]));
    for (int attempt = 0; attempt < 5; attempt++) {
        double shift = attempt == 0 ? 0.0 : hmax * pow(100.0, attempt - 1) * 1e-10;
        assemble(w, shift);
        for (int k = 0; k < w->m; k++)
            w->d[k] = -w->phi[k];
        cdyn_status st;
        if (rep != NULL)
            rep->factorizations++;
        /* A non-finite -phi or d counts as singular on both paths (the shifts follow). */
        st = cdyn_linsys_factor(w->ls, w->dense ? w->H : w->as.A.values, NULL);
        if (st == CDYN_OK && (fc3d_vec_bad(w->m, w->d) ||
                              (st = cdyn_linsys_solve(w->ls, 0, 1, w->d, NULL)) != CDYN_OK ||
                              fc3d_vec_bad(w->m, w->d)))
            st = st == CDYN_ENOMEM ? st : CDYN_ESINGULAR;
        if (st == CDYN_ENOMEM)
            return st;
        if (st == CDYN_OK)
            return CDYN_OK;
    }
    return CDYN_ESINGULAR;
}

static cdyn_status ws_init(newton_ws *w, const fc3d_sys *sys, const cdyn_fc3d_newton_options *o,
                           cdyn_fc3d_report *rep)
{
    memset(w, 0, sizeof *w);
    w->allocator = o->allocator;
    w->sys = sys;
    w->o = o;
    w->n = sys->n;
    w->m = 3 * sys->n;
    w->dense = o->linear == CDYN_FC3D_LINEAR_DENSE ||
               (o->linear == CDYN_FC3D_LINEAR_AUTO && sys->n <= o->dense_max);
    int nb = sys->rowptr[sys->n], nmiss = 0;
    for (int i = 0; i < sys->n; i++)
        nmiss += sys->diag[i] < 0;
    w->nslots = nb + nmiss;
    if (!w->dense && w->nslots > INT_MAX / 9)
        return fc3d_fail(rep, CDYN_ETOOBIG, "newton: too many blocks for one sparse matrix");
    size_t n = (size_t)w->n;
    cdyn_carve cv = {0, 0};
    size_t o_rho = cdyn_carve_take(&cv, 2 * n, sizeof(double));
    size_t o_vec = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 36, n), sizeof(double));
    size_t o_sd = cdyn_carve_take(&cv, w->dense ? 0 : n, sizeof(int));
    size_t o_tx = cdyn_carve_take(&cv, w->dense ? 0 : 9 * (size_t)w->nslots, sizeof(double));
    size_t o_tij = cdyn_carve_take(&cv, w->dense ? 0 : 18 * (size_t)w->nslots, sizeof(int));
    if (cv.overflow)
        return fc3d_fail(rep, CDYN_ETOOBIG, "newton: workspace does not fit in memory");
    char *p = cdyn_mem_alloc(o->allocator, cv.off);
    if (p == NULL)
        return fc3d_fail(rep, CDYN_ENOMEM, "newton: out of memory (%zu bytes)", cv.off);
    w->mem = p;
    w->rho = (double *)(p + o_rho);
    double *v = (double *)(p + o_vec);
    w->phi = v, w->A = v + 3 * n, w->B = v + 12 * n, w->d = v + 21 * n;
    w->rt = v + 24 * n, w->ut = v + 27 * n, w->pt = v + 30 * n, w->best = v + 33 * n;
    cdyn_report lrep;
    if (w->dense) {
        /* No condition test: the shifted retries take over on a zero pivot or a bad d. */
        cdyn_linsys_spec spec = cdyn_linsys_spec_default(CDYN_LINSYS_DENSE_LU, w->m, o->allocator);
        spec.rcond_min = 0.0;
        cdyn_status st = cdyn_linsys_create(&spec, &w->ls, &lrep);
        if (st != CDYN_OK)
            return fc3d_fail(rep, st, "newton: %s", lrep.message);
        w->H = cdyn_linsys_values(w->ls);
        return CDYN_OK;
    }
    int *sd = (int *)(p + o_sd), *ti = (int *)(p + o_tij), *tj = ti + 9 * (size_t)w->nslots;
    w->slot_of_diag = sd;
    w->tx = (double *)(p + o_tx);
    int extra = nb;
    for (int i = 0; i < w->n; i++)
        sd[i] = sys->diag[i] >= 0 ? sys->diag[i] : extra++;
    for (int i = 0; i < w->n; i++) {
        for (int k = sys->rowptr[i]; k <= sys->rowptr[i + 1]; k++) {
            int slot, j;
            if (k < sys->rowptr[i + 1]) {
                slot = k, j = sys->colind[k];
            } else if (sys->diag[i] < 0) {
                slot = sd[i], j = i;
            } else {
                break;
            }
            for (int b = 0; b < 3; b++)
                for (int a = 0; a < 3; a++) {
                    ti[9 * (size_t)slot + a + 3 * b] = 3 * i + a;
                    tj[9 * (size_t)slot + a + 3 * b] = 3 * j + b;
                }
        }
    }
    cdyn_status st = cdyn_csc_assembly_init(&w->as, w->m, w->m, 9 * w->nslots, ti, tj,
                                            o->allocator, &lrep);
    if (st == CDYN_OK) {
        cdyn_linsys_spec spec = cdyn_linsys_spec_default(CDYN_LINSYS_KLU, w->m, o->allocator);
        spec.colptr = w->as.A.colptr;
        spec.rowind = w->as.A.rowind;
        spec.klu_check = CDYN_LINSYS_KLU_GROWTH;
        st = cdyn_linsys_create(&spec, &w->ls, &lrep);
    }
    if (st != CDYN_OK)
        return fc3d_fail(rep, st, "newton: sparse setup: %s", lrep.message);
    return CDYN_OK;
}

static void ws_free(newton_ws *w)
{
    cdyn_linsys_free(w->ls);
    cdyn_csc_assembly_free(&w->as);
    cdyn_mem_free(w->allocator, w->mem);
}

/* A run's start on a workspace: the problem's values and the run's options, the augmentation
 * from W's diagonal blocks, and no factor kept from an earlier run (its first factorization
 * chooses fresh pivots, as on a new workspace). */
static void ws_start(newton_ws *w, const fc3d_sys *sys, const cdyn_fc3d_newton_options *o)
{
    w->sys = sys;
    w->o = o;
    for (int i = 0; i < w->n; i++) {
        const double *Wii = sys->diag[i] >= 0 ? sys->values + 9 * (size_t)sys->diag[i] : NULL;
        fc3d_rho(Wii, o->rho, &w->rho[2 * i], &w->rho[2 * i + 1]);
    }
    cdyn_linsys_forget(w->ls);
}

cdyn_status fc3d_newton_ws_create(const fc3d_sys *sys, const cdyn_fc3d_newton_options *o,
                                  fc3d_newton_ws **out, cdyn_fc3d_report *rep)
{
    *out = NULL;
    newton_ws *w = cdyn_mem_alloc(o->allocator, sizeof *w);
    if (w == NULL)
        return fc3d_fail(rep, CDYN_ENOMEM, "newton: out of memory");
    cdyn_status st = ws_init(w, sys, o, rep);
    if (st != CDYN_OK) {
        ws_free(w);
        cdyn_mem_free(o->allocator, w);
        return st;
    }
    *out = w;
    return CDYN_OK;
}

void fc3d_newton_ws_free(fc3d_newton_ws *w)
{
    if (w == NULL)
        return;
    const cdyn_allocator *al = w->allocator;
    ws_free(w);
    cdyn_mem_free(al, w);
}

static cdyn_status newton_loop(newton_ws *w, double *r, double *u, double *res_abs,
                               cdyn_fc3d_report *rep)
{
    const fc3d_sys *s = w->sys;
    const cdyn_fc3d_newton_options *o = w->o;
    size_t bytes = (size_t)w->m * sizeof(double);
    double hist[NEWTON_MEMORY_MAX];
    int nhist = 0;
    fc3d_sys_velocity(s, r, u);
    double merit = eval_phi(w, r, u, w->phi, 1);
    double res = fc3d_sys_residual(s, r, u), best_res = res;
    int best_it = 0;
    memcpy(w->best, r, bytes);
    cdyn_status st = CDYN_ENOCONV;
    int watchdog = 0;
    for (int it = 0;; it++) {
        if (fc3d_sys_relative(s, res) <= o->tol) {
            st = CDYN_OK;
            break;
        }
        if (it - best_it >= NEWTON_NO_PROGRESS) {
            st = fc3d_fail(rep, CDYN_ENUMERIC,
                           "newton: stalled: no better point in the last %d iterations "
                           "(relative residual %.3g)",
                           NEWTON_NO_PROGRESS, fc3d_sys_relative(s, best_res));
            break;
        }
        if (it == o->max_iter) {
            st = fc3d_fail(rep, CDYN_ENOCONV,
                           "newton: %d iterations reached relative residual %.3g", it,
                           fc3d_sys_relative(s, best_res));
            break;
        }
        hist[nhist++ % o->nonmonotone] = merit;
        st = newton_direction(w, rep);
        if (st != CDYN_OK) {
            fc3d_fail(rep, st,
                      st == CDYN_ENOMEM ? "newton: out of memory factoring at iteration %d"
                                        : "newton: the Newton matrix is singular at iteration %d",
                      it);
            break;
        }
        if (rep != NULL)
            rep->newton_iterations++;
        double ref = hist[0];
        for (int k = 1; k < nhist && k < o->nonmonotone; k++)
            ref = fmax(ref, hist[k]);
        double t = 1.0, mt = 0.0;
        int accepted = 0;
        for (int ls = 0; ls <= o->max_backtracks; ls++, t *= 0.5) {
            for (int k = 0; k < w->m; k++)
                w->rt[k] = r[k] + t * w->d[k];
            fc3d_sys_velocity(s, w->rt, w->ut);
            mt = eval_phi(w, w->rt, w->ut, w->pt, 0);
            if (isfinite(mt) && mt <= ref - 2.0 * o->armijo * t * merit) {
                accepted = 1;
                break;
            }
        }
        if (!accepted && watchdog < 3) {
            /* The Alart-Curnier merit is not differentiable where contacts change mode, so a
               Newton step that fixes the modes may raise it: take the full step anyway (at most
               three times in a row; the best point is kept), as Siconos' NSN-AC does without
               any line search. */
            for (int k = 0; k < w->m; k++)
                w->rt[k] = r[k] + w->d[k];
            fc3d_sys_velocity(s, w->rt, w->ut);
            mt = eval_phi(w, w->rt, w->ut, w->pt, 0);
            accepted = isfinite(mt);
            watchdog++;
        } else if (accepted) {
            watchdog = 0;
        }
        if (!accepted) {
            st = CDYN_ENUMERIC;
            fc3d_fail(rep, st,
                      "newton: stalled at iteration %d: the line search found no decrease "
                      "(relative residual %.3g)",
                      it, fc3d_sys_relative(s, best_res));
            break;
        }
        memcpy(r, w->rt, bytes);
        memcpy(u, w->ut, bytes);
        merit = eval_phi(w, r, u, w->phi, 1);
        res = fc3d_sys_residual(s, r, u);
        if (res < best_res) {
            best_res = res;
            best_it = it + 1;
            memcpy(w->best, r, bytes);
        }
    }
    if (st != CDYN_OK && res > best_res) {
        memcpy(r, w->best, bytes);
        fc3d_sys_velocity(s, r, u);
        res = best_res;
    }
    *res_abs = res;
    return st;
}

cdyn_status fc3d_newton_ws_run(fc3d_newton_ws *w, const fc3d_sys *sys,
                               const cdyn_fc3d_newton_options *o, double *r, double *u,
                               double *res_abs, cdyn_fc3d_report *rep)
{
    fc3d_sys_velocity(sys, r, u);
    *res_abs = fc3d_sys_residual(sys, r, u);
    ws_start(w, sys, o);
    return newton_loop(w, r, u, res_abs, rep);
}

cdyn_status fc3d_newton_run(const fc3d_sys *sys, const cdyn_fc3d_newton_options *o, double *r,
                            double *u, double *res_abs, cdyn_fc3d_report *rep)
{
    fc3d_newton_ws *w = NULL;
    fc3d_sys_velocity(sys, r, u);
    *res_abs = fc3d_sys_residual(sys, r, u);
    cdyn_status st = fc3d_newton_ws_create(sys, o, &w, rep);
    if (st != CDYN_OK)
        return st;
    st = fc3d_newton_ws_run(w, sys, o, r, u, res_abs, rep);
    fc3d_newton_ws_free(w);
    return st;
}

static cdyn_status newton_stage(const fc3d_sys *sys, const void *opts, double *r, double *u,
                                double *res_abs, cdyn_fc3d_report *rep)
{
    return fc3d_newton_run(sys, opts, r, u, res_abs, rep);
}

cdyn_status cdyn_fc3d_newton(const cdyn_fc3d *problem, const cdyn_fc3d_newton_options *opts,
                             double *r, double *u, cdyn_fc3d_report *report)
{
    cdyn_fc3d_newton_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_fc3d_newton_defaults(&o);
    fc3d_report_clear(report, o.formulation == CDYN_FC3D_FISCHER_BURMEISTER ? "newton-fb"
                                                                            : "newton-ac");
    cdyn_status st = fc3d_newton_check_options(&o, report);
    if (st != CDYN_OK)
        return st;
    return fc3d_run_public(problem, o.allocator, newton_stage, &o, r, u, report);
}
