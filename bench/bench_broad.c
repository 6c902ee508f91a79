/* Cost of cdyn_eval's contact evaluation with and without the broad phase (issue 21, item 4):
 * N spheres (r = 0.05) on a jittered cubic lattice of spacing 2.2 r (a pile: each sphere within
 * a margin of its neighbours), declared all against all by one pair group with margin r, plus a
 * floor against every sphere. The state moves a little between evaluations (1 mm per call), as
 * in a time step, so that the sweep's insertion sort sees a nearly sorted order.
 *
 *   bench_broad [N ...]      default: 100 300 1000
 *
 * Prints a Markdown table: pairs, the pairs evaluated by the broad phase, the time per
 * cdyn_eval(CDYN_EVAL_CONTACTS) with and without it, and the memory of the model and its data
 * (counted by the allocator given to the library). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timer.h"
#include "cdyn/model.h"

#define RAD 0.05

/* An allocator that counts the bytes the library holds (a 16-byte header keeps each size). */
static double live_bytes;

static void *count_alloc(void *ctx, size_t size)
{
    (void)ctx;
    char *p = malloc(size + 16);
    if (p == NULL)
        return NULL;
    memcpy(p, &size, sizeof(size));
    live_bytes += (double)size;
    return p + 16;
}

static void count_release(void *ctx, void *ptr)
{
    (void)ctx;
    if (ptr == NULL)
        return;
    char *p = (char *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof(size));
    live_bytes -= (double)size;
    free(p);
}

static const cdyn_allocator COUNTING = {count_alloc, count_release, NULL};

static cdyn_model *pile(int n, int broad)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    o.broad_phase = broad;
    o.allocator = &COUNTING;
    cdyn_builder *b = NULL;
    if (cdyn_builder_create(&o, &b, NULL) != CDYN_OK)
        return NULL;
    int *g = malloc(sizeof(int) * (size_t)(n + 1));
    cdyn_geom_desc gd;
    cdyn_geom_desc_defaults(&gd);
    cdyn_builder_add_geom(b, &gd, &g[n], NULL); /* the floor */
    const int side = (int)ceil(cbrt((double)n));
    for (int i = 0; i < n; ++i) {
        cdyn_body_desc bd;
        cdyn_body_desc_defaults(&bd);
        bd.mass = 0.1;
        bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 1e-4;
        bd.frame.pos[0] = 2.2 * RAD * (i % side) + 0.003 * ((i * 7) % 5 - 2);
        bd.frame.pos[1] = 2.2 * RAD * ((i / side) % side) + 0.003 * ((i * 11) % 5 - 2);
        bd.frame.pos[2] = RAD + 2.2 * RAD * (i / (side * side));
        int body;
        cdyn_builder_add_body(b, &bd, &body, NULL);
        cdyn_geom_desc_defaults(&gd);
        gd.body = body;
        gd.type = CDYN_GEOM_SPHERE;
        gd.size[0] = RAD;
        cdyn_builder_add_geom(b, &gd, &g[i], NULL);
    }
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 0.5;
    pd.margin = RAD;
    cdyn_report r;
    cdyn_model *m = NULL;
    if (cdyn_builder_add_pair_group(b, g, n, NULL, 0, &pd, NULL, NULL, &r) != CDYN_OK ||
        cdyn_builder_add_pair_group(b, &g[n], 1, g, n, &pd, NULL, NULL, &r) != CDYN_OK ||
        cdyn_builder_build(b, &m, &r) != CDYN_OK)
        fprintf(stderr, "bench_broad: %s\n", r.message);
    free(g);
    cdyn_builder_free(b);
    return m;
}

typedef struct run_ctx {
    const cdyn_model *m;
    cdyn_data *d;
    double *q;
    int n, k;
    const int *subset; /* non-NULL: cdyn_eval_pairs on these pairs */
} run_ctx;

static int run(void *p)
{
    run_ctx *c = p;
    /* every sphere moves 1 mm along x and back, alternating */
    const double dx = (c->k++ % 2 == 0 ? 1e-3 : -1e-3);
    for (int i = 0; i < c->n; ++i)
        c->q[7 * i] += (i % 2 == 0 ? dx : -dx);
    return (int)cdyn_eval_pairs(c->m, c->d, c->q, NULL, CDYN_EVAL_CONTACTS, c->subset, NULL);
}

/* With the broad phase, also the time of the narrow phase alone on the same pairs (tn): those
 * whose rows the broad phase did not mark as skipped (gap = the double after the margin). */
static void measure(int n, int broad, double *t, double *tn, int *evaluated, int *npair,
                    double *mb)
{
    cdyn_model *m = pile(n, broad);
    cdyn_data_options dopt;
    cdyn_data_defaults(&dopt);
    dopt.dense = 0; /* dense Jacobians would be 3 n_c n_v doubles */
    dopt.allocator = &COUNTING;
    cdyn_data *d = NULL;
    if (m == NULL || cdyn_data_create(m, &dopt, &d, NULL) != CDYN_OK) {
        *t = NAN;
        cdyn_model_free(m);
        return;
    }
    *mb = live_bytes / 1e6; /* model and data: the builder is freed */
    run_ctx c = {m, d, malloc(sizeof(double) * (size_t)cdyn_model_nq(m)), n, 0, NULL};
    cdyn_model_default_q(m, c.q);
    run(&c);
    bench_budget bud = {1.0, 3, 30};
    bench_timing tm;
    bench_time(run, &c, &bud, &tm);
    *t = tm.median;
    *evaluated = cdyn_data_pairs_evaluated(d);
    *npair = cdyn_model_npair(m);
    if (broad) {
        int *sub = malloc(sizeof(int) * (size_t)*npair);
        for (int p = 0; p < *npair; ++p) {
            cdyn_pair_info pi;
            cdyn_model_pair_info(m, p, &pi);
            sub[p] = !(cdyn_data_gap(d)[pi.row] == nextafter(pi.margin, INFINITY));
        }
        c.subset = sub;
        bench_time(run, &c, &bud, &tm);
        *tn = tm.median;
        free(sub);
    }
    free(c.q);
    cdyn_data_free(d);
    cdyn_model_free(m);
}

int main(int argc, char **argv)
{
    int ns[16] = {100, 300, 1000}, nn = 3;
    if (argc > 1) {
        nn = 0;
        for (int i = 1; i < argc && nn < 16; ++i)
            ns[nn++] = atoi(argv[i]);
    }
    printf("| spheres | pairs | evaluated (broad) | eval, broad phase | narrow phase alone "
           "(same pairs) | eval, all pairs | speed-up | model + data |\n"
           "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < nn; ++i) {
        double ton, tnar = NAN, toff, dummy, mb_on = 0, mb_off = 0;
        int ev_on = 0, ev_off = 0, np = 0;
        measure(ns[i], 1, &ton, &tnar, &ev_on, &np, &mb_on);
        measure(ns[i], 0, &toff, &dummy, &ev_off, &np, &mb_off);
        printf("| %d | %d | %d | %.3g ms | %.3g ms | %.3g ms | %.0fx | %.0f MB |\n", ns[i], np,
               ev_on, 1e3 * ton, 1e3 * tnar, 1e3 * toff, toff / ton, mb_on);
        fflush(stdout);
    }
    return 0;
}
