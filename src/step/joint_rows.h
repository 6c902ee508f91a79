/* Internal: joint-space rows of the rigid velocity-level schemes (docs/theory.md, "Time
 * stepping" §10): a row acts on one dof j with the generalized impulse e_j, so its velocity is
 * v+_j and its coupling with everything else goes through (M + h D)^-1 e_j. Joint friction
 * (cdyn_body_desc.friction) gives one row per dof with friction > 0; the pyramid LCP takes it
 * as two directions +-e_j bounded by h f_max. */
#ifndef CDYN_STEP_JOINT_ROWS_H
#define CDYN_STEP_JOINT_ROWS_H

#include "step/contact_space.h"

typedef struct jrows {
    int n;         /* rows */
    int *dof;      /* n: the dof of each row */
    double *bound; /* n: h f_max, the bound of the row's impulse */
    double *y;     /* nv x n: column r = (M + h D)^-1 e_dof[r] */
    double *u;     /* p->m x n: column r = J y_r in the contact coordinates of p's rows */
} jrows;

/* The dofs with joint friction > 0 (fixed by the model). */
int jr_friction_count(const cdyn_model *m);

/* The friction rows for the step h of problem p (built by cs_build). Arrays from the stepper's
 * arena; CDYN_ENOMEM. */
cdyn_status jr_friction_build(cdyn_stepper *s, const cs_trees *t, const cs_problem *p, double h,
                              jrows *j, cdyn_report *r);

/* v += sum_r f[r] y_r: the velocity change of net joint impulses f (n values). */
void jr_apply(const jrows *j, int nv, const double *f, double *v);

#endif
