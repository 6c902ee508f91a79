/* libFuzzer target: cdyn_lemke / cdyn_lemke_ex on small LCPs with arbitrary numbers and options.
 * Invariants: a valid status echoed by the report; on CDYN_OK the componentwise certificate,
 * recomputed; on CDYN_EINACCURATE z, w finite; on other failures z, w and basis untouched;
 * every allocation released. */
#include "fuzz_lcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    fz_lcp p;
    fz_lcp_decode(&f, FZ_LCP_MAX_N, &p);
    const int n = p.n;

    cdyn_lemke_options o;
    cdyn_lemke_defaults(&o);
    const unsigned flags = fz_byte(&f);
    o.tol = fz_tol(&f);
    double covering[FZ_LCP_MAX_N];
    int warm[FZ_LCP_MAX_N];
    if (flags & 1) {
        fz_doubles(&f, covering, (size_t)n);
        o.covering = covering;
    }
    if (flags & 2) {
        for (int i = 0; i < n; ++i)
            warm[i] = (int)(fz_byte(&f) & 1);
        o.warm_basis = warm;
    }
    if (flags & 4)
        o.max_pivots = (int)fz_byte(&f);
    if (flags & 8)
        o.refactor_every = (int)(int8_t)fz_byte(&f);
    test_failing_alloc fa;
    if (flags & 16) { /* else: the stack path for n <= 13 */
        fz_alloc_init(&f, &fa);
        o.allocator = &fa.allocator;
    }

    double z[FZ_LCP_MAX_N], w[FZ_LCP_MAX_N], z0[FZ_LCP_MAX_N], w0[FZ_LCP_MAX_N];
    int basis[FZ_LCP_MAX_N], basis0[FZ_LCP_MAX_N];
    for (int i = 0; i < n; ++i) {
        z[i] = z0[i] = -7.0 - i;
        w[i] = w0[i] = -11.0 - i;
        basis[i] = basis0[i] = -3;
    }
    cdyn_report r;
    cdyn_status s = cdyn_lemke_ex(&p.lcp, &o, z, w, basis, &r);
    fz_check_report(&r, s);
    if (o.allocator != NULL)
        FZ_CHECK(fa.live == 0);
    if (s == CDYN_OK) {
        fz_lcp_check_certified(&p, z, w, o.tol > 0.0 ? o.tol : 1e-10);
        for (int i = 0; i < n; ++i)
            FZ_CHECK(basis[i] == 0 || basis[i] == 1);
    } else if (s == CDYN_EINACCURATE) { /* the best point is handed out, the basis is not */
        FZ_CHECK(fz_all_finite((size_t)n, z) && fz_all_finite((size_t)n, w));
        FZ_CHECK(memcmp(basis, basis0, sizeof(int) * (size_t)n) == 0);
    } else {
        FZ_CHECK(memcmp(z, z0, sizeof(double) * (size_t)n) == 0);
        FZ_CHECK(memcmp(w, w0, sizeof(double) * (size_t)n) == 0);
        FZ_CHECK(memcmp(basis, basis0, sizeof(int) * (size_t)n) == 0);
    }
    return 0;
}
