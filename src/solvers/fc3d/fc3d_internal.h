/* Internal: the 3-D frictional contact problem (include/cdyn/fc3d.h) as the solvers see it —
 * W always by 3x3 blocks in block rows (a dense W is converted once), the per-contact functions
 * (cone projection, natural map, Alart–Curnier and Fischer–Burmeister with their Jacobians) and
 * the one-contact solver used by Gauss–Seidel. Block entries are column-major: B[a + 3b] is
 * row a, column b; a contact's components are (normal, tangent 1, tangent 2). */
#ifndef CDYN_SOLVERS_FC3D_INTERNAL_H
#define CDYN_SOLVERS_FC3D_INTERNAL_H

#include "cdyn/fc3d.h"

typedef struct fc3d_sys {
    int n;
    const int *rowptr, *colind; /* block rows, sorted block columns */
    const double *values;       /* 9 per block */
    const int *diag;            /* n: block index of W_ii, -1 when that block is missing */
    const double *q, *mu;
    double qnorm; /* ||q||_2: the residual's scale */
    void *owned;  /* one allocation: diag, and the blocks of a dense W */
    const cdyn_allocator *allocator;
} fc3d_sys;

/* Reset a report (NULL allowed) and name the method. */
void fc3d_report_clear(cdyn_fc3d_report *rep, const char *method);
/* Record a failure with a printf-style message; returns status. */
cdyn_status fc3d_fail(cdyn_fc3d_report *rep, cdyn_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fc3d_report_method(cdyn_fc3d_report *rep, const char *method);

/* Validate problem (every check of cdyn_fc3d_check) and build the block view. */
cdyn_status fc3d_sys_init(fc3d_sys *sys, const cdyn_fc3d *problem,
                          const cdyn_allocator *allocator, cdyn_fc3d_report *rep);
void fc3d_sys_free(fc3d_sys *sys);
/* Every check of cdyn_fc3d_check, without clearing the report. */
cdyn_status fc3d_check_problem(const cdyn_fc3d *problem, cdyn_fc3d_report *rep);
/* Point sys at the values of problem (checked), whose block pattern is sys's: a dense W's
 * blocks are copied into sys's own array, blocks are viewed; q, mu and ||q|| follow. */
void fc3d_sys_refresh(fc3d_sys *sys, const cdyn_fc3d *problem);
/* Whether block (i, j) of a dense W (m = 3n rows) has a nonzero entry. */
int fc3d_dense_block_nonzero(const double *W, int m, int i, int j);

/* One stage of a solver on a prepared problem, working in place on r (3n) and u: the final or
 * best point, whatever the status; *res_abs its absolute residual. */
typedef cdyn_status (*fc3d_stage)(const fc3d_sys *sys, const void *opts, double *r, double *u,
                                  double *res_abs, cdyn_fc3d_report *rep);

/* The frame of every public solver: validate problem and start r, run stage on a copy of r,
 * fill the report's status and residuals, and write r and u (u may be NULL) only on success. */
cdyn_status fc3d_run_public(const cdyn_fc3d *problem, const cdyn_allocator *allocator,
                            fc3d_stage stage, const void *opts, double *r, double *u,
                            cdyn_fc3d_report *rep);

/* u = W r + q (3n values). */
void fc3d_sys_velocity(const fc3d_sys *sys, const double *r, double *u);
/* The certified residual of r (u = W r + q as computed): the natural map
 * sqrt(sum_i ||r_i - P_K(r_i - û_i)||^2) plus a bound on what rounding in u can hide in it, so
 * that iterates running off to infinity (where u loses every digit) never pass for solutions. */
double fc3d_sys_residual(const fc3d_sys *sys, const double *r, const double *u);
/* Relative residual: abs / ||q|| (abs itself when q = 0). */
double fc3d_sys_relative(const fc3d_sys *sys, double abs_residual);
/* A start that is finite: r unchanged; nonzero when some entry of r is not finite. */
int fc3d_vec_bad(int len, const double *x);

/* ---- one contact ------------------------------------------------------------------------ */

/* x := its projection onto the Coulomb cone {||x_T|| <= mu x_N}. */
void fc3d_project_cone(double mu, double *x);
/* ||r - P_K(r - û)||^2 with û = u + mu ||u_T|| e_N. */
double fc3d_local_error2(double mu, const double *r, const double *u);

/* Alart–Curnier function phi(r, u) and the blocks A = dphi/dr, B = dphi/du (either NULL when
 * not wanted) with augmentation rho_n (normal) and rho_t (tangential). */
void fc3d_ac(double mu, double rho_n, double rho_t, const double *r, const double *u,
             double *phi, double *A, double *B);
/* Fischer–Burmeister function for second-order cones on the scaled pair
 * x = (mu r_N, r_T), y = (û_N, mu u_T); for mu = 0 the scalar FB on (r_N, u_N) and phi_T = r_T. */
void fc3d_fb(double mu, const double *r, const double *u, double *phi, double *A, double *B);

/* Augmentation parameters of contact i from its diagonal block (W_NN and the tangential
 * diagonal), or rho when rho > 0. */
void fc3d_rho(const double *Wii, double rho, double *rho_n, double *rho_t);

/* Solve the one-contact problem u = W r + q (W 3x3) to full precision. r: in the start, out the
 * answer. Returns 0 on success, 1 when no candidate met the tolerance (r then holds the best
 * one found), 2 for a singular W. */
int fc3d_local_solve(const double *W, const double *q, double mu, cdyn_fc3d_local mode,
                     double *r);

/* Solve the 3x3 system A x = b in place (b := x) by Gaussian elimination with partial pivoting;
 * nonzero when A is singular to working precision. */
int fc3d_solve3(const double *A, double *b);

#endif
