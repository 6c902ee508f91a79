/* Scenes shared by the time-stepping tests: built with the public model API, failing the calling
 * cmocka test on any error. */
#ifndef CDYN_TESTS_STEP_SCENES_H
#define CDYN_TESTS_STEP_SCENES_H

#include "cdyn/step.h"

#define G_ACC 9.81
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* A solid sphere (radius r, mass m, I = 2/5 m r^2) free above the plane z = 0, friction mu,
 * default gravity (0, 0, -9.81). */
cdyn_model *scene_sphere(double r, double m, double mu);
/* The same with gravity (0, 0, -g). */
cdyn_model *scene_sphere_g(double r, double m, double mu, double g);
/* n such spheres (i-th body and geometry i; all at the origin in the default configuration),
 * with friction mu and restitution e between consecutive spheres and, when plane is nonzero,
 * between the plane z = 0 and sphere 0 (the first pair); gravity (0, 0, -g). */
cdyn_model *scene_spheres(int n, double r, double m, double mu, double e, int plane, double g);
/* scene_sphere_g's sphere whose row takes part only within margin of the plane (lifted off, the
 * step's rows change). */
cdyn_model *scene_sphere_margin(double r, double m, double mu, double g, double margin);
/* A solid sphere (radius r, mass m, I = 2/5 m r^2) on a new free body: its geometry's id. */
int scene_add_ball(cdyn_builder *b, double r, double m);
/* Song-Kumar-Pang's billiard ball: r = 0.05, m = 0.2, mu = 0.2, g = 9.8. */
cdyn_model *scene_billiard(void);
/* Three spheres dropped in a column onto the plane (step_scenes.c). */
cdyn_model *scene_dropped_stack(void);

/* A cube of half-size 0.05 and mass 1 on the plane z = 0 (8 corner rows) under gravity tilted
 * by theta about y: a block on an incline of angle theta in the plane's frame. */
cdyn_model *scene_incline(double theta, double mu);

/* Song-Kumar-Pang's disk (planar: m = 0.1, r = 0.1, I = 5e-4) on the line y = 0, friction mu,
 * compliant contact K = k, C = c (normal and tangential), default gravity. */
cdyn_model *scene_disk(double mu, double k, double c);
/* The same disk with normal stiffness kn and tangential stiffness kt. */
cdyn_model *scene_disk_kt(double mu, double kn, double kt, double c);
/* The same disk with radius r over the line y = line_y. */
cdyn_model *scene_disk_shaped(double mu, double kn, double kt, double c, double r, double line_y);

/* Energy never grows: a ball (r = 0.05, m = 0.2, mu = 0.3) dropped from 0.5 m with sideways
 * speed 1.5 m/s and spin 30 rad/s onto the plane bounces inelastically, slides and rolls for
 * 300 steps of 0.01 s with the scheme's defaults; m g z + 1/2 v'Mv must not grow from step to
 * step (to rounding, 1e-12 J): in free flight symplectic Euler loses m g^2 h^2 / 2 per step and
 * contacts only dissipate. Fails the calling test otherwise. */
void scene_check_energy(cdyn_scheme scheme);

/* Bortoff's bouncing ball: a planar disk of mass m and radius r on a vertical prismatic joint
 * whose coordinate is its gap to the ground line, so q = h, with `pairs` disk-ground pairs of
 * Baumgarte gains alpha as given (solref[0] = 0: also all zero). */
cdyn_model *scene_prismatic_ball(const double alpha[3], double m, double r, int pairs);

/* A stepper with the scheme's defaults and step h. */
cdyn_stepper *scene_stepper(const cdyn_model *m, cdyn_scheme scheme, double h);

#endif
