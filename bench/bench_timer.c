#define _POSIX_C_SOURCE 200809L

#include "bench_timer.h"

#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int bench_time(int (*fn)(void *ctx), void *ctx, const bench_budget *budget, bench_timing *out)
{
    double t[BENCH_MAX_RUNS];
    int max_runs = budget->max_runs;
    if (max_runs > BENCH_MAX_RUNS)
        max_runs = BENCH_MAX_RUNS;
    if (max_runs < 1)
        max_runs = 1;
    int runs = 0, status = 0;
    double total = 0.0;
    while (runs < max_runs && (runs < budget->min_runs || total < budget->min_time)) {
        const double t0 = bench_now();
        status = fn(ctx);
        t[runs] = bench_now() - t0;
        total += t[runs];
        ++runs;
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp_double);
    out->runs = runs;
    out->min = t[0];
    out->median = runs % 2 ? t[runs / 2] : 0.5 * (t[runs / 2 - 1] + t[runs / 2]);
    return status;
}
