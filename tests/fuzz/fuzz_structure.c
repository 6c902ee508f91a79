/* libFuzzer target: the STRUCTURE of sparse and block inputs, not only their values (issue 18:
 * rowptr = {0, 3, 2} read past colind, and fuzz_fc3d, whose block structures were always
 * ordered, could not find it). The pointer array (fc3d rowptr, MCP colptr) is decoded entry by
 * entry from bytes (any order, negative, past the end), and the index array gets a heap block of
 * exactly the length the pointer array declares (ptr[n], or none when that is negative), so
 * that AddressSanitizer reports any read beyond it; its entries are any small ints.
 * Invariants: no sanitizer report; a valid status echoed by the report; CDYN_EINVAL whenever the
 * pointer array is not nondecreasing from 0; cdyn_fc3d_check and cdyn_fc3d_solve agree on
 * refusal; the MCP solve and the solver object agree on refusal. */
#include "fuzz_common.h"

#include "cdyn/fc3d.h"
#include "cdyn/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MAXN 5

/* A pointer entry: mostly plausible (0..n*n), sometimes negative or large. */
static int fz_ptr(fz_reader *f, int n)
{
    const unsigned b = fz_byte(f);
    if (b < 16)
        return -(int)(b % 4) - 1;
    if (b > 240)
        return n * n + (int)(b - 240);
    return (int)(b % (unsigned)(n * n + 1));
}

static int ptr_valid(const int *ptr, int n)
{
    if (ptr[0] != 0)
        return 0;
    for (int i = 0; i < n; ++i)
        if (ptr[i + 1] < ptr[i])
            return 0;
    return 1;
}

static int mcp_F(void *ctx, const double *x, double *F)
{
    const int n = *(const int *)ctx;
    for (int i = 0; i < n; ++i)
        F[i] = x[i] - 1.0;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader f = {data, size};
    const int n = 1 + (int)(fz_byte(&f) % FZ_MAXN);
    int ptr[FZ_MAXN + 1];
    ptr[0] = (fz_byte(&f) % 8 == 0) ? 1 : 0;
    for (int i = 1; i <= n; ++i)
        ptr[i] = fz_ptr(&f, n);
    const int len = ptr[n] > 0 ? ptr[n] : 0;
    int *ind = malloc(sizeof(int) * (size_t)(len > 0 ? len : 1));
    double *values = malloc(sizeof(double) * 9 * (size_t)(len > 0 ? len : 1));
    FZ_CHECK(ind != NULL && values != NULL);
    for (int k = 0; k < len; ++k) {
        ind[k] = (int)(fz_byte(&f) % (unsigned)(n + 2)) - 1; /* -1..n */
        for (int e = 0; e < 9; ++e)
            values[9 * k + e] = (e % 4 == 0) ? 4.0 : 0.25; /* finite: the walk is the point */
    }
    const int valid = ptr_valid(ptr, n);

    /* fc3d blocks */
    double q[3 * FZ_MAXN], mu[FZ_MAXN], r[3 * FZ_MAXN], u[3 * FZ_MAXN];
    for (int i = 0; i < 3 * n; ++i) {
        q[i] = i % 3 == 0 ? -1.0 : 0.25;
        r[i] = u[i] = 7.0;
    }
    for (int i = 0; i < n; ++i)
        mu[i] = 0.5;
    const cdyn_fc3d_blocks b = {ptr, ind, values};
    const cdyn_fc3d p = {n, NULL, &b, q, mu};
    cdyn_fc3d_report fr;
    const cdyn_status sc = cdyn_fc3d_check(&p, &fr);
    FZ_CHECK(fz_status_valid(sc) && fr.status == sc);
    FZ_CHECK(valid || sc == CDYN_EINVAL);
    if (fz_byte(&f) & 1) {
        const cdyn_status ss = cdyn_fc3d_solve(&p, NULL, r, u, &fr);
        FZ_CHECK(fz_status_valid(ss) && fr.status == ss);
        FZ_CHECK((sc == CDYN_EINVAL) == (ss == CDYN_EINVAL));
        if (ss != CDYN_OK)
            for (int i = 0; i < 3 * n; ++i)
                FZ_CHECK(r[i] == 7.0 && u[i] == 7.0);
    }

    /* MCP pattern */
    int nn = n;
    cdyn_mcp m;
    memset(&m, 0, sizeof m);
    m.n = n;
    m.F = mcp_F;
    m.colptr = ptr;
    m.rowind = ind;
    m.ctx = &nn;
    cdyn_mcp_options o;
    cdyn_mcp_defaults(&o);
    o.jacobian_fd = 1; /* finite differences on the pattern: no callback needed */
    double x[FZ_MAXN];
    for (int i = 0; i < n; ++i)
        x[i] = 3.0;
    cdyn_report rep;
    const cdyn_status sm = cdyn_mcp_solve(&m, &o, x, &rep);
    fz_check_report(&rep, sm);
    FZ_CHECK(valid || sm == CDYN_EINVAL);
    cdyn_mcp_solver *solver = NULL;
    const cdyn_status sv = cdyn_mcp_solver_create(&m, &o, &solver, &rep);
    fz_check_report(&rep, sv);
    FZ_CHECK(valid || sv == CDYN_EINVAL);
    cdyn_mcp_solver_free(solver);
    free(ind);
    free(values);
    return 0;
}
