/* Internal: spatial vectors in world Plucker coordinates at the world origin.
 * Motion m = (w; v): angular velocity and velocity of the body point at the origin.
 * Force  f = (n; f): moment about the origin and force.
 * A rigid body's spatial inertia is kept as (mass, first moment h = m c, rotational inertia
 * about the origin I_O = I_c + m (|c|^2 1 - c c^T)). Featherstone, Rigid Body Dynamics
 * Algorithms (2008), Ch. 2. */
#ifndef CDYN_MODEL_SPATIAL_H
#define CDYN_MODEL_SPATIAL_H

#include "model/vec3.h"

/* r = a x_m b (motion cross product): (wa x wb; wa x vb + va x wb). r must not alias. */
static inline void sp_cross_m(double *r, const double *a, const double *b)
{
    v3_cross(r, a, b);
    v3_cross(r + 3, a, b + 3);
    v3_cross_add(r + 3, a + 3, b);
}

/* r = a x_f f (force cross product): (wa x n + va x f; wa x f). r must not alias. */
static inline void sp_cross_f(double *r, const double *a, const double *f)
{
    v3_cross(r, a, f);
    v3_cross_add(r, a + 3, f + 3);
    v3_cross(r + 3, a, f + 3);
}

/* r = I m for the inertia (mass, h, I_O): (I_O w + h x v; mass v + w x h). */
static inline void sp_inertia_mul(double *r, double mass, const double *h, const double *IO,
                                  const double *mv)
{
    m3_mul_v(r, IO, mv);
    v3_cross_add(r, h, mv + 3);
    v3_scale(r + 3, mass, mv + 3);
    v3_cross_add(r + 3, mv, h);
}

static inline double sp_dot(const double *a, const double *b)
{
    return v3_dot(a, b) + v3_dot(a + 3, b + 3);
}

/* Linear velocity at point p of the motion m: v + w x p. */
static inline void sp_point_vel(double *r, const double *m, const double *p)
{
    v3_cross(r, m, p);
    r[0] += m[3];
    r[1] += m[4];
    r[2] += m[5];
}

#endif
