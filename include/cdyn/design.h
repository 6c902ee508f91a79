/* cdyn — design optimization: bound-constrained minimization of a cost over design parameters,
 * each evaluation typically an IVP or a BVP of the library (docs/theory.md, "Design
 * optimization"). Physics-free: the caller's objective maps parameters p to a cost (and, if it
 * can, its gradient, e.g. from cdyn_bvp_options.nsens).
 *
 * Threads: the evaluations of a sweep and of a finite-difference gradient run on
 * options.threads POSIX threads. Point i of a batch always goes to thread i mod threads and
 * every value is stored by its index, so the results do not depend on the number of threads
 * (bit for bit) when the objective is deterministic. The objective is told which thread calls it
 * (0 .. threads - 1), so that it can keep one stepper or workspace per thread on a shared const
 * model.
 *
 * Thread safety: reentrant; the objective must be safe to call from several threads at once
 * when threads > 1. */
#ifndef CDYN_DESIGN_H
#define CDYN_DESIGN_H

#include "cdyn/alloc.h"
#include "cdyn/export.h"
#include "cdyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cost at p (n values) into *f and, when grad is not NULL, its gradient (n values; asked
 * for only with CDYN_DESIGN_GRAD_USER). Returns 0, or nonzero when it cannot be evaluated there
 * (the minimizer then treats the point as infeasible and backtracks). */
typedef int (*cdyn_design_objective)(void *ctx, int thread, const double *p, double *f,
                                     double *grad);

typedef enum cdyn_design_gradient {
    CDYN_DESIGN_GRAD_CENTRAL = 0, /* central differences: 2n evaluations per gradient */
    CDYN_DESIGN_GRAD_FORWARD = 1, /* forward differences: n evaluations */
    CDYN_DESIGN_GRAD_USER = 2     /* the objective's own gradient */
} cdyn_design_gradient;

typedef struct cdyn_design_options {
    int max_iter;                  /* quasi-Newton iterations (100) */
    double tol;                    /* stop when |projected gradient|_inf <= tol (1e-8) */
    cdyn_design_gradient gradient; /* CDYN_DESIGN_GRAD_CENTRAL */
    double fd_step;                /* difference step, relative: fd_step * max(1, |p_i|), kept
                                      inside the bounds (1e-6; larger smooths a rough cost) */
    int threads;                   /* evaluation threads, >= 1 (1) */
    const cdyn_allocator *allocator; /* NULL: malloc/free */
} cdyn_design_options;

CDYN_API void cdyn_design_defaults(cdyn_design_options *opts);

typedef struct cdyn_design_result {
    double f;             /* the best cost found (at the returned p) */
    double pg_norm;       /* |projected gradient|_inf there */
    int iterations;       /* quasi-Newton iterations */
    int evaluations;      /* objective calls, gradients' included */
    int failed;           /* objective calls that failed */
    int projected_start;  /* nonzero: the start lay outside the bounds and was projected */
} cdyn_design_result;

/* Minimize over lower <= p <= upper (n values each, finite, lower <= upper) from p (in: the
 * start, projected onto the bounds; out: the best point found, also on failure). Projected
 * quasi-Newton: BFGS on the variables not held at a bound, a projected Armijo backtracking line
 * search. CDYN_OK when the projected gradient is below tol; CDYN_ENOCONV when max_iter is
 * reached or the line search finds no decrease (a rough or noisy cost: the best point is kept and
 * the message says which); CDYN_EINVAL (NULL, n < 1, bad bounds or options, NaN start) and
 * CDYN_ENUMERIC (the objective fails at the start) leave p as given; CDYN_ETOOBIG (n so large
 * that the workspace sizes overflow; checked before any array is read); CDYN_ENOMEM. result and
 * report may be NULL. */
CDYN_API cdyn_status cdyn_design_minimize(int n, cdyn_design_objective objective, void *ctx,
                                          const double *lower, const double *upper, double *p,
                                          const cdyn_design_options *opts,
                                          cdyn_design_result *result, cdyn_report *report);

/* Evaluate the objective at npoints points (points: npoints x n, point after point) into values
 * (npoints); ok (npoints, may be NULL) receives 1 where the evaluation succeeded (values there
 * are NaN otherwise). Only opts->threads and opts->allocator are used (opts NULL: defaults).
 * CDYN_OK even when some evaluations fail (see ok); CDYN_EINVAL, CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_design_sweep(int n, cdyn_design_objective objective, void *ctx,
                                       int npoints, const double *points, double *values, int *ok,
                                       const cdyn_design_options *opts, cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
