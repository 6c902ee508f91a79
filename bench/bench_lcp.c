/* bench_lcp: cdyn's Lemke against Siconos Numerics' lexicographic Lemke on the same problems,
 * in the same process, from the same arrays. Prints a Markdown table (and optionally a CSV).
 *
 * Problems (bench_common.h): (a) the LCP fixtures tests/data/lcp_*.dat (read with cdyn's
 *           reader), (b) random SPD LCPs, (c) Anitescu-Potra friction-pyramid LCPs from random
 *           Delassus matrices (generators of tests/lcp_problems.h, fixed seed).
 * Usage: bench_lcp [--csv PATH] [--data DIR] [--seed S] [--max-n N] [--min-time SEC]
 *                  [--min-runs K] [--max-runs K] */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

/* ---- running one problem ------------------------------------------------------------- */

static int default_max_pivots(int n)
{
    return 50 * (n + 1); /* cdyn_lemke's documented default; Siconos gets the same limit */
}

static void run_cdyn(const bench_problem *p, const bench_config *cfg, int use_solve, double *z,
                     double *w, bench_outcome *o)
{
    bench_cdyn_call c = {.lcp = &p->lcp, .z = z, .w = w};
    cdyn_lemke_defaults(&c.lemke);
    cdyn_lcp_defaults(&c.solve);
    int st = bench_time(use_solve ? bench_call_solve : bench_call_lemke, &c, &cfg->budget,
                        &o->time);
    o->claimed_ok = st == CDYN_OK;
    o->iterations = c.report.iterations;
    snprintf(o->method, sizeof o->method, "%s", c.report.method);
    snprintf(o->status, sizeof o->status, "%s",
             o->claimed_ok ? "ok" : bench_status_name((cdyn_status)st));
    bench_judge(&p->lcp, z, o);
    if (!o->claimed_ok)
        o->residual = NAN; /* cdyn leaves z untouched on failure: there is no answer to measure */
}

static int run_siconos(const bench_problem *p, const bench_config *cfg, double *z, double *w,
                       bench_outcome *o)
{
    const int n = p->lcp.n, limit = default_max_pivots(n);
    bench_siconos_call c = {.n = n, .z = z, .w = w};
    c.solver = siconos_lcp_create(n, p->lcp.M, p->lcp.q, limit);
    if (c.solver == NULL)
        return -1;
    const int token = stdout_silence();
    const int info = bench_time(bench_call_siconos, &c, &cfg->budget, &o->time);
    stdout_restore(token);
    const double error = siconos_lcp_error(c.solver);
    siconos_lcp_free(c.solver);
    o->claimed_ok = info == 0;
    o->iterations = c.iterations;
    /* On failure, Siconos' own error measure helps tell a ray from a rejected answer. */
    if (o->claimed_ok)
        snprintf(o->status, sizeof o->status, "ok");
    else if (c.iterations >= limit)
        snprintf(o->status, sizeof o->status, "info=%d, pivot limit", info);
    else
        snprintf(o->status, sizeof o->status, "info=%d, error %.1e", info, error);
    bench_judge(&p->lcp, z, o);
    return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

typedef struct family_summary {
    int problems, cdyn_ok, siconos_ok;
    bench_ratios ratio; /* Siconos / cdyn Lemke, where both are accepted */
} family_summary;

static void print_row(const bench_problem *p, const bench_outcome *lemke,
                      const bench_outcome *solve, const bench_outcome *sic)
{
    char t1[32], t2[32], t3[32], r1[32], r3[32], st1[160], st2[160], st3[160], ratio[32];
    bench_fmt_ms(t1, sizeof t1, lemke->time.median);
    bench_fmt_ms(t2, sizeof t2, solve->time.median);
    bench_fmt_ms(t3, sizeof t3, sic->time.median);
    bench_fmt_res(r1, sizeof r1, lemke->residual);
    bench_fmt_res(r3, sizeof r3, sic->residual);
    snprintf(st1, sizeof st1, "%s", lemke->status);
    bench_mark(st1, sizeof st1, lemke);
    snprintf(st2, sizeof st2, "%s%s%s%s", solve->status, solve->method[0] ? " (" : "",
             solve->method, solve->method[0] ? ")" : "");
    bench_mark(st2, sizeof st2, solve);
    snprintf(st3, sizeof st3, "%s", sic->status);
    bench_mark(st3, sizeof st3, sic);
    if (lemke->accepted && sic->accepted)
        snprintf(ratio, sizeof ratio, "%.2f", sic->time.median / lemke->time.median);
    else
        snprintf(ratio, sizeof ratio, "n/a");
    printf("| %s | %d | %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n", p->name,
           p->lcp.n, st1, lemke->iterations, r1, t1, st2, t2, st3, sic->iterations, r3, t3, ratio);
}

/* ---- driver ------------------------------------------------------------------------------ */

typedef struct bench_state {
    const bench_config *cfg;
    FILE *csv;
    family_summary fam[BENCH_FAMILIES];
    int errors;
} bench_state;

static void run_one(void *ctx, const bench_problem *p)
{
    bench_state *st = ctx;
    family_summary *fs = &st->fam[p->family];
    const int n = p->lcp.n;
    double *z = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
    bench_guard guard = {0};
    if (z == NULL || w == NULL || bench_guard_take(&guard, &p->lcp) != 0) {
        fprintf(stderr, "bench_lcp: out of memory for %s\n", p->name);
        ++st->errors;
        goto done;
    }

    bench_outcome lemke = {0}, solve = {0}, sic = {0};
    run_cdyn(p, st->cfg, 0, z, w, &lemke);
    run_cdyn(p, st->cfg, 1, z, w, &solve);
    if (run_siconos(p, st->cfg, z, w, &sic) != 0) {
        fprintf(stderr, "bench_lcp: could not set up Siconos for %s\n", p->name);
        ++st->errors;
        goto done;
    }
    if (!bench_guard_intact(&guard, &p->lcp)) {
        fprintf(stderr, "bench_lcp: a solver modified the problem data of %s\n", p->name);
        ++st->errors;
    }
    print_row(p, &lemke, &solve, &sic);
    fflush(stdout);
    bench_csv_row(st->csv, p, "cdyn_lemke", &lemke);
    bench_csv_row(st->csv, p, "cdyn_lcp_solve", &solve);
    bench_csv_row(st->csv, p, "siconos_lexicolemke", &sic);

    fs->problems++;
    fs->cdyn_ok += lemke.accepted;
    fs->siconos_ok += sic.accepted;
    if (lemke.accepted && sic.accepted)
        bench_ratios_add(&fs->ratio, sic.time.median / lemke.time.median);
done:
    free(z);
    free(w);
    bench_guard_free(&guard);
}

static void print_header(const bench_config *cfg)
{
    printf("Same process, same problem arrays for both solvers; seed %llu; median wall time of "
           "repeated runs (until %.2g s in total and at least %d runs, at most %d); "
           "OPENBLAS_NUM_THREADS=1.\n\n",
           (unsigned long long)cfg->seed, cfg->budget.min_time, cfg->budget.min_runs,
           cfg->budget.max_runs);
    printf("- **cdyn Lemke**: `cdyn_lemke` with `cdyn_lemke_defaults` (pivot limit 50(n+1)); "
           "**cdyn_lcp_solve**: the default entry point with fallbacks (method that produced the "
           "answer in brackets).\n");
    printf("- **Siconos**: `linearComplementarity_driver` with `solver_options_create"
           "(SICONOS_LCP_LEMKE)` (= `lcp_lexicolemke`), defaults except the pivot limit "
           "`iparam[SICONOS_IPARAM_MAX_ITER]` = 50(n+1); its `info` includes the driver's own "
           "`lcp_compute_error` check (tolerance `dparam[0]` = 1e-6; on failure its error "
           "`dparam[SICONOS_DPARAM_RESIDU]` is shown). Siconos' pivot count "
           "(`iparam[SICONOS_IPARAM_ITER_DONE]`) omits the first pivot (artificial variable "
           "entering).\n");
    printf("- **residual** = ||min(z, Mz+q)||∞ computed by `cdyn_lcp_residual` on each solver's "
           "z. A result is *accepted* when the solver reports success and residual ≤ %.0e·(||q||∞ "
           "+ ||M||∞·||z||∞); \"residual rejected\" marks claimed successes that fail this test. "
           "— = no solution returned.\n",
           BENCH_ACCEPT_TOL);
    printf("- **ratio** = Siconos time / cdyn Lemke time (> 1: cdyn faster), shown when both "
           "are accepted.\n");
    printf("- Problems: `fixtures` = tests/data/lcp_*.dat (Siconos test set); `spd_n` = "
           "`lcpgen_spd`; `pyramid_ncK` = `lcpgen_pyramid` (K contacts, 4 directions, n = 6K, "
           "mu = %.2g).\n\n",
           BENCH_PYRAMID_MU);
    printf("| problem | n | cdyn Lemke | pivots | residual | ms | cdyn_lcp_solve | ms | Siconos "
           "| pivots | residual | ms | ratio |\n");
    printf("|---|---:|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|\n");
}

static void print_summary(const bench_state *st, const bench_family *families, int count)
{
    printf("\n| family | problems | accepted cdyn | accepted Siconos | ratio geo. mean "
           "(min–max) |\n|---|---:|---:|---:|---|\n");
    for (int i = 0; i < count; ++i) {
        const family_summary *fs = &st->fam[families[i]];
        if (fs->problems == 0)
            continue;
        char ratio[64];
        bench_ratios_fmt(ratio, sizeof ratio, &fs->ratio);
        printf("| %s | %d | %d | %d | %s |\n", bench_family_name(families[i]), fs->problems,
               fs->cdyn_ok, fs->siconos_ok, ratio);
    }
}

int main(int argc, char **argv)
{
    if (bench_single_threaded_blas(argv) != 0)
        return 2;
    bench_config cfg;
    bench_config_defaults(&cfg);
    if (bench_parse_args(argc, argv, &cfg) != 0)
        return 2;

    bench_state st = {.cfg = &cfg};
    if (cfg.csv_path != NULL) {
        st.csv = fopen(cfg.csv_path, "w");
        if (st.csv == NULL) {
            fprintf(stderr, "bench_lcp: cannot write %s: %s\n", cfg.csv_path, strerror(errno));
            return 2;
        }
        bench_csv_header(st.csv);
    }

    static const bench_family families[] = {BENCH_FIXTURES, BENCH_SPD, BENCH_PYRAMID};
    const int count = (int)(sizeof families / sizeof families[0]);
    print_header(&cfg);
    st.errors += bench_for_each_problem(&cfg, families, count, run_one, &st);
    print_summary(&st, families, count);

    if (st.csv != NULL)
        fclose(st.csv);
    if (st.errors > 0)
        fprintf(stderr, "bench_lcp: %d harness error(s), see above\n", st.errors);
    return st.errors > 0 ? 1 : 0;
}
