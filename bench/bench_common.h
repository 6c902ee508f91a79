/* What the LCP benchmarks (bench_lcp, bench_fb) share: the command line, the problem sets
 * (fixture files and seeded random families), the common acceptance test of a solver's answer,
 * and small formatting helpers for the Markdown tables and the CSV. */
#ifndef CDYN_BENCH_COMMON_H
#define CDYN_BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_timer.h"
#include "cdyn/io.h"
#include "cdyn/lcp.h"
#include "cdyn/mcp.h"
#include "siconos_lcp.h"

/* A solution is accepted when the solver says so AND the common residual is small relative to
   the data: ||min(z, Mz+q)||_inf <= BENCH_ACCEPT_TOL * (||q||_inf + ||M||_inf ||z||_inf). */
#define BENCH_ACCEPT_TOL 1e-8
#define BENCH_PYRAMID_MU 0.5

/* ---- configuration ------------------------------------------------------------------------- */

typedef struct bench_config {
    const char *csv_path;
    const char *data_dir;
    uint64_t seed;
    int max_n; /* skip problems larger than this */
    bench_budget budget;
} bench_config;

void bench_config_defaults(bench_config *cfg);

/* Parses [--csv PATH] [--data DIR] [--seed S] [--max-n N] [--min-time SEC] [--min-runs K]
 * [--max-runs K]; returns 0, or -1 on an unknown option or a missing value (after printing the
 * usage line to stderr). */
int bench_parse_args(int argc, char **argv, bench_config *cfg);

/* OpenBLAS reads OPENBLAS_NUM_THREADS when it is loaded, before main: if it is not 1, sets it
 * and restarts the program so that every BLAS call is single-threaded. Returns only when the
 * variable already was 1 (0) or the restart failed (-1, after a message on stderr). */
int bench_single_threaded_blas(char **argv);

/* ---- problems ------------------------------------------------------------------------------ */

typedef enum bench_family {
    BENCH_FIXTURES = 0, /* tests/data/lcp_*.dat */
    BENCH_SPD = 1,      /* lcpgen_spd */
    BENCH_PYRAMID = 2,  /* lcpgen_pyramid */
    BENCH_PMATRIX = 3,  /* lcpgen_pmatrix */
    BENCH_FAMILIES = 4
} bench_family;

const char *bench_family_name(bench_family f);

/* One problem: arrays owned (generated) or borrowed from a fixture file. */
typedef struct bench_problem {
    bench_family family;
    char name[64];
    cdyn_lcp lcp;
    double *owned_M, *owned_q;
    cdyn_lcp_file *file;
} bench_problem;

/* Calls fn(ctx, p) for every problem of the given families with n <= cfg->max_n, in order:
 * the fixtures sorted by name, the random families by size (5 sizes each; n = 10, 30, 100,
 * 300, 1000, the pyramids with 5, 17, 50, 100, 166 contacts, n = 6 per contact). Each random
 * problem has its own seed derived from cfg->seed, its family and its size index, so a problem
 * does not depend on which others run. Returns the number of harness errors (messages on
 * stderr: unreadable fixtures, out of memory). */
int bench_for_each_problem(const bench_config *cfg, const bench_family *families, int count,
                           void (*fn)(void *ctx, const bench_problem *p), void *ctx);

/* Copies of M and q taken before the solvers run, to check that none modified them. */
typedef struct bench_guard {
    double *M, *q;
} bench_guard;

int bench_guard_take(bench_guard *g, const cdyn_lcp *lcp); /* 0, or -1 when out of memory */
int bench_guard_intact(const bench_guard *g, const cdyn_lcp *lcp);
void bench_guard_free(bench_guard *g);

/* ---- solver calls under the timer (bench_time callbacks) ------------------------------------ */

/* Every call starts from z = 0 (the Newton methods' starting point; Lemke ignores it). */
typedef struct bench_cdyn_call {
    const cdyn_lcp *lcp;
    cdyn_lemke_options lemke; /* bench_call_lemke */
    cdyn_lcp_options solve;   /* bench_call_solve */
    cdyn_mcp_options fb;      /* bench_call_fb */
    double *z, *w;
    cdyn_report report;
} bench_cdyn_call;

int bench_call_lemke(void *ctx); /* cdyn_lemke */
int bench_call_solve(void *ctx); /* cdyn_lcp_solve */
int bench_call_fb(void *ctx);    /* cdyn_lcp_fb_newton */

typedef struct bench_siconos_call {
    siconos_lcp *solver;
    int n;
    double *z, *w;
    int iterations; /* as siconos_lcp_solve reports them (pivots for Lemke) */
} bench_siconos_call;

int bench_call_siconos(void *ctx);

/* ---- outcomes ------------------------------------------------------------------------------ */

/* What one solver did on one problem. */
typedef struct bench_outcome {
    char status[96]; /* short text for the table */
    int claimed_ok;  /* the solver reported success */
    int accepted;    /* claimed_ok and the common residual test passed */
    int iterations;  /* pivots (Lemke) or Newton iterations */
    double residual; /* cdyn_lcp_residual of the solver's z; NAN if it returned none */
    char method[32]; /* cdyn_lcp_solve only */
    bench_timing time;
} bench_outcome;

/* Sets o->residual from z and decides o->accepted (needs o->claimed_ok). */
void bench_judge(const cdyn_lcp *lcp, const double *z, bench_outcome *o);

/* The enum name without its CDYN_ prefix, e.g. "ERAY" (shorter than cdyn_status_str). */
const char *bench_status_name(cdyn_status s);

/* Appends " (residual rejected)" to buf when o claims success but fails the common test. */
void bench_mark(char *buf, size_t size, const bench_outcome *o);

void bench_fmt_ms(char *buf, size_t size, double seconds); /* 3 significant digits, in ms */
void bench_fmt_res(char *buf, size_t size, double r);      /* "1.2e-15", or "—" for NAN */

/* CSV: header line, and one row per (problem, solver). */
void bench_csv_header(FILE *csv);
void bench_csv_row(FILE *csv, const bench_problem *p, const char *solver, const bench_outcome *o);

/* Geometric mean, minimum and maximum of time ratios. */
typedef struct bench_ratios {
    int count;
    double log_sum, min, max;
} bench_ratios;

void bench_ratios_add(bench_ratios *r, double ratio);
void bench_ratios_fmt(char *buf, size_t size, const bench_ratios *r); /* "1.23 (0.9–2.1)", n/a */

#endif
