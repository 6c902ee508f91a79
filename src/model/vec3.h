/* Internal: 3-vectors, 3x3 matrices (column-major) and quaternions (e0, ex, ey, ez). */
#ifndef CDYN_MODEL_VEC3_H
#define CDYN_MODEL_VEC3_H

#include <math.h>

static inline void v3_set(double *r, double x, double y, double z)
{
    r[0] = x;
    r[1] = y;
    r[2] = z;
}
static inline void v3_copy(double *r, const double *a)
{
    r[0] = a[0];
    r[1] = a[1];
    r[2] = a[2];
}
static inline double v3_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline double v3_norm(const double *a)
{
    return sqrt(v3_dot(a, a));
}
/* r = a x b (r may alias neither a nor b). */
static inline void v3_cross(double *r, const double *a, const double *b)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
/* r += a x b */
static inline void v3_cross_add(double *r, const double *a, const double *b)
{
    double c[3];
    v3_cross(c, a, b);
    r[0] += c[0];
    r[1] += c[1];
    r[2] += c[2];
}
static inline void v3_add(double *r, const double *a, const double *b)
{
    r[0] = a[0] + b[0];
    r[1] = a[1] + b[1];
    r[2] = a[2] + b[2];
}
static inline void v3_sub(double *r, const double *a, const double *b)
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}
/* r = a + s b */
static inline void v3_axpy(double *r, const double *a, double s, const double *b)
{
    r[0] = a[0] + s * b[0];
    r[1] = a[1] + s * b[1];
    r[2] = a[2] + s * b[2];
}
static inline void v3_scale(double *r, double s, const double *a)
{
    r[0] = s * a[0];
    r[1] = s * a[1];
    r[2] = s * a[2];
}

/* r = R a */
static inline void m3_mul_v(double *r, const double *R, const double *a)
{
    for (int i = 0; i < 3; ++i)
        r[i] = R[i] * a[0] + R[i + 3] * a[1] + R[i + 6] * a[2];
}
/* r = R^T a */
static inline void m3_tmul_v(double *r, const double *R, const double *a)
{
    for (int i = 0; i < 3; ++i)
        r[i] = R[3 * i] * a[0] + R[3 * i + 1] * a[1] + R[3 * i + 2] * a[2];
}
/* C = A B (C aliases neither) */
static inline void m3_mul(double *C, const double *A, const double *B)
{
    for (int j = 0; j < 3; ++j)
        m3_mul_v(C + 3 * j, A, B + 3 * j);
}
/* C = A S A^T for symmetric S (C aliases neither) */
static inline void m3_congruence(double *C, const double *A, const double *S)
{
    double AS[9];
    m3_mul(AS, A, S);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            C[i + 3 * j] = AS[i] * A[j] + AS[i + 3] * A[j + 3] + AS[i + 6] * A[j + 6];
}

/* |e|^2 of the quaternion e. */
static inline double quat_norm2(const double *e)
{
    return e[0] * e[0] + e[1] * e[1] + e[2] * e[2] + e[3] * e[3];
}

/* Rotation matrix of the unit quaternion e (e0 scalar). */
static inline void quat_to_mat(double *R, const double *e)
{
    const double w = e[0], x = e[1], y = e[2], z = e[3];
    R[0] = 1 - 2 * (y * y + z * z);
    R[1] = 2 * (x * y + w * z);
    R[2] = 2 * (x * z - w * y);
    R[3] = 2 * (x * y - w * z);
    R[4] = 1 - 2 * (x * x + z * z);
    R[5] = 2 * (y * z + w * x);
    R[6] = 2 * (x * z + w * y);
    R[7] = 2 * (y * z - w * x);
    R[8] = 1 - 2 * (x * x + y * y);
}

/* Rotation by angle about the unit axis a (Rodrigues). */
static inline void axis_angle_to_mat(double *R, const double *a, double angle)
{
    const double c = cos(angle), s = sin(angle), k = 1 - c;
    const double x = a[0], y = a[1], z = a[2];
    R[0] = c + k * x * x;
    R[1] = k * x * y + s * z;
    R[2] = k * x * z - s * y;
    R[3] = k * x * y - s * z;
    R[4] = c + k * y * y;
    R[5] = k * y * z + s * x;
    R[6] = k * x * z + s * y;
    R[7] = k * y * z - s * x;
    R[8] = c + k * z * z;
}

static inline void rot_z(double *R, double angle)
{
    const double c = cos(angle), s = sin(angle);
    R[0] = c;
    R[1] = s;
    R[2] = 0;
    R[3] = -s;
    R[4] = c;
    R[5] = 0;
    R[6] = 0;
    R[7] = 0;
    R[8] = 1;
}

static inline void m3_identity(double *R)
{
    for (int i = 0; i < 9; ++i)
        R[i] = (i % 4 == 0) ? 1.0 : 0.0;
}

#endif
