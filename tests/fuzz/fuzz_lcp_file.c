/* libFuzzer target: cdyn_lcp_file_parse on arbitrary text.
 * Invariants: a valid status echoed by the report; on CDYN_OK a well-formed file (n > 0,
 * finite M and q, NUL-terminated comment) that survives a round trip (printed with %.17g and
 * parsed again: the same n, M and q bit for bit); the same status when the call is repeated;
 * then every allocation of a successful parse failed in turn: CDYN_ENOMEM, *out untouched;
 * every allocation released in every run. */
#include "fuzz_common.h"

#include "cdyn/io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const cdyn_lcp_file *file)
{
    const size_t n = (size_t)file->n, len = 64 + 26 * (n * n + n);
    char *text = malloc(len);
    FZ_CHECK(text != NULL);
    size_t at = (size_t)snprintf(text, len, "%d\n0\n%d %d\n%d %d\n", file->n, file->n, file->n,
                                 file->n, file->n);
    for (size_t k = 0; k < n * n; ++k)
        at += (size_t)snprintf(text + at, len - at, "%.17g ", file->M[k]);
    for (size_t k = 0; k < n; ++k)
        at += (size_t)snprintf(text + at, len - at, "%.17g\n", file->q[k]);
    cdyn_lcp_file *again = NULL;
    cdyn_report r;
    cdyn_status s = cdyn_lcp_file_parse(text, at, NULL, &again, &r);
    FZ_CHECK(s == CDYN_OK);
    FZ_CHECK(again->n == file->n);
    FZ_CHECK(memcmp(again->M, file->M, sizeof(double) * n * n) == 0);
    FZ_CHECK(memcmp(again->q, file->q, sizeof(double) * n) == 0);
    cdyn_lcp_file_free(again);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader takes (text, length): no terminating NUL is needed, so give it none (ASan
     * then catches a read past the end). */
    char *text = malloc(size ? size : 1);
    FZ_CHECK(text != NULL);
    memcpy(text, data, size);

    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_lcp_file *file = NULL;
    cdyn_report r;
    cdyn_status s = cdyn_lcp_file_parse(text, size, &fa.allocator, &file, &r);
    fz_check_report(&r, s);
    if (s == CDYN_OK) {
        FZ_CHECK(file != NULL && file->n > 0);
        const size_t n = (size_t)file->n;
        FZ_CHECK(fz_all_finite(n * n, file->M));
        FZ_CHECK(fz_all_finite(n, file->q));
        FZ_CHECK(file->comment != NULL);
        FZ_CHECK(strlen(file->comment) <= size);
        cdyn_lcp lcp = cdyn_lcp_file_problem(file);
        FZ_CHECK(lcp.n == file->n && lcp.M == file->M && lcp.q == file->q);
        if (n <= 64)
            check_round_trip(file);
        cdyn_lcp_file_free(file);
    } else {
        FZ_CHECK(file == NULL);
    }
    FZ_CHECK(fa.live == 0);

    const int allocations = fa.allocations;
    cdyn_lcp_file *again = NULL;
    cdyn_status s2 = cdyn_lcp_file_parse(text, size, NULL, &again, &r);
    FZ_CHECK(s2 == s);
    cdyn_lcp_file_free(again);

    if (s == CDYN_OK) {
        for (int k = 0; k < allocations; ++k) {
            cdyn_lcp_file *sentinel = (cdyn_lcp_file *)&fa; /* any non-NULL address */
            cdyn_lcp_file *out = sentinel;
            test_failing_alloc_init(&fa, k);
            s2 = cdyn_lcp_file_parse(text, size, &fa.allocator, &out, &r);
            fz_check_report(&r, s2);
            FZ_CHECK(s2 == CDYN_ENOMEM);
            FZ_CHECK(out == sentinel);
            FZ_CHECK(fa.live == 0);
        }
    }
    free(text);
    return 0;
}
