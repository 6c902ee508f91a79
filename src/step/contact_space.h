/* Internal: rigid contact in velocity space from the model's sparse matrices, for the rigid
 * schemes (docs/theory.md, "Time stepping", Sec. 2).
 *
 * The mass matrix of a model is block diagonal by kinematic tree (bodies attached to the ground
 * and their descendants): M = diag(M_T). Each tree is factored densely on its own (a free body:
 * 6 x 6), so that the Delassus matrix W = J M^-1 J' = sum_T J_T M_T^-1 J_T' is assembled as a
 * sum of small dense blocks, one per tree, on the rows that touch it: linear in the number of
 * bodies and contacts, where one dense W would be cubic. Rows are the model rows taking part
 * (active at the start of the step); each contributes nd = 2 (planar: n, t) or 3 (n, t, o)
 * consecutive unknowns. Joint damping D (diagonal, cdyn_model_joint_damping) is taken
 * implicitly: every M_T here is M_T + h D_T (docs/theory.md, "Joint damping"). Per-step arrays
 * come from the stepper's arena. */
#ifndef CDYN_STEP_CONTACT_SPACE_H
#define CDYN_STEP_CONTACT_SPACE_H

#include "step/step_internal.h"

/* Fixed by the model: the tree of each dof (allocated at stepper creation). */
typedef struct cs_trees {
    int ntree;
    int *tree_ptr;  /* ntree + 1: dofs of tree T are tree_dofs[tree_ptr[T] .. tree_ptr[T+1]) */
    int *tree_dofs; /* nv */
    int *dof_tree;  /* nv */
    int *dof_local; /* nv: index of the dof within its tree */
    int max_tree;   /* largest tree (dofs) */
} cs_trees;

/* Ints cs_trees_init needs: three arrays of nv, tree_ptr (<= nv + 1) and nbody of scratch. */
size_t cs_trees_ints(int nv, int nbody);
/* Partition the dofs of model into trees, using ints (cs_trees_ints(nv) of them). */
void cs_trees_init(cs_trees *t, const cdyn_model *m, int *ints);

/* One step's contact-space problem. */
typedef struct cs_problem {
    int nd;        /* unknowns per row: 2 or 3 */
    int k;         /* rows taking part */
    int m;         /* nd * k */
    int *rows;     /* k model rows, followed by n_c ints: each model row's position in the
                      problem (-1: not taking part) */
    double *mu;    /* k */
    double *vfree; /* nv: v + h (M + h D)^-1 (tau - bias) */
    double *r;     /* m: J v_free + (Psi_n / h, 0, 0) per row */
    /* W (m x m, symmetric) as lower-triangle triplets, duplicates to be summed */
    int ntrip;
    int *ti, *tj;
    double *tx;
    double *wdiag; /* m: the diagonal of W */
    /* per tree: the Cholesky factor of M_T (dense, packed one after the other) */
    double *chol;
    int *chol_off; /* ntree: offset of tree T's factor in chol */
} cs_problem;

/* Build the problem at the data's evaluation (MASS, BIAS, CONTACTS done) for the state (q, v),
 * forces tau (NULL: zeros) and step h. Everything allocated from s->arena.as. CDYN_ESINGULAR
 * when some M_T is not positive definite; CDYN_ENOMEM. */
cdyn_status cs_build(cdyn_stepper *s, const cs_trees *t, const double *v, const double *tau,
                     double h, cs_problem *p, cdyn_report *r);

/* The start of a rigid step: evaluate the model at x0 (mass, bias, contacts), build p, and set
 * x1 to no deformation, no force, modes FREE and v = v_free. rep->nactive = p->k. */
cdyn_status cs_begin(cdyn_stepper *s, const cs_trees *t, const double *tau, double h,
                     const cdyn_state *x0, cdyn_state *x1, cs_problem *p, cdyn_step_report *rep);

/* The end of a rigid step: q+ = q0 + h G(q0) v+ with unit quaternions, into x1->q. */
cdyn_status cs_finish(cdyn_stepper *s, const cdyn_state *x0, double h, cdyn_state *x1,
                      cdyn_report *r);

/* v_plus = v_free + M^-1 J' p for impulses p (m values, per row (n, t[, o])). v_plus: nv. */
cdyn_status cs_apply_impulses(cdyn_stepper *s, const cs_trees *t, const cs_problem *p,
                              const double *imp, double *v_plus);

/* x := (M + h D)^-1 x with the trees' factors of p (nv values; scratch: t->max_tree doubles). */
void cs_solve_mass(const cs_trees *t, const cs_problem *p, double *x, double *scratch);

/* y = J x for the rows of p (y: m values, per row (n, t[, o])), x: nv values. */
void cs_contact_velocity(const cdyn_stepper *s, const cs_problem *p, const double *x, double *y);

#endif
