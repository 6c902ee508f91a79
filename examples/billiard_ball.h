/* Song, Kumar & Pang's billiard ball, shared by examples/billiard.c, billiard_bvp.c,
 * billiard_shot.c (and tests/test_billiard_shot.c) and ball_impacts.c: a solid ball
 * (r = 0.05 m, m = 0.2 kg, I = 2/5 m r^2) on the table z = 0 with mu = 0.2 under g = 9.8,
 * compliant contact K = k I (no damping: the paper gives none). */
#ifndef CDYN_EXAMPLES_BILLIARD_BALL_H
#define CDYN_EXAMPLES_BILLIARD_BALL_H

#include <cdyn/cdyn.h>

#define BALL_R 0.05
#define BALL_MASS 0.2
#define BALL_MU 0.2
#define BALL_G 9.8

/* The model with stiffness k (N/m; the paper's 1e4); NULL with rep's message on failure. */
cdyn_model *billiard_ball_model(double k, cdyn_report *rep);

#endif
