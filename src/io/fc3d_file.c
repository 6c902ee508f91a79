/* Reader for Siconos' FrictionContactProblem text files (format in include/cdyn/fc3d.h).
 *
 * Orientation, checked against Siconos' numerics sources (SparseBlockMatrix.c and
 * NumericsMatrix.c, the writers of these files): a dense W is its column-major buffer printed
 * in order (so each printed line of size0 numbers is a column), and an SBM block is also printed
 * from its column-major buffer (SBM_get_value reads block[row + col * nbRows]). The fixtures
 * cannot settle this by themselves (no text file has an FCLib twin), but their non-symmetric
 * blocks (Rover*, Capsules*, OneObject*) are read the way Siconos' own accessors read them;
 * tests/test_fc3d_file.c pins one such entry from the text. */
#include "io/fc3d_file.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "io/file.h"
#include "io/scan.h"

/* The public struct is the first member, so the pointer handed out converts back; the
 * allocator is copied because the caller's allocator struct may not outlive the file. */
typedef struct fc3d_file_block {
    cdyn_fc3d_file pub;
    cdyn_allocator allocator;
    int has_allocator;
} fc3d_file_block;

static const cdyn_allocator *file_allocator(fc3d_file_block *b)
{
    return b->has_allocator ? &b->allocator : NULL;
}

void cdyn_fc3d_file_free(cdyn_fc3d_file *file)
{
    if (file == NULL)
        return;
    fc3d_file_block *b = (fc3d_file_block *)file;
    const cdyn_allocator a = b->allocator; /* b is released last: keep a copy */
    const cdyn_allocator *ap = b->has_allocator ? &a : NULL;
    cdyn_mem_free(ap, file->comment);
    cdyn_mem_free(ap, b);
}

cdyn_fc3d cdyn_fc3d_file_problem(const cdyn_fc3d_file *file)
{
    cdyn_fc3d p = {0, NULL, NULL, NULL, NULL};
    if (file != NULL) {
        p.n = file->n;
        p.W = file->sparse ? NULL : file->W;
        p.blocks = file->sparse ? &file->blocks : NULL;
        p.q = file->q;
        p.mu = file->mu;
    }
    return p;
}

/* The arrays after the header, in one layout function run twice (measure, then place). */
/* The scale of the decoupled component: the contact's own tangential (or normal) diagonal. */
static double planar_scale(double wtt, double wnn)
{
    return wtt > 0.0 ? wtt : (wnn > 0.0 ? wnn : 1.0);
}

void cdyn_fc3d_file_decouple_planar(cdyn_fc3d_file *f)
{
    if (f->dim != 2)
        return;
    if (f->W != NULL) {
        const size_t m3 = 3 * (size_t)f->n;
        for (size_t c = 0; c < (size_t)f->n; ++c)
            f->W[(3 * c + 2) * (m3 + 1)] =
                planar_scale(f->W[(3 * c + 1) * (m3 + 1)], f->W[3 * c * (m3 + 1)]);
        return;
    }
    for (int i = 0; i < f->n; ++i)
        for (int k = f->rowptr[i]; k < f->rowptr[i + 1]; ++k)
            if (f->colind[k] == i) {
                double *b = f->values + 9 * (size_t)k;
                b[8] = planar_scale(b[4], b[0]);
            }
}

static void layout(cdyn_carve *cv, void *base, cdyn_fc3d_file *f, size_t n, long long nblocks)
{
    const size_t m = 3 * n;
    cdyn_carve_take(cv, 1, sizeof(fc3d_file_block));
    if (nblocks < 0) {
        f->W = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, m, m));
    } else {
        const size_t nb = (size_t)nblocks;
        f->rowptr = cdyn_carve_ints(cv, base, n + 1);
        f->colind = cdyn_carve_ints(cv, base, nb);
        f->values = cdyn_carve_doubles(cv, base, cdyn_carve_mul(cv, 9, nb));
    }
    f->q = cdyn_carve_doubles(cv, base, m);
    f->mu = cdyn_carve_doubles(cv, base, n);
}

cdyn_fc3d_file *cdyn_fc3d_file_new(const cdyn_allocator *allocator, int dim, int n,
                                   long long nblocks, int *too_big)
{
    *too_big = 0;
    cdyn_fc3d_file probe;
    cdyn_carve cv = {0, 0};
    layout(&cv, NULL, &probe, (size_t)n, nblocks);
    if (cv.overflow || (nblocks > INT_MAX)) {
        *too_big = 1;
        return NULL;
    }
    const size_t bytes = cv.off;
    char *base = cdyn_mem_alloc(allocator, bytes);
    char *comment = cdyn_mem_alloc(allocator, 1);
    if (base == NULL || comment == NULL) {
        cdyn_mem_free(allocator, base);
        cdyn_mem_free(allocator, comment);
        return NULL;
    }
    memset(base, 0, bytes); /* zero doubles and ints: W, blocks, q and mu start at 0 */
    fc3d_file_block *b = (fc3d_file_block *)base;
    cdyn_fc3d_file *f = &b->pub;
    cv = (cdyn_carve){0, 0};
    layout(&cv, base, f, (size_t)n, nblocks);
    f->dim = dim;
    f->n = n;
    f->sparse = nblocks >= 0;
    comment[0] = '\0';
    f->comment = comment;
    f->blocks.rowptr = f->rowptr;
    f->blocks.colind = f->colind;
    f->blocks.values = f->values;
    b->has_allocator = allocator != NULL;
    if (allocator != NULL)
        b->allocator = *allocator;
    else
        memset(&b->allocator, 0, sizeof b->allocator);
    return f;
}

int cdyn_fc3d_file_set_comment(cdyn_fc3d_file *file, const char *text, size_t len)
{
    fc3d_file_block *b = (fc3d_file_block *)file;
    char *c = len < SIZE_MAX ? cdyn_mem_alloc(file_allocator(b), len + 1) : NULL;
    if (c == NULL)
        return 0;
    if (len > 0)
        memcpy(c, text, len);
    c[len] = '\0';
    cdyn_mem_free(file_allocator(b), file->comment);
    file->comment = c;
    return 1;
}

/* ---- block ordering -------------------------------------------------------------------------- */

size_t cdyn_fc3d_sort_work(int n, int nblocks)
{
    cdyn_carve cv = {0, 0};
    const size_t count = 2 * (size_t)n + 1 + cdyn_carve_mul(&cv, 2, (size_t)nblocks);
    return cv.overflow ? 0 : count;
}

void cdyn_fc3d_sort_blocks(int n, const int *rowptr, const int *col, int *colind_out, int *dest,
                           int *work)
{
    const int nb = rowptr[n];
    int *colptr = work;         /* n + 1 */
    int *fill = colptr + n + 1; /* n */
    int *by_col = fill + n;     /* nb: input blocks ordered by column, then row */
    int *row_of = by_col + nb;  /* nb */
    memset(colptr, 0, sizeof(int) * ((size_t)n + 1));
    for (int k = 0; k < nb; ++k)
        colptr[col[k] + 1]++;
    for (int j = 0; j < n; ++j) {
        colptr[j + 1] += colptr[j];
        fill[j] = colptr[j];
    }
    for (int i = 0; i < n; ++i)
        for (int k = rowptr[i]; k < rowptr[i + 1]; ++k) {
            by_col[fill[col[k]]++] = k;
            row_of[k] = i;
        }
    for (int i = 0; i < n; ++i)
        fill[i] = rowptr[i];
    for (int t = 0; t < nb; ++t) { /* columns in increasing order: each row's list comes sorted */
        const int k = by_col[t];
        const int slot = fill[row_of[k]]++;
        colind_out[slot] = col[k];
        dest[k] = slot;
    }
}

/* ---- tokens ---------------------------------------------------------------------------------- */

/* What a number is, for messages (formatted only on error). */
typedef enum what_kind {
    WHAT_TEXT,  /* a fixed description */
    WHAT_DENSE, /* W(i, j) of the file's d n x d n matrix */
    WHAT_BLOCK, /* entry (i, j) of block k */
    WHAT_Q,     /* q[i] */
    WHAT_MU     /* mu[i] */
} what_kind;

typedef struct what {
    what_kind kind;
    const char *text;
    long long i, j, k;
} what;

static const char *what_name(const what *w, char *buf, size_t size)
{
    switch (w->kind) {
    case WHAT_DENSE:
        snprintf(buf, size, "W(%lld,%lld)", w->i, w->j);
        break;
    case WHAT_BLOCK:
        snprintf(buf, size, "entry (%lld,%lld) of block %lld", w->i, w->j, w->k);
        break;
    case WHAT_Q:
        snprintf(buf, size, "q[%lld]", w->i);
        break;
    case WHAT_MU:
        snprintf(buf, size, "mu[%lld]", w->i);
        break;
    default:
        snprintf(buf, size, "%s", w->text);
        break;
    }
    return buf;
}

static what text_what(const char *text)
{
    what w = {WHAT_TEXT, text, 0, 0, 0};
    return w;
}

/* The end of the text where a token was expected: its position is the token that is missing. */
static cdyn_status input_ends(const cdyn_scan *s, const what *w, cdyn_report *report)
{
    char name[96];
    what_name(w, name, sizeof name);
    if (s->count == 0)
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token 1: empty input, expected %s",
                         s->line, name);
    return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: input ends, expected %s", s->line,
                     s->count + 1, name);
}

static cdyn_status next_token(cdyn_scan *s, const what *w, cdyn_token *tok, cdyn_report *report)
{
    return cdyn_scan_next(s, tok) ? CDYN_OK : input_ends(s, w, report);
}

/* One integer; tok receives its position for the caller's range messages. */
static cdyn_status read_int(cdyn_scan *s, const what *w, long long *value, cdyn_token *tok,
                            cdyn_report *report)
{
    cdyn_status st = next_token(s, w, tok, report);
    if (st != CDYN_OK)
        return st;
    char name[96], quoted[32];
    switch (cdyn_token_integer(tok, value)) {
    case CDYN_NUMBER_OK:
        return CDYN_OK;
    case CDYN_NUMBER_RANGE:
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s %s is out of range",
                         tok->line, tok->index, what_name(w, name, sizeof name),
                         cdyn_token_quote(tok, quoted, sizeof quoted));
    default:
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: expected %s (an integer), found %s", tok->line,
                         tok->index, what_name(w, name, sizeof name),
                         cdyn_token_quote(tok, quoted, sizeof quoted));
    }
}

/* An integer that must equal `expected`. */
static cdyn_status expect_int(cdyn_scan *s, const what *w, long long expected, const char *because,
                              cdyn_report *report)
{
    cdyn_token tok;
    long long v = 0;
    cdyn_status st = read_int(s, w, &v, &tok, report);
    if (st != CDYN_OK || v == expected)
        return st;
    char name[96];
    return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s is %lld, expected %lld (%s)",
                     tok.line, tok.index, what_name(w, name, sizeof name), v, expected, because);
}

/* An integer in [lo, hi]. */
static cdyn_status range_int(cdyn_scan *s, const what *w, long long lo, long long hi,
                             long long *value, cdyn_token *tok, cdyn_report *report)
{
    cdyn_status st = read_int(s, w, value, tok, report);
    if (st != CDYN_OK || (*value >= lo && *value <= hi))
        return st;
    char name[96];
    return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s = %lld is outside [%lld, %lld]",
                     tok->line, tok->index, what_name(w, name, sizeof name), *value, lo, hi);
}

static cdyn_status read_double(cdyn_scan *s, const what *w, double *value, cdyn_report *report)
{
    cdyn_token tok;
    cdyn_status st = next_token(s, w, &tok, report);
    if (st != CDYN_OK)
        return st;
    cdyn_number_error e = cdyn_token_double(&tok, value);
    if (e == CDYN_NUMBER_OK)
        return CDYN_OK;
    char name[96], quoted[32];
    what_name(w, name, sizeof name);
    cdyn_token_quote(&tok, quoted, sizeof quoted);
    switch (e) {
    case CDYN_NUMBER_NONFINITE:
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: %s is %s; only finite numbers are accepted",
                         tok.line, tok.index, name, quoted);
    case CDYN_NUMBER_RANGE:
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: %s = %s overflows a double",
                         tok.line, tok.index, name, quoted);
    case CDYN_NUMBER_TOO_LONG:
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: %s %s is longer than %d characters", tok.line,
                         tok.index, name, quoted, CDYN_SCAN_MAX_NUMBER);
    default:
        return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: expected %s, found %s",
                         tok.line, tok.index, name, quoted);
    }
}

/* ---- header ---------------------------------------------------------------------------------- */

typedef struct header {
    int d;       /* 2 or 3 */
    int n;       /* contacts */
    int code;    /* 0 dense, 1 SBM */
    long long m; /* d n */
} header;

static cdyn_status read_header(cdyn_scan *s, header *h, cdyn_report *report)
{
    cdyn_token tok;
    long long v = 0;
    what w = text_what("the contact dimension d");
    cdyn_status st = read_int(s, &w, &v, &tok, report);
    if (st != CDYN_OK)
        return st;
    if (v != 2 && v != 3)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: the contact dimension d = %lld must be 2 or 3",
                         tok.line, tok.index, v);
    h->d = (int)v;
    w = text_what("the number of contacts n");
    if ((st = read_int(s, &w, &v, &tok, report)) != CDYN_OK)
        return st;
    if (v <= 0)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: the number of contacts n = %lld must be positive",
                         tok.line, tok.index, v);
    if (v > INT_MAX / 3)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: the number of contacts n = %lld exceeds %d",
                         tok.line, tok.index, v, INT_MAX / 3);
    h->n = (int)v;
    h->m = (long long)h->d * v;
    w = text_what("the storage code of W");
    if ((st = read_int(s, &w, &v, &tok, report)) != CDYN_OK)
        return st;
    if (v != 0 && v != 1)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: unsupported storage code %lld for W "
                         "(0 = dense, 1 = sparse block)",
                         tok.line, tok.index, v);
    h->code = (int)v;
    const int repeats = h->code == 0 ? 2 : 1; /* dense matrices repeat rows and columns */
    for (int r = 0; r < repeats; ++r) {
        w = text_what(r == 0 ? "the number of rows of W" : "the repeated number of rows of W");
        if ((st = expect_int(s, &w, h->m, "d n", report)) != CDYN_OK)
            return st;
        w = text_what(r == 0 ? "the number of columns of W"
                             : "the repeated number of columns of W");
        if ((st = expect_int(s, &w, h->m, "d n", report)) != CDYN_OK)
            return st;
    }
    return CDYN_OK;
}

/* A corrupt size must not make us allocate far more than the text could fill: k numbers need
 * at least 2k - 1 bytes. */
static cdyn_status check_room(const cdyn_scan *s, unsigned long long numbers, const char *what_for,
                              cdyn_report *report)
{
    const size_t remaining = (size_t)(s->end - s->cur);
    if (numbers <= remaining / 2 + 1)
        return CDYN_OK;
    return cdyn_fail(report, CDYN_EFORMAT,
                     "line %zu, token %zu: input ends too early: %s need %llu more numbers but "
                     "only %zu bytes follow (truncated input or wrong sizes)",
                     s->line, s->count + 1, what_for, numbers, remaining);
}

static cdyn_status alloc_file(const cdyn_allocator *allocator, const header *h, long long nblocks,
                              cdyn_fc3d_file **f, cdyn_report *report)
{
    int too_big = 0;
    *f = cdyn_fc3d_file_new(allocator, h->d, h->n, nblocks, &too_big);
    if (*f != NULL)
        return CDYN_OK;
    if (too_big)
        return cdyn_fail(report, CDYN_ETOOBIG, "n = %d: W does not fit in memory", h->n);
    return cdyn_fail(report, CDYN_ENOMEM, "out of memory for a problem with %d contacts", h->n);
}

/* Row or column r of the file's d-dimensional numbering in cdyn's 3-dimensional one. */
static size_t to3(int d, long long r)
{
    return (size_t)(d == 3 ? r : 3 * (r / 2) + r % 2);
}

/* ---- dense W --------------------------------------------------------------------------------- */

static cdyn_status read_dense(cdyn_scan *s, const header *h, const cdyn_allocator *allocator,
                              cdyn_fc3d_file **out, cdyn_report *report)
{
    const unsigned long long m = (unsigned long long)h->m;
    cdyn_status st =
        check_room(s, m * m + m + (unsigned long long)h->n, "dense W, q and mu", report);
    if (st != CDYN_OK || (st = alloc_file(allocator, h, -1, out, report)) != CDYN_OK)
        return st;
    cdyn_fc3d_file *f = *out;
    const size_t m3 = 3 * (size_t)h->n;
    for (long long j = 0; j < h->m; ++j) {
        double *col = f->W + to3(h->d, j) * m3;
        for (long long i = 0; i < h->m; ++i) {
            what w = {WHAT_DENSE, NULL, i, j, 0};
            if ((st = read_double(s, &w, &col[to3(h->d, i)], report)) != CDYN_OK)
                return st;
        }
    }
    cdyn_fc3d_file_decouple_planar(f);
    return CDYN_OK;
}

/* ---- sparse block W -------------------------------------------------------------------------- */

typedef struct sbm_work {
    int *index1;   /* n + 1: the file's block-row pointers */
    int *index2;   /* nb: the file's block columns */
    int *mark;     /* n: row + 1 where a column was last seen (repeated blocks) */
    int *has_diag; /* n */
    int *aug_col;  /* nbo: index2 plus the inserted diagonal blocks (d = 2), grouped by row */
    int *aug_of;   /* nb: position of file block k in aug_col */
    int *dest;     /* nbo: slot in the sorted output */
    int *sort;     /* cdyn_fc3d_sort_work(n, nbo) */
} sbm_work;

static void sbm_layout(cdyn_carve *cv, void *base, sbm_work *w, size_t n, size_t nb, size_t nbo)
{
    w->index1 = cdyn_carve_ints(cv, base, n + 1);
    w->index2 = cdyn_carve_ints(cv, base, nb);
    w->mark = cdyn_carve_ints(cv, base, n);
    w->has_diag = cdyn_carve_ints(cv, base, n);
    w->aug_col = cdyn_carve_ints(cv, base, nbo);
    w->aug_of = cdyn_carve_ints(cv, base, nb);
    w->dest = cdyn_carve_ints(cv, base, nbo);
    size_t sort = cdyn_fc3d_sort_work((int)n, (int)nbo);
    if (sort == 0)
        cv->overflow = 1;
    w->sort = cdyn_carve_ints(cv, base, sort);
}

/* nbblocks, blocknumber0/1, the cumulative block sizes, filled1, filled2 (after nbblocks). */
static cdyn_status sbm_sizes(cdyn_scan *s, const header *h, long long nb, cdyn_report *report)
{
    static const char *const names[2] = {"the number of block rows", "the number of block columns"};
    cdyn_status st;
    for (int k = 0; k < 2; ++k) {
        what w = text_what(names[k]);
        if ((st = expect_int(s, &w, h->n, "n", report)) != CDYN_OK)
            return st;
    }
    for (int k = 0; k < 2; ++k)
        for (long long i = 0; i < h->n; ++i) {
            what w = text_what(k == 0 ? "a cumulative block-row size"
                                      : "a cumulative block-column size");
            if ((st = expect_int(s, &w, h->d * (i + 1), "d (i + 1)", report)) != CDYN_OK)
                return st;
        }
    what w = text_what("filled1 (block rows + 1)");
    if ((st = expect_int(s, &w, (long long)h->n + 1, "n + 1", report)) != CDYN_OK)
        return st;
    w = text_what("filled2 (the number of blocks)");
    return expect_int(s, &w, nb, "nbblocks", report);
}

/* The block-row pointers: 0 first, nondecreasing, nb last. */
static cdyn_status sbm_index1(cdyn_scan *s, const header *h, int nb, int *index1,
                              cdyn_report *report)
{
    for (int i = 0; i <= h->n; ++i) {
        what w = text_what("a block-row pointer");
        cdyn_token tok;
        long long v = 0;
        const long long lo = i == 0 ? 0 : index1[i - 1];
        const long long hi = i == 0 ? 0 : nb;
        cdyn_status st = range_int(s, &w, lo, hi, &v, &tok, report);
        if (st != CDYN_OK)
            return st;
        if (i == h->n && v != nb)
            return cdyn_fail(report, CDYN_EFORMAT,
                             "line %zu, token %zu: the last block-row pointer is %lld, expected "
                             "nbblocks = %d (wrong block count)",
                             tok.line, tok.index, v, nb);
        index1[i] = (int)v;
    }
    return CDYN_OK;
}

/* The block columns, row by row; a column twice in a row is an error. */
static cdyn_status sbm_index2(cdyn_scan *s, const header *h, sbm_work *w, cdyn_report *report)
{
    const size_t n = (unsigned)h->n; /* h->n > 0 */
    memset(w->mark, 0, sizeof(int) * n);
    memset(w->has_diag, 0, sizeof(int) * n);
    for (int i = 0; i < h->n; ++i)
        for (int k = w->index1[i]; k < w->index1[i + 1]; ++k) {
            what wh = text_what("a block-column index");
            cdyn_token tok;
            long long c = 0;
            cdyn_status st = range_int(s, &wh, 0, h->n - 1, &c, &tok, report);
            if (st != CDYN_OK)
                return st;
            if (w->mark[c] == i + 1)
                return cdyn_fail(report, CDYN_EFORMAT,
                                 "line %zu, token %zu: block row %d has block column %lld twice "
                                 "(a repeated block)",
                                 tok.line, tok.index, i, c);
            w->mark[c] = i + 1;
            w->has_diag[i] |= c == i;
            w->index2[k] = (int)c;
        }
    return CDYN_OK;
}

/* Group index2 with the diagonal blocks a planar file lacks (its T2 entry must be 1), write
 * the row pointers and the sorted columns into f, and the output slot of each block. */
static void sbm_arrange(const header *h, sbm_work *w, cdyn_fc3d_file *f)
{
    int pos = 0;
    f->rowptr[0] = 0;
    for (int i = 0; i < h->n; ++i) {
        for (int k = w->index1[i]; k < w->index1[i + 1]; ++k) {
            w->aug_of[k] = pos;
            w->aug_col[pos++] = w->index2[k];
        }
        if (h->d == 2 && !w->has_diag[i])
            w->aug_col[pos++] = i;
        f->rowptr[i + 1] = pos;
    }
    cdyn_fc3d_sort_blocks(h->n, f->rowptr, w->aug_col, f->colind, w->dest, w->sort);
}

/* Each block: its ordinal, then d*d numbers column by column. */
static cdyn_status sbm_values(cdyn_scan *s, const header *h, const sbm_work *w, cdyn_fc3d_file *f,
                              cdyn_report *report)
{
    const int d = h->d;
    for (int k = 0; k < w->index1[h->n]; ++k) {
        what wh = text_what("a block ordinal");
        cdyn_status st = expect_int(s, &wh, k, "blocks come in order", report);
        if (st != CDYN_OK)
            return st;
        double *block = f->values + 9 * (size_t)w->dest[w->aug_of[k]];
        for (int e = 0; e < d * d; ++e) {
            what v = {WHAT_BLOCK, NULL, e % d, e / d, k};
            if ((st = read_double(s, &v, &block[e % d + 3 * (e / d)], report)) != CDYN_OK)
                return st;
        }
    }
    return CDYN_OK;
}

static cdyn_status read_sbm(cdyn_scan *s, const header *h, const cdyn_allocator *allocator,
                            cdyn_fc3d_file **out, cdyn_report *report)
{
    const unsigned long long d = (unsigned long long)h->d, n = (unsigned long long)h->n;
    what wh = text_what("nbblocks (the number of blocks of W)");
    cdyn_token tok;
    long long nb = 0;
    cdyn_status st = range_int(s, &wh, 0, INT_MAX, &nb, &tok, report);
    if (st != CDYN_OK)
        return st;
    if ((unsigned long long)nb > n * n)
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line %zu, token %zu: nbblocks = %lld exceeds n^2 = %llu", tok.line,
                         tok.index, nb, n * n);
    /* with nbblocks = 0 Siconos writes nothing more for W */
    const unsigned long long header_numbers = nb > 0 ? 4 + 3 * n + 1 : 0;
    st = check_room(s, header_numbers + (unsigned long long)nb * (d * d + 2) + d * n + n,
                    "the SBM matrix W, q and mu", report);
    if (st != CDYN_OK)
        return st;
    if (nb > 0 && (st = sbm_sizes(s, h, nb, report)) != CDYN_OK)
        return st;

    /* nbo >= nb: the diagonal blocks a planar file may lack are added */
    const long long nbo_max = nb + (h->d == 2 ? h->n : 0);
    sbm_work w;
    cdyn_carve cv = {0, 0};
    if (nbo_max <= INT_MAX)
        sbm_layout(&cv, NULL, &w, n, (size_t)nb, (size_t)nbo_max);
    if (nbo_max > INT_MAX || cv.overflow)
        return cdyn_fail(report, CDYN_ETOOBIG, "%lld blocks do not fit in memory", nb);
    void *work = cdyn_mem_alloc(allocator, cv.off);
    if (work == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "out of memory for the block structure of W");
    cv = (cdyn_carve){0, 0};
    sbm_layout(&cv, work, &w, n, (size_t)nb, (size_t)nbo_max);

    if (nb > 0) {
        st = sbm_index1(s, h, (int)nb, w.index1, report);
        if (st == CDYN_OK)
            st = sbm_index2(s, h, &w, report);
    } else {
        memset(w.index1, 0, sizeof(int) * ((size_t)n + 1));
        memset(w.has_diag, 0, sizeof(int) * (size_t)n);
    }
    long long nbo = nb;
    if (st == CDYN_OK && h->d == 2)
        for (int i = 0; i < h->n; ++i)
            nbo += !w.has_diag[i];
    if (st == CDYN_OK && (st = alloc_file(allocator, h, nbo, out, report)) == CDYN_OK) {
        sbm_arrange(h, &w, *out);
        st = sbm_values(s, h, &w, *out, report);
        if (st == CDYN_OK)
            cdyn_fc3d_file_decouple_planar(*out);
    }
    cdyn_mem_free(allocator, work);
    return st;
}

/* ---- q, mu, comment -------------------------------------------------------------------------- */

static cdyn_status read_vectors(cdyn_scan *s, const header *h, cdyn_fc3d_file *f,
                                cdyn_report *report)
{
    cdyn_status st;
    for (long long i = 0; i < h->m; ++i) {
        what w = {WHAT_Q, NULL, i, 0, 0};
        if ((st = read_double(s, &w, &f->q[to3(h->d, i)], report)) != CDYN_OK)
            return st;
    }
    for (long long i = 0; i < h->n; ++i) {
        what w = {WHAT_MU, NULL, i, 0, 0};
        if ((st = read_double(s, &w, &f->mu[i], report)) != CDYN_OK)
            return st;
        if (f->mu[i] < 0.0)
            return cdyn_fail(report, CDYN_EFORMAT, "line %zu, token %zu: mu[%lld] = %g is negative",
                             s->line, s->count, i, f->mu[i]);
    }
    return CDYN_OK;
}

/* The text after mu with surrounding whitespace removed (Siconos writes a flag there). */
static cdyn_status read_comment(const cdyn_scan *s, cdyn_fc3d_file *f, cdyn_report *report)
{
    const char *c0 = s->cur, *c1 = s->end;
    while (c0 < c1 && cdyn_scan_is_space(*c0))
        c0++;
    while (c1 > c0 && cdyn_scan_is_space(c1[-1]))
        c1--;
    if (c1 == c0 || cdyn_fc3d_file_set_comment(f, c0, (size_t)(c1 - c0)))
        return CDYN_OK;
    return cdyn_fail(report, CDYN_ENOMEM, "out of memory for the comment (%zu bytes)",
                     (size_t)(c1 - c0));
}

/* ---- entry points ---------------------------------------------------------------------------- */

cdyn_status cdyn_fc3d_file_parse(const char *text, size_t length, const cdyn_allocator *allocator,
                                 cdyn_fc3d_file **out, cdyn_report *report)
{
    cdyn_report_clear(report, "fc3d_file");
    if (text == NULL || out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_parse: %s is NULL",
                         text == NULL ? "text" : "out");
    cdyn_scan s;
    cdyn_scan_init(&s, text, length);
    header h = {0};
    cdyn_status st = read_header(&s, &h, report);
    if (st != CDYN_OK)
        return st;
    cdyn_fc3d_file *f = NULL;
    st = h.code == 0 ? read_dense(&s, &h, allocator, &f, report)
                     : read_sbm(&s, &h, allocator, &f, report);
    if (st == CDYN_OK)
        st = read_vectors(&s, &h, f, report);
    if (st == CDYN_OK)
        st = read_comment(&s, f, report);
    if (st != CDYN_OK) {
        cdyn_fc3d_file_free(f);
        return st;
    }
    *out = f;
    return CDYN_OK;
}

static cdyn_status parse_fc3d(const char *text, size_t length, const cdyn_allocator *allocator,
                         void *out, cdyn_report *report)
{
    return cdyn_fc3d_file_parse(text, length, allocator, out, report);
}

cdyn_status cdyn_fc3d_file_read(const char *path, const cdyn_allocator *allocator,
                                cdyn_fc3d_file **out, cdyn_report *report)
{
    cdyn_report_clear(report, "fc3d_file");
    if (path == NULL || out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "fc3d_file_read: %s is NULL",
                         path == NULL ? "path" : "out");
    return cdyn_io_read_parse(path, allocator, parse_fc3d, out, report);
}
