#define _GNU_SOURCE /* kill, poll */
#include "bench_fork.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_timer.h"

static void child(int fd, void (*fn)(void *ctx, void *out), void *ctx, size_t size)
{
    char *buf = calloc(size > 0 ? size : 1, 1);
    if (buf == NULL)
        _exit(1);
    fn(ctx, buf);
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, buf + off, size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            _exit(1);
        off += (size_t)n;
    }
    _exit(0);
}

int bench_fork_run(double limit, void (*fn)(void *ctx, void *out), void *ctx, void *out,
                   size_t size)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(fds[1], fn, ctx, size);
    }
    close(fds[1]);
    /* The child's bytes arrive into a buffer of our own: out changes only on success. */
    char *buf = malloc(size > 0 ? size : 1);
    const double deadline = bench_now() + limit;
    size_t got = 0;
    int result = -1;
    while (buf != NULL) {
        const double left = deadline - bench_now();
        if (left <= 0) {
            result = 1;
            break;
        }
        struct pollfd p = {fds[0], POLLIN, 0};
        int r = poll(&p, 1, (int)(left * 1000) + 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        if (r == 0)
            continue; /* the deadline is checked at the top */
        ssize_t n = read(fds[0], buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the child died or closed the pipe early */
        got += (size_t)n;
        if (got == size) {
            result = 0;
            break;
        }
    }
    if (result != 0)
        kill(pid, SIGKILL); /* the child we forked, by its id */
    close(fds[0]);
    waitpid(pid, NULL, 0);
    if (result == 0)
        memcpy(out, buf, size);
    free(buf);
    return result;
}
