/* Test support: scenes whose model parameters can be moved, rebuilt for every step of the
 * oracle (cdyn_builder + cdyn_step: no setter, no library derivative), and the check of
 * cdyn_step_param_derivatives' columns against Richardson central differences of whole steps
 * (param_support.c; used by test_step_param_derivs and test_rigid_param_derivs). */
#ifndef CDYN_TESTS_PARAM_SUPPORT_H
#define CDYN_TESTS_PARAM_SUPPORT_H

#include "cdyn/deriv.h"

#define MAXG 4
#define MAXB 2

/* ---- a scene whose parameters can be moved: rebuilt for every oracle step ---- */

typedef struct gspec {
    int body; /* -1: ground, else the body's index */
    cdyn_geom_type type;
    double pos[3], rot[3], size[3]; /* rot: the frame's rotation vector */
    double turn[3]; /* GEOM_ROT's perturbation: exp(1/2 (0, turn)) (x) exp(1/2 (0, rot)) */
    int nvert;
    double verts[8]; /* a polygon's */
} gspec;

typedef struct spec {
    int dim; /* 0: 3 */
    int nbody, ngeom, npair;
    double mass[MAXB], inertia[MAXB][3];
    gspec geom[MAXG];
    int ga[MAXG], gb[MAXG];
    double mu[MAXG], K[MAXG][2], C[MAXG][2]; /* (normal, tangential) */
    int patch_n[MAXG];                       /* > 1: a patch of half-width patch_w */
    double patch_w[MAXG];
    double tau[6 * MAXB]; /* the generalized forces of every step (all 0: none) */
} spec;

/* The model of sp. */
cdyn_model *build(const spec *sp);
/* sp with parameter p moved by e (the documented meaning of each kind); its value. */
void move(spec *sp, const cdyn_param *p, double e);
double value(const spec *sp, const cdyn_param *p);
/* sp's tau, or NULL when all 0. */
const double *spec_tau(const spec *sp);
void copy_state(cdyn_state *dst, const cdyn_state *src);
/* One step of the scene sp from x (a state of a model of the same sizes) into out. */
void oracle_step(const spec *sp, const cdyn_step_options *o, const cdyn_state *x,
                 cdyn_state *out);
/* P alone, and B alone, are the columns of the call that asks for A, B and P at once. */
void same_with_A_B(cdyn_stepper *s, int nx, int nv, int np, const cdyn_param *params,
                   const double *P);
/* cdyn_eval_geom_derivatives for geometric parameter p at x against central differences of the
 * model's terms with the geometry moved: the relative error. */
double check_model_terms(spec *sp, const cdyn_state *x, const cdyn_param *p);
/* The scene's parameter columns (any scheme, from one cdyn_step of x) against central
 * differences: the worst column's relative error (see param_support.c). */
double check_params(spec *sp, const cdyn_step_options *o, const cdyn_state *x, int np,
                    const cdyn_param *params, const char *name);
/* n steps of the scene from x in place. */
void spec_settle(const spec *sp, const cdyn_step_options *o, cdyn_state *x, int n);
cdyn_state *state_of(const spec *sp);
void add_body(spec *sp, double mass, double i0, double i1, double i2);
int add_geom(spec *sp, int body, cdyn_geom_type type, double s0, double s1, double s2);
/* a pair with mu and K = (2e4, 1e4), C = (60, 40) (normal, tangential) */
void add_pair(spec *sp, int ga, int gb, double mu);
/* Geometry 0 the ground plane, body 0 with geometry 1. */
spec on_plane(cdyn_geom_type type, double s0, double s1, double s2, double mass,
              const double *inertia, double mu);
/* The contact parameters of pair 0 (MU, STIFFNESS_N, _T, DAMPING_N, _T) followed by the ng
 * given ones, into out; returns 5 + ng. */
int with_contact(const cdyn_param *geo, int ng, cdyn_param *out);

#endif
