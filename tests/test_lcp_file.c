/* LCP file reader and writer: the Siconos fixtures, malformed input, allocation failures. */
#define _POSIX_C_SOURCE 200809L /* opendir, for listing every fixture */

#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cdyn/io.h"
#include "support.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static char *slurp(const char *path, size_t *length)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + len, 1, cap - 1 - len, f)) > 0) {
        len += got;
        assert_true(len + 1 < cap); /* fixtures are small */
    }
    fclose(f);
    buf[len] = '\0';
    *length = len;
    return buf;
}

static void data_path(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", CDYN_TEST_DATA_DIR, name);
}

/* Parse a NUL-terminated string; returns the status, *out set only on success. */
static cdyn_status parse_str(const char *text, cdyn_lcp_file **out, cdyn_report *r)
{
    return cdyn_lcp_file_parse(text, strlen(text), NULL, out, r);
}

/* Expect CDYN_EFORMAT (or `status`) with every fragment in the message; *out untouched. */
static void expect_error(const char *text, size_t length, cdyn_status status, const char *frag1,
                         const char *frag2)
{
    cdyn_lcp_file *sentinel = (cdyn_lcp_file *)&sentinel;
    cdyn_lcp_file *out = sentinel;
    cdyn_report r;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_status st = cdyn_lcp_file_parse(text, length, &fa.allocator, &out, &r);
    if (st != status || (frag1 && !strstr(r.message, frag1)) ||
        (frag2 && !strstr(r.message, frag2)))
        print_error("input: %.60s\nstatus %d, message: %s\n", text, (int)st, r.message);
    assert_int_equal(st, status);
    assert_int_equal(r.status, status);
    assert_ptr_equal(out, sentinel);
    assert_int_equal(fa.live, 0);
    if (frag1)
        assert_non_null(strstr(r.message, frag1));
    if (frag2)
        assert_non_null(strstr(r.message, frag2));
}

static void expect_format(const char *text, const char *frag1, const char *frag2)
{
    expect_error(text, strlen(text), CDYN_EFORMAT, frag1, frag2);
}

#define M_AT(f, i, j) ((f)->M[(i) + (size_t)(j) * (size_t)(f)->n])

/* ---- fixtures ------------------------------------------------------------------------------ */

/* Expected values below are read by hand from the files in tests/data. Each printed line of M
 * is a COLUMN, so the k-th number of a line is row k of that column. */
typedef struct fixture {
    const char *name;
    int n;
    const char *comment;
} fixture;

static const fixture fixtures[] = {
    {"lcp_CPS_1.dat", 2, "Remark 4.1.14 CPS 2009\nset of solution is z_1 + z_2 = 1"},
    {"lcp_CPS_2.dat", 3, "Example 4.4.7 CPS 2009"},
    {"lcp_CPS_3.dat", 4, "Bimatrix game, example 4.4.23 CPS 2009"},
    {"lcp_CPS_4.dat", 4, ""},
    {"lcp_CPS_5.dat", 2, "Example 4.4.16 CPS 2009"},
    {"lcp_Pang_isolated_sol.dat", 3, ""},
    {"lcp_deudeu.dat", 2, ""},
    {"lcp_exp_murty.dat", 6, "# from Murty (1988) chapter 6"},
    {"lcp_exp_murty2.dat", 6,
     "# from Murty (1988) chapter 6\n"
     "# this example illustrates the exponential complexity of Lemke based methods"},
    {"lcp_inf_sol_perturbed.dat", 3, ""},
    {"lcp_ortiz.dat", 4, ""},
    {"lcp_trivial.dat", 9, ""},
};
static const size_t fixture_count = sizeof fixtures / sizeof fixtures[0];

static cdyn_lcp_file *read_fixture(const char *name)
{
    char path[1024];
    data_path(name, path, sizeof path);
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    cdyn_status st = cdyn_lcp_file_read(path, NULL, &f, &r);
    if (st != CDYN_OK)
        print_error("%s: %s\n", name, r.message);
    assert_int_equal(st, CDYN_OK);
    assert_int_equal(r.status, CDYN_OK);
    assert_non_null(f);
    return f;
}

/* Every lcp_*.dat in the data directory is listed above (so a new fixture gets checked). */
static void test_every_fixture_is_listed(void **state)
{
    (void)state;
    DIR *d = opendir(CDYN_TEST_DATA_DIR);
    assert_non_null(d);
    size_t seen = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "lcp_", 4) != 0 || len < 4 || strcmp(e->d_name + len - 4, ".dat"))
            continue;
        int listed = 0;
        for (size_t k = 0; k < fixture_count; ++k)
            listed |= strcmp(fixtures[k].name, e->d_name) == 0;
        if (!listed)
            print_error("%s is not in the fixture table\n", e->d_name);
        assert_true(listed);
        seen++;
    }
    closedir(d);
    assert_int_equal(seen, fixture_count);
}

/* n, comment, and every number against an independent tokenization of the file (strtok +
 * strtod): token 7 onwards are M in file order (column-major), then q. */
static void test_fixtures_match_file_text(void **state)
{
    (void)state;
    for (size_t k = 0; k < fixture_count; ++k) {
        cdyn_lcp_file *f = read_fixture(fixtures[k].name);
        assert_int_equal(f->n, fixtures[k].n);
        assert_string_equal(f->comment, fixtures[k].comment);

        char path[1024];
        size_t len;
        data_path(fixtures[k].name, path, sizeof path);
        char *text = slurp(path, &len);
        const size_t n = (size_t)f->n;
        size_t t = 0;
        for (char *tok = strtok(text, " \t\r\n"); tok != NULL && t < 6 + n * n + n;
             tok = strtok(NULL, " \t\r\n"), ++t) {
            if (t == 0 || (t >= 2 && t < 6))
                assert_int_equal(atoi(tok), f->n);
            else if (t == 1)
                assert_int_equal(atoi(tok), 0);
            else if (t < 6 + n * n)
                assert_true(f->M[t - 6] == strtod(tok, NULL));
            else
                assert_true(f->q[t - 6 - n * n] == strtod(tok, NULL));
        }
        assert_int_equal(t, 6 + n * n + n);
        free(text);

        cdyn_lcp view = cdyn_lcp_file_problem(f);
        assert_int_equal(view.n, f->n);
        assert_ptr_equal(view.M, f->M);
        assert_ptr_equal(view.q, f->q);
        cdyn_lcp_file_free(f);
    }
}

/* Column-major reading, checked on entries where it differs from row-major. */
static void test_fixture_entries_by_hand(void **state)
{
    (void)state;
    /* lcp_Pang_isolated_sol.dat: lines "0 1 -1", "-1 0 0", "-1 0 0" are columns 0, 1, 2;
       q = (0, -1, 1). With this reading z = (1, 0, 0) gives w = column 0 + q = 0. */
    cdyn_lcp_file *f = read_fixture("lcp_Pang_isolated_sol.dat");
    assert_true(M_AT(f, 0, 1) == -1.0);
    assert_true(M_AT(f, 1, 0) == 1.0);
    assert_true(M_AT(f, 2, 0) == -1.0);
    assert_true(M_AT(f, 0, 2) == -1.0);
    assert_true(M_AT(f, 2, 2) == 0.0);
    assert_true(f->q[0] == 0.0 && f->q[1] == -1.0 && f->q[2] == 1.0);
    cdyn_lcp_file_free(f);

    /* lcp_CPS_2.dat: columns (0 2 -1), (-1 0 1), (2 -2 0); q = (-3 6 -1). */
    f = read_fixture("lcp_CPS_2.dat");
    assert_true(M_AT(f, 1, 0) == 2.0 && M_AT(f, 0, 1) == -1.0);
    assert_true(M_AT(f, 2, 0) == -1.0 && M_AT(f, 0, 2) == 2.0);
    assert_true(M_AT(f, 2, 1) == 1.0 && M_AT(f, 1, 2) == -2.0);
    assert_true(f->q[1] == 6.0);
    cdyn_lcp_file_free(f);

    /* lcp_exp_murty.dat: lines "1 0 0 0 0 0", "2 1 0 0 0 0", ... are columns, so M is Murty's
       upper triangular matrix: 1 on the diagonal, 2 above it, 0 below; q = -1. */
    f = read_fixture("lcp_exp_murty.dat");
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j)
            assert_true(M_AT(f, i, j) == (i == j ? 1.0 : (i < j ? 2.0 : 0.0)));
        assert_true(f->q[i] == -1.0);
    }
    cdyn_lcp_file_free(f);

    /* lcp_ortiz.dat: columns (3 -1 0 0), (1 2 1 0), (0 1 3 1), (-1 1 -1 2); q = (-2 1 -1 1). */
    f = read_fixture("lcp_ortiz.dat");
    assert_true(M_AT(f, 1, 0) == -1.0 && M_AT(f, 0, 1) == 1.0);
    assert_true(M_AT(f, 0, 3) == -1.0 && M_AT(f, 3, 0) == 0.0 && M_AT(f, 3, 2) == 1.0);
    assert_true(f->q[0] == -2.0 && f->q[3] == 1.0);
    cdyn_lcp_file_free(f);

    /* lcp_trivial.dat: diag(1, ..., 9), q = -1. */
    f = read_fixture("lcp_trivial.dat");
    for (int i = 0; i < 9; ++i)
        for (int j = 0; j < 9; ++j)
            assert_true(M_AT(f, i, j) == (i == j ? (double)(i + 1) : 0.0));
    cdyn_lcp_file_free(f);

    /* lcp_inf_sol_perturbed.dat: q[0] = -0.0001 as written. */
    f = read_fixture("lcp_inf_sol_perturbed.dat");
    assert_true(f->q[0] == -0.0001 && M_AT(f, 0, 2) == 1.0 && M_AT(f, 2, 0) == -1.0);
    cdyn_lcp_file_free(f);
}

/* ---- well-formed text ------------------------------------------------------------------------ */

static void test_parse_minimal_and_comment_with_numbers(void **state)
{
    (void)state;
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    assert_int_equal(parse_str("1\n0\n1\n1\n1 1\n2\n-3\n\n  4 5 six = 7\n\n", &f, &r), CDYN_OK);
    assert_int_equal(f->n, 1);
    assert_true(f->M[0] == 2.0 && f->q[0] == -3.0);
    assert_string_equal(f->comment, "4 5 six = 7");
    cdyn_lcp_file_free(f);

    /* Numbers in any decimal notation; values that underflow become 0 (smallest double is about
       4.9e-324). */
    assert_int_equal(parse_str("2 0 2 2 2 2  +1.5 -.25 3. 1e2  0.1 -1E-400", &f, &r), CDYN_OK);
    assert_true(f->M[0] == 1.5 && f->M[1] == -0.25 && f->M[2] == 3.0 && f->M[3] == 100.0);
    assert_true(f->q[0] == 0.1 && f->q[1] == 0.0);
    assert_string_equal(f->comment, "");
    cdyn_lcp_file_free(f);
}

/* Only `length` bytes are read: the same text cut in two places. */
static void test_parse_respects_length(void **state)
{
    (void)state;
    const char text[] = "1 0 1 1 1 1 2 -3 99";
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_lcp_file_parse(text, strlen(text) - 3, NULL, &f, &r), CDYN_OK);
    assert_true(f->q[0] == -3.0);
    assert_string_equal(f->comment, "");
    cdyn_lcp_file_free(f);
    /* cut after "-": q[0] is "-", not a number */
    expect_error(text, strlen(text) - 4, CDYN_EFORMAT, "q[0]", "'-'");
}

/* Parsing and writing ignore the C locale's decimal point. Needs a comma locale:
 * tests/CMakeLists.txt compiles de_DE into the build tree (LOCPATH) when localedef and its sources
 * exist. */
static void test_parse_ignores_locale(void **state)
{
    (void)state;
    const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    const char *set = NULL;
    for (size_t k = 0; k < 4 && set == NULL; ++k)
        set = setlocale(LC_NUMERIC, names[k]);
    if (set == NULL)
        skip();
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    cdyn_status st = parse_str("1 0 1 1 1 1 2.5 -0.125", &f, &r);
    /* and the writer still writes '.' */
    const double M[1] = {2.5}, q[1] = {-0.125};
    cdyn_lcp lcp = {1, M, q};
    char path[1024];
    snprintf(path, sizeof path, "%s/locale.dat", CDYN_TEST_OUT_DIR);
    cdyn_status wst = cdyn_lcp_file_write(path, &lcp, NULL, &r);
    setlocale(LC_NUMERIC, "C");
    assert_int_equal(st, CDYN_OK);
    assert_true(f->M[0] == 2.5 && f->q[0] == -0.125);
    cdyn_lcp_file_free(f);
    assert_int_equal(wst, CDYN_OK);
    size_t len;
    char *text = slurp(path, &len);
    assert_non_null(strstr(text, "2.5\n-0.125\n"));
    free(text);
    remove(path);
}

/* ---- malformed text ------------------------------------------------------------------------- */

static void test_malformed_header(void **state)
{
    (void)state;
    expect_format("", "empty input", "line 1");
    expect_format(" \n\t \n", "empty input", "line 3");
    expect_format("abc", "problem size n", "'abc'");
    expect_format("1e9 0 1 1 1 1 1 1", "problem size n", "'1e9'");
    expect_format("2.0 0 2 2 2 2 1 1 1 1 1 1", "problem size n", "'2.0'");
    expect_format("0 0 0 0 0 0", "n = 0 must be positive", "token 1");
    expect_format("-3 0 3 3 3 3", "n = -3 must be positive", NULL);
    expect_format("2147483648 0", "exceeds 2147483647", NULL);
    expect_format("99999999999999999999999999 0", "out of range", "token 1");
    expect_format("2 1 2 2 2 2 1 1 1 1 1 1", "unsupported storage code 1", "token 2");
    expect_format("2 -1 2 2 2 2 1 1 1 1 1 1", "unsupported storage code -1", NULL);
    expect_format("2 x 2 2 2 2 1 1 1 1 1 1", "storage code", "'x'");
    expect_format("2\n0\n3\n2\n3\t2\n1 1 1\n1 1 1\n1 1\n", "number of rows of M is 3 but n = 2",
                  "line 3, token 3");
    expect_format("2\n0\n2\n3\n2\t3\n1 1\n1 1\n1 1\n", "number of columns of M is 3 but n = 2",
                  "line 4, token 4");
    expect_format("2\n0\n2\n2\n3\t2\n1 1\n1 1\n1 1\n",
                  "repeated number of rows of M is 3, not 2 as at token 3", "line 5, token 5");
    expect_format("2\n0\n2\n2\n2\t1\n1 1\n1 1\n1 1\n",
                  "repeated number of columns of M is 1, not 2 as at token 4", "token 6");
    expect_format("2\n0\n2\n2\n", "input ends after 4 tokens", "repeated number of rows");
    expect_format("2", "input ends after 1 tokens", "storage code");
}

static void test_malformed_values(void **state)
{
    (void)state;
    /* tokens: n=1, storage=2, dims 3..6, M(0,0)=7, M(1,0)=8, M(0,1)=9, M(1,1)=10, q 11..12 */
    expect_format("2 0 2 2 2 2\n1 1\n1.0x 1\n-1 -1\n", "M(0,1)", "'1.0x'");
    expect_format("2 0 2 2 2 2\n1 1\n1.0x 1\n-1 -1\n", "line 3, token 9", "number 3 of 6");
    expect_format("2 0 2 2 2 2\n1 1\n1 1\n-1 abc\n", "q[1]", "'abc'");
    expect_format("2 0 2 2 2 2 1 1 1 1 -1", "input ends after 5 of the 6 numbers", "q[1]");
    expect_format("2 0 2 2 2 2 1 1 1\n\n\n\n\n\n", "line 7: input ends after 3 of the 6", "M(1,1)");
    expect_format("2 0 2 2 2 2 1 1 1", "n = 2 needs 6 numbers for M and q but only 6 bytes", NULL);
    expect_format("2 0 2 2 2 2 1 1 1 1 1 1e", "q[1]", "'1e'");
    expect_format("2 0 2 2 2 2 1 1 1 1 1 0x10", "q[1]", "'0x10'");
    expect_format("2 0 2 2 2 2 1 1 1 1 1 1,5", "q[1]", "'1,5'");
    expect_format("2 0 2 2 2 2 1 1 1 1 1 --1", "q[1]", NULL);
    expect_format("2 0 2 2 2 2 1 1 1 1 1 .", "q[1]", NULL);
    /* non-finite values are rejected, in every spelling */
    expect_format("2 0 2 2 2 2 nan 1 1 1 1 1", "M(0,0) is 'nan'", "only finite");
    expect_format("2 0 2 2 2 2 1 NaN 1 1 1 1", "M(1,0) is 'NaN'", NULL);
    expect_format("2 0 2 2 2 2 1 1 1 inf 1 1", "M(1,1) is 'inf'", NULL);
    expect_format("2 0 2 2 2 2 1 1 1 1 -Infinity 1", "q[0] is '-Infinity'", NULL);
    expect_format("2 0 2 2 2 2 1 1 1 1 1 -nan(0x1)", "q[1]", "only finite");
    expect_format("2 0 2 2 2 2 1 1 1 1 1 1e999", "q[1] = '1e999' overflows", NULL);
    /* a 300-digit number is over the documented token limit */
    char text[400] = "1 0 1 1 1 1 ";
    size_t len = strlen(text);
    for (int k = 0; k < 300; ++k)
        text[len++] = '1';
    text[len] = '\0';
    strcat(text, " 0");
    expect_format(text, "longer than 255 characters", "M(0,0)");
}

/* A huge n is refused from the file's length before anything is allocated: the allocator
 * here fails every request, so an attempt would show as CDYN_ENOMEM. */
static void test_huge_n_allocates_nothing(void **state)
{
    (void)state;
    const char *texts[] = {
        "1000000000 0 1000000000 1000000000 1000000000 1000000000 1 2 3",
        "2147483647 0 2147483647 2147483647 2147483647 2147483647 1 2 3",
        "3 0 3 3 3 3 1 2 3", /* 12 numbers cannot fit in 6 bytes */
    };
    for (size_t k = 0; k < 3; ++k) {
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, 0);
        cdyn_lcp_file *f = NULL;
        cdyn_report r;
        assert_int_equal(cdyn_lcp_file_parse(texts[k], strlen(texts[k]), &fa.allocator, &f, &r),
                         CDYN_EFORMAT);
        assert_non_null(strstr(r.message, "numbers for M and q but only"));
        assert_null(f);
        assert_int_equal(fa.allocations, 0);
    }
}

static void test_binary_garbage(void **state)
{
    (void)state;
    const char garbage[] = "\x7f"
                           "ELF\x02\x01\x01\x00\x00\x00\xff\xfe";
    expect_error(garbage, sizeof garbage - 1, CDYN_EFORMAT, "problem size n", "token 1");
    const char nul_in_number[] = "1 0 1 1 1 1 2\0 3";
    expect_error(nul_in_number, sizeof nul_in_number - 1, CDYN_EFORMAT, "M(0,0)", "'2?'");

    /* bytes after q are comment, whatever they are; a NUL ends the comment string */
    const char tail[] = "1 0 1 1 1 1 2 3 \x01\xff\xfe text\0more";
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_lcp_file_parse(tail, sizeof tail - 1, NULL, &f, &r), CDYN_OK);
    assert_string_equal(f->comment, "\x01\xff\xfe text");
    cdyn_lcp_file_free(f);

    /* random bytes and random mutations of a valid file: any status but a crash or leak
       (the sanitizer build checks memory), and EFORMAT carries a message */
    test_rng rng;
    test_rng_seed(&rng, 20260812);
    const char valid[] = "3\n0\n3\n3\n3\t3\n0 1 -1\n-1 0 0\n-1 0 0\n0 -1 1\n";
    char buf[256];
    for (int trial = 0; trial < 4000; ++trial) {
        size_t len;
        if (trial % 2 == 0) {
            len = (size_t)(test_rng_uniform(&rng) * sizeof buf);
            for (size_t k = 0; k < len; ++k)
                buf[k] = (char)(int)(test_rng_uniform(&rng) * 256.0);
        } else {
            len = sizeof valid - 1;
            memcpy(buf, valid, len);
            for (int m = 0; m < 3; ++m) {
                size_t at = (size_t)(test_rng_uniform(&rng) * (double)len);
                buf[at] = (char)(int)(test_rng_uniform(&rng) * 256.0);
            }
            len = (size_t)(test_rng_uniform(&rng) * (double)(len + 1));
        }
        test_failing_alloc fa;
        test_failing_alloc_init(&fa, -1);
        f = NULL;
        cdyn_status st = cdyn_lcp_file_parse(buf, len, &fa.allocator, &f, &r);
        assert_true(st == CDYN_OK || st == CDYN_EFORMAT);
        if (st == CDYN_OK) {
            assert_true(f->n >= 1);
            for (size_t k = 0; k < (size_t)f->n * (size_t)(f->n + 1); ++k)
                assert_true(isfinite(f->M[k]));
            cdyn_lcp_file_free(f);
        } else {
            assert_null(f);
            assert_true(strlen(r.message) > 0);
        }
        assert_int_equal(fa.live, 0);
    }
}

static void test_invalid_arguments(void **state)
{
    (void)state;
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    assert_int_equal(cdyn_lcp_file_parse(NULL, 0, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_parse("1 0 1 1 1 1 1 1", 15, NULL, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_read(NULL, NULL, &f, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_read("x", NULL, NULL, &r), CDYN_EINVAL);
    assert_null(f);
    /* report may be NULL */
    assert_int_equal(cdyn_lcp_file_parse("", 0, NULL, &f, NULL), CDYN_EFORMAT);
    cdyn_lcp_file_free(NULL);
    cdyn_lcp none = cdyn_lcp_file_problem(NULL);
    assert_int_equal(none.n, 0);
    assert_null(none.M);
    assert_null(none.q);
}

/* ---- files ------------------------------------------------------------------------------------
 */

static void test_missing_file_and_directory(void **state)
{
    (void)state;
    cdyn_lcp_file *f = NULL;
    cdyn_report r;
    const char *missing = CDYN_TEST_DATA_DIR "/no_such_file.dat";
    assert_int_equal(cdyn_lcp_file_read(missing, NULL, &f, &r), CDYN_EIO);
    assert_int_equal(r.status, CDYN_EIO);
    assert_non_null(strstr(r.message, "no_such_file.dat"));
    assert_non_null(strstr(r.message, strerror(ENOENT)));
    assert_null(f);

    /* a directory opens on POSIX systems but cannot be read */
    assert_int_equal(cdyn_lcp_file_read(CDYN_TEST_DATA_DIR, NULL, &f, &r), CDYN_EIO);
    assert_non_null(strstr(r.message, "tests/data"));
    assert_null(f);

    /* an empty file is malformed, and the message names it */
    char path[1024];
    snprintf(path, sizeof path, "%s/empty.dat", CDYN_TEST_OUT_DIR);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fclose(fp);
    assert_int_equal(cdyn_lcp_file_read(path, NULL, &f, &r), CDYN_EFORMAT);
    assert_non_null(strstr(r.message, "empty.dat: line 1: empty input"));
    remove(path);
}

/* Every allocation of parse and read may fail: CDYN_ENOMEM, nothing leaked, *out untouched.
 * Counting up until the call succeeds visits every allocation point. */
static void test_every_allocation_failure(void **state)
{
    (void)state;
    char path[1024];
    data_path("lcp_exp_murty2.dat", path, sizeof path);
    size_t len;
    char *text = slurp(path, &len);
    for (int use_file = 0; use_file < 2; ++use_file) {
        int failures = 0;
        for (int fail_after = 0;; ++fail_after) {
            test_failing_alloc fa;
            test_failing_alloc_init(&fa, fail_after);
            cdyn_lcp_file *sentinel = (cdyn_lcp_file *)&sentinel;
            cdyn_lcp_file *f = sentinel;
            cdyn_report r;
            cdyn_status st = use_file ? cdyn_lcp_file_read(path, &fa.allocator, &f, &r)
                                      : cdyn_lcp_file_parse(text, len, &fa.allocator, &f, &r);
            if (st == CDYN_OK) {
                assert_int_equal(f->n, 6);
                assert_true(f->q[5] == -64.0);
                assert_true(fa.live > 0);
                cdyn_lcp_file_free(f); /* must release through the remembered allocator */
                assert_int_equal(fa.live, 0);
                break;
            }
            assert_int_equal(st, CDYN_ENOMEM);
            assert_int_equal(r.status, CDYN_ENOMEM);
            assert_ptr_equal(f, sentinel);
            assert_int_equal(fa.live, 0);
            failures++;
            assert_true(fail_after < 100);
        }
        assert_true(failures >= (use_file ? 2 : 1));
    }
    free(text);
}

/* The allocator struct is copied: the caller's copy may be gone before cdyn_lcp_file_free. */
static void test_allocator_is_remembered_by_value(void **state)
{
    (void)state;
    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_allocator temp = fa.allocator;
    cdyn_lcp_file *f = NULL;
    assert_int_equal(cdyn_lcp_file_parse("1 0 1 1 1 1 1 1 c", 17, &temp, &f, NULL), CDYN_OK);
    memset(&temp, 0, sizeof temp);
    assert_true(fa.live > 0);
    cdyn_lcp_file_free(f);
    assert_int_equal(fa.live, 0);
}

/* ---- writing --------------------------------------------------------------------------------- */

static void round_trip(const cdyn_lcp *lcp, const char *comment, const char *expect_comment)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/round_trip.dat", CDYN_TEST_OUT_DIR);
    cdyn_report r;
    assert_int_equal(cdyn_lcp_file_write(path, lcp, comment, &r), CDYN_OK);
    cdyn_lcp_file *f = NULL;
    cdyn_status st = cdyn_lcp_file_read(path, NULL, &f, &r);
    if (st != CDYN_OK)
        print_error("%s\n", r.message);
    assert_int_equal(st, CDYN_OK);
    assert_int_equal(f->n, lcp->n);
    const size_t nn = (size_t)lcp->n * (size_t)lcp->n;
    /* bit-for-bit, so -0.0 keeps its sign */
    assert_memory_equal(f->M, lcp->M, nn * sizeof(double));
    assert_memory_equal(f->q, lcp->q, (size_t)lcp->n * sizeof(double));
    assert_string_equal(f->comment, expect_comment);
    cdyn_lcp_file_free(f);
    remove(path);
}

static void test_write_round_trip(void **state)
{
    (void)state;
    /* values whose shortest decimal needs 17 digits, extremes of the double range, -0 */
    const double M[9] = {0.1,
                         -1.0 / 3.0,
                         1e-300,
                         4.9406564584124654e-324,
                         1.7976931348623157e308,
                         -0.0,
                         2.0 / 3.0,
                         123456789.123456789,
                         -7.0};
    const double q[3] = {-1.0, 0.3, 5e-324};
    cdyn_lcp lcp = {3, M, q};
    round_trip(&lcp, "  round trip: 1 2 3\n", "round trip: 1 2 3");
    round_trip(&lcp, NULL, "");

    /* every fixture survives write + read with the same numbers and comment */
    for (size_t k = 0; k < fixture_count; ++k) {
        cdyn_lcp_file *f = read_fixture(fixtures[k].name);
        cdyn_lcp view = cdyn_lcp_file_problem(f);
        round_trip(&view, f->comment, fixtures[k].comment);
        cdyn_lcp_file_free(f);
    }
}

static void test_write_errors(void **state)
{
    (void)state;
    const double M[1] = {1.0}, q[1] = {-1.0}, bad[1] = {NAN};
    cdyn_lcp lcp = {1, M, q};
    cdyn_report r;
    char path[1024];
    snprintf(path, sizeof path, "%s/no_such_dir/x.dat", CDYN_TEST_OUT_DIR);
    assert_int_equal(cdyn_lcp_file_write(path, &lcp, NULL, &r), CDYN_EIO);
    assert_non_null(strstr(r.message, "no_such_dir/x.dat"));
    assert_non_null(strstr(r.message, strerror(ENOENT)));

    snprintf(path, sizeof path, "%s/never_written.dat", CDYN_TEST_OUT_DIR);
    cdyn_lcp nan_m = {1, bad, q}, nan_q = {1, M, bad}, empty = {0, M, q}, no_q = {1, M, NULL};
    assert_int_equal(cdyn_lcp_file_write(path, &nan_m, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "M(0,0)"));
    assert_int_equal(cdyn_lcp_file_write(path, &nan_q, NULL, &r), CDYN_EINVAL);
    assert_non_null(strstr(r.message, "q[0]"));
    assert_int_equal(cdyn_lcp_file_write(path, &empty, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_write(path, &no_q, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_write(NULL, &lcp, NULL, &r), CDYN_EINVAL);
    assert_int_equal(cdyn_lcp_file_write(path, NULL, NULL, NULL), CDYN_EINVAL);
    FILE *fp = fopen(path, "r");
    assert_null(fp); /* invalid input writes nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_fixture_is_listed),
        cmocka_unit_test(test_fixtures_match_file_text),
        cmocka_unit_test(test_fixture_entries_by_hand),
        cmocka_unit_test(test_parse_minimal_and_comment_with_numbers),
        cmocka_unit_test(test_parse_respects_length),
        cmocka_unit_test(test_parse_ignores_locale),
        cmocka_unit_test(test_malformed_header),
        cmocka_unit_test(test_malformed_values),
        cmocka_unit_test(test_huge_n_allocates_nothing),
        cmocka_unit_test(test_binary_garbage),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_missing_file_and_directory),
        cmocka_unit_test(test_every_allocation_failure),
        cmocka_unit_test(test_allocator_is_remembered_by_value),
        cmocka_unit_test(test_write_round_trip),
        cmocka_unit_test(test_write_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
