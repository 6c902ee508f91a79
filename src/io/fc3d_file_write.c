/* Writer for Siconos' FrictionContactProblem text files, the inverse of cdyn_fc3d_file_read:
 * d = 3, a dense W as storage 0 (one column per line), blocks as SBM storage 1. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "cdyn/fc3d.h"
#include "core/report.h"
#include "io/file.h"
#include "io/scan.h"

/* ---- validation (the writer's own: the solvers' cdyn_fc3d_check lives with them) ------------- */

static cdyn_status check_numbers(const double *x, size_t count, const char *name,
                                 cdyn_report *report)
{
    for (size_t k = 0; k < count; ++k)
        if (!isfinite(x[k]))
            return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: %s[%zu] is not finite", name,
                             k);
    return CDYN_OK;
}

static cdyn_status check_blocks(const cdyn_fc3d_blocks *b, int n, cdyn_report *report)
{
    if (b->rowptr == NULL || (b->rowptr[n] > 0 && (b->colind == NULL || b->values == NULL)))
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: a block array is NULL");
    if (b->rowptr[0] != 0)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: rowptr[0] = %d, not 0",
                         b->rowptr[0]);
    for (int i = 0; i < n; ++i) {
        if (b->rowptr[i + 1] < b->rowptr[i])
            return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: rowptr decreases at %d", i + 1);
        for (int k = b->rowptr[i]; k < b->rowptr[i + 1]; ++k) {
            const int c = b->colind[k];
            if (c < 0 || c >= n || (k > b->rowptr[i] && c <= b->colind[k - 1]))
                return cdyn_fail(report, CDYN_EINVAL,
                                 "fc3d_file_write: block %d of row %d has column %d (out of range "
                                 "or not increasing)",
                                 k, i, c);
        }
    }
    return check_numbers(b->values, 9 * (size_t)b->rowptr[n], "values", report);
}

static cdyn_status check_problem(const cdyn_fc3d *p, cdyn_report *report)
{
    if (p->n <= 0 || p->n > INT_MAX / 3)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: n = %d is out of range", p->n);
    if ((p->W == NULL) == (p->blocks == NULL))
        return cdyn_fail(report, CDYN_EINVAL,
                         "fc3d_file_write: exactly one of W and blocks must be given");
    if (p->q == NULL || p->mu == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: %s is NULL",
                         p->q == NULL ? "q" : "mu");
    const size_t m = 3 * (size_t)p->n;
    cdyn_status st = p->W != NULL ? check_numbers(p->W, m * m, "W", report)
                                  : check_blocks(p->blocks, p->n, report);
    if (st == CDYN_OK)
        st = check_numbers(p->q, m, "q", report);
    if (st == CDYN_OK)
        st = check_numbers(p->mu, (size_t)p->n, "mu", report);
    for (int i = 0; st == CDYN_OK && i < p->n; ++i)
        if (p->mu[i] < 0.0)
            st = cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: mu[%d] = %g is negative", i,
                           p->mu[i]);
    return st;
}

/* ---- output ---------------------------------------------------------------------------------- */

static int put_value(FILE *f, double v, char sep)
{
    char buf[40];
    return fprintf(f, "%s%c", cdyn_format_double(v, buf, sizeof buf), sep) >= 0;
}

static int put_values(FILE *f, const double *x, size_t count, char sep)
{
    for (size_t k = 0; k < count; ++k)
        if (!put_value(f, x[k], k + 1 < count ? sep : '\n'))
            return 0;
    return 1;
}

/* Storage 0: rows and columns twice, then the column-major buffer, one column per line. */
static int write_dense(FILE *f, const cdyn_fc3d *p)
{
    const size_t m = 3 * (size_t)p->n;
    if (fprintf(f, "0\n%zu\n%zu\n%zu\t%zu\n", m, m, m, m) < 0)
        return 0;
    for (size_t j = 0; j < m; ++j)
        if (!put_values(f, p->W + j * m, m, ' '))
            return 0;
    return 1;
}

static int put_ints(FILE *f, const int *x, int count, int step)
{
    for (int k = 0; k < count; ++k)
        if (fprintf(f, "%d\t", x != NULL ? x[k] : step * (k + 1)) < 0)
            return 0;
    return fputc('\n', f) != EOF;
}

/* Storage 1 as Siconos' SBM_write_in_file lays it out; nbblocks = 0 ends the matrix. */
static int write_sbm(FILE *f, const cdyn_fc3d *p)
{
    const cdyn_fc3d_blocks *b = p->blocks;
    const int n = p->n, nb = b->rowptr[n];
    if (fprintf(f, "1\n%d\n%d\n%d\n", 3 * n, 3 * n, nb) < 0)
        return 0;
    if (nb == 0)
        return 1;
    if (fprintf(f, "%d\n%d\n", n, n) < 0 || !put_ints(f, NULL, n, 3) || !put_ints(f, NULL, n, 3) ||
        fprintf(f, "%d\n%d\n", n + 1, nb) < 0 || !put_ints(f, b->rowptr, n + 1, 0) ||
        !put_ints(f, b->colind, nb, 0))
        return 0;
    for (int k = 0; k < nb; ++k)
        if (fprintf(f, "%d\n", k) < 0 || !put_values(f, b->values + 9 * (size_t)k, 9, '\n'))
            return 0;
    return 1;
}

static int write_body(FILE *f, const cdyn_fc3d *p, const char *comment)
{
    if (fprintf(f, "3\n%d\n", p->n) < 0)
        return 0;
    if (!(p->W != NULL ? write_dense(f, p) : write_sbm(f, p)))
        return 0;
    if (!put_values(f, p->q, 3 * (size_t)p->n, ' ') || !put_values(f, p->mu, (size_t)p->n, ' '))
        return 0;
    if (comment != NULL && comment[0] != '\0' && fprintf(f, "%s\n", comment) < 0)
        return 0;
    return 1;
}

cdyn_status cdyn_fc3d_file_write(const char *path, const cdyn_fc3d *problem, const char *comment,
                                 cdyn_report *report)
{
    cdyn_report_clear(report, "fc3d_file");
    if (path == NULL || problem == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_write: %s is NULL",
                         path == NULL ? "path" : "problem");
    cdyn_status st = check_problem(problem, report);
    if (st != CDYN_OK)
        return st;

    const char *tail = cdyn_io_path_tail(path);
    const char *dots = tail == path ? "" : "...";
    char reason[128];
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return cdyn_fail(report, CDYN_EIO, "cannot open '%s%s' for writing: %s", dots, tail,
                         cdyn_io_errno_text(errno, reason, sizeof reason));
    errno = 0;
    int ok = write_body(f, problem, comment);
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
