/* The planar two-finger grasp of an ellipse of Yashima & Yamaguchi, Sec. IV (Fig. 6), built with
 * the public model API. Shared by the example two_finger_ellipse and the tests. Our choice of the
 * grasp geometry and the torque conventions: docs/examples.md ("Two-finger grasp of an
 * ellipse").
 *
 * q = (object x, y, theta; finger 1 (left) joints 1, 2; finger 2 (right) joints 1, 2); gravity
 * along -y (the paper's z is our y). Contact row 0 is finger 1, row 1 finger 2. */
#ifndef CDYN_EXAMPLES_TWO_FINGER_MODEL_H
#define CDYN_EXAMPLES_TWO_FINGER_MODEL_H

#include <cdyn/cdyn.h>

#define TW_N 7
#define TW_TAU0 2.5 /* N m on both first joints (the paper's tau0) */

typedef struct tw_grasp {
    cdyn_model *model;
    cdyn_data *data;
    double q[TW_N], v[TW_N]; /* the grasp at rest: v = 0 */
} tw_grasp;

/* Build the model with friction mu at both contacts and the grasp configuration. On failure the
 * grasp is left empty (safe to tw_free). */
cdyn_status tw_build(double mu, tw_grasp *g, cdyn_report *rep);
void tw_free(tw_grasp *g);

/* Generalized forces: tau0 on both first joints and tau1, tau2 on the second joints, positive
 * in the closing sense (clockwise for finger 1, counter-clockwise for finger 2: the layout is
 * mirror-symmetric); zero on the object's dofs. */
void tw_torques(double tau0, double tau1, double tau2, double tau[TW_N]);

#endif
