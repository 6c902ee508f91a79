/* cdyn — dense linear programs in standard form (the simplex method).
 *
 *   minimize  c^T x   subject to  A x = b,  x >= 0,
 *
 * A is m-by-n, dense, column-major (A[i + j*m]); m >= 0, n >= 1. Inequalities become equations
 * with slack columns (a row  a^T x <= beta  gets a slack s >= 0: a^T x + s = beta); a free
 * variable is the difference of two nonnegative ones.
 *
 * Method: two-phase revised simplex (phase 1 minimizes the sum of artificial variables; a column
 * that is a positive multiple of a unit vector starts in the basis instead of an artificial).
 * The basis inverse is kept explicitly, updated by one rank-one product-form step per pivot and
 * recomputed from an LU factorization (LAPACK dgetrf/dgetrs) every `refactor_every` pivots and
 * before any answer is returned. Anti-cycling: by default Dantzig's pricing with the
 * lexicographic ratio test, which cannot cycle from a lexicographically positive basis; a basis
 * that is not (e.g. one given by the caller) is driven by Bland's rule instead, which cannot
 * cycle from any basis. See docs/theory.md ("The simplex solver").
 *
 * Entry points
 *   cdyn_lp_solve      solve; returns x, the duals y (c - A^T y >= 0 at the optimum) and the basis.
 *   cdyn_lp_adjacent   the extreme points adjacent to the vertex of a feasible basis (also through
 *                      degenerate vertices), as used by the quasistatic UCP's escape step.
 *
 * Thread safety: reentrant; nothing is shared between calls. */
#ifndef CDYN_LP_H
#define CDYN_LP_H

#include "cdyn/alloc.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_lp {
    int m;           /* equality rows, >= 0 */
    int n;           /* variables, >= 1 */
    const double *A; /* m*n, column-major (may be NULL when m == 0) */
    const double *b; /* m (may be NULL when m == 0) */
    const double *c; /* n (cdyn_lp_adjacent ignores it; may be NULL there) */
} cdyn_lp;

typedef enum cdyn_lp_rule {
    CDYN_LP_RULE_LEXICOGRAPHIC = 0, /* Dantzig pricing + lexicographic ratio test (default) */
    CDYN_LP_RULE_BLAND = 1,         /* Bland's smallest-index rule for both choices */
    CDYN_LP_RULE_TEXTBOOK = 2       /* Dantzig pricing, ties broken by the lowest row: CAN CYCLE
                                       on degenerate problems (kept to demonstrate cycling) */
} cdyn_lp_rule;

typedef struct cdyn_lp_options {
    int max_iterations; /* pivots per phase; 0: default 100*(m + n) + 1000 */
    cdyn_lp_rule rule;  /* default CDYN_LP_RULE_LEXICOGRAPHIC */
    double feas_tol;    /* primal tolerance relative to 1 + ||b||_inf (default 1e-9) */
    double opt_tol;     /* reduced-cost tolerance relative to 1 + ||c||_inf (default 1e-9) */
    double pivot_tol;   /* entries below pivot_tol * (largest entry of the column) are not
                           pivots (default 1e-9) */
    int refactor_every; /* recompute the basis inverse from LU every this many pivots
                           (default 32; 0 keeps the default) */
    int max_bases;      /* cdyn_lp_adjacent: bases of a degenerate vertex explored
                           (default 256; 0 keeps the default) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_lp_options;

CDYN_API void cdyn_lp_defaults(cdyn_lp_options *opts);

/* Solve the LP. x (n values) receives an optimal vertex. Optional outputs (NULL: not wanted):
 * dual (m values, y with c - A^T y >= 0 and c^T x = b^T y at the optimum), basis (m column indices
 * of the optimal basis; -1 marks a row found linearly dependent on the others), objective.
 * Returns CDYN_OK, CDYN_EINFEASIBLE (phase 1 ends with a positive sum of artificials),
 * CDYN_EUNBOUNDED (an improving ray exists), CDYN_ENOCONV (iteration limit), CDYN_ENUMERIC (a
 * basis became numerically singular or the answer fails its accuracy check), CDYN_EINVAL,
 * CDYN_ENOMEM. On failure the outputs are unchanged. report->iterations counts pivots (both
 * phases); report->residual is max(||Ax - b||_inf, max(0, -min reduced cost)). */
CDYN_API cdyn_status cdyn_lp_solve(const cdyn_lp *lp, const cdyn_lp_options *opts, double *x,
                                   double *dual, int *basis, double *objective,
                                   cdyn_report *report);

/* Extreme points adjacent to the vertex v of a feasible basis (m column indices as returned by
 * cdyn_lp_solve, -1 for dependent rows). From every basis of v reachable by degenerate pivots (at
 * most opts->max_bases of them) every nonbasic column is tried as an edge direction; a positive
 * step to the ratio-test bound gives an adjacent vertex, an edge without bound is skipped.
 * Distinct vertices (other than v) go to vertices[k*n ...] for k < max_vertices; *count receives
 * the number stored. When max_vertices or max_bases cut the search short the list is partial and
 * report->message says so. Returns CDYN_OK, CDYN_EINVAL (bad sizes, a basis that is singular or
 * not feasible), CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_lp_adjacent(const cdyn_lp *lp, const int *basis,
                                      const cdyn_lp_options *opts, int max_vertices,
                                      double *vertices, int *count, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
