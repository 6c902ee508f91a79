/* strerror_r (POSIX, XSI form) is the reentrant way to name an errno value. */
#define _POSIX_C_SOURCE 200809L

#include "io/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"

/* Paths in messages are cut to their tail so the reason after them still fits the report. */
#define PATH_SHOWN 120

const char *cdyn_io_path_tail(const char *path)
{
    size_t len = strlen(path);
    return len > PATH_SHOWN ? path + (len - PATH_SHOWN) : path;
}

const char *cdyn_io_errno_text(int err, char *buf, size_t size)
{
#if defined(_WIN32)
    if (strerror_s(buf, size, err) != 0)
        snprintf(buf, size, "error %d", err);
#else
    if (strerror_r(err, buf, size) != 0)
        snprintf(buf, size, "error %d", err);
#endif
    return buf;
}

static cdyn_status io_error(cdyn_report *report, const char *what, const char *path, int err)
{
    char reason[128];
    const char *tail = cdyn_io_path_tail(path);
    return cdyn_fail(report, CDYN_EIO, "cannot %s '%s%s': %s", what, tail == path ? "" : "...",
                     tail, cdyn_io_errno_text(err, reason, sizeof reason));
}

/* The buffer grows by doubling, so a file of S bytes costs at most about 2 S of memory and
 * O(S) copying; the size is not taken from ftell, which is meaningless for pipes and
 * directories. */
cdyn_status cdyn_io_read_all(const char *path, const cdyn_allocator *allocator, char **text,
                             size_t *length, cdyn_report *report)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return io_error(report, "open", path, errno);

    size_t cap = 16384, len = 0;
    char *buf = cdyn_mem_alloc(allocator, cap);
    if (buf == NULL) {
        fclose(f);
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory reading '%s'",
                         cdyn_io_path_tail(path));
    }
    for (;;) {
        if (len + 1 == cap) { /* keep one byte for the terminating NUL */
            char *bigger = cap <= ((size_t)-1) / 2 ? cdyn_mem_alloc(allocator, cap * 2) : NULL;
            if (bigger == NULL) {
                cdyn_mem_free(allocator, buf);
                fclose(f);
                return cdyn_fail(report, CDYN_ENOMEM, "out of memory reading '%s' (%zu bytes)",
                                 cdyn_io_path_tail(path), len);
            }
            memcpy(bigger, buf, len);
            cdyn_mem_free(allocator, buf);
            buf = bigger;
            cap *= 2;
        }
        errno = 0;
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                int err = errno ? errno : EIO;
                cdyn_mem_free(allocator, buf);
                fclose(f);
                return io_error(report, "read", path, err);
            }
            break; /* end of file */
        }
    }
    fclose(f);
    buf[len] = '\0';
    *text = buf;
    *length = len;
    return CDYN_OK;
}

cdyn_status cdyn_io_read_parse(const char *path, const cdyn_allocator *allocator,
                               cdyn_io_parse_fn parse, void *out, cdyn_report *report)
{
    char *text = NULL;
    size_t length = 0;
    cdyn_status st = cdyn_io_read_all(path, allocator, &text, &length, report);
    if (st != CDYN_OK)
        return st;
    st = parse(text, length, allocator, out, report);
    cdyn_mem_free(allocator, text);
    if (st != CDYN_OK && report != NULL) {
        char msg[CDYN_REPORT_TEXT];
        memcpy(msg, report->message, sizeof msg);
        const char *tail = cdyn_io_path_tail(path);
        const char *name = strrchr(tail, '/');
        cdyn_fail(report, st, "%s: %s", name ? name + 1 : tail, msg);
    }
    return st;
}
