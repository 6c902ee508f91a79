/* The fully implicit compliant scheme (Song-Kumar-Pang eq. 10): one mixed complementarity
 * problem per step in the unknowns at the end of the step (implicit_ncp_form.h), solved by FB-Newton
 * with the dense LU or the sparse KLU path, warm-started from the last step. */
#include "step/implicit_ncp_ws.h"

#include "step/implicit_derivs.h"

#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>



static int ncp_size(const cdyn_stepper *s, int k)
{
    const int nd = s->dim == 2 ? 2 : 3;
    return s->nq + s->nv + k * (2 * nd + 1) + 2 * cdyn_model_limit_rows(s->model);
}

static cdyn_step_backend ncp_pick(const cdyn_stepper *s)
{
    return ncp_size(s, s->nc) <= s->opts.sparse_above ? CDYN_BACKEND_FB_DENSE
                                                      : CDYN_BACKEND_FB_SPARSE;
}

static void ncp_destroy(cdyn_stepper *s)
{
    ncp_ws *w = s->ws;
    const cdyn_allocator *a = s->opts.allocator;
    for (int e = 0; e < NCP_KEPT; e++) {
        cdyn_mcp_solver_free(w->kept[e].solver);
        cdyn_arena_destroy(&w->kept[e].arena); /* the patterns' arrays */
    }
    cdyn_mem_free(a, w->rows);
    cdyn_mem_free(a, w->der_keep);
    ncp_limits_free(&w->lim, a);
    cdyn_mem_free(a, w);
    s->ws = NULL;
}

static cdyn_status ncp_create(cdyn_stepper *s, cdyn_report *r)
{
    const cdyn_step_options *o = &s->opts;
    const cdyn_allocator *a = o->allocator;
    const int nd = s->dim == 2 ? 2 : 3, nc = s->nc, nv = s->nv, nq = s->nq;
    const size_t ny = (size_t)ncp_size(s, nc), nx = (size_t)nq + nv + (size_t)nc * nd;
    ncp_ws *w = cdyn_mem_alloc(a, sizeof *w);
    if (w == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory");
    memset(w, 0, sizeof *w);
    for (int e = 0; e < NCP_KEPT; e++)
        cdyn_arena_init(&w->kept[e].arena, a);
    w->nkept = NCP_KEPT;
    w->cur = -1;
    s->ws = w;
    w->nd = nd;
    const size_t nints =
        (5 + NCP_KEPT) * (size_t)nc + (size_t)cdyn_model_npair(s->model) + 1 + 2 * ny;
    const size_t ndbl = (size_t)nc * (5 + 3 * (size_t)nd * nd) + 11 * ny + nx +
                        ncp_form_scratch(nq, nv, nc, nd) + 2 * ny + 8 + 2 * ny + nx + nv;
    /* one block: ints first (padded), then doubles */
    w->rows = cdyn_mem_alloc(a, (nints + 2) * sizeof(int) + ndbl * sizeof(double));
    if (w->rows == NULL) {
        ncp_destroy(s);
        return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory");
    }
    w->pin = w->rows + nc;
    w->pin0 = w->pin + nc;
    w->qp_rows = w->pin0 + nc;
    w->key = w->qp_rows + nc;
    w->pairs = w->key + nc;
    w->rank = w->pairs + cdyn_model_npair(s->model) + 1;
    w->order = w->rank + ny;
    for (int e = 0; e < NCP_KEPT; e++)
        w->kept[e].key = w->order + ny + (size_t)e * nc;
    w->nyf = (int)ny;
    double *dp = (double *)(void *)(w->rows + ((nints + 2) & ~(size_t)1));
    w->mu = dp, dp += nc;
    w->beta = dp, dp += nc;
    w->A = dp, dp += (size_t)nc * nd * nd;
    w->Ch = dp, dp += (size_t)nc * nd * nd;
    w->Ai = dp, dp += (size_t)nc * nd * nd;
    w->y = dp, dp += ny;
    w->ystart = dp, dp += ny;
    w->ybest = dp, dp += ny;
    w->Fbest = dp, dp += ny;
    w->Fv = dp, dp += ny;
    w->x0 = dp, dp += nx;
    w->uv = dp, dp += 3 * (size_t)nc;
    w->fdwork = dp, dp += 5 * ny;
    w->f.lower = dp, dp += ny;
    w->f.upper = dp, dp += ny;
    w->ylast = dp, dp += ny;
    w->ypath = dp, dp += ny;
    w->x0last = dp, dp += nx;
    w->taulast = dp, dp += nv;
    w->f.scratch = dp;
    w->der_keep = cdyn_mem_alloc(a, (size_t)cdyn_model_deriv_nnz(s->model) + 1);
    if (w->der_keep == NULL) {
        ncp_destroy(s);
        return cdyn_fail(r, CDYN_ENOMEM, "implicit NCP: out of memory");
    }
    memset(w->beta, 0, (size_t)nc * sizeof(double));
    w->fd = o->fd_jacobian != 0;
    const cdyn_status st = ncp_limits_create(s->model, &s->lim, a, &w->lim, r);
    if (st != CDYN_OK)
        ncp_destroy(s);
    return st;
}

/* The rows taking part: active at x0. */
static void ncp_rows(cdyn_stepper *s, ncp_ws *w, double h)
{
    const int *active = cdyn_data_active(s->data);
    int k = 0;
    for (int i = 0; i < s->nc; i++)
        if (active[i])
            w->rows[k++] = i;
    ncp_form_setup(&w->f, s->model, s->data, k, w->rows, w->mu, w->A, w->Ch, h, s->opts.gamma);
    ncp_limits_attach(&w->f, &w->lim);
    w->f.friction_qp = (s->opts.friction_qp != 0) != (w->other_law != 0);
    /* rows the friction QP cannot take (a rigid or uncoupled tangential direction) keep the
     * smoothed NCP rows; the others' A^-1 is inverted once here, not at every evaluation */
    if (w->f.friction_qp) {
        w->f.Ai = w->Ai;
        ncp_form_invert(&w->f);
        ncp_form_qp_rows(&w->f, w->qp_rows);
    }
    w->f.qp_rows = w->qp_rows;
    /* the Jacobian's pattern depends on the rows and on each row's law */
    for (int c = 0; c < k; c++)
        w->key[c] = 2 * w->rows[c] + ncp_row_qp(&w->f, c);
    /* the Newton iterations evaluate only the pairs of these rows */
    memset(w->pairs, 0, (size_t)cdyn_model_npair(s->model) * sizeof(int));
    for (int c = 0; c < k; c++) {
        cdyn_contact ct;
        if (cdyn_data_contact(s->data, w->rows[c], &ct) == CDYN_OK)
            w->pairs[ct.pair] = 1;
    }
    w->f.pairs = w->pairs;
    cdyn_model_deriv_keep(s->model, w->pairs, w->der_keep);
    w->f.der_keep = w->der_keep;
}


/* Start values for rows without force at the start that the free motion drives into contact:
 * the iteration would otherwise start with every complementarity pair of the row at its kink
 * (lambda_n = 0 with a zero gap, beta = 0 with rho = gamma), where Fischer-Burmeister Newton
 * stalls on impacts. The estimate takes the predicted penetration p = -(Psi + h Gamma_n v + delta_n)
 * (data evaluated at x0) as a spring compression, lambda_n = a_nn p / 2 and delta_n = -Psi
 * - p / 2, and friction on the cone against the predicted slip, beta = mu lambda_n |s|. */
/* uv[3 r + d] = Gamma_d v of every model row r at the last evaluation (sparse). */
static void rows_times_v(const cdyn_stepper *s, const double *v, double *uv)
{
    memset(uv, 0, 3 * (size_t)s->nc * sizeof(double));
    for (int d = 0; d < 3; d++) {
        cdyn_csc J;
        cdyn_data_jacobian_csc(s->data, (cdyn_dir)d, &J);
        for (int j = 0; j < s->nv; j++)
            for (int p = J.colptr[j]; p < J.colptr[j + 1]; p++)
                uv[3 * J.rowind[p] + d] += J.values[p] * v[j];
    }
}

static void ncp_predict(cdyn_stepper *s, ncp_ws *w, const double *v0, double h)
{
    const int nq = s->nq, nv = s->nv, nd = w->nd, k = w->f.k;
    const int od = nq + nv, ol = od + k * nd, ob = ol + k * nd;
    const double *gap = cdyn_data_gap(s->data);
    rows_times_v(s, v0, w->uv);
    for (int c = 0; c < k; c++) {
        const int i = w->rows[c];
        const double *u = w->uv + 3 * i;
        double ln = w->y[ol + c * nd];
        /* Friction unknowns held at 0 (ncp_pins): every row without friction, and rows without
         * force that the free motion keeps open (pen < 0). */
        w->pin[c] = !ncp_row_qp(&w->f, c) && !(w->mu[c] > 0);
        if (!(ln > 0)) {
            const double pen = -(gap[i] + h * u[0] + w->y[od + c * nd]);
            const double a = w->A[(size_t)c * nd * nd];
            w->pin[c] |= !ncp_row_qp(&w->f, c) && pen < 0;
            if (!(pen > 0) || !(a > 0))
                continue;
            ln = 0.5 * a * pen;
            w->y[ol + c * nd] = ln;
            w->y[od + c * nd] = -gap[i] - 0.5 * pen;
        }
        /* A row pressed but without friction in the guess while it slips: start on the cone
         * against the slip (beta = 0 with lambda_T = 0 is a kink of the friction rows). */
        double lt = 0;
        for (int d = 1; d < nd; d++)
            lt = hypot(lt, w->y[ol + c * nd + d]);
        const double sn = hypot(u[1], nd == 3 ? u[2] : 0.0);
        if (w->y[ob + c] == 0 && lt <= 1e-6 * w->mu[c] * ln && sn > 1e-8 && w->mu[c] > 0) {
            for (int d = 1; d < nd; d++)
                w->y[ol + c * nd + d] = -w->mu[c] * ln * u[d] / sn;
            w->y[ob + c] = w->mu[c] * ln * sn;
        }
    }
}

/* The step problem's bounds (those of ncp_form_setup: lambda_n, beta >= 0, the rest free), then
 * the pins: a pinned row's friction unknowns lambda_T and beta are held at 0 (lower = upper = 0,
 * and so in y). With the smoothed NCP friction rows a row without normal force has no friction
 * law to speak of: its rows read beta lambda_T / rho = 0 and 0 <= beta _|_ gamma - rho >= 0, solved
 * by lambda_T = 0 with any beta >= 0 — a ray of solutions, at which the Newton matrix is singular
 * (the friction rows' derivatives vanish with lambda_n and lambda_T) and FB-Newton crawls. The
 * same holds for every row with mu = 0. lambda_T = beta = 0 solves those rows exactly, so a
 * pinned solve that ends with lambda_n = 0 on its pinned rows (or mu = 0 there) solves the step's
 * problem itself; ncp_solve checks that on the full problem before it accepts. */
static void ncp_bounds(ncp_ws *w, double *y, int pins)
{
    const ncp_form *f = &w->f;
    const int nd = w->nd, k = f->k, ol = f->nx, ob = ol + k * nd;
    for (int i = 0; i < f->ny; i++) {
        f->lower[i] = -INFINITY;
        f->upper[i] = INFINITY;
    }
    ncp_limits_bounds(f);
    for (int c = 0; c < k; c++) {
        f->lower[ol + c * nd] = 0.0;
        f->lower[ob + c] = 0.0;
        if (!pins || !w->pin[c])
            continue;
        for (int d = 1; d < nd; d++) {
            f->lower[ol + c * nd + d] = f->upper[ol + c * nd + d] = 0.0;
            y[ol + c * nd + d] = 0.0;
        }
        f->upper[ob + c] = 0.0;
        y[ob + c] = 0.0;
    }
}

/* The natural residual of the step's problem itself (no pins) at y, over the friction rows of
 * the pinned contacts: the others are the pinned problem's, which the solver certified (their
 * F and bounds do not depend on the pins). */
static double ncp_pinned_residual(ncp_ws *w, double *y)
{
    ncp_bounds(w, y, 0);
    if (ncp_form_F(&w->f, w->x0, y, w->Fv) != 0)
        return INFINITY;
    const int nd = w->nd, ol = w->f.nx, ob = ol + w->f.k * nd;
    double res = 0.0;
    for (int c = 0; c < w->f.k; c++) {
        if (!w->pin[c])
            continue;
        for (int d = 1; d <= nd; d++) { /* lambda_t, lambda_o and beta: the pinned ones */
            const int i = d < nd ? ol + c * nd + d : ob + c;
            const double v = y[i] - w->Fv[i], lo = w->f.lower[i], up = w->f.upper[i];
            const double ri = v <= lo ? fabs(y[i] - lo) : v >= up ? fabs(y[i] - up)
                                                                  : fabs(w->Fv[i]);
            res = ri > res || ri != ri ? ri : res;
        }
    }
    return res == res ? res : INFINITY;
}

/* Pins after a pinned solve: a pinned row (with friction) that carries normal force at y needs
 * its friction law, so it is released (its friction starts at 0: with lambda_n > 0 that is no
 * kink). From the best point of a failed solve (normal row value Fn = s_n (Psi + delta_n)),
 * also the rows found open there (lambda_n = 0, Fn > 0) are pinned. Returns the rows changed. */
static int ncp_repin(ncp_ws *w, double *y, const double *Fy)
{
    const int nd = w->nd, k = w->f.k, ol = w->f.nx, ob = ol + k * nd;
    int changed = 0;
    for (int c = 0; c < k; c++) {
        if (ncp_row_qp(&w->f, c) || !(w->mu[c] > 0))
            continue;
        const double ln = y[ol + c * nd];
        int pin = w->pin[c];
        if (ln > 0)
            pin = 0;
        else if (Fy != NULL && Fy[ol + c * nd] > 0)
            pin = 1;
        changed += pin != w->pin[c];
        if (w->pin[c] && !pin && Fy != NULL) {
            /* Released: its friction starts on the cone against the slip, not at the kink
             * lambda_T = beta = 0 where FB-Newton crawls. Held at 0, the row's residual is
             * mu lambda_n s_d, so the slip is s = F_T / (mu lambda_n). */
            const double mln = w->mu[c] * ln;
            double sn = 0;
            for (int d = 1; d < nd; d++)
                sn = hypot(sn, Fy[ol + c * nd + d] / mln);
            if (sn > 0) {
                for (int d = 1; d < nd; d++)
                    y[ol + c * nd + d] = -mln * (Fy[ol + c * nd + d] / mln) / sn;
                y[ob + c] = mln * sn;
            }
        }
        w->pin[c] = pin;
    }
    return changed;
}

/* Solve the step's problem from w->y into w->y. Fischer-Burmeister adds the members of each
 * complementarity pair, so their units matter: first the normal rows in newtons (scaled by the
 * normal stiffness); rows without force or friction pinned (ncp_bounds), released when the
 * solution presses them; after a failure again from the best point evaluated, with the rows
 * open there pinned; last the plain rows from the start (the solution set is the same). OK only
 * when the full problem's natural residual is within tol. */
static cdyn_status ncp_solve(cdyn_stepper *s, ncp_ws *w, cdyn_report *r, cdyn_report *mr)
{
    const size_t ny = (size_t)w->f.ny;
    const double tol = s->opts.mcp.tol;
    memcpy(w->ystart, w->y, ny * sizeof(double));
    memcpy(w->pin0, w->pin, (size_t)w->f.k * sizeof(int));
    int scaled = 1, pins = 1, phase = 0;
    cdyn_status st = CDYN_ENOCONV;
    for (int attempt = 0; attempt < 8; attempt++) {
        w->f.scale_normal = scaled;
        ncp_bounds(w, w->y, pins);
        w->best_res = INFINITY;
        st = cdyn_mcp_solver_solve(w->solver, &w->mcp, w->y, mr);
        r->iterations += mr->iterations;
        r->evaluations += mr->evaluations;
        if (st == CDYN_OK) {
            /* without pinned rows the problem solved is the step's own, and the solver's OK
               certified it: no second evaluation */
            int pinned = 0;
            for (int c = 0; c < w->f.k && pins; c++)
                pinned |= w->pin[c];
            const double res = pinned ? ncp_pinned_residual(w, w->y) : 0.0;
            if (res <= tol)
                return CDYN_OK;
            mr->residual = res;
            st = CDYN_ENOCONV;
            snprintf(mr->message, sizeof mr->message, "a friction row held at 0 carries normal "
                     "force (natural residual %.3g of the unpinned problem)", res);
            if (ncp_repin(w, w->y, w->Fv) > 0)
                continue; /* from this solution, with those rows' friction laws */
        } else if (st != CDYN_ENOCONV) {
            ncp_bounds(w, w->y, 0);
            return st;
        } else if (w->best_res < INFINITY && ncp_repin(w, w->ybest, w->Fbest) > 0) {
            memcpy(w->y, w->ybest, ny * sizeof(double));
            continue;
        }
        if (phase == 2)
            break;
        scaled = 0;
        if (phase == 0 && w->best_res < INFINITY) {
            /* the plain rows from the best point: the scaled rows' rounding (K_nn eps |q|, 1e-10
             * N at K = 5e6 N/m) can keep them above tol next to the solution */
            phase = 1;
            memcpy(w->y, w->ybest, ny * sizeof(double));
        } else {
            phase = 2; /* the plain rows from the start, with the first pins */
            memcpy(w->y, w->ystart, ny * sizeof(double));
            memcpy(w->pin, w->pin0, (size_t)w->f.k * sizeof(int));
        }
    }
    ncp_bounds(w, w->y, 0);
    return st;
}

/* The rows taking part (active at x0) and the form for step length t: the data evaluated at x0
 * again first (the solves leave it at their last iterate). */
static cdyn_status ncp_setup(cdyn_stepper *s, ncp_ws *w, const double *tau, double t,
                             const cdyn_state *x0, cdyn_report *r)
{
    /* cdyn_eval clears the report it is given: the step's report keeps summing iterations. */
    cdyn_report er;
    cdyn_status st = cdyn_eval(s->model, s->data, x0->q, x0->v, CDYN_EVAL_CONTACTS, &er);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "%s", er.message);
    ncp_rows(s, w, t);
    w->f.tau = tau;
    return CDYN_OK;
}

/* The start of a solve at step length t: x0 = (q0, v0, delta0 of the rows), y from the state
 * (the last step's solution) and the predictor. */
static void ncp_start(cdyn_stepper *s, ncp_ws *w, double t, const cdyn_state *x0)
{
    const int nq = s->nq, nv = s->nv, nd = w->nd;
    const int k = w->f.k, od = nq + nv, ol = od + k * nd, ob = ol + k * nd;
    memcpy(w->x0, x0->q, (size_t)nq * sizeof(double));
    memcpy(w->x0 + nq, x0->v, (size_t)nv * sizeof(double));
    memcpy(w->y, w->x0, (size_t)(nq + nv) * sizeof(double));
    for (int c = 0; c < k; c++) {
        const int i = w->rows[c];
        for (int d = 0; d < nd; d++) {
            w->x0[od + c * nd + d] = x0->delta[3 * i + d];
            w->y[od + c * nd + d] = x0->delta[3 * i + d];
            w->y[ol + c * nd + d] = x0->lambda[3 * i + d];
        }
        w->y[ol + c * nd] = fmax(0.0, w->y[ol + c * nd]);
        w->y[ob + c] = w->beta[i];
    }
    ncp_predict(s, w, x0->v, t);
    for (int c = 0; c < k; c++)
        if (ncp_row_qp(&w->f, c))
            w->y[ob + c] = 0.0; /* pinned: the friction QP replaces the multiplier */
    ncp_limits_start(&w->f, &w->lim, x0, t, w->y);
}

/* The solver for the current form, and a solve from w->y. */
static cdyn_status ncp_solve_from_y(cdyn_stepper *s, ncp_ws *w, const cdyn_state *x0,
                                    cdyn_report *r, cdyn_report *mr)
{
    cdyn_status st = ncp_solver(s, w, x0, r);
    if (st != CDYN_OK)
        return st;
    const double t0 = ncp_now();
    st = ncp_solve(s, w, r, mr);
    w->prof->time_solve += ncp_now() - t0;
    return st;
}

/* Continuation in the step length, when the solve at h failed: the same step solved at
 * t = h/2^m from the start (m = 1, 2, ... options.continuation), then along t toward h, each
 * solve from the last solution with q and v extrapolated linearly in t (q - q0 and v - v0 grow
 * with t to first order). The increment starts at t and doubles after every solved stage (the
 * path h/2^m, h/2^(m-1), ... h when all solve); a stage that fails is retried from the last
 * solution with half the increment, down to 1/64 of the t reached (a stiff light sphere whose
 * state changes by orders of magnitude within the step: seed 35 of the stress failed at the
 * stage h/8 -> h/4 from a start with residual 50). Every solve is of the step's own problem at
 * its t, and the last one of the problem at h itself: the answer is the step asked for (not two
 * half steps, as options.max_halvings would take), only its start comes from the path. */
/* Failures of a solve that another start may cure. */
static int retry_solve(cdyn_status st)
{
    return st == CDYN_ENOCONV || st == CDYN_ENUMERIC;
}

/* Smallest increment of a path, relative to the t reached. */
#define NCP_PATH_MIN_STEP (1.0 / 64)

/* From the solution at t_ok (in w->ypath) along t to h; CDYN_OK with the solution at h in w->y. */
static cdyn_status ncp_path(cdyn_stepper *s, ncp_ws *w, const double *tau, double h,
                            const cdyn_state *x0, double t_ok, cdyn_report *r, cdyn_report *mr)
{
    const int nqv = s->nq + s->nv, k = w->f.k;
    const size_t ny = (size_t)w->f.ny;
    double dt = t_ok;
    cdyn_status st = CDYN_OK;
    while (t_ok < h) {
        const double t = t_ok + dt < h ? t_ok + dt : h, grow = t / t_ok;
        memcpy(w->y, w->ypath, ny * sizeof(double));
        for (int j = 0; j < nqv; j++)
            w->y[j] = w->x0[j] + grow * (w->y[j] - w->x0[j]);
        cdyn_report nr;
        if ((st = cdyn_model_normalize_q(s->model, w->y, &nr)) != CDYN_OK)
            return cdyn_fail(r, st, "implicit NCP: %s", nr.message);
        if ((st = ncp_setup(s, w, tau, t, x0, r)) != CDYN_OK)
            return st;
        if (w->f.k != k)
            return cdyn_fail(r, CDYN_ENOCONV, "implicit NCP: rows changed in continuation");
        st = ncp_solve_from_y(s, w, x0, r, mr);
        if (st == CDYN_OK) {
            t_ok = t;
            memcpy(w->ypath, w->y, ny * sizeof(double));
            dt = fmin(2.0 * dt, t_ok);
        } else if (!retry_solve(st) || (dt *= 0.5) < NCP_PATH_MIN_STEP * t_ok) {
            return st;
        }
    }
    return st;
}

static cdyn_status ncp_continue(cdyn_stepper *s, ncp_ws *w, const double *tau, double h,
                                const cdyn_state *x0, cdyn_report *r, cdyn_report *mr)
{
    cdyn_status st = CDYN_ENOCONV;
    for (int m = 1; m <= s->opts.continuation && retry_solve(st); m++) {
        const double t = ldexp(h, -m);
        if ((st = ncp_setup(s, w, tau, t, x0, r)) != CDYN_OK)
            return st;
        ncp_start(s, w, t, x0);
        st = ncp_solve_from_y(s, w, x0, r, mr);
        if (st == CDYN_OK) {
            memcpy(w->ypath, w->y, (size_t)w->f.ny * sizeof(double));
            st = ncp_path(s, w, tau, h, x0, t, r, mr);
        }
        if (st == CDYN_OK)
            w->prof->continued = m;
    }
    return st;
}

/* The step's problem with every friction coefficient scaled by sc (setup, start, then mu). */
static void ncp_setup_mu(cdyn_stepper *s, ncp_ws *w, double sc, const cdyn_state *x0, double h)
{
    for (int c = 0; c < w->f.k; c++)
        w->mu[c] *= sc;
    ncp_start(s, w, h, x0);
}

/* After the continuation in the step length, continuation in the friction coefficients: the
 * frictionless step first (without friction the step is the stationary point of an incremental
 * potential, and Newton's hardest coupling — friction against the normal forces — is absent),
 * then mu scaled by s from 0 to 1, each stage from the last solution (the increment doubling
 * after a success and halving after a failure, down to 1/256). The last stage is the step's own
 * problem. Where the branch of solutions ends before s = 1 (stress seed 31's smoothed NCP rows
 * fail beyond s = 0.63) the other law's path may still reach it. */
#define NCP_MU_MIN_STEP (1.0 / 256)
static cdyn_status ncp_mu_path(cdyn_stepper *s, ncp_ws *w, const double *tau, double h,
                               const cdyn_state *x0, cdyn_report *r, cdyn_report *mr)
{
    cdyn_status st = ncp_setup(s, w, tau, h, x0, r);
    if (st != CDYN_OK)
        return st;
    const size_t ny = (size_t)w->f.ny;
    ncp_setup_mu(s, w, 0.0, x0, h);
    if ((st = ncp_solve_from_y(s, w, x0, r, mr)) != CDYN_OK)
        return st;
    memcpy(w->ypath, w->y, ny * sizeof(double));
    double s_ok = 0.0, ds = 0.25;
    while (s_ok < 1.0) {
        const double sc = fmin(1.0, s_ok + ds);
        if ((st = ncp_setup(s, w, tau, h, x0, r)) != CDYN_OK)
            return st;
        ncp_setup_mu(s, w, sc, x0, h);
        memcpy(w->y, w->ypath, ny * sizeof(double));
        st = ncp_solve_from_y(s, w, x0, r, mr);
        if (st == CDYN_OK) {
            s_ok = sc;
            memcpy(w->ypath, w->y, ny * sizeof(double));
            ds *= 2.0;
        } else if (!retry_solve(st) || (ds *= 0.5) < NCP_MU_MIN_STEP) {
            return st;
        }
    }
    w->prof->mu_path = 1;
    return CDYN_OK;
}

/* Last, the start from the other friction law: the step with the smoothed NCP rows in place of
 * the friction QP (or the other way round) — the same contact problem up to the smoothing gamma
 * — solved (with its own continuations in the step length and in mu), and the step's own
 * problem solved from that solution.
 * The answer is the step's own law's; only its start comes from the other. The two laws stall
 * at different steps of the same run (stress seeds 15, 31, 35: the NCP rows at steps 74, 94, 47,
 * the QP at 90, 50, 23). */
static cdyn_status ncp_other_law(cdyn_stepper *s, ncp_ws *w, const double *tau, double h,
                                 const cdyn_state *x0, cdyn_report *r, cdyn_report *mr)
{
    w->other_law = 1;
    cdyn_status st = ncp_setup(s, w, tau, h, x0, r);
    if (st == CDYN_OK) {
        ncp_start(s, w, h, x0);
        st = ncp_solve_from_y(s, w, x0, r, mr);
        if (retry_solve(st))
            st = ncp_continue(s, w, tau, h, x0, r, mr);
        if (retry_solve(st))
            st = ncp_mu_path(s, w, tau, h, x0, r, mr);
    }
    w->other_law = 0;
    if (st != CDYN_OK)
        return st;
    if ((st = ncp_setup(s, w, tau, h, x0, r)) != CDYN_OK)
        return st;
    const int ob = w->f.nx + w->f.k * w->nd; /* the betas: after q, v, delta and lambda */
    for (int c = 0; c < w->f.k; c++)
        if (ncp_row_qp(&w->f, c))
            w->y[ob + c] = 0.0; /* pinned under the QP */
    st = ncp_solve_from_y(s, w, x0, r, mr);
    if (st == CDYN_OK)
        w->prof->other_law = 1;
    return st;
}

static cdyn_status ncp_advance(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                               cdyn_state *x1, cdyn_step_report *rep)
{
    ncp_ws *w = s->ws;
    cdyn_report *r = &rep->solver;
    const int nq = s->nq, nv = s->nv, nd = w->nd;
    w->prof = rep;
    w->last_ok = 0;
    cdyn_status st = ncp_setup(s, w, tau, h, x0, r);
    if (st != CDYN_OK)
        return st;
    const int k = w->f.k, od = nq + nv, ol = od + k * nd, ob = ol + k * nd;
    rep->nactive = k;
    ncp_start(s, w, h, x0);
    cdyn_report mr;
    st = ncp_solve_from_y(s, w, x0, r, &mr);
    if (retry_solve(st)) {
        cdyn_report first = mr;
        const cdyn_status st0 = st;
        st = ncp_continue(s, w, tau, h, x0, r, &mr);
        if (retry_solve(st) && s->opts.continuation > 0) /* 0: no recovery at all */
            st = ncp_mu_path(s, w, tau, h, x0, r, &mr);
        if (retry_solve(st) && s->opts.continuation > 0)
            st = ncp_other_law(s, w, tau, h, x0, r, &mr);
        if (retry_solve(st)) {
            mr = first; /* the failure of the step as asked */
            st = st0;
        }
        else if (st != CDYN_OK)
            return cdyn_fail(r, st, "implicit NCP: %s", mr.message);
    }
    r->residual = mr.residual;
    cdyn_report_method(r, s->opts.backend == CDYN_BACKEND_FB_SPARSE ? "implicit-ncp-sparse"
                                                                   : "implicit-ncp-dense");
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "implicit NCP: %s", mr.message);

    memcpy(x1->q, w->y, (size_t)nq * sizeof(double));
    memcpy(x1->v, w->y + nq, (size_t)nv * sizeof(double));
    if ((st = cdyn_model_normalize_q(s->model, x1->q, &mr)) != CDYN_OK)
        return cdyn_fail(r, st, "implicit NCP: %s", mr.message);
    memset(x1->delta, 0, 3 * (size_t)s->nc * sizeof(double));
    memset(x1->lambda, 0, 3 * (size_t)s->nc * sizeof(double));
    for (int i = 0; i < s->nc; i++) {
        x1->mode[i] = CDYN_MODE_FREE;
        w->beta[i] = 0.0;
    }
    /* Modes: FREE without normal force (relative to the step's largest); SLIP when the slip
     * velocity s = (delta_T - delta0_T)/h + Gamma_T v+ is not zero (above 1e-6 of the velocity
     * scale, as the cone step); STICK otherwise. The model is evaluated at the solution once
     * more: the last evaluation inside the solver may have been a line-search trial. */
    if (k > 0)
        st = cdyn_eval_pairs(s->model, s->data, w->y, w->y + nq, CDYN_EVAL_CONTACTS, w->pairs,
                             &mr);
    if (st != CDYN_OK)
        return cdyn_fail(r, st, "implicit NCP: %s", mr.message);
    rows_times_v(s, w->y + nq, w->uv);
    double lmax = 0.0, vscale = 1.0;
    for (int c = 0; c < k; c++)
        lmax = fmax(lmax, w->y[ol + c * nd]);
    for (int j = 0; j < nv; j++)
        vscale = fmax(vscale, fabs(w->y[nq + j]));
    for (int c = 0; c < k; c++) {
        const int i = w->rows[c];
        for (int d = 0; d < nd; d++) {
            x1->delta[3 * i + d] = w->y[od + c * nd + d];
            x1->lambda[3 * i + d] = w->y[ol + c * nd + d];
        }
        w->beta[i] = w->y[ob + c];
        if (!(w->y[ol + c * nd] > 1e-9 * lmax)) {
            x1->mode[i] = CDYN_MODE_FREE;
            continue;
        }
        double slip[2] = {0, 0};
        for (int d = 1; d < nd; d++)
            slip[d - 1] = (w->y[od + c * nd + d] - w->x0[od + c * nd + d]) / h + w->uv[3 * i + d];
        x1->mode[i] = hypot(slip[0], slip[1]) > 1e-6 * vscale ? CDYN_MODE_SLIP : CDYN_MODE_STICK;
    }
    ncp_limits_store(&w->f, w->y, x1);
    /* kept for cdyn_step_derivatives: a few copies, nothing computed */
    w->flast = w->f;
    memcpy(w->ylast, w->y, (size_t)w->f.ny * sizeof(double));
    memcpy(w->x0last, w->x0, (size_t)w->f.nx * sizeof(double));
    w->last_tau = tau != NULL;
    if (tau != NULL)
        memcpy(w->taulast, tau, (size_t)nv * sizeof(double));
    w->flast.tau = tau != NULL ? w->taulast : NULL;
    w->last_ok = 1;
    return CDYN_OK;
}

int ncp_last_step(const cdyn_stepper *s, ncp_last *out)
{
    const ncp_ws *w = s->ws;
    if (w == NULL || !w->last_ok)
        return 1;
    out->f = w->flast;
    out->y = w->ylast;
    out->x0 = w->x0last;
    out->backend = s->opts.backend;
    const int sparse = s->opts.backend == CDYN_BACKEND_FB_SPARSE;
    out->colptr = sparse ? w->colptr : NULL;
    out->rowind = sparse ? w->rowind : NULL;
    return 0;
}

const step_scheme cdyn_scheme_implicit_ncp = {
    "implicit-ncp", (1u << CDYN_BACKEND_FB_DENSE) | (1u << CDYN_BACKEND_FB_SPARSE), ncp_pick,
    ncp_create, ncp_destroy, ncp_advance,
};
