/* Internal: the polyhedra X and Y of the quasistatic UCP (Pang–Trinkle–Lo, Section 2) and the
 * recovery of the physical quantities from a pair (x, y).
 *
 *   X = { x = (v_n, v_t^+, v_t^-) >= 0 : Z_n v_n + Z_t (v_t^+ - v_t^-) = -Z J_alpha thetadot_alpha
 * } Y = { y = (c_n, s^+, s^-) >= 0 : C y + d = 0 }
 *
 * with P = [W^T  J_abar] (2nc x (nq + |abar|)) and Z a matrix whose null space is the range of
 * P. Z is taken as the transposed trailing left singular vectors of P (rank decided by the SVD),
 * so its rows are orthonormal and X's equations are well scaled. The same SVD gives the
 * minimum-norm (qdot, thetadot_abar) from a velocity x. */
#ifndef CDYN_SOLVERS_UCP_BUILD_H
#define CDYN_SOLVERS_UCP_BUILD_H

#include "cdyn/ucp.h"

typedef struct cdyn_ucp_sys {
    int nc, nq, nth, nabar, np; /* np = nq + nabar: columns of P */
    int nx;                     /* 3 nc: length of x and of y */
    int rank;                   /* numerical rank of P */
    int mX, mY;                 /* equations of X (2nc - rank) and of Y (nc + nq + nabar) */
    int *abar;                  /* nabar joint indices (effort-controlled) */
    double *AX, *bX;            /* mX x nx, mX */
    double *AY, *bY;            /* mY x nx, mY */
    double *U, *sv, *VT;        /* SVD of P: 2nc x 2nc, min(2nc, np), np x np */
    double *g;                  /* 2nc: J_alpha thetadot_alpha */
    double *work;               /* scratch, 4 nc + 2 np + nth doubles */
    const cdyn_allocator *al;
    void *block;
} cdyn_ucp_sys;

/* Validate the problem (messages name the offending field). */
cdyn_status cdyn_ucp_check(const cdyn_ucp_problem *p, cdyn_report *r);

/* Validate options. */
cdyn_status cdyn_ucp_check_options(const cdyn_ucp_options *o, cdyn_report *r);

/* Entry steps of cdyn_ucp_solve and cdyn_ucp_enumerate: *o := *opts (or the defaults when
 * NULL) with the LP subproblems on o's allocator, then the options and the problem checked. */
cdyn_status cdyn_ucp_prepare(const cdyn_ucp_problem *p, const cdyn_ucp_options *opts,
                             cdyn_ucp_options *o, cdyn_report *r);

/* Build X and Y for a validated problem. CDYN_OK, CDYN_ENOMEM, CDYN_ENUMERIC (SVD failed).
 * On failure *out is NULL. */
cdyn_status cdyn_ucp_sys_create(const cdyn_ucp_problem *p, const cdyn_allocator *al,
                                cdyn_ucp_sys **out);
void cdyn_ucp_sys_free(cdyn_ucp_sys *s);

/* Physical quantities from (x, y) into sol (NULL members skipped); returns the largest residual
 * of the equations (2)-(7) at the recovered values, scaled by the data (see ucp_build.c). */
double cdyn_ucp_recover(const cdyn_ucp_sys *s, const cdyn_ucp_problem *p, const double *x,
                        const double *y, cdyn_ucp_solution *sol);

#endif
