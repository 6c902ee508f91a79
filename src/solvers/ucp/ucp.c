/* The Pang–Trinkle–Lo algorithm for the uncoupled complementarity problem (their Section 4):
 * alternating LPs over X and Y (Step 1), a complementarity / stationarity test (Step 2) and the
 * adjacent-extreme-point escape (Step 3) in its original and modified forms (Section 5). */
#include "cdyn/ucp.h"

#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/lp/simplex.h"
#include "solvers/ucp/ucp_build.h"

typedef struct ucp_ws {
    const cdyn_ucp_options *o;
    cdyn_ucp_sys *sys;
    cdyn_splx *X, *Y;
    int nx;
    double *x, *y, *xn, *yn; /* current and new pair */
    int *bx, *by;            /* bases of the current pair */
    int *bx0, *by0;          /* bases of the initial pair */
    double *seen;            /* stationary pairs met in this run (cycle test), 2 nx each */
    int nseen;
    double *walk; /* pairs of the current random walk (original Step 3) */
    int nwalk;
    uint64_t rng;
    cdyn_ucp_stats *st;
    void *block;
} ucp_ws;

/* Outcome of one run besides errors. */
enum { RUN_SOLVED = 1, RUN_GAVE_UP = 2 };

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}

static double amax(int n, const double *v)
{
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(v[i]));
    return m;
}

static int is_solved(const ucp_ws *w, const double *x, const double *y, double val)
{
    return val <= w->o->comp_tol * fmax(1.0, amax(w->nx, x) * amax(w->nx, y));
}

/* Strict decrease of x^T y, with a margin so that rounding does not count as progress. */
static int decreased(const ucp_ws *w, double nv, double v)
{
    return nv < v - fmax(1e-9 * v, 0.1 * w->o->comp_tol);
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static int rng_index(uint64_t *s, int n)
{
    double u = (double)(rng_next(s) >> 11) * 0x1.0p-53;
    int k = (int)(u * n);
    return k < n ? k : n - 1;
}

/* Has the pair (x, y) been stored in list (count entries of 2 nx)? Adds it when not and there
 * is room (cap). */
static int seen_or_add(const ucp_ws *w, double *list, int *count, int cap, const double *x,
                       const double *y)
{
    const int nx = w->nx;
    double tol = 1e-9 * (1.0 + fmax(amax(nx, x), amax(nx, y)));
    for (int k = 0; k < *count; ++k) {
        const double *px = list + (size_t)k * 2 * nx, *py = px + nx;
        int same = 1;
        for (int i = 0; i < nx && same; ++i)
            same = fabs(px[i] - x[i]) <= tol && fabs(py[i] - y[i]) <= tol;
        if (same)
            return 1;
    }
    if (*count < cap) {
        memcpy(list + (size_t)*count * 2 * nx, x, sizeof(double) * (size_t)nx);
        memcpy(list + (size_t)*count * 2 * nx + nx, y, sizeof(double) * (size_t)nx);
        (*count)++;
    }
    return 0;
}

static void note_value(ucp_ws *w, double val)
{
    if (val < w->st->best_xty)
        w->st->best_xty = val;
}

/* Make (x, y) the current pair from the engines' current bases. */
static void take_current(ucp_ws *w)
{
    cdyn_splx_point(w->X, w->x);
    cdyn_splx_point(w->Y, w->y);
    cdyn_splx_get_basis(w->X, w->bx);
    cdyn_splx_get_basis(w->Y, w->by);
}

static cdyn_status lp_step(ucp_ws *w, cdyn_splx *s, const double *c, double *out, cdyn_report *r)
{
    cdyn_status st = cdyn_splx_minimize(s, c, r);
    w->st->linear_programs++;
    if (st == CDYN_EUNBOUNDED) /* impossible in exact arithmetic: the objective is >= 0 */
        st = cdyn_fail(r, CDYN_ENUMERIC, "ucp: an LP over %s reported an unbounded ray",
                       s == w->X ? "X" : "Y");
    if (st != CDYN_OK)
        return st;
    cdyn_splx_point(s, out);
    return CDYN_OK;
}

/* One run of the algorithm from the initial pair. *outcome: RUN_SOLVED (w->x, w->y hold the
 * answer) or RUN_GAVE_UP (message in r). Other returns are errors. */
static cdyn_status run(ucp_ws *w, cdyn_ucp_escape mode, int *outcome, cdyn_report *r)
{
    const int nx = w->nx, max_pairs = w->o->max_pairs;
    cdyn_ucp_stats *st = w->st;
    *outcome = RUN_GAVE_UP;
    if (cdyn_splx_set_basis(w->X, w->bx0) != CDYN_OK ||
        cdyn_splx_set_basis(w->Y, w->by0) != CDYN_OK)
        return cdyn_fail(r, CDYN_ENUMERIC, "ucp: the initial bases could not be reloaded");
    take_current(w);
    double val = dot(nx, w->x, w->y);
    note_value(w, val);
    if (is_solved(w, w->x, w->y, val)) {
        *outcome = RUN_SOLVED;
        return CDYN_OK;
    }
    int pairs = 0, restarts = 0;
    w->nseen = 0;
    for (;;) {
        /* Step 1: x <- argmin x^T y over X, then y <- argmin x^T y over Y. */
        if (pairs >= max_pairs) {
            cdyn_fail(r, CDYN_ENOSOLUTION,
                      "ucp: no complementary pair within %d pairs (best "
                      "x^T y = %.6g)",
                      max_pairs, st->best_xty);
            return CDYN_OK;
        }
        cdyn_status s = lp_step(w, w->X, w->y, w->xn, r);
        if (s == CDYN_OK)
            s = lp_step(w, w->Y, w->xn, w->yn, r);
        if (s != CDYN_OK)
            return s;
        pairs++;
        st->pairs++;
        double nval = dot(nx, w->xn, w->yn);
        note_value(w, nval);
        if (is_solved(w, w->xn, w->yn, nval) || decreased(w, nval, val)) {
            take_current(w);
            val = nval;
            if (is_solved(w, w->x, w->y, val)) {
                *outcome = RUN_SOLVED;
                return CDYN_OK;
            }
            continue;
        }
        /* Step 2: no decrease, so the previous pair (x, y) is stationary (x optimal for y and y
         * optimal for x) but not complementary. */
        st->stationary++;
        if (mode == CDYN_UCP_ESCAPE_NONE) {
            cdyn_fail(r, CDYN_ENOSOLUTION,
                      "ucp: stationary pair with x^T y = %.6g (no escape "
                      "requested)",
                      val);
            return CDYN_OK;
        }
        if (mode == CDYN_UCP_ESCAPE_ORIGINAL &&
            seen_or_add(w, w->seen, &w->nseen, max_pairs, w->x, w->y)) {
            cdyn_fail(r, CDYN_ENOSOLUTION,
                      "ucp: cycling: a stationary pair with x^T y = %.6g "
                      "was reached again",
                      val);
            return CDYN_OK;
        }
        if (cdyn_splx_set_basis(w->X, w->bx) != CDYN_OK ||
            cdyn_splx_set_basis(w->Y, w->by) != CDYN_OK)
            return cdyn_fail(r, CDYN_ENUMERIC, "ucp: a stationary basis could not be reloaded");
        /* Step 3: adjacent extreme points. */
        w->nwalk = 0;
        for (;;) {
            int partial = 0;
            int nX = cdyn_splx_adjacent(w->X, &partial), nY = cdyn_splx_adjacent(w->Y, &partial);
            if (nX == 0 || nY == 0) {
                cdyn_fail(r, CDYN_ENOSOLUTION,
                          "ucp: stationary pair (x^T y = %.6g) without "
                          "adjacent extreme points in %s",
                          val, nX == 0 ? "X" : "Y");
                return CDYN_OK;
            }
            int ba = -1, bb = -1;
            double bv = INFINITY;
            for (int a = 0; a < nX; ++a)
                for (int b = 0; b < nY; ++b) {
                    double v = dot(nx, cdyn_splx_neighbor(w->X, a), cdyn_splx_neighbor(w->Y, b));
                    if (v < bv) {
                        bv = v;
                        ba = a;
                        bb = b;
                    }
                }
            int improving = decreased(w, bv, val);
            if (!improving) {
                ba = rng_index(&w->rng, nX);
                bb = rng_index(&w->rng, nY);
                st->random_moves++;
            } else
                st->improving_escapes++;
            if (cdyn_splx_set_basis(w->X, cdyn_splx_neighbor_basis(w->X, ba)) != CDYN_OK ||
                cdyn_splx_set_basis(w->Y, cdyn_splx_neighbor_basis(w->Y, bb)) != CDYN_OK)
                return cdyn_fail(r, CDYN_ENUMERIC, "ucp: an adjacent basis could not be loaded");
            take_current(w);
            val = dot(nx, w->x, w->y);
            note_value(w, val);
            pairs++;
            st->pairs++;
            if (is_solved(w, w->x, w->y, val)) {
                *outcome = RUN_SOLVED;
                return CDYN_OK;
            }
            if (improving || mode != CDYN_UCP_ESCAPE_ORIGINAL) {
                if (++restarts > w->o->max_restarts) {
                    cdyn_fail(r, CDYN_ENOSOLUTION,
                              "ucp: no complementary pair after %d "
                              "restarts (best x^T y = %.6g)",
                              w->o->max_restarts, st->best_xty);
                    return CDYN_OK;
                }
                st->restarts++;
                break; /* back to Step 1 */
            }
            /* original Step 3: repeat from the random pair */
            if (seen_or_add(w, w->walk, &w->nwalk, max_pairs, w->x, w->y)) {
                cdyn_fail(r, CDYN_ENOSOLUTION,
                          "ucp: cycling among adjacent extreme points "
                          "(best x^T y = %.6g)",
                          st->best_xty);
                return CDYN_OK;
            }
            if (pairs >= max_pairs) {
                cdyn_fail(r, CDYN_ENOSOLUTION,
                          "ucp: no complementary pair within %d pairs "
                          "(best x^T y = %.6g)",
                          max_pairs, st->best_xty);
                return CDYN_OK;
            }
        }
    }
}

static void free_ws(ucp_ws *w, const cdyn_allocator *al)
{
    cdyn_splx_free(w->X);
    cdyn_splx_free(w->Y);
    cdyn_ucp_sys_free(w->sys);
    cdyn_mem_free(al, w->block);
}

cdyn_status cdyn_ucp_solve(const cdyn_ucp_problem *problem, const cdyn_ucp_options *opts,
                           cdyn_ucp_solution *sol, cdyn_ucp_stats *stats, cdyn_report *report)
{
    cdyn_report_clear(report, "ucp-ptl");
    cdyn_ucp_options o;
    cdyn_status s = cdyn_ucp_prepare(problem, opts, &o, report);
    if (s != CDYN_OK)
        return s;
    const cdyn_allocator *al = o.allocator;

    cdyn_ucp_stats local;
    cdyn_ucp_stats *st = stats != NULL ? stats : &local;
    memset(st, 0, sizeof *st);
    st->best_xty = INFINITY;

    ucp_ws w;
    memset(&w, 0, sizeof w);
    w.o = &o;
    w.st = st;
    w.rng = o.seed ? o.seed : 0x9E3779B97F4A7C15ull;
    s = cdyn_ucp_sys_create(problem, al, &w.sys);
    if (s != CDYN_OK)
        return cdyn_fail(report, s,
                         s == CDYN_ENOMEM ? "ucp: out of memory"
                                          : "ucp: the SVD of [W^T J_abar] failed");
    const int nx = w.sys->nx, mX = w.sys->mX, mY = w.sys->mY;
    w.nx = nx;
    st->rank_P = w.sys->rank;
    s = cdyn_splx_create(mX, nx, w.sys->AX, w.sys->bX, &o.lp, o.max_adjacent, &w.X);
    if (s == CDYN_OK)
        s = cdyn_splx_create(mY, nx, w.sys->AY, w.sys->bY, &o.lp, o.max_adjacent, &w.Y);
    cdyn_carve cv = {0, 0};
    size_t pairs_len = cdyn_carve_mul(&cv, cdyn_carve_mul(&cv, (size_t)o.max_pairs, 2), (size_t)nx);
    size_t ox = cdyn_carve_take(&cv, (size_t)nx, sizeof(double));
    size_t oy = cdyn_carve_take(&cv, (size_t)nx, sizeof(double));
    size_t oxn = cdyn_carve_take(&cv, (size_t)nx, sizeof(double));
    size_t oyn = cdyn_carve_take(&cv, (size_t)nx, sizeof(double));
    size_t obx = cdyn_carve_take(&cv, (size_t)mX, sizeof(int));
    size_t oby = cdyn_carve_take(&cv, (size_t)mY, sizeof(int));
    size_t obx0 = cdyn_carve_take(&cv, (size_t)mX, sizeof(int));
    size_t oby0 = cdyn_carve_take(&cv, (size_t)mY, sizeof(int));
    size_t oseen = cdyn_carve_take(&cv, pairs_len, sizeof(double));
    size_t owalk = cdyn_carve_take(&cv, pairs_len, sizeof(double));
    if (s == CDYN_OK && cv.overflow)
        s = CDYN_ENOMEM;
    char *blk = NULL;
    if (s == CDYN_OK && (blk = cdyn_mem_alloc(al, cv.off)) == NULL)
        s = CDYN_ENOMEM;
    if (s != CDYN_OK) {
        free_ws(&w, al);
        return cdyn_fail(report, s, "ucp: out of memory");
    }
    w.block = blk;
    w.x = (double *)(blk + ox);
    w.y = (double *)(blk + oy);
    w.xn = (double *)(blk + oxn);
    w.yn = (double *)(blk + oyn);
    w.bx = (int *)(blk + obx);
    w.by = (int *)(blk + oby);
    w.bx0 = (int *)(blk + obx0);
    w.by0 = (int *)(blk + oby0);
    w.seen = (double *)(blk + oseen);
    w.walk = (double *)(blk + owalk);

    /* Step 0: feasible vertices of X and Y (phase 1, i.e. LPs with a zero objective). */
    s = cdyn_splx_phase1(w.X, report);
    st->linear_programs++;
    if (s == CDYN_EINFEASIBLE)
        s = cdyn_fail(report, s,
                      "ucp: X is empty: no object and joint velocities give v_n >= 0 "
                      "with the given joint velocities");
    if (s == CDYN_OK) {
        s = cdyn_splx_phase1(w.Y, report);
        st->linear_programs++;
        if (s == CDYN_EINFEASIBLE)
            s = cdyn_fail(report, s,
                          "ucp: Y is empty: no contact forces inside the friction "
                          "cones balance the given loads and efforts");
    }
    int outcome = RUN_GAVE_UP;
    if (s == CDYN_OK) {
        cdyn_splx_get_basis(w.X, w.bx0);
        cdyn_splx_get_basis(w.Y, w.by0);
        cdyn_ucp_escape first =
            o.escape == CDYN_UCP_ESCAPE_PAPER ? CDYN_UCP_ESCAPE_ORIGINAL : o.escape;
        st->runs = 1;
        s = run(&w, first, &outcome, report);
        if (s == CDYN_OK && outcome != RUN_SOLVED && o.escape == CDYN_UCP_ESCAPE_PAPER) {
            st->runs = 2;
            s = run(&w, CDYN_UCP_ESCAPE_RESTART, &outcome, report);
            st->solved_by_modified = s == CDYN_OK && outcome == RUN_SOLVED;
        }
    }
    st->pivots = (w.X ? cdyn_splx_pivots(w.X) : 0) + (w.Y ? cdyn_splx_pivots(w.Y) : 0);
    if (s == CDYN_OK && outcome != RUN_SOLVED)
        s = CDYN_ENOSOLUTION; /* the message was set by the run */
    if (s == CDYN_OK) {
        double xty = dot(nx, w.x, w.y);
        st->residual = cdyn_ucp_recover(w.sys, problem, w.x, w.y, NULL);
        if (!(st->residual <= 1e-7))
            s = cdyn_fail(report, CDYN_ENUMERIC,
                          "ucp: the complementary pair fails the accuracy "
                          "check (residual %.3g)",
                          st->residual);
        else {
            (void)cdyn_ucp_recover(w.sys, problem, w.x, w.y, sol);
            if (report != NULL) {
                report->residual = xty;
                report->message[0] = '\0';
            }
        }
    }
    if (report != NULL) {
        report->status = s;
        report->iterations = st->pairs;
        report->evaluations = st->linear_programs;
        if (s == CDYN_ENOSOLUTION)
            report->residual = st->best_xty;
    }
    free_ws(&w, al);
    return s;
}
