/* libFuzzer target: cdyn_lcp_solve (Lemke, alternate coverings, enumeration) on small LCPs.
 * Invariants: a valid status echoed by the report; on CDYN_OK the componentwise certificate
 * recomputed (every path, enumeration included, is certified at Lemke's tolerance); on
 * CDYN_EINACCURATE z, w finite; on other failures z and w untouched; every allocation
 * released. n <= 8 keeps enumeration (2^n bases) fast. */
#include "fuzz_lcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    fz_lcp p;
    fz_lcp_decode(&f, 8, &p);
    const int n = p.n;

    cdyn_lcp_options o;
    cdyn_lcp_defaults(&o);
    const unsigned flags = fz_byte(&f);
    o.lemke.tol = fz_tol(&f);
    o.try_alternate_covering = !(flags & 1);
    o.try_enumeration = !(flags & 2);
    if (flags & 4)
        o.lemke.max_pivots = (int)fz_byte(&f);
    test_failing_alloc fa;
    fz_alloc_init(&f, &fa);
    o.lemke.allocator = &fa.allocator;

    double z[FZ_LCP_MAX_N], w[FZ_LCP_MAX_N], z0[FZ_LCP_MAX_N], w0[FZ_LCP_MAX_N];
    for (int i = 0; i < n; ++i) {
        z[i] = z0[i] = -7.0 - i;
        w[i] = w0[i] = -11.0 - i;
    }
    cdyn_report r;
    cdyn_status s = cdyn_lcp_solve(&p.lcp, &o, z, w, &r);
    fz_check_report(&r, s);
    FZ_CHECK(fa.live == 0);
    if (s == CDYN_OK) {
        fz_lcp_check_certified(&p, z, w, o.lemke.tol > 0.0 ? o.lemke.tol : 1e-10);
    } else if (s == CDYN_EINACCURATE) { /* the best point is handed out */
        FZ_CHECK(fz_all_finite((size_t)n, z) && fz_all_finite((size_t)n, w));
    } else {
        FZ_CHECK(memcmp(z, z0, sizeof(double) * (size_t)n) == 0);
        FZ_CHECK(memcmp(w, w0, sizeof(double) * (size_t)n) == 0);
    }
    return 0;
}
