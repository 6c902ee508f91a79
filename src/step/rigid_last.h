/* Internal: what a rigid scheme keeps of its last successful step for cdyn_step_derivatives
 * (rigid_derivs.h); a member of the stepper. */
#ifndef CDYN_STEP_RIGID_LAST_H
#define CDYN_STEP_RIGID_LAST_H

/* The last successful step of a rigid scheme (arrays in the stepper's arena, valid until the
 * next cdyn_step; ok = 0: none). */
typedef struct rigid_last {
    int ok;
    double h;
    int k, nd;                   /* problem rows and their size */
    const int *rows;             /* k model rows */
    const double *mu;            /* k */
    const double *q0, *v0, *tau; /* the step's start and forces (copies; tau never NULL) */
    const double *v1, *q1;       /* its end */
    const double *imp;           /* k nd: the rows' impulses P (n, t[, o]) */
    const double *z;             /* pyramid: per row, (p_n, beta_0 .. beta_ndir-1, sigma_g) */
    int ndir;                    /* pyramid directions d_k = cosk[k] t + sink[k] o */
    int ngroup;                  /* pyramid sigma per row: 1 (diamond) or 2 (box: direction k
                                    and axis 1 + g in group g = k & 1) */
    const double *cosk, *sink;
    int nl;                      /* joint-limit rows (the stepper's lim_rows, in their order; 0
                                    without limits), rigid_keep_limits */
    const double *limp;          /* nl: each limit row's impulse p_l >= 0 along g_l */
    const int *lnewton;          /* nl: 1 where the step's Newton restitution set the row's
                                    target speed (jr_restitution) */
} rigid_last;

#endif
