/* Boundary-value problems: time against the number of steps for the sliding-to-rolling disk
 * (examples/disk_slide_roll.c): v0 with x(T) = 0.02 m, N = 50 ... 2000 from the naive guess
 * v0 = 0, with grid continuation (the default) and, up to N = 200, from the IVP guess alone.
 *
 * Usage: bench_bvp [--csv FILE]. Prints the Markdown tables of docs/benchmarks.md. Single runs
 * (a BVP takes from milliseconds to seconds; the spread of repeated runs is a few percent). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_timer.h"
#include "cdyn/cdyn.h"

static cdyn_model *disk(void)
{
    cdyn_builder_options bo;
    cdyn_builder_defaults(&bo, 2);
    cdyn_builder *b = NULL;
    cdyn_model *m = NULL;
    if (cdyn_builder_create(&bo, &b, NULL) != CDYN_OK)
        return NULL;
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = 0.1;
    d.inertia[2] = 5e-4;
    cdyn_geom_desc l, c;
    cdyn_geom_desc_defaults(&l);
    cdyn_geom_desc_defaults(&c);
    c.type = CDYN_GEOM_CIRCLE;
    c.size[0] = 0.1;
    cdyn_contact_pair_desc pd;
    cdyn_contact_pair_desc_defaults(&pd);
    pd.mu = 4;
    pd.stiffness[0] = pd.stiffness[4] = 1e6;
    int body, id;
    if (cdyn_builder_add_body(b, &d, &body, NULL) == CDYN_OK &&
        (c.body = body, cdyn_builder_add_geom(b, &l, &pd.geom_a, NULL)) == CDYN_OK &&
        cdyn_builder_add_geom(b, &c, &pd.geom_b, NULL) == CDYN_OK &&
        cdyn_builder_add_contact_pair(b, &pd, &id, NULL) == CDYN_OK)
        cdyn_builder_build(b, &m, NULL);
    cdyn_builder_free(b);
    return m;
}

static cdyn_state **new_traj(const cdyn_model *m, int N)
{
    cdyn_state **t = calloc((size_t)N + 1, sizeof *t);
    for (int l = 0; t != NULL && l <= N; l++)
        if (cdyn_state_create(m, NULL, &t[l], NULL) != CDYN_OK)
            return NULL;
    return t;
}

static void free_traj(cdyn_state **t, int N)
{
    for (int l = 0; t != NULL && l <= N; l++)
        cdyn_state_free(t[l]);
    free(t);
}

typedef struct run {
    cdyn_status st;
    double seconds, v0;
    int unknowns, iterations;
} run;

static run disk_bvp(const cdyn_model *m, int N, int grid)
{
    run out = {CDYN_ENOMEM, 0, NAN, 0, 0};
    cdyn_state **traj = new_traj(m, N);
    if (traj == NULL)
        return out;
    const double dn = 0.1 * 9.81 / 1e6;
    traj[0]->q[1] = 0.1 - dn;
    traj[0]->v[2] = 1.0;
    traj[0]->delta[0] = dn;
    traj[0]->lambda[0] = 0.1 * 9.81;
    const int fixed0[8] = {1, 1, 1, 0, 1, 1, 1, 1}, fixedN[8] = {1, 0, 0, 0, 0, 0, 0, 0};
    double value0[8], valueN[8] = {0.02, 0, 0, 0, 0, 0, 0, 0};
    cdyn_bvp_state_pack(m, traj[0], value0);
    cdyn_bvp_conditions bc = {fixed0, fixedN, value0, valueN, 0, NULL, NULL, NULL, NULL};
    cdyn_bvp_options o;
    cdyn_bvp_defaults(&o);
    o.N = N;
    o.step.h = 0.022 / N;
    o.step.mcp.max_iter = 500;
    o.grid_continuation = grid;
    cdyn_bvp_report rep;
    const double t0 = bench_now();
    out.st = cdyn_bvp_solve(m, &o, &bc, traj, &rep);
    out.seconds = bench_now() - t0;
    out.v0 = traj[0]->v[0];
    out.unknowns = rep.unknowns;
    out.iterations = rep.solver.iterations + rep.guess_iterations;
    free_traj(traj, N);
    return out;
}

int main(int argc, char **argv)
{
    FILE *csv = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
            csv = fopen(argv[++i], "w");
            if (csv == NULL) {
                fprintf(stderr, "bench_bvp: cannot write %s\n", argv[i]);
                return 1;
            }
        } else {
            fprintf(stderr, "usage: bench_bvp [--csv FILE]\n");
            return 2;
        }
    }
    cdyn_model *m = disk();
    if (m == NULL) {
        fprintf(stderr, "bench_bvp: model\n");
        return 1;
    }
    if (csv != NULL)
        fprintf(csv, "problem,N,grid,status,seconds,unknowns,iterations,v0\n");
    printf("### Disk BVP: time against N (from v0 = 0)\n\n");
    printf("| N | unknowns | with grid continuation: time | Newton iterations (all levels) | "
           "v0 (m/s) | from the IVP guess: time | iterations |\n|---|---|---|---|---|---|---|\n");
    static const int Ns[] = {50, 100, 200, 500, 1000, 2000};
    double lx[6], ly[6];
    int np = 0;
    for (size_t i = 0; i < sizeof Ns / sizeof Ns[0]; i++) {
        const int N = Ns[i];
        const run g = disk_bvp(m, N, 1);
        /* without the grid only up to 200: beyond, it does not finish in minutes */
        const run p = N <= 200 ? disk_bvp(m, N, 0) : (run){CDYN_ENOCONV, NAN, NAN, 0, 0};
        char pt[64], pi[32];
        if (N <= 200 && p.st == CDYN_OK) {
            snprintf(pt, sizeof pt, "%.3f s", p.seconds);
            snprintf(pi, sizeof pi, "%d", p.iterations);
        } else {
            snprintf(pt, sizeof pt, "%s", N <= 200 ? cdyn_status_str(p.st) : "not run (minutes)");
            snprintf(pi, sizeof pi, "—");
        }
        if (g.st == CDYN_OK) {
            printf("| %d | %d | %.3f s | %d | %.6f | %s | %s |\n", N, g.unknowns, g.seconds,
                   g.iterations, g.v0, pt, pi);
            lx[np] = log((double)N);
            ly[np++] = log(g.seconds);
        } else {
            printf("| %d | | %s | | | %s | %s |\n", N, cdyn_status_str(g.st), pt, pi);
        }
        if (csv != NULL)
            fprintf(csv, "disk,%d,1,%d,%.6f,%d,%d,%.8f\n", N, (int)g.st, g.seconds, g.unknowns,
                    g.iterations, g.v0);
    }
    double mx = 0, my = 0, sxx = 0, sxy = 0;
    for (int i = 0; i < np; i++)
        mx += lx[i] / np, my += ly[i] / np;
    for (int i = 0; i < np; i++)
        sxx += (lx[i] - mx) * (lx[i] - mx), sxy += (lx[i] - mx) * (ly[i] - my);
    if (np >= 2)
        printf("\nLeast-squares exponent of time ∝ N^p with grid continuation: p = %.2f "
               "(%d sizes).\n\n", sxy / sxx, np);
    cdyn_model_free(m);
    if (csv != NULL)
        fclose(csv);
    return 0;
}
