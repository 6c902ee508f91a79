/* libFuzzer target: cdyn_lcp_fb_newton on small LCPs from arbitrary starting points.
 * Invariants: a valid status echoed by the report; on CDYN_OK ||min(z, Mz + q)||_inf <= tol
 * recomputed by cdyn_lcp_residual (plus rounding) and w = Mz + q; on failure z and w untouched;
 * every allocation released. */
#include "fuzz_lcp.h"

#include "cdyn/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    fz_lcp p;
    fz_lcp_decode(&f, 8, &p);
    const int n = p.n;

    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    const unsigned flags = fz_byte(&f);
    if (flags & 1)
        o.tol = fz_double(&f);
    if (flags & 2)
        o.merit = CDYN_MCP_FB_PENALIZED;
    if (flags & 4)
        o.nonmonotone_memory = (int)(fz_byte(&f) % 70);
    if (flags & 8)
        o.max_iter = (int)fz_byte(&f);
    if (flags & 16)
        o.jacobian_fd = 1;
    test_failing_alloc fa;
    fz_alloc_init(&f, &fa);
    o.allocator = &fa.allocator;

    double z[FZ_LCP_MAX_N], w[FZ_LCP_MAX_N], z0[FZ_LCP_MAX_N], w0[FZ_LCP_MAX_N];
    if (flags & 32)
        fz_doubles(&f, z, (size_t)n);
    else
        memset(z, 0, sizeof z);
    for (int i = 0; i < n; ++i) {
        z0[i] = z[i];
        w[i] = w0[i] = -11.0 - i;
    }
    cdyn_report r;
    cdyn_status s = cdyn_lcp_fb_newton(&p.lcp, &o, z, w, &r);
    fz_check_report(&r, s);
    FZ_CHECK(fa.live == 0);
    if (s == CDYN_OK) {
        FZ_CHECK(o.tol >= 0.0); /* a negative or NaN tolerance cannot be met */
        fz_lcp_check_solution(&p, z, w, 0.0, o.tol);
    } else if (s == CDYN_EINACCURATE) { /* the projected point is handed out */
        FZ_CHECK(fz_all_finite((size_t)n, z) && fz_all_finite((size_t)n, w));
        for (int i = 0; i < n; ++i)
            FZ_CHECK(z[i] >= 0.0);
    } else {
        FZ_CHECK(memcmp(z, z0, sizeof(double) * (size_t)n) == 0);
        FZ_CHECK(memcmp(w, w0, sizeof(double) * (size_t)n) == 0);
    }
    return 0;
}
