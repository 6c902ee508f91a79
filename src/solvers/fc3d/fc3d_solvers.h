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

#endif
