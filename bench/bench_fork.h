/* One measurement in a forked child with a wall-clock limit, so that a scheme that cannot finish
 * a scene is reported as such and the benchmark goes on (a deadline checked between steps does
 * not stop a single step that takes minutes). Bench code only: POSIX fork, pipe, poll, kill. */
#ifndef CDYN_BENCH_FORK_H
#define CDYN_BENCH_FORK_H

#include <stddef.h>

/* Runs fn(ctx, out) in a child process; the child's `size` (> 0) bytes of out come back to the
 * caller's out through a pipe. Returns 0 when the child delivered them within `limit` seconds,
 * 1 when it was killed at the limit (out untouched), -1 when the child could not be started or
 * died without delivering (out untouched). */
int bench_fork_run(double limit, void (*fn)(void *ctx, void *out), void *ctx, void *out,
                   size_t size);

#endif
