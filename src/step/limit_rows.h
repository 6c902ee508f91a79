/* Internal: the joint-limit rows of a model as the stepper keeps them (one per finite end of a
 * limited joint, in cdyn_model_limit_row's order), shared by the implicit scheme's compliant rows
 * (implicit_limits.c), Baumgarte's stabilized rows (baumgarte.c) and the driver, which reports
 * the rigid schemes' limit modes (docs/theory.md, "Time stepping" Sec. 10). Row r acts on dof
 * dof[r] along g_r = sign[r] e_dof (+1 at a lower end, -1 at an upper); its gap is
 * sign[r] (q[qadr[r]] - bound[r]) >= 0. */
#ifndef CDYN_STEP_LIMIT_ROWS_H
#define CDYN_STEP_LIMIT_ROWS_H

#include "cdyn/step.h"

typedef struct lim_rows {
    int n;
    int *dof, *qadr;     /* n */
    double *sign, *bound; /* n */
    double *tau, *zeta;   /* n: the joint's limit_solref */
} lim_rows;

/* The rows of model m into l, arrays from allocator a (one block at l->dof, freed by
 * lim_rows_free). CDYN_ENOMEM. */
cdyn_status lim_rows_create(const cdyn_model *m, const cdyn_allocator *a, lim_rows *l,
                            cdyn_report *r);
void lim_rows_free(lim_rows *l, const cdyn_allocator *a);

static inline double lim_gap(const lim_rows *l, int r, const double *q)
{
    return l->sign[r] * (q[l->qadr[r]] - l->bound[r]);
}

/* The mode of row r when it acts. */
static inline int lim_acting(const lim_rows *l, int r)
{
    return l->sign[r] > 0 ? CDYN_LIMIT_AT_LOWER : CDYN_LIMIT_AT_UPPER;
}

/* The rigid schemes' modes: a row acts when its joint ends the step on the stop, gap <= 1e-9
 * max(1, |bound|) (they hold a single joint exactly there: q+ = q + h v+ >= bound is the row's
 * own condition; an interior point's impulses are never exactly 0, so they do not decide);
 * limit_lambda is the scheme's impulse over h (jr_limit_forces), limit_delta 0. */
void lim_modes_from_position(const lim_rows *l, cdyn_state *x);

#endif
