/* Exhaustive UCP search over the vertices of X (see cdyn_ucp_enumerate in cdyn/ucp.h).
 *
 * Breadth-first walk of X's vertex-edge graph. A vertex of {A x = b, x >= 0} is identified by
 * its support (the columns of the support are independent and fix x), so visited vertices are
 * kept in a hash set of support bitsets; the queue keeps one basis per vertex. */
#include "cdyn/ucp.h"

#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/lp/simplex.h"
#include "solvers/ucp/ucp_build.h"

typedef struct census_ws {
    int nx, mX, kw;  /* kw: 64-bit words per support key */
    long cap, slots; /* vertices, hash slots (a power of two >= 2 cap) */
    uint64_t *keys;  /* cap * kw */
    long *table;     /* slots: index into keys, or -1 */
    int *queue;      /* cap * mX bases */
    long count;      /* vertices stored (= queue tail) */
    uint64_t *key;   /* kw scratch */
    double *x, *y;   /* nx */
    int *basis;      /* mX scratch */
} census_ws;

static void support_key(const census_ws *w, const double *x, uint64_t *key)
{
    double xmax = 0.0;
    for (int i = 0; i < w->nx; ++i)
        xmax = fmax(xmax, x[i]);
    double tol = 1e-9 * (1.0 + xmax);
    memset(key, 0, sizeof(uint64_t) * (size_t)w->kw);
    for (int i = 0; i < w->nx; ++i)
        if (x[i] > tol)
            key[i / 64] |= (uint64_t)1 << (i % 64);
}

static uint64_t hash_key(const uint64_t *key, int kw)
{
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int k = 0; k < kw; ++k) {
        h ^= key[k] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
        h *= 0xBF58476D1CE4E5B9ull;
    }
    return h ^ (h >> 31);
}

/* Insert the key with its basis; returns 1 if new and stored, 0 if known, -1 if full. */
static int insert(census_ws *w, const uint64_t *key, const int *basis)
{
    uint64_t h = hash_key(key, w->kw);
    long mask = w->slots - 1, s = (long)(h & (uint64_t)mask);
    for (;;) {
        long idx = w->table[s];
        if (idx < 0)
            break;
        if (memcmp(w->keys + (size_t)idx * w->kw, key, sizeof(uint64_t) * (size_t)w->kw) == 0)
            return 0;
        s = (s + 1) & mask;
    }
    if (w->count >= w->cap)
        return -1;
    memcpy(w->keys + (size_t)w->count * w->kw, key, sizeof(uint64_t) * (size_t)w->kw);
    memcpy(w->queue + (size_t)w->count * w->mX, basis, sizeof(int) * (size_t)w->mX);
    w->table[s] = w->count++;
    return 1;
}

cdyn_status cdyn_ucp_enumerate(const cdyn_ucp_problem *problem, const cdyn_ucp_options *opts,
                               long max_vertices, cdyn_ucp_solution *sol, cdyn_ucp_census *census,
                               cdyn_report *report)
{
    cdyn_report_clear(report, "ucp-enumerate");
    cdyn_ucp_options o;
    cdyn_status s = cdyn_ucp_prepare(problem, opts, &o, report);
    if (s != CDYN_OK)
        return s;
    if (max_vertices < 1 || max_vertices > (1L << 30))
        return cdyn_fail(report, CDYN_EINVAL, "ucp_enumerate: max_vertices = %ld (need 1..2^30)",
                         max_vertices);
    cdyn_ucp_census local;
    cdyn_ucp_census *cen = census != NULL ? census : &local;
    memset(cen, 0, sizeof *cen);
    const cdyn_allocator *al = o.allocator;

    cdyn_ucp_sys *sys = NULL;
    cdyn_splx *X = NULL, *Y = NULL;
    char *blk = NULL;
    s = cdyn_ucp_sys_create(problem, al, &sys);
    if (s == CDYN_OK)
        s = cdyn_splx_create(sys->mX, sys->nx, sys->AX, sys->bX, &o.lp, o.max_adjacent, &X);
    if (s == CDYN_OK)
        s = cdyn_splx_create(sys->mY, sys->nx, sys->AY, sys->bY, &o.lp, 0, &Y);
    census_ws w;
    memset(&w, 0, sizeof w);
    if (s == CDYN_OK) {
        w.nx = sys->nx;
        w.mX = sys->mX;
        w.kw = (w.nx + 63) / 64;
        w.cap = max_vertices;
        w.slots = 1;
        while (w.slots < 2 * w.cap)
            w.slots <<= 1;
        cdyn_carve cv = {0, 0};
        size_t ok = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)w.cap, (size_t)w.kw),
                                    sizeof(uint64_t));
        size_t ot = cdyn_carve_take(&cv, (size_t)w.slots, sizeof(long));
        size_t oq =
            cdyn_carve_take(&cv, cdyn_carve_mul(&cv, (size_t)w.cap, (size_t)w.mX), sizeof(int));
        size_t okey = cdyn_carve_take(&cv, (size_t)w.kw, sizeof(uint64_t));
        size_t ox = cdyn_carve_take(&cv, (size_t)w.nx, sizeof(double));
        size_t oy = cdyn_carve_take(&cv, (size_t)w.nx, sizeof(double));
        size_t ob = cdyn_carve_take(&cv, (size_t)w.mX, sizeof(int));
        if (cv.overflow || (blk = cdyn_mem_alloc(al, cv.off)) == NULL)
            s = CDYN_ENOMEM;
        else {
            w.keys = (uint64_t *)(blk + ok);
            w.table = (long *)(blk + ot);
            w.queue = (int *)(blk + oq);
            w.key = (uint64_t *)(blk + okey);
            w.x = (double *)(blk + ox);
            w.y = (double *)(blk + oy);
            w.basis = (int *)(blk + ob);
            for (long k = 0; k < w.slots; ++k)
                w.table[k] = -1;
        }
    }
    if (s != CDYN_OK) {
        s = cdyn_fail(report, s,
                      s == CDYN_ENOMEM ? "ucp_enumerate: out of memory"
                                       : "ucp_enumerate: the SVD of [W^T J_abar] failed");
        goto done;
    }
    s = cdyn_splx_phase1(X, report);
    if (s == CDYN_EINFEASIBLE)
        s = cdyn_fail(report, s, "ucp_enumerate: X is empty");
    if (s == CDYN_OK) {
        s = cdyn_splx_phase1(Y, report);
        if (s == CDYN_EINFEASIBLE)
            s = cdyn_fail(report, s, "ucp_enumerate: Y is empty");
    }
    if (s != CDYN_OK)
        goto done;

    int complete = 1, found = 0;
    cdyn_splx_point(X, w.x);
    support_key(&w, w.x, w.key);
    cdyn_splx_get_basis(X, w.basis);
    (void)insert(&w, w.key, w.basis);
    for (long head = 0; head < w.count; ++head) {
        if (cdyn_splx_set_basis(X, w.queue + (size_t)head * w.mX) != CDYN_OK) {
            complete = 0; /* numerically singular: its edges stay unexplored */
            continue;
        }
        cdyn_splx_point(X, w.x);
        cen->vertices++;
        s = cdyn_splx_minimize(Y, w.x, report);
        if (s != CDYN_OK) {
            s = cdyn_fail(report, CDYN_ENUMERIC, "ucp_enumerate: an LP over Y failed");
            goto done;
        }
        cdyn_splx_point(Y, w.y);
        double xty = 0.0, xm = 0.0, ym = 0.0;
        for (int i = 0; i < w.nx; ++i) {
            xty += w.x[i] * w.y[i];
            xm = fmax(xm, w.x[i]);
            ym = fmax(ym, w.y[i]);
        }
        if (xty <= o.comp_tol * fmax(1.0, xm * ym)) {
            cen->solutions++;
            if (!found && cdyn_ucp_recover(sys, problem, w.x, w.y, NULL) <= 1e-7) {
                found = 1;
                (void)cdyn_ucp_recover(sys, problem, w.x, w.y, sol);
            }
        }
        int partial = 0, k = cdyn_splx_adjacent(X, &partial);
        if (partial)
            complete = 0;
        for (int a = 0; a < k; ++a) {
            support_key(&w, cdyn_splx_neighbor(X, a), w.key);
            if (insert(&w, w.key, cdyn_splx_neighbor_basis(X, a)) < 0)
                complete = 0;
        }
    }
    cen->complete = complete;
    if (found)
        s = CDYN_OK;
    else
        s = cdyn_fail(report, CDYN_ENOSOLUTION,
                      complete ? "ucp_enumerate: no vertex of X (%ld) is "
                                 "complementary to Y: no solution"
                               : "ucp_enumerate: no solution among the %ld "
                                 "vertices visited (search incomplete)",
                      cen->vertices);
    if (report != NULL) {
        report->iterations = (int)(cen->vertices < 2147483647L ? cen->vertices : 2147483647L);
        report->status = s;
    }
done:
    cdyn_splx_free(X);
    cdyn_splx_free(Y);
    cdyn_ucp_sys_free(sys);
    cdyn_mem_free(al, blk);
    return s;
}
