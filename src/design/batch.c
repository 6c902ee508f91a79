/* Objective evaluations spread over POSIX threads (batch.h). */
#include "design/batch.h"

#include "core/memory.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

typedef struct worker {
    pthread_t id;
    int started;
    int n, m, thread, threads;
    cdyn_design_objective fn;
    void *ctx;
    const double *points;
    double *values;
    int *ok;
} worker;

/* The points thread w owns: w->thread, w->thread + threads, ... */
static void *run(void *arg)
{
    worker *w = arg;
    for (int i = w->thread; i < w->m; i += w->threads) {
        double f = NAN;
        const int fail = w->fn(w->ctx, w->thread, w->points + (size_t)i * w->n, &f, NULL) != 0;
        w->ok[i] = !fail && isfinite(f);
        w->values[i] = w->ok[i] ? f : NAN;
    }
    return NULL;
}

int design_batch(int n, cdyn_design_objective fn, void *ctx, int m, const double *points,
                 double *values, int *ok, int threads, const cdyn_allocator *allocator)
{
    if (threads > m)
        threads = m > 0 ? m : 1;
    worker one;
    worker *ws = threads > 1 ? cdyn_mem_array(allocator, (size_t)threads, sizeof(worker)) : NULL;
    if (ws == NULL) {
        ws = &one;
        threads = 1;
    }
    for (int t = 0; t < threads; t++) {
        memset(&ws[t], 0, sizeof ws[t]);
        ws[t].n = n, ws[t].m = m, ws[t].thread = t, ws[t].threads = threads;
        ws[t].fn = fn, ws[t].ctx = ctx;
        ws[t].points = points, ws[t].values = values, ws[t].ok = ok;
    }
    /* thread 0's share in the caller; the others in new threads, or here when none starts */
    for (int t = 1; t < threads; t++)
        ws[t].started = pthread_create(&ws[t].id, NULL, run, &ws[t]) == 0;
    run(&ws[0]);
    for (int t = 1; t < threads; t++) {
        if (ws[t].started)
            pthread_join(ws[t].id, NULL);
        else
            run(&ws[t]);
    }
    if (ws != &one)
        cdyn_mem_free(allocator, ws);
    int failed = 0;
    for (int i = 0; i < m; i++)
        failed += !ok[i];
    return failed;
}
