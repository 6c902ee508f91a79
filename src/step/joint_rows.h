/* Internal: joint-space rows of the rigid velocity-level schemes (docs/theory.md, "Time
 * stepping" §10). Row r acts on one dof j along g_r = sign_r e_j: its velocity is g_r' v+ and
 * its coupling with everything else goes through y_r = (M + h D)^-1 g_r. Two kinds:
 *   JR_FRICTION  a dof with joint friction f_max > 0 (cdyn_body_desc.friction): val = h f_max,
 *                the bound of the friction impulse (the pyramid LCP: directions +-g_r);
 *   JR_LIMIT     a finite end of a limited joint (cdyn_body_desc.limited): sign +1 at lower
 *                (gap q_j - lower), -1 at upper (gap upper - q_j); val = gap / h, so that
 *                0 <= p_r ⊥ g_r' v+ + val >= 0 keeps the joint within its limit at the end of
 *                the step, to first order. */
#ifndef CDYN_STEP_JOINT_ROWS_H
#define CDYN_STEP_JOINT_ROWS_H

#include "step/contact_space.h"

enum { JR_FRICTION = 0, JR_LIMIT = 1 };

typedef struct jrows {
    int n;         /* rows */
    int nfric;     /* the first nfric rows are JR_FRICTION, then the JR_LIMIT rows */
    int *dof;      /* n */
    double *sign;  /* n: g_r = sign e_dof */
    double *val;   /* n: as above */
    double *rest;  /* n: the limit's restitution coefficient (JR_LIMIT; 0 for JR_FRICTION) */
    double *y;     /* nv x n: column r = (M + h D)^-1 g_r */
    double *u;     /* p->m x n: column r = J y_r in the contact coordinates of p's rows */
    int *newton;   /* n: 1 where jr_restitution replaced the row's value by Newton's target */
} jrows;

/* Rows of each kind the model can have: dofs with friction > 0; finite limit ends. */
int jr_friction_count(const cdyn_model *m);
int jr_limit_count(const cdyn_model *m);

/* Every row for the step h from q0 of problem p (built by cs_build at q0). Arrays from the
 * stepper's arena; CDYN_ENOMEM. */
cdyn_status jr_build(cdyn_stepper *s, const cs_trees *t, const cs_problem *p, const double *q0,
                     double h, jrows *j, cdyn_report *r);

/* Newton restitution for the limit rows (the rigid schemes with options.restitution): a row with
 * e > 0 that approaches at the start (u0 = g' v0 < 0) and closes within the step (gap + h g'
 * v_free <= 0) asks g' v+ >= jr_newton_target(e, u0, g' v_free) instead of g' v+ >= -gap / h: val[r]
 * becomes -jr_newton_target(e, u0, u_free), and newton[r] = 1. */
void jr_restitution(jrows *j, const cs_problem *p, const double *v0, double h);

/* The separation speed Newton's law asks of a row approaching at u0 < 0 (docs/theory.md, "Time
 * stepping" Sec. 4): e |u0| less what the step's forces take from it while the body rises within
 * the step, the root t >= 0 of t^2 + 2 a t = e^2 u0^2 with a = max(0, u0 - u_free), written
 * without cancellation. For a ball under gravity a = g h, and the step then keeps
 * 1/2 m v^2 + m g z at most at its value before the step (equal for e = 1). The rule of the
 * pyramid's contacts and of every rigid scheme's limit rows. */
double jr_newton_target(double e, double u0, double ufree);

/* v += sum_r f[r] y_r: the velocity change of row impulses f (n values, along g_r). */
void jr_apply(const jrows *j, int nv, const double *f, double *v);

/* The limit rows' forces into the state: x->limit_lambda[l] = f[nfric + l] / h (the impulse over
 * the step; the limit rows are built in the state's order, bodies by id, lower end first). */
void jr_limit_forces(const jrows *j, const double *f, double h, cdyn_state *x);

#endif
