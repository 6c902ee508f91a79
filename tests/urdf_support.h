/* Helpers for the URDF tests: the twins of the URDF fixtures built by builder calls, with poses
 * and rotated inertias computed here (rotation matrices and quaternion products written for the
 * tests, not the loader's code), and the comparison of two models at random states. */
#ifndef CDYN_TEST_URDF_SUPPORT_H
#define CDYN_TEST_URDF_SUPPORT_H

#include "cdyn/model.h"
#include "cdyn/urdf.h"

/* A pose from URDF's xyz and fixed-axis rpy: qz(yaw) qy(pitch) qx(roll), multiplied here. */
cdyn_pose tu_pose(double x, double y, double z, double roll, double pitch, double yaw);
cdyn_pose tu_pose_mul(const cdyn_pose *a, const cdyn_pose *b);

/* The twin of one URDF link: its joint (type, parent body, origin, axis) and inertial (mass,
 * com, rpy of the inertia frame, the six values in URDF order ixx ixy ixz iyy iyz izz). */
typedef struct tu_link {
    int parent;
    cdyn_joint_type joint;
    cdyn_pose origin;
    double axis[3];
    double mass, com[3], irpy[3], I[6];
} tu_link;

/* The body description of a twin link: the inertia rotated by R = Rz Ry Rx (matrices). */
cdyn_body_desc tu_body(const tu_link *l);

/* The lumped body of `a` and `b`, b welded to a at pose T (in a's frame): masses added, the
 * centre of mass averaged and the inertias moved to it by the parallel-axis theorem. */
cdyn_body_desc tu_lump(const tu_link *a, const tu_link *b, const cdyn_pose *T);

cdyn_geom_desc tu_geom(int body, cdyn_geom_type type, const cdyn_pose *frame, double s0,
                       double s1, double s2);

/* A spatial builder (default gravity). */
cdyn_builder *tu_builder(void);

/* Add a ground plane and one pair plane-g (mu 0.5, contact defaults) per geometry id in geoms. */
void tu_add_floor_pairs(cdyn_builder *b, int n, const int *geoms);

/* Max over `samples` random states of |a - b| / max(1, |b|) for M, h, the gaps and the three
 * Jacobians (dense): the models must have the same nq, nv and contact rows. */
double tu_compare(const cdyn_model *a, const cdyn_model *b, int samples, unsigned seed);

/* Load `file` (tests/data/urdf) into b with opts; a cmocka assertion fails unless CDYN_OK. */
cdyn_urdf_map *tu_load(cdyn_builder *b, const char *file, const cdyn_urdf_options *opts);

cdyn_model *tu_build(cdyn_builder *b);

#endif
