/* Reader for LCP files in the Siconos format (see include/cdyn/io.h for the format). */
#include "cdyn/io.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "io/file.h"
#include "io/scan.h"

/* The public struct is the first member, so the pointer handed out converts back; the
 * allocator is copied because the caller's allocator struct may not outlive the file. */
typedef struct lcp_file_block {
    cdyn_lcp_file pub;
    cdyn_allocator allocator;
    int has_allocator;
} lcp_file_block;

void cdyn_lcp_file_free(cdyn_lcp_file *file)
{
    if (file == NULL)
        return;
    lcp_file_block *b = (lcp_file_block *)file;
    const cdyn_allocator a = b->allocator;
    const cdyn_allocator *ap = b->has_allocator ? &a : NULL;
    cdyn_mem_free(ap, file->M); /* q lives in the same block as M */
    cdyn_mem_free(ap, file->comment);
    cdyn_mem_free(ap, b);
}

cdyn_lcp cdyn_lcp_file_problem(const cdyn_lcp_file *file)
{
    cdyn_lcp lcp = {0, NULL, NULL};
    if (file != NULL) {
        lcp.n = file->n;
        lcp.M = file->M;
        lcp.q = file->q;
    }
    return lcp;
}

/* ---- header ---------------------------------------------------------------------------- */

/* One integer of the header; `what` names it for messages. */
static cdyn_status header_int(cdyn_scan *s, const char *what, long long *value, cdyn_token *tok,
                              cdyn_report *report)
{
    if (!cdyn_scan_next(s, tok)) {
        if (s->count == 0)
            return cdyn_fail(report, CDYN_EFORMAT, "line %zu: empty input, expected %s", s->line,
                             what);
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu: input ends after %zu tokens, expected %s",
                         s->line, s->count, what);
    }
    char quoted[32];
    switch (cdyn_token_integer(tok, value)) {
    case CDYN_NUMBER_OK:
        return CDYN_OK;
    case CDYN_NUMBER_RANGE:
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s %s is out of range",
                         tok->line, tok->index, what, cdyn_token_quote(tok, quoted, sizeof quoted));
    default:
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: expected %s (an integer), found %s", tok->line,
                         tok->index, what, cdyn_token_quote(tok, quoted, sizeof quoted));
    }
}

/* n, storage code, rows, cols, rows, cols. On success *n is valid. */
static cdyn_status read_header(cdyn_scan *s, int *n, cdyn_report *report)
{
    cdyn_token tok;
    long long v = 0;
    cdyn_status st = header_int(s, "the problem size n", &v, &tok, report);
    if (st != CDYN_OK)
        return st;
    if (v <= 0)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: the problem size n = %lld must be positive",
                         tok.line, tok.index, v);
    if (v > INT_MAX)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: the problem size n = %lld exceeds %d", tok.line,
                         tok.index, v, INT_MAX);
    const long long size = v;

    if ((st = header_int(s, "the storage code of M", &v, &tok, report)) != CDYN_OK)
        return st;
    if (v != 0)
        return cdyn_fail(
            report, CDYN_EFORMAT,
            "line %zu, token %zu: unsupported storage code %lld for M (only 0 = dense)", tok.line,
            tok.index, v);

    static const char *const names[4] = {"the number of rows of M", "the number of columns of M",
                                         "the repeated number of rows of M",
                                         "the repeated number of columns of M"};
    long long dims[4];
    size_t where[4];
    for (int k = 0; k < 4; ++k) {
        if ((st = header_int(s, names[k], &dims[k], &tok, report)) != CDYN_OK)
            return st;
        where[k] = tok.index;
        if (k < 2 && dims[k] != size)
            return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s is %lld but n = %lld",
                             tok.line, tok.index, names[k], dims[k], size);
        if (k >= 2 && dims[k] != dims[k - 2])
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: %s is %lld, not %lld as at token %zu", tok.line,
                             tok.index, names[k], dims[k], dims[k - 2], where[k - 2]);
    }
    *n = (int)size;
    return CDYN_OK;
}

/* ---- values ----------------------------------------------------------------------------- */

/* "M(i,j)" or "q[i]" (indices from 0) for value number k (from 0). */
static void value_name(int n, size_t k, char *buf, size_t size)
{
    const size_t nn = (size_t)n * (size_t)n;
    if (k < nn)
        snprintf(buf, size, "M(%zu,%zu)", k % (size_t)n, k / (size_t)n);
    else
        snprintf(buf, size, "q[%zu]", k - nn);
}

static cdyn_status read_values(cdyn_scan *s, int n, size_t count, double *values,
                               cdyn_report *report)
{
    for (size_t k = 0; k < count; ++k) {
        cdyn_token tok;
        char name[64], quoted[32];
        if (!cdyn_scan_next(s, &tok)) {
            value_name(n, k, name, sizeof name);
            return cdyn_fail(
                report, CDYN_EFORMAT,
                "line %zu: input ends after %zu of the %zu numbers of M and q, expected %s",
                s->line, k, count, name);
        }
        cdyn_number_error e = cdyn_token_double(&tok, &values[k]);
        if (e == CDYN_NUMBER_OK)
            continue;
        value_name(n, k, name, sizeof name);
        cdyn_token_quote(&tok, quoted, sizeof quoted);
        switch (e) {
        case CDYN_NUMBER_NONFINITE:
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: %s is %s; only finite numbers are accepted",
                             tok.line, tok.index, name, quoted);
        case CDYN_NUMBER_RANGE:
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: %s = %s overflows a double", tok.line, tok.index,
                             name, quoted);
        case CDYN_NUMBER_TOO_LONG:
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: %s %s is longer than %d characters", tok.line,
                             tok.index, name, quoted, CDYN_LCP_FILE_MAX_TOKEN);
        default:
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: expected %s (number %zu of %zu), found %s",
                             tok.line, tok.index, name, k + 1, count, quoted);
        }
    }
    return CDYN_OK;
}

/* ---- parse ------------------------------------------------------------------------------ */

cdyn_status cdyn_lcp_file_parse(const char *text, size_t length, const cdyn_allocator *allocator,
                                cdyn_lcp_file **out, cdyn_report *report)
{
    cdyn_report_clear(report, "lcp_file");
    if (text == NULL || out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "lcp_file_parse: %s is NULL",
                         text == NULL ? "text" : "out");

    cdyn_scan s;
    cdyn_scan_init(&s, text, length);
    int n = 0;
    cdyn_status st = read_header(&s, &n, report);
    if (st != CDYN_OK)
        return st;

    /* A corrupt n must not make us allocate far more than the text could fill: k numbers need
       at least 2k - 1 bytes. n*(n+1) > bound is tested by division so it cannot overflow. */
    const size_t remaining = (size_t)(s.end - s.cur);
    const size_t bound = remaining / 2 + 1;
    if ((size_t)n > bound / ((size_t)n + 1))
        return cdyn_fail(
            report, CDYN_EFORMAT,
            "line %zu: n = %d needs %llu numbers for M and q but only %zu bytes follow "
            "the header (truncated input or wrong n)",
            s.line, n, (unsigned long long)n * ((unsigned long long)n + 1), remaining);
    const size_t count = cdyn_mem_matrix_len((size_t)n, (size_t)n + 1);
    if (count == 0)
        return cdyn_fail(report, CDYN_ETOOBIG, "n = %d: M and q do not fit in memory", n);

    lcp_file_block *b = cdyn_mem_alloc(allocator, sizeof *b);
    double *values = cdyn_mem_array(allocator, count, sizeof(double));
    if (b == NULL || values == NULL) {
        cdyn_mem_free(allocator, values);
        cdyn_mem_free(allocator, b);
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for an LCP of size %d", n);
    }
    if ((st = read_values(&s, n, count, values, report)) != CDYN_OK) {
        cdyn_mem_free(allocator, values);
        cdyn_mem_free(allocator, b);
        return st;
    }

    const char *c0 = s.cur, *c1 = s.end;
    while (c0 < c1 && cdyn_scan_is_space(*c0))
        c0++;
    while (c1 > c0 && cdyn_scan_is_space(c1[-1]))
        c1--;
    const size_t comment_len = (size_t)(c1 - c0);
    char *comment = comment_len < SIZE_MAX ? cdyn_mem_alloc(allocator, comment_len + 1) : NULL;
    if (comment == NULL) {
        cdyn_mem_free(allocator, values);
        cdyn_mem_free(allocator, b);
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for the comment (%zu bytes)",
                         comment_len);
    }
    if (comment_len > 0)
        memcpy(comment, c0, comment_len);
    comment[comment_len] = '\0';

    b->pub.n = n;
    b->pub.M = values;
    b->pub.q = values + (size_t)n * (size_t)n;
    b->pub.comment = comment;
    b->has_allocator = allocator != NULL;
    if (allocator != NULL)
        b->allocator = *allocator;
    else
        memset(&b->allocator, 0, sizeof b->allocator);
    *out = &b->pub;
    return CDYN_OK;
}

static cdyn_status parse_lcp(const char *text, size_t length, const cdyn_allocator *allocator,
                         void *out, cdyn_report *report)
{
    return cdyn_lcp_file_parse(text, length, allocator, out, report);
}

cdyn_status cdyn_lcp_file_read(const char *path, const cdyn_allocator *allocator,
                               cdyn_lcp_file **out, cdyn_report *report)
{
    cdyn_report_clear(report, "lcp_file");
    if (path == NULL || out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "lcp_file_read: %s is NULL",
                         path == NULL ? "path" : "out");
    return cdyn_io_read_parse(path, allocator, parse_lcp, out, report);
}
