/* Internal: the stages of the frictional contact solvers, run on a prepared fc3d_sys and
 * composed by the default entry point (fc3d_solve.c). Each works in place on r (3n), leaves in
 * r its final (Gauss–Seidel) or best (Newton) iterate and in u = W r + q, whatever the status,
 * and adds its counters to rep. */
#ifndef CDYN_SOLVERS_FC3D_SOLVERS_H
#define CDYN_SOLVERS_FC3D_SOLVERS_H

#include "solvers/fc3d/fc3d_internal.h"

cdyn_status fc3d_nsgs_check_options(const cdyn_fc3d_nsgs_options *o, cdyn_fc3d_report *rep);
cdyn_status fc3d_nsgs_run(const fc3d_sys *sys, const cdyn_fc3d_nsgs_options *o, double *r,
                          double *u, double *res_abs, cdyn_fc3d_report *rep);

cdyn_status fc3d_newton_check_options(const cdyn_fc3d_newton_options *o, cdyn_fc3d_report *rep);

/* The options of cdyn_fc3d_solve (tol, warm_sweeps, then both stages' own checks); fills the
 * stages' tol and allocator from the top level, as the solve does. */
cdyn_status fc3d_check_options(cdyn_fc3d_options *o, cdyn_fc3d_report *rep);
cdyn_status fc3d_newton_run(const fc3d_sys *sys, const cdyn_fc3d_newton_options *o, double *r,
                            double *u, double *res_abs, cdyn_fc3d_report *rep);

/* Newton's workspace for one block pattern of W (sys's rowptr, colind and missing diagonal
 * blocks) and one linear-solver choice (o's linear, dense_max, allocator): its arrays, and on the
 * sparse path the Newton matrix's pattern and KLU's symbolic analysis. A run on it does what
 * fc3d_newton_run does (same arithmetic, bit for bit: its first factorization chooses fresh
 * pivots) without allocating, except KLU's numeric factor (SuiteSparse's hooks) at the run's
 * first factorization and when a refactorization is rejected. */
typedef struct fc3d_newton_ws fc3d_newton_ws;
cdyn_status fc3d_newton_ws_create(const fc3d_sys *sys, const cdyn_fc3d_newton_options *o,
                                  fc3d_newton_ws **out, cdyn_fc3d_report *rep);
/* sys must have the pattern given to create, o the same linear-solver choice. */
cdyn_status fc3d_newton_ws_run(fc3d_newton_ws *w, const fc3d_sys *sys,
                               const cdyn_fc3d_newton_options *o, double *r, double *u,
                               double *res_abs, cdyn_fc3d_report *rep);
void fc3d_newton_ws_free(fc3d_newton_ws *w); /* accepts NULL */

/* The default chain of cdyn_fc3d_solve on a prepared problem (fc3d_chain.c): x (3n) holds the
 * start on entry and the best point of all stages on return, u its W x + q, *res_abs its
 * residual. mem: 12n doubles of workspace. *nw: Newton's workspace for sys's pattern, created
 * at the first Newton stage when NULL and left for the caller to keep or free. */
cdyn_status fc3d_chain_run(const fc3d_sys *sys, const cdyn_fc3d_options *o, double *mem,
                           fc3d_newton_ws **nw, double *x, double *u, double *res_abs,
                           cdyn_fc3d_report *rep);

#endif
