/* bench_lcp: cdyn's Lemke against Siconos Numerics' lexicographic Lemke on the same problems,
 * in the same process, from the same arrays. Prints a Markdown table (and optionally a CSV).
 *
 * Problems: (a) the LCP fixtures tests/data/lcp_*.dat (read with cdyn's reader),
 *           (b) random SPD LCPs, (c) Anitescu-Potra friction-pyramid LCPs from random Delassus
 *           matrices (generators of tests/lcp_problems.h, fixed seed).
 * Usage: bench_lcp [--csv PATH] [--data DIR] [--seed S] [--max-n N] [--min-time SEC]
 *                  [--min-runs K] [--max-runs K] */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_timer.h"
#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "lcp_problems.h"
#include "siconos_lcp.h"
#include "support.h"

#ifndef CDYN_BENCH_DATA_DIR
#define CDYN_BENCH_DATA_DIR "tests/data"
#endif

/* A solution is accepted when the solver says so AND the common residual is small relative to
   the data: ||min(z, Mz+q)||_inf <= ACCEPT_TOL * (||q||_inf + ||M||_inf ||z||_inf). */
#define ACCEPT_TOL 1e-8
#define PYRAMID_MU 0.5
#define MAX_FIXTURES 256

typedef struct bench_config {
    const char *csv_path;
    const char *data_dir;
    uint64_t seed;
    int max_n;
    bench_budget budget;
} bench_config;

/* One problem, owned arrays or borrowed from a fixture file. */
typedef struct problem {
    char family[16];
    char name[64];
    cdyn_lcp lcp;
    double *owned_M, *owned_q;
    cdyn_lcp_file *file;
} problem;

/* What one solver did on one problem. */
typedef struct outcome {
    char status[48]; /* short text for the table */
    int claimed_ok;  /* the solver reported success */
    int accepted;    /* claimed_ok and the common residual test passed */
    int pivots;
    double residual; /* cdyn_lcp_residual of the solver's z */
    char method[32]; /* cdyn_lcp_solve only */
    bench_timing time;
} outcome;

/* ---- solver calls under the timer ---------------------------------------------------- */

typedef struct cdyn_call {
    const cdyn_lcp *lcp;
    cdyn_lemke_options lemke;
    cdyn_lcp_options solve;
    double *z, *w;
    cdyn_report report;
} cdyn_call;

static int call_cdyn_lemke(void *ctx)
{
    cdyn_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->lcp->n);
    return (int)cdyn_lemke(c->lcp, &c->lemke, c->z, c->w, &c->report);
}

static int call_cdyn_solve(void *ctx)
{
    cdyn_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->lcp->n);
    return (int)cdyn_lcp_solve(c->lcp, &c->solve, c->z, c->w, &c->report);
}

typedef struct siconos_call {
    siconos_lcp *solver;
    int n;
    double *z, *w;
    int pivots;
} siconos_call;

static int call_siconos(void *ctx)
{
    siconos_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->n);
    return siconos_lcp_solve(c->solver, c->z, c->w, &c->pivots);
}

/* ---- residual and acceptance -------------------------------------------------------- */

static double norm_inf(int n, const double *x)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i)
        r = fmax(r, fabs(x[i]));
    return r;
}

static double matrix_norm_inf(int n, const double *M)
{
    double r = 0.0;
    for (int i = 0; i < n; ++i) {
        double s = 0.0;
        for (int j = 0; j < n; ++j)
            s += fabs(M[i + (size_t)j * n]);
        r = fmax(r, s);
    }
    return r;
}

static void judge(const cdyn_lcp *lcp, const double *z, outcome *o)
{
    o->residual = cdyn_lcp_residual(lcp, z);
    const double scale =
        norm_inf(lcp->n, lcp->q) + matrix_norm_inf(lcp->n, lcp->M) * norm_inf(lcp->n, z);
    o->accepted = o->claimed_ok && isfinite(o->residual) && o->residual <= ACCEPT_TOL * scale;
}

/* The enum name without its CDYN_ prefix, e.g. "ERAY" (shorter than cdyn_status_str). */
static const char *cdyn_status_name(cdyn_status s)
{
    const char *name = "unknown";
    switch (s) {
#define NAME_(id, value, text)                                                                     \
    case id:                                                                                       \
        name = #id;                                                                                \
        break;
        CDYN_STATUS_LIST(NAME_)
#undef NAME_
    }
    return strncmp(name, "CDYN_", 5) == 0 ? name + 5 : name;
}

/* ---- running one problem ------------------------------------------------------------- */

static int default_max_pivots(int n)
{
    return 50 * (n + 1); /* cdyn_lemke's documented default; Siconos gets the same limit */
}

static void run_cdyn(const problem *p, const bench_config *cfg, int use_solve, double *z, double *w,
                     outcome *o)
{
    cdyn_call c = {.lcp = &p->lcp, .z = z, .w = w};
    cdyn_lemke_defaults(&c.lemke);
    cdyn_lcp_defaults(&c.solve);
    int st = bench_time(use_solve ? call_cdyn_solve : call_cdyn_lemke, &c, &cfg->budget, &o->time);
    o->claimed_ok = st == CDYN_OK;
    o->pivots = c.report.iterations;
    snprintf(o->method, sizeof o->method, "%s", c.report.method);
    snprintf(o->status, sizeof o->status, "%s",
             o->claimed_ok ? "ok" : cdyn_status_name((cdyn_status)st));
    judge(&p->lcp, z, o);
    if (!o->claimed_ok)
        o->residual = NAN; /* cdyn leaves z untouched on failure: there is no answer to measure */
}

static int run_siconos(const problem *p, const bench_config *cfg, double *z, double *w, outcome *o)
{
    const int n = p->lcp.n, limit = default_max_pivots(n);
    siconos_call c = {.n = n, .z = z, .w = w};
    c.solver = siconos_lcp_create(n, p->lcp.M, p->lcp.q, limit);
    if (c.solver == NULL)
        return -1;
    const int token = stdout_silence();
    const int info = bench_time(call_siconos, &c, &cfg->budget, &o->time);
    stdout_restore(token);
    const double error = siconos_lcp_error(c.solver);
    siconos_lcp_free(c.solver);
    o->claimed_ok = info == 0;
    o->pivots = c.pivots;
    /* On failure, Siconos' own error measure helps tell a ray from a rejected answer. */
    if (o->claimed_ok)
        snprintf(o->status, sizeof o->status, "ok");
    else if (c.pivots >= limit)
        snprintf(o->status, sizeof o->status, "info=%d, pivot limit", info);
    else
        snprintf(o->status, sizeof o->status, "info=%d, error %.1e", info, error);
    judge(&p->lcp, z, o);
    return 0;
}

/* ---- output ---------------------------------------------------------------------------- */

static void fmt_ms(char *buf, size_t size, double seconds)
{
    const double ms = 1e3 * seconds;
    int decimals = ms > 0.0 ? 2 - (int)floor(log10(ms)) : 2;
    decimals = decimals < 0 ? 0 : decimals > 5 ? 5 : decimals;
    snprintf(buf, size, "%.*f", decimals, ms);
}

static void fmt_res(char *buf, size_t size, double r)
{
    if (isnan(r))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.1e", r);
}

static void mark(char *buf, size_t size, const outcome *o)
{
    /* Claimed success that fails the common residual test is flagged, not hidden. */
    if (o->claimed_ok && !o->accepted) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, " (residual rejected)");
    }
}

typedef struct family_summary {
    char family[16];
    int problems, cdyn_ok, siconos_ok, both;
    double log_ratio_sum, ratio_min, ratio_max;
} family_summary;

static void print_row(const problem *p, const outcome *lemke, const outcome *solve,
                      const outcome *sic)
{
    char t1[32], t2[32], t3[32], r1[32], r3[32], st1[96], st2[96], st3[96], ratio[32];
    fmt_ms(t1, sizeof t1, lemke->time.median);
    fmt_ms(t2, sizeof t2, solve->time.median);
    fmt_ms(t3, sizeof t3, sic->time.median);
    fmt_res(r1, sizeof r1, lemke->residual);
    fmt_res(r3, sizeof r3, sic->residual);
    snprintf(st1, sizeof st1, "%s", lemke->status);
    mark(st1, sizeof st1, lemke);
    snprintf(st2, sizeof st2, "%s%s%s%s", solve->status, solve->method[0] ? " (" : "",
             solve->method, solve->method[0] ? ")" : "");
    mark(st2, sizeof st2, solve);
    snprintf(st3, sizeof st3, "%s", sic->status);
    mark(st3, sizeof st3, sic);
    if (lemke->accepted && sic->accepted)
        snprintf(ratio, sizeof ratio, "%.2f", sic->time.median / lemke->time.median);
    else
        snprintf(ratio, sizeof ratio, "n/a");
    printf("| %s | %d | %s | %d | %s | %s | %s | %s | %s | %d | %s | %s | %s |\n", p->name,
           p->lcp.n, st1, lemke->pivots, r1, t1, st2, t2, st3, sic->pivots, r3, t3, ratio);
}

static void csv_row(FILE *csv, const problem *p, const char *solver, const outcome *o)
{
    if (csv == NULL)
        return;
    fprintf(csv, "%s,%s,%d,%s,%s,%d,%d,%d,%.3e,%.9e,%.9e,%d\n", p->family, p->name, p->lcp.n,
            solver, o->status, o->claimed_ok, o->accepted, o->pivots, o->residual, o->time.median,
            o->time.min, o->time.runs);
}

/* ---- problem sets ---------------------------------------------------------------------- */

static void problem_free(problem *p)
{
    free(p->owned_M);
    free(p->owned_q);
    cdyn_lcp_file_free(p->file);
    memset(p, 0, sizeof *p);
}

static int alloc_problem(problem *p, int n)
{
    p->owned_M = malloc(sizeof(double) * (size_t)n * (size_t)n);
    p->owned_q = malloc(sizeof(double) * (size_t)n);
    if (p->owned_M == NULL || p->owned_q == NULL)
        return -1;
    p->lcp.n = n;
    p->lcp.M = p->owned_M;
    p->lcp.q = p->owned_q;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of lcp_*.dat names in dir; returns the count or -1. */
static int list_fixtures(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < max) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "lcp_", 4) == 0 && len > 4 &&
            strcmp(e->d_name + len - 4, ".dat") == 0)
            names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], cmp_str);
    return count;
}

/* ---- driver ------------------------------------------------------------------------------ */

typedef struct bench_state {
    const bench_config *cfg;
    FILE *csv;
    family_summary fam[3];
    int errors;
} bench_state;

static void run_one(bench_state *st, problem *p, family_summary *fs)
{
    const int n = p->lcp.n;
    const size_t nn = (size_t)n * (size_t)n;
    double *z = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * (size_t)n);
    double *Mcopy = malloc(sizeof(double) * nn), *qcopy = malloc(sizeof(double) * (size_t)n);
    if (z == NULL || w == NULL || Mcopy == NULL || qcopy == NULL) {
        fprintf(stderr, "bench_lcp: out of memory for %s\n", p->name);
        ++st->errors;
        goto done;
    }
    memcpy(Mcopy, p->lcp.M, sizeof(double) * nn);
    memcpy(qcopy, p->lcp.q, sizeof(double) * (size_t)n);

    outcome lemke = {0}, solve = {0}, sic = {0};
    run_cdyn(p, st->cfg, 0, z, w, &lemke);
    run_cdyn(p, st->cfg, 1, z, w, &solve);
    if (run_siconos(p, st->cfg, z, w, &sic) != 0) {
        fprintf(stderr, "bench_lcp: could not set up Siconos for %s\n", p->name);
        ++st->errors;
        goto done;
    }
    if (memcmp(Mcopy, p->lcp.M, sizeof(double) * nn) != 0 ||
        memcmp(qcopy, p->lcp.q, sizeof(double) * (size_t)n) != 0) {
        fprintf(stderr, "bench_lcp: a solver modified the problem data of %s\n", p->name);
        ++st->errors;
    }
    print_row(p, &lemke, &solve, &sic);
    fflush(stdout);
    csv_row(st->csv, p, "cdyn_lemke", &lemke);
    csv_row(st->csv, p, "cdyn_lcp_solve", &solve);
    csv_row(st->csv, p, "siconos_lexicolemke", &sic);

    fs->problems++;
    fs->cdyn_ok += lemke.accepted;
    fs->siconos_ok += sic.accepted;
    if (lemke.accepted && sic.accepted) {
        const double r = sic.time.median / lemke.time.median;
        fs->log_ratio_sum += log(r);
        fs->ratio_min = fs->both ? fmin(fs->ratio_min, r) : r;
        fs->ratio_max = fs->both ? fmax(fs->ratio_max, r) : r;
        fs->both++;
    }
done:
    free(z);
    free(w);
    free(Mcopy);
    free(qcopy);
}

static void run_fixtures(bench_state *st)
{
    family_summary *fs = &st->fam[0];
    snprintf(fs->family, sizeof fs->family, "fixtures");
    char *names[MAX_FIXTURES];
    int count = list_fixtures(st->cfg->data_dir, names, MAX_FIXTURES);
    if (count <= 0) {
        fprintf(stderr, "bench_lcp: no lcp_*.dat in %s\n", st->cfg->data_dir);
        ++st->errors;
        return;
    }
    for (int k = 0; k < count; ++k) {
        problem p = {0};
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", st->cfg->data_dir, names[k]);
        snprintf(p.family, sizeof p.family, "fixtures");
        snprintf(p.name, sizeof p.name, "%.*s", (int)(strlen(names[k]) - 4), names[k]);
        cdyn_report rep;
        cdyn_status s = cdyn_lcp_file_read(path, NULL, &p.file, &rep);
        if (s != CDYN_OK) {
            fprintf(stderr, "bench_lcp: %s: %s (%s)\n", path, cdyn_status_str(s), rep.message);
            ++st->errors;
        } else {
            p.lcp = cdyn_lcp_file_problem(p.file);
            if (p.lcp.n <= st->cfg->max_n)
                run_one(st, &p, fs);
        }
        problem_free(&p);
        free(names[k]);
    }
}

static void run_generated(bench_state *st, int family)
{
    static const int spd_n[] = {10, 30, 100, 300, 1000};
    static const int pyramid_nc[] = {5, 17, 50, 100, 166};
    family_summary *fs = &st->fam[family];
    snprintf(fs->family, sizeof fs->family, family == 1 ? "spd" : "pyramid");
    for (int k = 0; k < 5; ++k) {
        problem p = {0};
        const int n = family == 1 ? spd_n[k] : lcpgen_pyramid_size(pyramid_nc[k]);
        if (n > st->cfg->max_n)
            continue;
        if (alloc_problem(&p, n) != 0) {
            fprintf(stderr, "bench_lcp: out of memory for n = %d\n", n);
            ++st->errors;
            problem_free(&p);
            continue;
        }
        /* One seed per problem, so a problem does not depend on which others ran. */
        test_rng rng;
        test_rng_seed(&rng, st->cfg->seed * 1000u + (uint64_t)(100 * family + k));
        snprintf(p.family, sizeof p.family, "%s", fs->family);
        if (family == 1) {
            lcpgen_spd(&rng, n, p.owned_M, p.owned_q);
            snprintf(p.name, sizeof p.name, "spd_%d", n);
        } else {
            lcpgen_pyramid(&rng, pyramid_nc[k], PYRAMID_MU, p.owned_M, p.owned_q);
            snprintf(p.name, sizeof p.name, "pyramid_nc%d", pyramid_nc[k]);
        }
        run_one(st, &p, fs);
        problem_free(&p);
    }
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
           ACCEPT_TOL);
    printf("- **ratio** = Siconos time / cdyn Lemke time (> 1: cdyn faster), shown when both "
           "are accepted.\n");
    printf("- Problems: `fixtures` = tests/data/lcp_*.dat (Siconos test set); `spd_n` = "
           "`lcpgen_spd`; `pyramid_ncK` = `lcpgen_pyramid` (K contacts, 4 directions, n = 6K, "
           "mu = %.2g).\n\n",
           PYRAMID_MU);
    printf("| problem | n | cdyn Lemke | pivots | residual | ms | cdyn_lcp_solve | ms | Siconos "
           "| pivots | residual | ms | ratio |\n");
    printf("|---|---:|---|---:|---:|---:|---|---:|---|---:|---:|---:|---:|\n");
}

static void print_summary(const bench_state *st)
{
    printf("\n| family | problems | accepted cdyn | accepted Siconos | ratio geo. mean "
           "(min–max) |\n|---|---:|---:|---:|---|\n");
    for (int f = 0; f < 3; ++f) {
        const family_summary *fs = &st->fam[f];
        if (fs->problems == 0)
            continue;
        if (fs->both > 0)
            printf("| %s | %d | %d | %d | %.2f (%.2f–%.2f) |\n", fs->family, fs->problems,
                   fs->cdyn_ok, fs->siconos_ok, exp(fs->log_ratio_sum / fs->both), fs->ratio_min,
                   fs->ratio_max);
        else
            printf("| %s | %d | %d | %d | n/a |\n", fs->family, fs->problems, fs->cdyn_ok,
                   fs->siconos_ok);
    }
}

static int parse_args(int argc, char **argv, bench_config *cfg)
{
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return -1;
        if (strcmp(a, "--csv") == 0)
            cfg->csv_path = v;
        else if (strcmp(a, "--data") == 0)
            cfg->data_dir = v;
        else if (strcmp(a, "--seed") == 0)
            cfg->seed = strtoull(v, NULL, 10);
        else if (strcmp(a, "--max-n") == 0)
            cfg->max_n = atoi(v);
        else if (strcmp(a, "--min-time") == 0)
            cfg->budget.min_time = atof(v);
        else if (strcmp(a, "--min-runs") == 0)
            cfg->budget.min_runs = atoi(v);
        else if (strcmp(a, "--max-runs") == 0)
            cfg->budget.max_runs = atoi(v);
        else
            return -1;
        ++i;
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* OpenBLAS reads OPENBLAS_NUM_THREADS when it is loaded, before main: if it is not 1,
       set it and restart this program so that every BLAS call is single-threaded. */
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    if (threads == NULL || strcmp(threads, "1") != 0) {
        setenv("OPENBLAS_NUM_THREADS", "1", 1);
        execv("/proc/self/exe", argv);
        fprintf(stderr,
                "bench_lcp: cannot restart with OPENBLAS_NUM_THREADS=1 (%s); set it in "
                "the environment\n",
                strerror(errno));
        return 2;
    }

    bench_config cfg = {.data_dir = CDYN_BENCH_DATA_DIR,
                        .seed = 20260812u,
                        .max_n = 1000000,
                        .budget = {.min_time = 0.3, .min_runs = 3, .max_runs = BENCH_MAX_RUNS}};
    if (parse_args(argc, argv, &cfg) != 0) {
        fprintf(stderr,
                "usage: %s [--csv PATH] [--data DIR] [--seed S] [--max-n N] "
                "[--min-time SEC] [--min-runs K] [--max-runs K]\n",
                argv[0]);
        return 2;
    }

    bench_state st = {.cfg = &cfg};
    if (cfg.csv_path != NULL) {
        st.csv = fopen(cfg.csv_path, "w");
        if (st.csv == NULL) {
            fprintf(stderr, "bench_lcp: cannot write %s: %s\n", cfg.csv_path, strerror(errno));
            return 2;
        }
        fprintf(st.csv, "family,problem,n,solver,status,claimed_ok,accepted,pivots,residual,"
                        "median_s,min_s,runs\n");
    }

    print_header(&cfg);
    run_fixtures(&st);
    run_generated(&st, 1);
    run_generated(&st, 2);
    print_summary(&st);

    if (st.csv != NULL)
        fclose(st.csv);
    if (st.errors > 0)
        fprintf(stderr, "bench_lcp: %d harness error(s), see above\n", st.errors);
    return st.errors > 0 ? 1 : 0;
}
