/* Helpers for the model tests: building small models without boilerplate, and
 * finite-difference references computed from body poses only (cdyn_data_body_pose), which are
 * independent of the Jacobian, CRBA and RNEA code they check. */
#ifndef CDYN_TEST_MODEL_SUPPORT_H
#define CDYN_TEST_MODEL_SUPPORT_H

#include "cdyn/model.h"

/* Body descriptions. inertia: (Ixx, Iyy, Izz) diagonal. */
cdyn_body_desc tm_free_body(double mass, double ixx, double iyy, double izz);
cdyn_body_desc tm_joint(cdyn_joint_type joint, int parent, const double pos[3],
                        const double axis[3], double mass, const double com[3], double ixx,
                        double iyy, double izz);
cdyn_geom_desc tm_geom(int body, cdyn_geom_type type, double s0, double s1, double s2);

/* q' = q + h G(q) w (w in v-space). */
void tm_step(const cdyn_model *m, const double *q, const double *w, double h, double *out);

/* World position of the material point of `body` (CDYN_GROUND: fixed) whose body coordinates
 * are loc, at the poses last evaluated in d. */
void tm_material_point(const cdyn_data *d, int body, const double loc[3], double p[3]);
/* Body coordinates of the world point p. */
void tm_body_coords(const cdyn_data *d, int body, const double p[3], double loc[3]);

/* Kinetic energy sum_k 1/2 m |cdot|^2 + 1/2 w^T R I R^T w from the body velocities of the last
 * eval (needs v), with per-body mass, com and diagonal inertia given by the caller. */
double tm_kinetic(const cdyn_model *m, const cdyn_data *d, const double *mass,
                  const double (*com)[3], const double (*inertia)[3]);

/* Max |a - b| over n entries. */
double tm_maxdiff(int n, const double *a, const double *b);

#endif
