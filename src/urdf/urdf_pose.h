/* Internal: URDF's poses (xyz, fixed-axis roll-pitch-yaw) as cdyn_pose, and their products. */
#ifndef CDYN_URDF_POSE_H
#define CDYN_URDF_POSE_H

#include <math.h>

#include "cdyn/model.h"
#include "model/vec3.h"

/* The unit quaternion of R = Rz(yaw) Ry(pitch) Rx(roll): qz (x) qy (x) qx, multiplied out. */
static inline void urdf_rpy_quat(const double rpy[3], double q[4])
{
    const double cr = cos(0.5 * rpy[0]), sr = sin(0.5 * rpy[0]);
    const double cp = cos(0.5 * rpy[1]), sp = sin(0.5 * rpy[1]);
    const double cy = cos(0.5 * rpy[2]), sy = sin(0.5 * rpy[2]);
    q[0] = cr * cp * cy + sr * sp * sy;
    q[1] = sr * cp * cy - cr * sp * sy;
    q[2] = cr * sp * cy + sr * cp * sy;
    q[3] = cr * cp * sy - sr * sp * cy;
}

/* Hamilton product r = a (x) b (r aliases neither). */
static inline void urdf_quat_mul(double r[4], const double a[4], const double b[4])
{
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* The pose a * b: b given in a's frame, expressed in the frame a is given in. */
static inline cdyn_pose urdf_pose_mul(const cdyn_pose *a, const cdyn_pose *b)
{
    cdyn_pose r;
    double R[9], p[3];
    quat_to_mat(R, a->quat);
    m3_mul_v(p, R, b->pos);
    v3_add(r.pos, a->pos, p);
    urdf_quat_mul(r.quat, a->quat, b->quat);
    return r;
}

#endif
