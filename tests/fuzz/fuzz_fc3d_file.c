/* libFuzzer target: cdyn_fc3d_file_parse on arbitrary text (Siconos FrictionContactProblem).
 * Invariants: a valid status echoed by the report; on CDYN_OK a well-formed problem
 * (cdyn_fc3d_check accepts it) that survives a round trip through cdyn_fc3d_file_write and a
 * second parse bit for bit; the same status when the call is repeated; every allocation of a
 * successful parse failed in turn gives CDYN_ENOMEM with *out untouched; nothing leaks. */
#define _POSIX_C_SOURCE 200809L

#include "fuzz_common.h"

#include <unistd.h>

#include "cdyn/fc3d.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_round_trip(const cdyn_fc3d_file *file)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_fc3d_file_%ld.dat", (long)getpid());
    cdyn_fc3d p = cdyn_fc3d_file_problem(file);
    cdyn_report r;
    FZ_CHECK(cdyn_fc3d_file_write(path, &p, NULL, &r) == CDYN_OK);
    cdyn_fc3d_file *again = NULL;
    FZ_CHECK(cdyn_fc3d_file_read(path, NULL, &again, &r) == CDYN_OK);
    unlink(path);
    cdyn_fc3d q = cdyn_fc3d_file_problem(again);
    const size_t m = 3 * (size_t)p.n;
    FZ_CHECK(q.n == p.n);
    FZ_CHECK(memcmp(q.q, p.q, m * sizeof(double)) == 0);
    FZ_CHECK(memcmp(q.mu, p.mu, (size_t)p.n * sizeof(double)) == 0);
    /* W compared through u = W e_k for every unit vector: storage may differ, values may not */
    double *e = calloc(m, sizeof(double)), *u1 = calloc(m, sizeof(double)),
           *u2 = calloc(m, sizeof(double));
    FZ_CHECK(e != NULL && u1 != NULL && u2 != NULL);
    for (size_t k = 0; k < m && k < 48; k++) {
        e[k] = 1.0;
        FZ_CHECK(cdyn_fc3d_residual(&p, e, u1, NULL, NULL) == CDYN_OK);
        FZ_CHECK(cdyn_fc3d_residual(&q, e, u2, NULL, NULL) == CDYN_OK);
        for (size_t j = 0; j < m; j++)
            FZ_CHECK(u1[j] == u2[j] || (isnan(u1[j]) && isnan(u2[j])));
        e[k] = 0.0;
    }
    free(e);
    free(u1);
    free(u2);
    cdyn_fc3d_file_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size ? size : 1); /* no terminating NUL: ASan sees a read past the end */
    FZ_CHECK(text != NULL);
    memcpy(text, data, size);

    test_failing_alloc fa;
    test_failing_alloc_init(&fa, -1);
    cdyn_fc3d_file *file = NULL;
    cdyn_report r;
    cdyn_status s = cdyn_fc3d_file_parse(text, size, &fa.allocator, &file, &r);
    fz_check_report(&r, s);
    if (s == CDYN_OK) {
        FZ_CHECK(file != NULL && file->n > 0 && (file->dim == 2 || file->dim == 3));
        cdyn_fc3d p = cdyn_fc3d_file_problem(file);
        cdyn_fc3d_report fr;
        FZ_CHECK(cdyn_fc3d_check(&p, &fr) == CDYN_OK);
        FZ_CHECK(file->comment != NULL);
        if (file->n <= 32)
            check_round_trip(file);
        cdyn_fc3d_file_free(file);
    } else {
        FZ_CHECK(file == NULL);
    }
    FZ_CHECK(fa.live == 0);

    const int allocations = fa.allocations;
    cdyn_fc3d_file *again = NULL;
    FZ_CHECK(cdyn_fc3d_file_parse(text, size, NULL, &again, &r) == s);
    cdyn_fc3d_file_free(again);

    if (s == CDYN_OK) {
        for (int k = 0; k < allocations; ++k) {
            cdyn_fc3d_file *sentinel = (cdyn_fc3d_file *)&fa, *out = sentinel;
            test_failing_alloc_init(&fa, k);
            cdyn_status s2 = cdyn_fc3d_file_parse(text, size, &fa.allocator, &out, &r);
            fz_check_report(&r, s2);
            FZ_CHECK(s2 == CDYN_ENOMEM);
            FZ_CHECK(out == sentinel);
            FZ_CHECK(fa.live == 0);
        }
    }
    free(text);
    return 0;
}
