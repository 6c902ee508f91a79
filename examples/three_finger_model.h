/* A sphere grasped by three 3-link fingers with PUMA-560-like geometry and inertias (the setting
 * of Buffo & Maciel, Sec. 5), built with the public model API. Shared by the example
 * three_finger_sphere and tests/test_instant_hand.c. Parameters and their sources:
 * docs/examples.md ("Three-finger grasp of a sphere").
 *
 * Coordinates: z up, the palm is the plane z = 0, the sphere's centre is at (0, 0, height).
 * Finger j (j = 0, 1, 2) stands on the palm at distance base_radius from the z axis in the
 * direction of its contact azimuth theta_j; its fingertip (the wrist centre of the arm) touches
 * the sphere's equator at that azimuth. q = (sphere x, y, z, quaternion; finger 0 joints 1-3;
 * finger 1 ...; finger 2 ...), nq = 16, nv = 15. */
#ifndef CDYN_EXAMPLES_THREE_FINGER_MODEL_H
#define CDYN_EXAMPLES_THREE_FINGER_MODEL_H

#include <cdyn/cdyn.h>

#define TF_NQ 16
#define TF_NV 15

typedef struct tf_params {
    double mu;             /* friction at the three contacts */
    double sphere_radius;  /* m */
    double sphere_mass;    /* kg (solid sphere: I = 2/5 m r^2) */
    double height;         /* sphere centre above the palm, m */
    double base_radius;    /* finger bases from the z axis, m */
    double contact_deg[3]; /* contact azimuths, degrees */
} tf_params;

/* mu 0.5, r 0.1 m, m 1 kg, height 0.5 m, bases at 0.5 m, contacts at 60, -60, 180 degrees. */
void tf_defaults(tf_params *p);

typedef struct tf_hand {
    cdyn_model *model;
    cdyn_data *data;
    double q[TF_NQ];
} tf_hand;

/* Build the model and the grasp configuration (fingertips on the sphere, elbows up). On failure
 * the hand is left empty (safe to tf_free). */
cdyn_status tf_build(const tf_params *p, tf_hand *h, cdyn_report *rep);
void tf_free(tf_hand *h);

/* Joint torques at (q, v): the fingers' own bias forces h (gravity, and velocity terms) plus
 * J_tip^T (-squeeze n_j), a force of `squeeze` newtons pressing each fingertip into the sphere
 * along its normal; zero on the sphere's dofs. Evaluates h->data. */
cdyn_status tf_squeeze_torques(tf_hand *h, const double *v, double squeeze, double *tau,
                               cdyn_report *rep);

#endif
