#define _POSIX_C_SOURCE 200809L

#include "bench_common.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lcp_problems.h"
#include "support.h"

#ifndef CDYN_BENCH_DATA_DIR
#define CDYN_BENCH_DATA_DIR "tests/data"
#endif

#define MAX_FIXTURES 256
#define SIZES 5

/* ---- configuration ------------------------------------------------------------------------- */

void bench_config_defaults(bench_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->data_dir = CDYN_BENCH_DATA_DIR;
    cfg->seed = 20260812u;
    cfg->max_n = 1000000;
    cfg->budget.min_time = 0.3;
    cfg->budget.min_runs = 3;
    cfg->budget.max_runs = BENCH_MAX_RUNS;
}

int bench_parse_args(int argc, char **argv, bench_config *cfg)
{
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            goto usage;
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
            goto usage;
    }
    return 0;
usage:
    fprintf(stderr,
            "usage: %s [--csv PATH] [--data DIR] [--seed S] [--max-n N] [--min-time SEC] "
            "[--min-runs K] [--max-runs K]\n",
            argv[0]);
    return -1;
}

int bench_single_threaded_blas(char **argv)
{
    const char *threads = getenv("OPENBLAS_NUM_THREADS");
    if (threads != NULL && strcmp(threads, "1") == 0)
        return 0;
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    fprintf(stderr,
            "%s: cannot restart with OPENBLAS_NUM_THREADS=1 (%s); set it in the environment\n",
            argv[0], strerror(errno));
    return -1;
}

/* ---- problems ------------------------------------------------------------------------------ */

const char *bench_family_name(bench_family f)
{
    switch (f) {
    case BENCH_FIXTURES:
        return "fixtures";
    case BENCH_SPD:
        return "spd";
    case BENCH_PYRAMID:
        return "pyramid";
    case BENCH_PMATRIX:
        return "pmatrix";
    case BENCH_FAMILIES:
        break;
    }
    return "?";
}

static void problem_free(bench_problem *p)
{
    free(p->owned_M);
    free(p->owned_q);
    cdyn_lcp_file_free(p->file);
    memset(p, 0, sizeof *p);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted list of lcp_*.dat names in dir (strdup'ed); returns the count or -1. */
static int list_fixtures(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && count < max) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "lcp_", 4) != 0 || len <= 4 ||
            strcmp(e->d_name + len - 4, ".dat") != 0)
            continue;
        names[count] = strdup(e->d_name);
        if (names[count] == NULL) {
            while (count > 0)
                free(names[--count]);
            closedir(d);
            return -1;
        }
        ++count;
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof names[0], cmp_str);
    return count;
}

static int run_fixtures(const bench_config *cfg, void (*fn)(void *, const bench_problem *),
                        void *ctx)
{
    char *names[MAX_FIXTURES];
    const int count = list_fixtures(cfg->data_dir, names, MAX_FIXTURES);
    if (count <= 0) {
        fprintf(stderr, "bench: no lcp_*.dat in %s (or cannot list it)\n", cfg->data_dir);
        return 1;
    }
    int errors = 0;
    for (int k = 0; k < count; ++k) {
        bench_problem p = {.family = BENCH_FIXTURES};
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", cfg->data_dir, names[k]);
        snprintf(p.name, sizeof p.name, "%.*s", (int)(strlen(names[k]) - 4), names[k]);
        cdyn_report rep;
        const cdyn_status s = cdyn_lcp_file_read(path, NULL, &p.file, &rep);
        if (s != CDYN_OK) {
            fprintf(stderr, "bench: %s: %s (%s)\n", path, cdyn_status_str(s), rep.message);
            ++errors;
        } else {
            p.lcp = cdyn_lcp_file_problem(p.file);
            if (p.lcp.n <= cfg->max_n)
                fn(ctx, &p);
        }
        problem_free(&p);
        free(names[k]);
    }
    return errors;
}

static int generated_size(bench_family f, int k)
{
    static const int sizes[SIZES] = {10, 30, 100, 300, 1000};
    static const int pyramid_nc[SIZES] = {5, 17, 50, 100, 166};
    return f == BENCH_PYRAMID ? lcpgen_pyramid_size(pyramid_nc[k]) : sizes[k];
}

static int generate(bench_problem *p, bench_family f, int k, uint64_t seed)
{
    const int n = generated_size(f, k);
    p->family = f;
    p->owned_M = malloc(sizeof(double) * (size_t)n * (size_t)n);
    p->owned_q = malloc(sizeof(double) * (size_t)n);
    if (p->owned_M == NULL || p->owned_q == NULL)
        return -1;
    p->lcp.n = n;
    p->lcp.M = p->owned_M;
    p->lcp.q = p->owned_q;
    test_rng rng;
    test_rng_seed(&rng, seed * 1000u + (uint64_t)(100 * (int)f + k));
    if (f == BENCH_SPD) {
        lcpgen_spd(&rng, n, p->owned_M, p->owned_q);
        snprintf(p->name, sizeof p->name, "spd_%d", n);
    } else if (f == BENCH_PMATRIX) {
        lcpgen_pmatrix(&rng, n, p->owned_M, p->owned_q);
        snprintf(p->name, sizeof p->name, "pmatrix_%d", n);
    } else {
        const int nc = n / 6;
        lcpgen_pyramid(&rng, nc, BENCH_PYRAMID_MU, p->owned_M, p->owned_q);
        snprintf(p->name, sizeof p->name, "pyramid_nc%d", nc);
    }
    return 0;
}

int bench_for_each_problem(const bench_config *cfg, const bench_family *families, int count,
                           void (*fn)(void *ctx, const bench_problem *p), void *ctx)
{
    int errors = 0;
    for (int i = 0; i < count; ++i) {
        const bench_family f = families[i];
        if (f == BENCH_FIXTURES) {
            errors += run_fixtures(cfg, fn, ctx);
            continue;
        }
        for (int k = 0; k < SIZES; ++k) {
            if (generated_size(f, k) > cfg->max_n)
                continue;
            bench_problem p = {0};
            if (generate(&p, f, k, cfg->seed) != 0) {
                fprintf(stderr, "bench: out of memory for n = %d\n", generated_size(f, k));
                ++errors;
            } else {
                fn(ctx, &p);
            }
            problem_free(&p);
        }
    }
    return errors;
}

int bench_guard_take(bench_guard *g, const cdyn_lcp *lcp)
{
    const size_t n = (size_t)lcp->n, nn = n * n;
    g->M = malloc(sizeof(double) * nn);
    g->q = malloc(sizeof(double) * n);
    if (g->M == NULL || g->q == NULL) {
        bench_guard_free(g);
        return -1;
    }
    memcpy(g->M, lcp->M, sizeof(double) * nn);
    memcpy(g->q, lcp->q, sizeof(double) * n);
    return 0;
}

int bench_guard_intact(const bench_guard *g, const cdyn_lcp *lcp)
{
    const size_t n = (size_t)lcp->n;
    return memcmp(g->M, lcp->M, sizeof(double) * n * n) == 0 &&
           memcmp(g->q, lcp->q, sizeof(double) * n) == 0;
}

void bench_guard_free(bench_guard *g)
{
    free(g->M);
    free(g->q);
    g->M = g->q = NULL;
}

/* ---- outcomes ------------------------------------------------------------------------------ */

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

void bench_judge(const cdyn_lcp *lcp, const double *z, bench_outcome *o)
{
    o->residual = cdyn_lcp_residual(lcp, z);
    const double scale =
        norm_inf(lcp->n, lcp->q) + matrix_norm_inf(lcp->n, lcp->M) * norm_inf(lcp->n, z);
    o->accepted = o->claimed_ok && isfinite(o->residual) && o->residual <= BENCH_ACCEPT_TOL * scale;
}

const char *bench_status_name(cdyn_status s)
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

void bench_mark(char *buf, size_t size, const bench_outcome *o)
{
    /* Claimed success that fails the common residual test is flagged, not hidden. */
    if (o->claimed_ok && !o->accepted) {
        size_t len = strlen(buf);
        snprintf(buf + len, size - len, " (residual rejected)");
    }
}

void bench_fmt_ms(char *buf, size_t size, double seconds)
{
    const double ms = 1e3 * seconds;
    int decimals = ms > 0.0 ? 2 - (int)floor(log10(ms)) : 2;
    decimals = decimals < 0 ? 0 : decimals > 5 ? 5 : decimals;
    snprintf(buf, size, "%.*f", decimals, ms);
}

void bench_fmt_res(char *buf, size_t size, double r)
{
    if (isnan(r))
        snprintf(buf, size, "—");
    else
        snprintf(buf, size, "%.1e", r);
}

void bench_csv_header(FILE *csv)
{
    fprintf(csv, "family,problem,n,solver,status,claimed_ok,accepted,iterations,residual,"
                 "median_s,min_s,runs\n");
}

void bench_csv_row(FILE *csv, const bench_problem *p, const char *solver, const bench_outcome *o)
{
    if (csv == NULL)
        return;
    /* The status may contain commas: quote it (and double any quote, per RFC 4180). */
    fprintf(csv, "%s,%s,%d,%s,\"", bench_family_name(p->family), p->name, p->lcp.n, solver);
    for (const char *c = o->status; *c; ++c) {
        if (*c == '"')
            fputc('"', csv);
        fputc(*c, csv);
    }
    fprintf(csv, "\",%d,%d,%d,%.3e,%.9e,%.9e,%d\n", o->claimed_ok, o->accepted, o->iterations,
            o->residual, o->time.median, o->time.min, o->time.runs);
}

void bench_ratios_add(bench_ratios *r, double ratio)
{
    r->log_sum += log(ratio);
    r->min = r->count ? fmin(r->min, ratio) : ratio;
    r->max = r->count ? fmax(r->max, ratio) : ratio;
    r->count++;
}

void bench_ratios_fmt(char *buf, size_t size, const bench_ratios *r)
{
    if (r->count == 0)
        snprintf(buf, size, "n/a");
    else
        snprintf(buf, size, "%.2f (%.2f–%.2f)", exp(r->log_sum / r->count), r->min, r->max);
}

/* ---- solver calls under the timer ---------------------------------------------------------- */

int bench_call_lemke(void *ctx)
{
    bench_cdyn_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->lcp->n);
    return (int)cdyn_lemke(c->lcp, &c->lemke, c->z, c->w, &c->report);
}

int bench_call_solve(void *ctx)
{
    bench_cdyn_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->lcp->n);
    return (int)cdyn_lcp_solve(c->lcp, &c->solve, c->z, c->w, &c->report);
}

int bench_call_fb(void *ctx)
{
    bench_cdyn_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->lcp->n);
    return (int)cdyn_lcp_fb_newton(c->lcp, &c->fb, c->z, c->w, &c->report);
}

int bench_call_siconos(void *ctx)
{
    bench_siconos_call *c = ctx;
    memset(c->z, 0, sizeof(double) * (size_t)c->n);
    return siconos_lcp_solve(c->solver, c->z, c->w, &c->iterations);
}
