/* Writer for LCP files in the Siconos format, the inverse of cdyn_lcp_file_read. */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "cdyn/io.h"
#include "core/report.h"
#include "io/file.h"
#include "io/scan.h"

static int put_value(FILE *f, double v, char sep)
{
    char buf[40];
    return fprintf(f, "%s%c", cdyn_format_double(v, buf, sizeof buf), sep) >= 0;
}

/* Columns of M one per line, as Siconos writes its column-major buffer. */
static int write_body(FILE *f, const cdyn_lcp *lcp, const char *comment)
{
    const int n = lcp->n;
    if (fprintf(f, "%d\n0\n%d\n%d\n%d\t%d\n", n, n, n, n, n) < 0)
        return 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            if (!put_value(f, lcp->M[i + (size_t)j * n], i + 1 < n ? ' ' : '\n'))
                return 0;
    for (int i = 0; i < n; ++i)
        if (!put_value(f, lcp->q[i], i + 1 < n ? ' ' : '\n'))
            return 0;
    if (comment != NULL && comment[0] != '\0' && fprintf(f, "\n%s\n", comment) < 0)
        return 0;
    return 1;
}

cdyn_status cdyn_lcp_file_write(const char *path, const cdyn_lcp *lcp, const char *comment,
                                cdyn_report *report)
{
    cdyn_report_clear(report, "lcp_file");
    if (path == NULL || lcp == NULL || lcp->M == NULL || lcp->q == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "lcp_file_write: path, problem, M or q is NULL");
    if (lcp->n <= 0)
        return cdyn_fail(report, CDYN_EINVAL, "lcp_file_write: n = %d must be positive", lcp->n);
    const size_t nn = (size_t)lcp->n * (size_t)lcp->n;
    for (size_t k = 0; k < nn; ++k)
        if (!isfinite(lcp->M[k]))
            return cdyn_fail(report, CDYN_EINVAL, "lcp_file_write: M(%zu,%zu) is not finite",
                             k % (size_t)lcp->n, k / (size_t)lcp->n);
    for (int i = 0; i < lcp->n; ++i)
        if (!isfinite(lcp->q[i]))
            return cdyn_fail(report, CDYN_EINVAL, "lcp_file_write: q[%d] is not finite", i);

    const char *tail = cdyn_io_path_tail(path);
    const char *dots = tail == path ? "" : "...";
    char reason[128];
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return cdyn_fail(report, CDYN_EIO, "cannot open '%s%s' for writing: %s", dots, tail,
                         cdyn_io_errno_text(errno, reason, sizeof reason));
    errno = 0;
    int ok = write_body(f, lcp, comment);
    int err = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        err = errno;
    }
    if (!ok)
        return cdyn_fail(report, CDYN_EIO, "cannot write '%s%s': %s", dots, tail,
                         cdyn_io_errno_text(err ? err : EIO, reason, sizeof reason));
    return CDYN_OK;
}
