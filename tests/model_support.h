/* Helpers for the model tests: building small models without boilerplate, and
 * finite-difference references computed from body poses only (cdyn_data_body_pose), which are
 * independent of the Jacobian, CRBA and RNEA code they check. */
#ifndef CDYN_TEST_MODEL_SUPPORT_H
#define CDYN_TEST_MODEL_SUPPORT_H

#include "cdyn/model.h"

/* A convex pentagon (counter-clockwise x, y pairs, about 4 cm across) for the polygon pairs. */
extern const double TM_PENTAGON[10];

/* Body descriptions. inertia: (Ixx, Iyy, Izz) diagonal. */
cdyn_body_desc tm_free_body(double mass, double ixx, double iyy, double izz);
cdyn_body_desc tm_joint(cdyn_joint_type joint, int parent, const double pos[3],
                        const double axis[3], double mass, const double com[3], double ixx,
                        double iyy, double izz);
cdyn_geom_desc tm_geom(int body, cdyn_geom_type type, double s0, double s1, double s2);

/* Quaternions (w, x, y, z): c = a (x) b (Hamilton product; c must not alias), and
 * e = exp(1/2 (0, w)). */
void tm_qmul(const double *a, const double *b, double *c);
void tm_qexp(const double *w, double *e);

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

/* The contact rows of a model evaluated at (q, v), kept for a finite-difference check. */
typedef struct tm_rows {
    const double *J[3];              /* copies of the dense nc x nv Jacobians */
    const double *jd[3];             /* copies of J-dot v */
    const cdyn_contact *c;           /* the contacts (frames) */
    const int *ba, *bb;              /* bodies of the two material points of contact i */
    const double (*la)[3], (*lb)[3]; /* their body coordinates */
    int kmin;                        /* first direction whose J rows are checked */
} tm_rows;

/* Central differences with step eps, re-evaluating d (contacts only): raises *jac to the max
 * relative error (|err| / (1 + |ref|)) of the rows k >= kmin of J against the frame components
 * of the material points' separation, *gapgrad that of the normal row against the gaps, and
 * *jdot that of J-dot v against J v along the trajectory. Returns 0, or -1 when an evaluation
 * failed. */
int tm_fd_contact_rows(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                       double eps, const tm_rows *rows, double *jac, double *gapgrad,
                       double *jdot);

/* Max |a - b| over n entries. */
double tm_maxdiff(int n, const double *a, const double *b);
double tm_dot3(const double *a, const double *b);

/* Nonzero when CDYN_TEST_VERBOSE is set: the tests then print their measured errors. */
int tm_verbose(void);

/* How the geometry of a contact-row test is carried: by the ground, a free body, the last link
 * of a revolute-prismatic-revolute chain, or a body welded (FIXED joint) to a free one. */
enum { TM_MOUNT_GROUND, TM_MOUNT_FREE, TM_MOUNT_CHAIN, TM_MOUNT_WELDED, TM_NMOUNT };
/* Add the bodies of a mount whose geometry sits near `center` (a cmocka assertion fails when
 * the builder refuses one); returns the body carrying the geometry (CDYN_GROUND for
 * TM_MOUNT_GROUND). */
int tm_add_mount(cdyn_builder *b, int dim, int mount, const double *center);

#endif
