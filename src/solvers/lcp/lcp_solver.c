/* The reusable LCP solver (cdyn/lcp.h): cdyn_lcp_solve's chain with its workspace kept in an
 * arena between calls, and the last answer's complementary basis as the next call's warm start
 * (a time step later the contact set rarely changes, and Lemke then takes 0 pivots). */
#include "cdyn/lcp.h"

#include "core/arena.h"
#include "core/memory.h"
#include "core/report.h"

#include <math.h>
#include <string.h>

struct cdyn_lcp_solver {
    const cdyn_allocator *allocator; /* the caller's: the object and the arena's blocks */
    cdyn_lcp_options opts;           /* the caller's, with the arena as Lemke's allocator */
    cdyn_arena arena;
    int n;      /* capacity */
    int warm_n; /* size of the problem whose basis is kept (0: none) */
    int *basis; /* n: the kept basis (z_i basic: 1) */
    int *next;  /* n: the warm attempt's final basis */
};

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
                         "must be NULL (the solver keeps the last basis itself)");
    const cdyn_allocator *a = o.lemke.allocator;
    cdyn_lcp_solver *s = cdyn_mem_alloc(a, sizeof *s + 2 * (size_t)n * sizeof(int));
    if (s == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_lcp_solver_create: out of memory");
    memset(s, 0, sizeof *s);
    s->allocator = a;
    s->n = n;
    s->basis = (int *)(void *)(s + 1);
    s->next = s->basis + n;
    cdyn_arena_init(&s->arena, a);
    s->opts = o;
    s->opts.lemke.allocator = &s->arena.as;
    *out = s;
    return CDYN_OK;
}

/* The basis of an answer found without one: z_i basic where z_i > w_i (the same basis unless
 * the answer is degenerate, z_i = w_i = 0, where either choice is a guess). */
static void guess_basis(int n, const double *z, const double *w, int *basis)
{
    for (int i = 0; i < n; i++)
        basis[i] = z[i] > w[i];
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
                         "1 .. %d unknowns", lcp->n, s->n);
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
    /* cold: exactly cdyn_lcp_solve's chain, on the arena */
    const cdyn_status st = cdyn_lcp_solve(lcp, &s->opts, z, w, report);
    if (report != NULL)
        report->iterations += pivots;
    if (st == CDYN_OK) {
        guess_basis(n, z, w, s->basis);
        s->warm_n = n;
    } else {
        s->warm_n = 0;
    }
    return st;
}

void cdyn_lcp_solver_free(cdyn_lcp_solver *s)
{
    if (s == NULL)
        return;
    cdyn_arena_destroy(&s->arena);
    cdyn_mem_free(s->allocator, s);
}
