/* Internal: the stepper and the scheme interface. One scheme per file in src/step/; the table
 * in stepper.c lists them with the backends each accepts. The driver (stepper.c) validates,
 * halves steps, keeps the caller's state untouched on failure and resets the backend arena; a
 * scheme only advances x0 to x1 by h. */
#ifndef CDYN_STEP_STEP_INTERNAL_H
#define CDYN_STEP_STEP_INTERNAL_H

#include "cdyn/step.h"
#include "core/arena.h"
#include "step/limit_rows.h"
#include "step/rigid_last.h"
#include "step/substep_derivs.h"

typedef struct step_scheme step_scheme;

struct cdyn_stepper {
    const cdyn_model *model;
    cdyn_step_options opts; /* backend resolved; solver allocators point at arena.as */
    const step_scheme *scheme;
    int nq, nv, nc, dim;
    cdyn_data *data;   /* dense evaluation workspace */
    cdyn_arena arena;  /* what the backends allocate per solve */
    cdyn_state *a, *b; /* scratch states of the halving loop */
    void *ws;          /* the scheme's own workspace */
    int last_substeps; /* substeps of the last cdyn_step when it succeeded, 0 otherwise (none yet
                          or it failed): what cdyn_step_derivatives may differentiate */
    lim_rows lim;      /* the model's joint-limit rows */
    rigid_last rlast;  /* the rigid schemes' last successful step (rigid_derivs.h) */
    substep_record sub; /* the last step's substeps, when it needed halvings */
};

struct step_scheme {
    const char *name;
    /* Backends accepted (bit 1 << backend); the first listed in cdyn_step_backend order that is
     * set, AUTO aside, is not necessarily the default: `pick` chooses for AUTO. */
    unsigned backends;
    cdyn_step_backend (*pick)(const cdyn_stepper *s);
    /* Scheme-specific checks of options and model, then allocate s->ws (everything a step
     * needs). On failure nothing stays allocated. */
    cdyn_status (*create)(cdyn_stepper *s, cdyn_report *r);
    void (*destroy)(cdyn_stepper *s); /* s->ws may be NULL */
    /* Advance x0 by h into x1 (same sizes; x1 != x0; x1->t is set by the caller). tau: n_v
     * values, or NULL for zeros. Fill rep->solver (iterations added, residual,
     * method, message), rep->nactive, rep->events. On failure x1 may hold anything. */
    cdyn_status (*advance)(cdyn_stepper *s, const double *tau, double h, const cdyn_state *x0,
                           cdyn_state *x1, cdyn_step_report *rep);
};

/* One attempt of length h 2^-k from x0 into x1 with the driver's bookkeeping around the
 * scheme's advance (the arena reset, the rigid schemes' limit modes); stepper.c. */
cdyn_status step_advance(cdyn_stepper *s, const double *tau, int k, const cdyn_state *x0,
                         cdyn_state *x1, cdyn_step_report *rep);

extern const step_scheme cdyn_scheme_implicit_ncp;
extern const step_scheme cdyn_scheme_pyramid_lcp;
extern const step_scheme cdyn_scheme_cone_step;
extern const step_scheme cdyn_scheme_baumgarte;
extern const step_scheme cdyn_scheme_coulomb_step;

#endif
