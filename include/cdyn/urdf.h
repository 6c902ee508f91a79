/* cdyn — loading robot descriptions in URDF (the ROS Unified Robot Description Format) into a
 * model builder (docs/api.md, "URDF models").
 *
 * cdyn_builder_add_urdf adds the links of a URDF file as bodies, its joints as their joints and
 * its collision spheres and boxes as geometry, all or nothing, and hands back a name map: URDF
 * link, joint and collision names to body and geometry ids (contact pairs are then declared
 * with cdyn_builder_add_contact_pair on those ids). Spatial builders only (dim 3).
 *
 * Frames (URDF's own convention): the child link's frame is the parent link's frame times the
 * joint's <origin> times the joint's motion (rotation about / translation along <axis>, given in
 * the joint frame). That is cdyn_body_desc with frame = <origin> and axis = <axis>. <inertial>
 * gives the centre of mass (origin xyz) and the inertia tensor about it in a frame rotated by
 * origin rpy; the loader rotates it into the link frame. rpy are fixed-axis roll, pitch, yaw:
 * R = Rz(yaw) Ry(pitch) Rx(roll). Units are SI, angles in radians.
 *
 * Joints: fixed -> CDYN_JOINT_FIXED, revolute and continuous -> REVOLUTE, prismatic ->
 * PRISMATIC, floating -> FREE (only below the root when the root is welded to the world, since
 * cdyn's free joints attach to the ground). <limit> and <dynamics> are parsed and reported in
 * the map. <dynamics damping> and <dynamics friction> of revolute, continuous and prismatic
 * joints become the body's cdyn_body_desc.damping and .friction (negative values are refused
 * with the line); fixed and floating joints have no joint dof to damp and ignore <dynamics>.
 * Joint friction > 0 is taken by the pyramid LCP scheme only and refused by the others: the
 * skip bit CDYN_URDF_SKIP_FRICTION loads the model without it. <limit lower upper> of revolute
 * and prismatic joints become joint limits (cdyn_body_desc.limited, lower, upper; absent values
 * are 0, as the URDF specification says, and lower = upper = 0 is taken as no limit rather than
 * a joint locked at 0; continuous joints have none; lower > upper is refused with the line),
 * taken by every scheme (rigid stops in the pyramid LCP, cone and Coulomb steps, compliant ones in
 * the implicit NCP, Baumgarte-stabilized ones in Baumgarte; the BVP refuses them):
 * CDYN_URDF_SKIP_LIMITS loads the model without them.
 * <limit effort velocity> are reported in the map only.
 *
 * Refused (CDYN_EFORMAT, the message names the element and its line): malformed or truncated
 * XML; a root element other than <robot>; bad numbers (not a number, NaN, Inf, wrong count);
 * unknown or duplicate link and joint names; a link with two parents (closed loops); cycles;
 * more than one root link; a moving link without <inertial> or with a mass or inertia the
 * builder refuses (mass > 0 and a positive definite inertia for moving links); negative mass;
 * planar joints; floating joints below a moving link; and, unless `skip` says otherwise, mesh
 * geometry, <mimic>, <transmission> and unknown elements. <cylinder> is refused unless
 * cylinder_as_capsule is set. Ignored silently: <visual>, <material>, <gazebo>, <ros2_control>,
 * <calibration>, <safety_controller>, XML comments.
 *
 * Memory: cdyn's own allocations use options.allocator (NULL: the builder's allocator); libxml2
 * allocates through its own process-wide functions (xmlMalloc), which cdyn never changes. cdyn
 * calls xmlInitParser() once per process (pthread_once) and never xmlCleanupParser(). libxml2
 * never prints: errors go to a handler set on each parser context.
 *
 * Thread safety: reentrant; loads into different builders may run concurrently. */
#ifndef CDYN_URDF_H
#define CDYN_URDF_H

#include <stddef.h>

#include "cdyn/alloc.h"
#include "cdyn/model.h"
#include "cdyn/status.h"

#include "cdyn/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Unsupported elements the caller may ask to skip (cdyn_urdf_options.skip bits). */
enum {
    CDYN_URDF_SKIP_MESH = 1u,         /* <collision> with <mesh> geometry: no geometry added */
    CDYN_URDF_SKIP_MIMIC = 2u,        /* <mimic>: the joint is loaded as an independent joint */
    CDYN_URDF_SKIP_TRANSMISSION = 4u, /* <transmission>: ignored (actuation, not dynamics) */
    CDYN_URDF_SKIP_UNKNOWN = 8u,      /* any other element the loader does not know */
    CDYN_URDF_SKIP_FRICTION = 16u,    /* <dynamics friction>: not passed to the builder (the
                                         map still reports it), so that the schemes that refuse
                                         joint friction (all but the pyramid LCP) accept the
                                         model */
    CDYN_URDF_SKIP_LIMITS = 32u       /* <limit lower upper>: not passed to the builder (the
                                         map still reports them): for the BVP, which
                                         refuses joint limits, or a free motion */
};

typedef struct cdyn_urdf_options {
    int floating_base;   /* 0: the root link is welded to the world at base_pose (body id
                            CDYN_GROUND); 1: the root link is a FREE body whose default pose
                            (cdyn_model_default_q) is base_pose */
    cdyn_pose base_pose; /* the root link's frame in the world; identity */
    int cylinder_as_capsule; /* 0: refuse <cylinder>; 1: an APPROXIMATION: the capsule of the
                                cylinder's radius around its axis segment (the cylinder plus a
                                half ball of its radius on each end cap) */
    unsigned skip;       /* CDYN_URDF_SKIP_* bits; 0 */
    const cdyn_allocator *allocator; /* NULL: the builder's allocator; used for the map too and
                                        must outlive it */
} cdyn_urdf_options;

/* floating_base = 0, identity base_pose, cylinder_as_capsule = 0, skip = 0, allocator NULL. */
CDYN_API void cdyn_urdf_defaults(cdyn_urdf_options *opts);

typedef struct cdyn_urdf_map cdyn_urdf_map;

/* Add the robot of the URDF file `path` to `builder` (dim 3). opts NULL: defaults. map (may be
 * NULL) receives a new name map, to be freed with cdyn_urdf_map_free. All or nothing: on
 * failure the builder is as it was and *map is left unchanged. Statuses: CDYN_EINVAL (NULL
 * builder or path, a planar builder, bad options), CDYN_EIO (the file cannot be read: the
 * message names it), CDYN_EFORMAT (the content: the message says "line L" and names the
 * element, link or joint), CDYN_ETOOBIG (a file over 2 GB, libxml2's limit), CDYN_ENOMEM. */
CDYN_API cdyn_status cdyn_builder_add_urdf(cdyn_builder *builder, const char *path,
                                           const cdyn_urdf_options *opts, cdyn_urdf_map **map,
                                           cdyn_report *report);

/* The same from `length` bytes of URDF text in memory (need not be NUL-terminated). */
CDYN_API cdyn_status cdyn_builder_add_urdf_string(cdyn_builder *builder, const char *text,
                                                  size_t length, const cdyn_urdf_options *opts,
                                                  cdyn_urdf_map **map, cdyn_report *report);

CDYN_API void cdyn_urdf_map_free(cdyn_urdf_map *map); /* accepts NULL */

typedef enum cdyn_urdf_joint_type {
    CDYN_URDF_FIXED = 0,
    CDYN_URDF_REVOLUTE = 1,
    CDYN_URDF_CONTINUOUS = 2,
    CDYN_URDF_PRISMATIC = 3,
    CDYN_URDF_FLOATING = 4
} cdyn_urdf_joint_type;

/* Name pointers stay valid until cdyn_urdf_map_free. Indices are in file order. */
typedef struct cdyn_urdf_link {
    int index;
    const char *name;
    int line;                        /* of its <link> element */
    int body;                        /* body id; CDYN_GROUND for a root welded to the world */
    int parent_joint;                /* index of the joint whose child it is; -1 for the root */
    int first_collision, ncollision; /* its <collision> elements, in file order */
    double mass;                     /* as parsed; 0 without <inertial> */
} cdyn_urdf_link;

typedef struct cdyn_urdf_joint {
    int index;
    const char *name, *parent, *child; /* the joint's and its links' names */
    int line;
    cdyn_urdf_joint_type type;
    int body;       /* the child link's body: the body this joint moves (cdyn_model_body_info
                       gives its qadr and vadr) */
    double axis[3]; /* <axis> as given (default (1, 0, 0)), in the joint frame */
    int has_limit;  /* <limit> present; then its values (absent attributes: 0) */
    double lower, upper, effort, velocity;
    int has_dynamics; /* <dynamics> present; then its values (absent attributes: 0) */
    double damping, friction;
    int mimic; /* 1: it had a <mimic> (skipped with CDYN_URDF_SKIP_MIMIC) */
} cdyn_urdf_joint;

typedef struct cdyn_urdf_collision {
    int index;
    const char *name; /* "" when unnamed */
    int line;
    int link;            /* link index */
    int geom;            /* geometry id; -1 when skipped (mesh with CDYN_URDF_SKIP_MESH) */
    cdyn_geom_type type; /* SPHERE, BOX or CAPSULE (a cylinder); PLANE when skipped */
} cdyn_urdf_collision;

/* Counts (any pointer may be NULL; all 0 for a NULL map). */
CDYN_API void cdyn_urdf_map_sizes(const cdyn_urdf_map *map, int *nlink, int *njoint,
                                  int *ncollision);

/* By index; CDYN_EINVAL for NULL arguments or an index out of range. */
CDYN_API cdyn_status cdyn_urdf_link_at(const cdyn_urdf_map *map, int index, cdyn_urdf_link *out,
                                       cdyn_report *report);
CDYN_API cdyn_status cdyn_urdf_joint_at(const cdyn_urdf_map *map, int index,
                                        cdyn_urdf_joint *out, cdyn_report *report);
CDYN_API cdyn_status cdyn_urdf_collision_at(const cdyn_urdf_map *map, int index,
                                            cdyn_urdf_collision *out, cdyn_report *report);

/* By name (logarithmic in the count); CDYN_EINVAL for NULL arguments or no such name. A
 * collision is found by its link's name and its own name attribute. */
CDYN_API cdyn_status cdyn_urdf_find_link(const cdyn_urdf_map *map, const char *name,
                                         cdyn_urdf_link *out, cdyn_report *report);
CDYN_API cdyn_status cdyn_urdf_find_joint(const cdyn_urdf_map *map, const char *name,
                                          cdyn_urdf_joint *out, cdyn_report *report);
CDYN_API cdyn_status cdyn_urdf_find_collision(const cdyn_urdf_map *map, const char *link,
                                              const char *name, cdyn_urdf_collision *out,
                                              cdyn_report *report);

#ifdef __cplusplus
}
#endif
#endif
