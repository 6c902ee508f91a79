/* cdyn — friction-cone quadratic programs (QPs over products of second-order cones).
 *
 * Cone problem (normal == NULL): variables x = (x_1, ..., x_nc), one block per contact,
 *     x_i = (x_n, x_t)        for a planar contact (dimension 2),
 *     x_i = (x_n, x_t, x_o)   for a spatial contact (dimension 3),
 *   minimize 1/2 x'Hx + c'x  subject to  ||(x_t, x_o)||_2 <= mu_i x_n  for every contact.
 *   mu_i = 0 means a frictionless contact: x_n >= 0 and the tangential entries are 0.
 *
 * Fixed-normal (disk) problem (normal != NULL; Song-Kumar-Pang Proposition 1, the "friction
 * QP"): the normal forces lambda_n are given and only the tangential entries are variables,
 *     x_i = (x_t) (dimension 2) or (x_t, x_o) (dimension 3),
 *   minimize 1/2 x'Hx + c'x  subject to  ||x_i||_2 <= r_i = mu_i lambda_n,i  for every contact.
 *   r_i = 0 fixes x_i = 0; r_i < 0 (mu_i > 0 and lambda_n,i < 0) makes the problem infeasible.
 *
 * n = number of variables = sum of the contact dimensions (cone problem) or of the dimensions
 * minus one (disk problem); cdyn_coneqp_size() computes it. H is n-by-n symmetric positive
 * semidefinite, given either dense (column-major) or sparse (cdyn_csc). The LOWER triangle
 * defines H in both cases; the upper triangle, when stored, must agree with it (checked).
 *
 * Optimality (KKT) conditions, which the solver certifies: with the dual vector u (n values),
 *     H x + c = u,   x in K,   u in K*,   x'u = 0 (cone problem),
 * where K* = {||u_t|| <= u_n / mu_i} is the dual cone (mu_i = 0: u_n >= 0, u_t free). For the
 * disk problem u is free and complementarity reads x_i'u_i + r_i ||u_i|| = 0 per contact.
 *
 * Method: primal-dual interior point with Nesterov-Todd scaling and Mehrotra's
 * predictor-corrector; each iteration factors H + (block-diagonal scaling), with LAPACK's dense
 * Cholesky or CHOLMOD (symbolic analysis once, numeric factorization per iteration). See
 * docs/theory.md and docs/api.md.
 *
 * Entry points
 *   cdyn_coneqp_defaults  fill the options with their defaults.
 *   cdyn_coneqp_size      number of variables n of a problem.
 *   cdyn_coneqp_solve     solve once (allocates at the start, frees at the end).
 *   cdyn_coneqp_solver_create / cdyn_coneqp_solver_solve / cdyn_coneqp_solver_free
 *                         the same with a reusable solver: create allocates and analyzes the
 *                         structure (contact dimensions, variant, H's sparsity pattern); run
 *                         solves any problem of that structure with new values and does not
 *                         allocate (CHOLMOD's internal workspace aside, see docs).
 *   cdyn_coneqp_certify   residuals, gap and objectives of any given (x, u).
 *
 * Thread safety: every function is reentrant; a solver object must not be used by two threads
 * at the same time. */
#ifndef CDYN_CONEQP_H
#define CDYN_CONEQP_H

#include "cdyn/alloc.h"
#include "cdyn/export.h"
#include "cdyn/sparse.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdyn_coneqp {
    int ncontacts;        /* nc >= 1 */
    int dim;              /* dimension (2 or 3) of every contact, used when dims == NULL */
    const int *dims;      /* per-contact dimensions (nc values, each 2 or 3), or NULL */
    const double *mu;     /* nc friction coefficients, finite, >= 0 */
    const double *normal; /* NULL: cone problem; else nc given normal forces (disk problem) */
    const double *H;      /* dense H: n*n, column-major; NULL when Hs is given */
    const cdyn_csc *Hs;   /* sparse H: n-by-n CSC (lower triangle, or full symmetric); NULL
                             when H is given */
    const double *c;      /* n values */
} cdyn_coneqp;

typedef struct cdyn_coneqp_options {
    double tol_rel;       /* relative tolerance of the stopping test (1e-9) */
    double tol_abs;       /* absolute tolerance of the stopping test (1e-12) */
    int max_iter;         /* interior-point iterations (100) */
    double step_fraction; /* fraction of the step to the cone boundary, in (0, 1) (0.99) */
    int check_psd;        /* nonzero: verify H is positive semidefinite by factoring
                             H + 1e-10 max|H_ij| I once per solve (1) */
    int threads;          /* most threads a call may run on, the calling thread included
                             (1: none is started); 0: no cap. Reaches CHOLMOD's supernodal
                             factorization (its OpenMP regions); see docs/api.md, "Threads".
                             >= 0 (1) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_coneqp_options;

/* Certificates of a pair (x, u); all measured on the given vectors (infinity norms). */
typedef struct cdyn_coneqp_info {
    double primal_residual;    /* max over contacts of the cone violation of x:
                                  max(0, ||x_t|| - mu x_n, -x_n), or max(0, ||x_t|| - r) */
    double dual_residual;      /* ||H x + c - u||_inf */
    double dual_cone_residual; /* max over contacts of max(0, mu ||u_t|| - u_n) (cone problem;
                                  0 for the disk problem, whose u is free) */
    double gap;                /* complementarity gap: sum_i x_i'u_i (cone problem),
                                  sum_i x_i'u_i + r_i ||u_i|| (disk problem) */
    double primal_objective;   /* 1/2 x'Hx + c'x */
    double dual_objective;     /* -1/2 x'Hx - sum_i r_i ||u_i||: a lower bound on the optimal
                                  value when dual_residual = dual_cone_residual = 0 */
} cdyn_coneqp_info;

CDYN_API void cdyn_coneqp_defaults(cdyn_coneqp_options *opts);

/* Number of variables n of p (from ncontacts, dims/dim and the variant), or -1 when those
 * fields are invalid. */
CDYN_API int cdyn_coneqp_size(const cdyn_coneqp *p);

/* Solve p. x (n values) receives the solution, u (n values, may be NULL) the dual vector
 * (u = H x + c up to info->dual_residual). Both are written only on CDYN_OK. info (may be
 * NULL) is written on every return: on CDYN_OK it certifies the returned (x, u); after an
 * iteration failure it describes the last iterate; after an argument error its fields are NaN.
 * opts may be NULL (defaults); report may be NULL.
 * Returns
 *   CDYN_OK          the stopping test holds (docs/theory.md);
 *   CDYN_EINVAL      NULL pointers, bad sizes or dimensions, NaN/Inf data, mu < 0, both or
 *                    neither of H and Hs, malformed Hs, H not symmetric, H not positive
 *                    semidefinite, bad options;
 *   CDYN_EINFEASIBLE disk problem with some mu_i lambda_n,i < 0;
 *   CDYN_EUNBOUNDED  cone problem whose objective is unbounded below along a direction d in K
 *                    with H d = 0 (numerically: see the docs), found by the iteration;
 *   CDYN_ENOCONV     iteration limit or stalled steps (message: the residuals reached);
 *   CDYN_ENUMERIC    the scaled Newton matrix could not be factored even with regularization,
 *                    the iterates lost interiority, or x or u overflowed;
 *   CDYN_ETOOBIG     dense H with n*n > INT_MAX;
 *   CDYN_ENOMEM      allocation failed (ours or CHOLMOD's).
 * report: iterations = interior-point iterations; evaluations = 0; residual = the largest of
 * info's three residuals; method = "coneqp-ipm-dense" or "coneqp-ipm-sparse". */
CDYN_API cdyn_status cdyn_coneqp_solve(const cdyn_coneqp *p, const cdyn_coneqp_options *opts,
                                       double *x, double *u, cdyn_coneqp_info *info,
                                       cdyn_report *report);

typedef struct cdyn_coneqp_solver cdyn_coneqp_solver;

/* Allocate a solver for the structure of p: ncontacts, dims/dim, whether normal is NULL,
 * dense or sparse H, and Hs's pattern (copied; Hs->values and the other value arrays may be
 * NULL here). *out is NULL on failure, with nothing left allocated. Statuses as for solve. */
CDYN_API cdyn_status cdyn_coneqp_solver_create(const cdyn_coneqp *p,
                                               const cdyn_coneqp_options *opts,
                                               cdyn_coneqp_solver **out, cdyn_report *report);

/* Solve p, which must have the structure given to create (checked: CDYN_EINVAL otherwise),
 * with the options given to create. Outputs and statuses as for cdyn_coneqp_solve. */
CDYN_API cdyn_status cdyn_coneqp_solver_solve(cdyn_coneqp_solver *solver, const cdyn_coneqp *p,
                                              double *x, double *u, cdyn_coneqp_info *info,
                                              cdyn_report *report);

/* Free a solver; accepts NULL. */
CDYN_API void cdyn_coneqp_solver_free(cdyn_coneqp_solver *solver);

/* Certificates of (x, u) for p (both n values; u == NULL means u = H x + c). Validates p
 * (as solve, without the positive-semidefiniteness test) and allocates n doubles from
 * allocator (NULL: malloc). CDYN_OK, CDYN_EINVAL, CDYN_EINFEASIBLE, CDYN_ETOOBIG or
 * CDYN_ENOMEM; info is written only on CDYN_OK. */
CDYN_API cdyn_status cdyn_coneqp_certify(const cdyn_coneqp *p, const double *x, const double *u,
                                         const cdyn_allocator *allocator, cdyn_coneqp_info *info,
                                         cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
