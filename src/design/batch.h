/* Internal: a batch of objective evaluations spread over threads (cdyn/design.h's thread model:
 * point i on thread i mod T, results stored by index). */
#ifndef CDYN_DESIGN_BATCH_H
#define CDYN_DESIGN_BATCH_H

#include "cdyn/design.h"

/* f(points[i]) into values[i], ok[i] = 1 on success (values[i] = NaN otherwise), for m points of
 * n values each, on `threads` threads. The workers' records come from allocator (threads of
 * them); when they or a thread cannot be had, the points of that thread are evaluated by the
 * caller, in order and with the same thread index, so the results are the same. Returns the
 * number of failed evaluations. */
int design_batch(int n, cdyn_design_objective fn, void *ctx, int m, const double *points,
                 double *values, int *ok, int threads, const cdyn_allocator *allocator);

#endif
