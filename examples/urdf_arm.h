/* Shared by urdf_arm.c and urdf_arm_limits.c (the example's joint-limit checks). */
#ifndef CDYN_EXAMPLE_URDF_ARM_H
#define CDYN_EXAMPLE_URDF_ARM_H

#include <stdio.h>

#include "cdyn/cdyn.h"

/* Load examples/data/<file> upright (a quarter turn about x: the file's y axis up) with the
 * given CDYN_URDF_SKIP_* bits; *map may be NULL. NULL (message on stderr) on failure. */
cdyn_model *urdf_arm_load(const char *file, unsigned skip, cdyn_urdf_map **map);

/* An implicit-scheme stepper of step h and Newton tolerance tol (0: the default), or NULL
 * (message on stderr). */
cdyn_stepper *urdf_arm_implicit(const cdyn_model *m, double h, double tol);

/* DIR/name opened for writing, or NULL (message on stderr). */
FILE *urdf_arm_csv(const char *dir, const char *name);

/* The holding torques of arm3.urdf's chain of rods at q: tau_i = g sum_{k >= i} m_k (x_k - x_i),
 * the generalized gravity force's negative (h(q, 0)). */
void urdf_arm_statics(const double q[3], double tau[3]);

/* The joint-limit checks: pendulum_limited.urdf reaching its stop at the predicted step, and
 * arm3.urdf resting on its stops with the stops' torques against urdf_arm_statics. Nonzero when a
 * check fails. */
int urdf_arm_limit_reached(const char *dir, int quick);
int urdf_arm_on_stops(const char *dir, const cdyn_urdf_map *map, const cdyn_model *arm);

#endif
