/* Internal: a reusable dense revised-simplex engine over one constraint set {A x = b, x >= 0}.
 *
 * One engine holds the constraints, a feasible basis and its explicit inverse. It is created once
 * (all memory allocated there), finds a feasible basis with phase 1, and can then be asked many
 * times to minimize different objectives starting from its current basis (the quasistatic UCP
 * solves LPs over the same polyhedron with a new objective each time) and to list the extreme
 * points adjacent to its current vertex. Variables are numbered 0..n-1 (structural) and n..n+m-1
 * (the artificial of row i is column n+i, a unit vector; it is never allowed to enter). */
#ifndef CDYN_SOLVERS_SIMPLEX_H
#define CDYN_SOLVERS_SIMPLEX_H

#include "cdyn/lp.h"

typedef struct cdyn_splx cdyn_splx;

/* Allocate an engine for A (m-by-n, column-major) and b, both copied. Options are copied too
 * (NULL: defaults). max_neighbors bounds cdyn_splx_adjacent's output (0 if not used).
 * Returns CDYN_OK or CDYN_ENOMEM (*out = NULL). Inputs are assumed validated. */
cdyn_status cdyn_splx_create(int m, int n, const double *A, const double *b,
                             const cdyn_lp_options *opts, int max_neighbors, cdyn_splx **out);
void cdyn_splx_free(cdyn_splx *s);

/* Phase 1: find a feasible basis (artificials then driven out of the basis where possible).
 * CDYN_OK, CDYN_EINFEASIBLE, CDYN_ENOCONV, CDYN_ENUMERIC. */
cdyn_status cdyn_splx_phase1(cdyn_splx *s, cdyn_report *r);

/* Phase 2 from the current feasible basis with objective c (n values, copied).
 * CDYN_OK, CDYN_EUNBOUNDED, CDYN_ENOCONV, CDYN_ENUMERIC. */
cdyn_status cdyn_splx_minimize(cdyn_splx *s, const double *c, cdyn_report *r);

/* The current vertex (n values; tiny negative rounding clamped to 0). */
void cdyn_splx_point(const cdyn_splx *s, double *x);
/* Duals of the last objective in the caller's row signs (m values). */
void cdyn_splx_duals(cdyn_splx *s, double *y);
/* max(||Ax - b||_inf, max(0, -min reduced cost)) for the last objective. */
double cdyn_splx_residual(cdyn_splx *s);
/* Current basis as m column indices (-1: artificial of a dependent row). */
void cdyn_splx_get_basis(const cdyn_splx *s, int *basis);
/* Load a basis in the format above: CDYN_OK, or CDYN_EINVAL (out of range, repeated, -1 for a row
 * whose artificial cannot be basic, singular, infeasible) leaving the previous basis in place. */
cdyn_status cdyn_splx_set_basis(cdyn_splx *s, const int *basis);

/* Extreme points adjacent to the current vertex (see cdyn_lp_adjacent). Points go to an internal
 * list read with cdyn_splx_neighbor; each comes with the basis that reaches it. The current basis
 * is restored afterwards. Returns the number found; *partial = 1 when a limit cut the search. */
int cdyn_splx_adjacent(cdyn_splx *s, int *partial);
const double *cdyn_splx_neighbor(const cdyn_splx *s, int k);
const int *cdyn_splx_neighbor_basis(const cdyn_splx *s, int k);

/* Pivots performed since creation (all phases, adjacency pivots excluded). */
int cdyn_splx_pivots(const cdyn_splx *s);
int cdyn_splx_rows(const cdyn_splx *s);
int cdyn_splx_cols(const cdyn_splx *s);

#endif
