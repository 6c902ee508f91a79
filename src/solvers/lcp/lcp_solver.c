/* The reusable LCP solver (cdyn/lcp.h): cdyn_lcp_solve's chain with its workspace kept in an
 * arena between calls, and the last answer's complementary basis as the next call's warm start
 * (a time step later the contact set rarely changes, and Lemke then takes 0 pivots). */
#include "cdyn/lcp.h"

#include "core/arena.h"
#include "core/memory.h"
#include "core/report.h"
#include "solvers/lcp/lcp_internal.h"

#include <math.h>
#include <string.h>

struct cdyn_lcp_solver {
    const cdyn_allocator *allocator; /* the caller's: the object, the bases, the arena's blocks */
    cdyn_lcp_options opts;           /* the caller's, with the arena as Lemke's allocator */
    cdyn_arena arena;
    int n;      /* capacity */
    int warm_n; /* size of the problem whose basis is kept (0: none) */
    int *basis; /* n: the kept basis (z_i basic: 1) */
    int *next;  /* n: the last attempt's final basis */
};

/* The two basis arrays for capacity n (one block), or NULL. */
static int *bases_alloc(const cdyn_allocator *a, int n)
{
    return cdyn_mem_array(a, 2 * (size_t)n, sizeof(int));
}

cdyn_status cdyn_lcp_solver_create(int n, const cdyn_lcp_options *opts, cdyn_lcp_solver **out,
                                   cdyn_report *report)
{
    cdyn_report_clear(report, "lcp-solver");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_create: out is NULL");
    *out = NULL;
    if (n <= 0)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_create: n = %d, must be > 0", n);
    cdyn_lcp_options o;
    if (opts != NULL)
        o = *opts;
    else
        cdyn_lcp_defaults(&o);
    if (o.lemke.warm_basis != NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_create: opts->lemke.warm_basis "
                         "must be NULL (the solver keeps the last basis itself; "
                         "cdyn_lcp_solver_set_basis sets it)");
    const cdyn_allocator *a = o.lemke.allocator;
    cdyn_lcp_solver *s = cdyn_mem_alloc(a, sizeof *s);
    int *b = bases_alloc(a, n);
    if (s == NULL || b == NULL) {
        cdyn_mem_free(a, s);
        cdyn_mem_free(a, b);
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_lcp_solver_create: out of memory");
    }
    memset(s, 0, sizeof *s);
    s->allocator = a;
    s->n = n;
    s->basis = b;
    s->next = b + n;
    cdyn_arena_init(&s->arena, a);
    s->opts = o;
    s->opts.lemke.allocator = &s->arena.as;
    *out = s;
    return CDYN_OK;
}

cdyn_status cdyn_lcp_solver_reserve(cdyn_lcp_solver *s, int n, cdyn_report *report)
{
    cdyn_report_clear(report, "lcp-solver");
    if (s == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_reserve: solver is NULL");
    if (n <= 0)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_reserve: n = %d, must be > 0", n);
    if (n <= s->n)
        return CDYN_OK;
    int *b = bases_alloc(s->allocator, n);
    if (b == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_lcp_solver_reserve: out of memory "
                         "(capacity %d kept)", s->n);
    memcpy(b, s->basis, (size_t)s->warm_n * sizeof(int));
    cdyn_mem_free(s->allocator, s->basis);
    s->basis = b;
    s->next = b + n;
    s->n = n;
    return CDYN_OK;
}

cdyn_status cdyn_lcp_solver_set_basis(cdyn_lcp_solver *s, int n, const int *basis,
                                      cdyn_report *report)
{
    cdyn_report_clear(report, "lcp-solver");
    if (s == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_set_basis: solver is NULL");
    if (n < 0 || n > s->n)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_set_basis: n = %d, the solver "
                         "takes 0 (no basis) .. %d", n, s->n);
    if (n > 0 && basis == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_set_basis: basis is NULL");
    for (int i = 0; i < n; i++)
        if (basis[i] != 0 && basis[i] != 1)
            return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_set_basis: basis[%d] = %d, "
                             "must be 0 (w_i basic) or 1 (z_i basic)", i, basis[i]);
    if (n > 0)
        memcpy(s->basis, basis, (size_t)n * sizeof(int));
    s->warm_n = n;
    return CDYN_OK;
}

cdyn_status cdyn_lcp_solver_get_basis(const cdyn_lcp_solver *s, int *n, int *basis, int cap,
                                      cdyn_report *report)
{
    cdyn_report_clear(report, "lcp-solver");
    if (s == NULL || n == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_get_basis: %s is NULL",
                         s == NULL ? "solver" : "n");
    *n = s->warm_n;
    if (cap < 0 || (cap > 0 && basis == NULL))
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_get_basis: cap = %d with basis "
                         "%s", cap, basis == NULL ? "NULL" : "given");
    if (s->warm_n > cap)
        return cdyn_fail(report, CDYN_ETOOBIG, "cdyn_lcp_solver_get_basis: the basis has %d "
                         "entries, basis holds %d", s->warm_n, cap);
    if (s->warm_n > 0)
        memcpy(basis, s->basis, (size_t)s->warm_n * sizeof(int));
    return CDYN_OK;
}

cdyn_status cdyn_lcp_solver_solve(cdyn_lcp_solver *s, const cdyn_lcp *lcp, double *z, double *w,
                                  cdyn_report *report)
{
    cdyn_report_clear(report, "lcp-solver");
    if (s == NULL || lcp == NULL || z == NULL || w == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_solve: %s is NULL",
                         s == NULL ? "solver" : lcp == NULL ? "lcp" : z == NULL ? "z" : "w");
    if (lcp->n <= 0 || lcp->n > s->n)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_lcp_solver_solve: n = %d, the solver takes "
                         "1 .. %d unknowns (cdyn_lcp_solver_reserve grows it)", lcp->n, s->n);
    if (cdyn_arena_reset(&s->arena) != 0)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_lcp_solver_solve: out of memory (arena)");
    const int n = lcp->n;
    int pivots = 0;
    if (s->warm_n == n) {
        cdyn_lemke_options lo = s->opts.lemke;
        lo.warm_basis = s->basis;
        const cdyn_status st = cdyn_lemke_ex(lcp, &lo, z, w, s->next, report);
        if (st == CDYN_OK) {
            memcpy(s->basis, s->next, (size_t)n * sizeof(int));
            return CDYN_OK;
        }
        if (st == CDYN_EINVAL || st == CDYN_ENOMEM)
            return st;
        pivots = report != NULL ? report->iterations : 0;
        if (cdyn_arena_reset(&s->arena) != 0)
            return cdyn_fail(report, CDYN_ENOMEM, "cdyn_lcp_solver_solve: out of memory (arena)");
    }
    /* cold: exactly cdyn_lcp_solve's chain, on the arena. Its first attempt's final basis is
       kept; an answer of a fallback keeps none (a problem that needed them is degenerate or
       ill-conditioned, and a basis from it, or guessed from its answer, steered the next steps
       of the pyramid stress onto other answers and one run into a failure): the next solve
       is cold. */
    int have = 0;
    const cdyn_status st = cdyn_lcp_solve_basis(lcp, &s->opts, z, w, s->next, &have, report);
    if (report != NULL)
        report->iterations += pivots;
    s->warm_n = 0;
    if (st == CDYN_OK && have) {
        memcpy(s->basis, s->next, (size_t)n * sizeof(int));
        s->warm_n = n;
    }
    return st;
}

void cdyn_lcp_solver_free(cdyn_lcp_solver *s)
{
    if (s == NULL)
        return;
    cdyn_arena_destroy(&s->arena);
    cdyn_mem_free(s->allocator, s->basis);
    cdyn_mem_free(s->allocator, s);
}
