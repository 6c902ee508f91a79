/* Test support: the oracle of the per-step derivative tests (deriv_support.c). */
#ifndef CDYN_TESTS_DERIV_SUPPORT_H
#define CDYN_TESTS_DERIV_SUPPORT_H

#include "cdyn/deriv.h"

/* Tangent dof j of the model at q: the q index it moves (kind 0) or, for the angular dofs of a
 * 3D free body, the quaternion's first index and the world axis (kind 1). */
typedef struct dof {
    int kind, qi, axis;
} dof;

dof dof_of(const cdyn_model *m, const double *q, int j);
/* q (+) eps e_j in the documented convention (local: the body-frame one, for negative checks) */
void perturb_q(const cdyn_model *m, double *q, int j, double eps, int local);
/* tangent coordinate j of qa - qb (world-frame angles for quaternions) */
double tangent_diff(const cdyn_model *m, const double *qa, const double *qb, int j);

typedef struct scene {
    cdyn_model *m;
    cdyn_stepper *s;
    cdyn_state *x;   /* the state before the step under test */
    double tau[64];  /* n_v */
    int nv, nc, nx;
    int nl;          /* limit rows (implicit: nx = 2 n_v + 3 n_c + nl) */
} scene;

void scene_open(scene *sc, cdyn_model *m, const cdyn_step_options *o);
void scene_close(scene *sc);
/* n steps from sc->x in place (to settle a scene) */
void settle(scene *sc, int n);
/* One step from sc->x moved by eps along input column j (j < nx: state, else tau j - nx);
 * the result relative to ref (q in tangent differences) into out (nx). */
void step_from(scene *sc, int j, double eps, const cdyn_state *ref, double *out);
/* The step under test from sc->x: the new state into x1, A and B, the report. */
void derivs(scene *sc, cdyn_deriv_side side, cdyn_state *x1, double *A, double *B,
            cdyn_step_deriv_report *dr);
/* max |J - Jfd| / max |Jfd| over the columns of A and B, by central differences of step eps
 * (the released side; asserts that the step sits at no switch) */
double central_error(scene *sc, double eps, const char *name);
double urand(double lo, double hi);
/* Component i of the one-sided derivative along input column j toward e's sign, by the
 * second-order difference (-3 f(0) + 4 f(e) - f(2e)) / (2e) of steps from sc->x (f relative
 * to x1, the unperturbed step's result: f(0) = 0). */
double one_sided(scene *sc, const cdyn_state *x1, int j, double e, int i);
/* A planar 2-link chain (revolute joints, pivot 0.2 m above the ground line) whose tip disk
 * (radius 0.03) presses on the ground; joint damping d0, d1 (N m s/rad). */
cdyn_model *two_link_chain(double d0, double d1);

#endif
