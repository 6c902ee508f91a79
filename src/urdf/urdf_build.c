/* The parsed robot into builder calls: one body per link (parents first), the joint that moves
 * it, its collision geometry. The builder validates each description; its refusals come back
 * with the link's or collision's line. The caller rolls the builder back after a failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/report.h"
#include "urdf/urdf_types.h"
#include "urdf/urdf_pose.h"

/* A builder refusal of URDF content is a content error (CDYN_EFORMAT) with the line and the
 * element; out-of-memory and size limits keep their status. */
static cdyn_status refused(cdyn_status st, const cdyn_report *why, cdyn_report *r, int line,
                           const char *what, const char *name)
{
    const cdyn_status s = st == CDYN_EINVAL ? CDYN_EFORMAT : st;
    return cdyn_fail(r, s, "line %d: %s '%.40s': %s", line, what, name, why->message);
}

static const char *joint_type_name(cdyn_urdf_joint_type t)
{
    static const char *const names[] = {"fixed", "revolute", "continuous", "prismatic",
                                        "floating"};
    return names[t];
}

/* The body description of a link below its parent joint (NULL for the root). */
static cdyn_status link_desc(const cdyn_urdf_map *m, const ur_link *l, const ur_joint *j,
                             const cdyn_urdf_options *o, cdyn_body_desc *d, cdyn_report *r)
{
    cdyn_body_desc_defaults(d);
    d->mass = l->pub.mass;
    memcpy(d->com, l->com, sizeof(d->com));
    memcpy(d->inertia, l->inertia, sizeof(d->inertia));
    if (j == NULL) { /* the floating root */
        d->frame = o->base_pose;
        if (!l->has_inertial)
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: root link '%.40s' has no <inertial>, but a floating base "
                             "moves it (it needs mass > 0 and a positive definite inertia)",
                             l->pub.line, l->pub.name);
        return CDYN_OK;
    }
    const int parent = m->links[j->parent_link].pub.body;
    d->parent = parent;
    d->frame = parent == CDYN_GROUND ? urdf_pose_mul(&o->base_pose, &j->origin) : j->origin;
    memcpy(d->axis, j->pub.axis, sizeof(d->axis));
    switch (j->pub.type) {
    case CDYN_URDF_FIXED:
        d->joint = CDYN_JOINT_FIXED;
        break;
    case CDYN_URDF_PRISMATIC:
        d->joint = CDYN_JOINT_PRISMATIC;
        break;
    case CDYN_URDF_FLOATING:
        d->joint = CDYN_JOINT_FREE; /* frame: the default pose in the world */
        break;
    default:
        d->joint = CDYN_JOINT_REVOLUTE;
    }
    /* <dynamics> of a joint with one dof; fixed and floating joints ignore it (cdyn.urdf.h) */
    if (j->pub.has_dynamics && (d->joint == CDYN_JOINT_REVOLUTE ||
                                d->joint == CDYN_JOINT_PRISMATIC)) {
        if (!(j->pub.damping >= 0.0) || !(j->pub.friction >= 0.0))
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: joint '%.40s': <dynamics> damping = %g and friction = %g "
                             "must be >= 0",
                             j->pub.line, j->pub.name, j->pub.damping, j->pub.friction);
        d->damping = j->pub.damping;
        d->friction = (o->skip & CDYN_URDF_SKIP_FRICTION) ? 0.0 : j->pub.friction;
    }
    /* <limit lower upper> of revolute and prismatic joints (continuous joints have none); both
     * 0 (absent: URDF's default) is no position limit, not a joint locked at 0 */
    if (j->pub.has_limit && !(o->skip & CDYN_URDF_SKIP_LIMITS) &&
        (j->pub.type == CDYN_URDF_REVOLUTE || j->pub.type == CDYN_URDF_PRISMATIC) &&
        !(j->pub.lower == 0.0 && j->pub.upper == 0.0)) {
        if (!(j->pub.lower <= j->pub.upper))
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: joint '%.40s': <limit> lower = %g > upper = %g",
                             j->pub.line, j->pub.name, j->pub.lower, j->pub.upper);
        d->limited = 1;
        d->lower = j->pub.lower;
        d->upper = j->pub.upper;
    }
    if (j->pub.type == CDYN_URDF_FLOATING && parent != CDYN_GROUND)
        return cdyn_fail(r, CDYN_EFORMAT,
                         "line %d: floating joint '%.40s' below link '%.40s', which is not the "
                         "root welded to the world (cdyn's free joints attach to the ground)",
                         j->pub.line, j->pub.name, j->pub.parent);
    if (j->pub.type != CDYN_URDF_FIXED && !l->has_inertial)
        return cdyn_fail(r, CDYN_EFORMAT,
                         "line %d: link '%.40s' has no <inertial>, but %s joint '%.40s' (line "
                         "%d) moves it (it needs mass > 0 and a positive definite inertia)",
                         l->pub.line, l->pub.name, joint_type_name(j->pub.type), j->pub.name,
                         j->pub.line);
    return CDYN_OK;
}

static cdyn_status add_links(cdyn_urdf_map *m, const int *order, cdyn_builder *b,
                             const cdyn_urdf_options *o, cdyn_report *r)
{
    for (int k = 0; k < m->nlink; ++k) {
        ur_link *l = &m->links[order[k]];
        ur_joint *j = k == 0 ? NULL : &m->joints[l->pub.parent_joint];
        if (j == NULL && !o->floating_base)
            continue; /* the root welded to the world is the ground */
        cdyn_body_desc d;
        cdyn_status st = link_desc(m, l, j, o, &d, r);
        if (st != CDYN_OK)
            return st;
        cdyn_report why;
        int id = CDYN_GROUND;
        st = cdyn_builder_add_body(b, &d, &id, &why);
        if (st != CDYN_OK)
            return refused(st, &why, r, l->pub.line, "link", l->pub.name);
        l->pub.body = id;
        if (j != NULL)
            j->pub.body = id;
    }
    return CDYN_OK;
}

static cdyn_status add_collisions(cdyn_urdf_map *m, cdyn_builder *b, const cdyn_urdf_options *o,
                                  cdyn_report *r)
{
    /* a capsule lies along its x axis, a URDF cylinder along z: turn x onto z */
    static const double half = 0.70710678118654752440;
    const cdyn_pose x_to_z = {{0, 0, 0}, {half, 0, -half, 0}};
    for (int i = 0; i < m->ncoll; ++i) {
        ur_coll *c = &m->colls[i];
        if (c->skipped)
            continue;
        cdyn_geom_desc d;
        cdyn_geom_desc_defaults(&d);
        d.body = m->links[c->pub.link].pub.body;
        d.type = c->pub.type;
        d.frame = d.body == CDYN_GROUND ? urdf_pose_mul(&o->base_pose, &c->origin) : c->origin;
        if (c->cylinder)
            d.frame = urdf_pose_mul(&d.frame, &x_to_z);
        memcpy(d.size, c->size, sizeof(d.size));
        cdyn_report why;
        cdyn_status st = cdyn_builder_add_geom(b, &d, &c->pub.geom, &why);
        if (st != CDYN_OK)
            return refused(st, &why, r, c->pub.line, "collision of link",
                           m->links[c->pub.link].pub.name);
    }
    return CDYN_OK;
}

cdyn_status cdyn_urdf_build(cdyn_urdf_map *m, const int *order, cdyn_builder *b,
                            const cdyn_urdf_options *o, cdyn_report *r)
{
    cdyn_status st = add_links(m, order, b, o, r);
    return st == CDYN_OK ? add_collisions(m, b, o, r) : st;
}
