/* Adaptive wall-clock timing for the benchmarks: repeat a call until a time budget is spent
 * (with a minimum and a maximum number of runs) and report the median. */
#ifndef CDYN_BENCH_TIMER_H
#define CDYN_BENCH_TIMER_H

typedef struct bench_budget {
    double min_time; /* keep repeating until the runs add up to this many seconds ... */
    int min_runs;    /* ... and at least this many runs were made ... */
    int max_runs;    /* ... but never more than this (<= BENCH_MAX_RUNS) */
} bench_budget;

#define BENCH_MAX_RUNS 50

typedef struct bench_timing {
    double median; /* seconds */
    double min;    /* seconds */
    int runs;
} bench_timing;

/* Seconds on a monotonic clock. */
double bench_now(void);

/* Calls fn(ctx) repeatedly under the budget; fn returns a status that must be the same on every
 * run (the solvers are deterministic). Returns the status of the last run. */
int bench_time(int (*fn)(void *ctx), void *ctx, const bench_budget *budget, bench_timing *out);

#endif
