/* The <robot> element into the loader's description (urdf_types.h): links with their
 * <inertial> and <collision> elements, joints with theirs. Values and element placement are
 * checked here; names and the tree's shape in urdf_tree.c, the physics by the builder. */
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "urdf/urdf_types.h"
#include "urdf/urdf_pose.h"

/* Elements that carry nothing for dynamics, skipped silently where they may appear. */
static const char *const robot_ignored[] = {"material", "gazebo", "ros2_control", NULL};
static const char *const link_ignored[] = {"visual", NULL};
static const char *const joint_ignored[] = {"calibration", "safety_controller", NULL};

static const xmlNode *element(const xmlNode *n)
{
    while (n != NULL && n->type != XML_ELEMENT_NODE)
        n = n->next;
    return n;
}

#define EACH_CHILD(c, parent)                                                                    \
    for (const xmlNode *c = element((parent)->children); c != NULL; c = element(c->next))

static int in_list(const xmlNode *n, const char *const *names)
{
    for (; *names != NULL; ++names)
        if (cdyn_urdf_is(n, *names))
            return 1;
    return 0;
}

static const char *el_name(const xmlNode *n)
{
    return (const char *)n->name;
}

static cdyn_status unknown(const xmlNode *n, const xmlNode *where, const cdyn_urdf_options *o,
                           cdyn_report *r)
{
    if (o->skip & CDYN_URDF_SKIP_UNKNOWN)
        return CDYN_OK;
    const char *prefix = n->ns != NULL ? (const char *)n->ns->prefix : NULL;
    const int xacro = prefix != NULL && strcmp(prefix, "xacro") == 0;
    return cdyn_urdf_fail(r, n, "unsupported element <%s%s%.40s> in <%s>%s", prefix ? prefix : "",
                          prefix ? ":" : "", el_name(n), el_name(where),
                          xacro ? " (expand xacro files first)" : " (CDYN_URDF_SKIP_UNKNOWN skips it)");
}

/* At most one element of a kind (bit) per parent. */
static cdyn_status once(const xmlNode *n, unsigned *seen, unsigned bit, cdyn_report *r)
{
    if (*seen & bit)
        return cdyn_urdf_fail(r, n, "a second <%s> (one is allowed here)", el_name(n));
    *seen |= bit;
    return CDYN_OK;
}

static void identity(cdyn_pose *p)
{
    memset(p, 0, sizeof(*p));
    p->quat[0] = 1.0;
}

static cdyn_status read_origin(const xmlNode *n, cdyn_pose *pose, cdyn_report *r)
{
    double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
    int present;
    cdyn_status st = cdyn_urdf_numbers(n, "xyz", 3, xyz, &present, r);
    if (st == CDYN_OK)
        st = cdyn_urdf_numbers(n, "rpy", 3, rpy, &present, r);
    if (st != CDYN_OK)
        return st;
    memcpy(pose->pos, xyz, sizeof(xyz));
    urdf_rpy_quat(rpy, pose->quat);
    return CDYN_OK;
}

/* The inertia tensor given in the frame rotated by the origin's rpy, turned into link axes:
 * I_link = R I R^T. */
static void rotate_inertia(const double q[4], const double I[6], double out[6])
{
    /* I = (ixx, ixy, ixz, iyy, iyz, izz) as URDF lists them */
    const double S[9] = {I[0], I[1], I[2], I[1], I[3], I[4], I[2], I[4], I[5]};
    double R[9], C[9];
    quat_to_mat(R, q);
    m3_congruence(C, R, S);
    out[0] = C[0];
    out[1] = C[4];
    out[2] = C[8];
    out[3] = C[3];
    out[4] = C[6];
    out[5] = C[7];
}

static cdyn_status read_inertial(const xmlNode *n, ur_link *l, const cdyn_urdf_options *o,
                                 cdyn_report *r)
{
    static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    cdyn_pose origin;
    identity(&origin);
    unsigned seen = 0;
    double I[6] = {0, 0, 0, 0, 0, 0};
    cdyn_status st = CDYN_OK;
    EACH_CHILD(c, n)
    {
        if (cdyn_urdf_is(c, "origin")) {
            st = once(c, &seen, 1u, r);
            if (st == CDYN_OK)
                st = read_origin(c, &origin, r);
        } else if (cdyn_urdf_is(c, "mass")) {
            st = once(c, &seen, 2u, r);
            if (st == CDYN_OK)
                st = cdyn_urdf_numbers(c, "value", 1, &l->pub.mass, NULL, r);
            if (st == CDYN_OK && l->pub.mass < 0.0)
                st = cdyn_urdf_fail(r, c, "link '%.40s': negative mass %g", l->pub.name,
                                    l->pub.mass);
        } else if (cdyn_urdf_is(c, "inertia")) {
            st = once(c, &seen, 4u, r);
            for (int k = 0; k < 6 && st == CDYN_OK; ++k)
                st = cdyn_urdf_numbers(c, names[k], 1, &I[k], NULL, r);
        } else {
            st = unknown(c, n, o, r);
        }
        if (st != CDYN_OK)
            return st;
    }
    if (!(seen & 2u) || !(seen & 4u))
        return cdyn_urdf_fail(r, n, "<inertial> of link '%.40s' has no <%s>", l->pub.name,
                              (seen & 2u) ? "inertia" : "mass");
    l->has_inertial = 1;
    memcpy(l->com, origin.pos, sizeof(l->com));
    rotate_inertia(origin.quat, I, l->inertia);
    return CDYN_OK;
}

/* The one shape of a <geometry>. */
static cdyn_status read_shape(const xmlNode *g, ur_coll *c, const cdyn_urdf_options *o,
                              cdyn_report *r)
{
    const xmlNode *shape = NULL;
    EACH_CHILD(s, g)
    {
        if (shape != NULL)
            return cdyn_urdf_fail(r, s, "<geometry> with a second shape <%.40s>", el_name(s));
        shape = s;
    }
    if (shape == NULL)
        return cdyn_urdf_fail(r, g, "<geometry> without a shape");
    if (cdyn_urdf_is(shape, "sphere")) {
        c->pub.type = CDYN_GEOM_SPHERE;
        return cdyn_urdf_numbers(shape, "radius", 1, c->size, NULL, r);
    }
    if (cdyn_urdf_is(shape, "box")) {
        c->pub.type = CDYN_GEOM_BOX;
        cdyn_status st = cdyn_urdf_numbers(shape, "size", 3, c->size, NULL, r);
        for (int k = 0; k < 3; ++k)
            c->size[k] *= 0.5; /* URDF: full extents; cdyn: half-extents */
        return st;
    }
    if (cdyn_urdf_is(shape, "cylinder")) {
        if (!o->cylinder_as_capsule)
            return cdyn_urdf_fail(r, shape,
                                  "<cylinder>: cdyn has no cylinder geometry (the option "
                                  "cylinder_as_capsule loads it as a capsule, an approximation)");
        double length = 0.0;
        cdyn_status st = cdyn_urdf_numbers(shape, "radius", 1, &c->size[0], NULL, r);
        if (st == CDYN_OK)
            st = cdyn_urdf_numbers(shape, "length", 1, &length, NULL, r);
        c->pub.type = CDYN_GEOM_CAPSULE;
        c->size[1] = 0.5 * length;
        c->cylinder = 1;
        return st;
    }
    if (cdyn_urdf_is(shape, "mesh") ? (o->skip & CDYN_URDF_SKIP_MESH)
                                    : (o->skip & CDYN_URDF_SKIP_UNKNOWN)) {
        c->skipped = 1;
        return CDYN_OK;
    }
    if (cdyn_urdf_is(shape, "mesh"))
        return cdyn_urdf_fail(r, shape,
                              "<mesh> geometry is not supported (spheres and boxes are; "
                              "CDYN_URDF_SKIP_MESH skips such collisions)");
    return unknown(shape, g, o, r);
}

static cdyn_status read_collision(cdyn_urdf_map *map, const xmlNode *n, ur_coll *c, int link,
                                  const cdyn_urdf_options *o, cdyn_report *r)
{
    c->pub.link = link;
    c->pub.line = cdyn_urdf_line(n);
    c->pub.geom = -1;
    c->pub.type = CDYN_GEOM_PLANE;
    identity(&c->origin);
    cdyn_status st = cdyn_urdf_name(map, n, "name", 0, &c->pub.name, NULL, r);
    unsigned seen = 0;
    EACH_CHILD(k, n)
    {
        if (st != CDYN_OK)
            return st;
        if (cdyn_urdf_is(k, "origin")) {
            st = once(k, &seen, 1u, r);
            if (st == CDYN_OK)
                st = read_origin(k, &c->origin, r);
        } else if (cdyn_urdf_is(k, "geometry")) {
            st = once(k, &seen, 2u, r);
            if (st == CDYN_OK)
                st = read_shape(k, c, o, r);
        } else {
            st = unknown(k, n, o, r);
        }
    }
    if (st == CDYN_OK && !(seen & 2u))
        st = cdyn_urdf_fail(r, n, "<collision> without <geometry>");
    return st;
}

static cdyn_status read_link(cdyn_urdf_map *map, const xmlNode *n, int index, int *ncoll,
                             const cdyn_urdf_options *o, cdyn_report *r)
{
    ur_link *l = &map->links[index];
    l->pub.index = index;
    l->pub.line = cdyn_urdf_line(n);
    l->pub.body = CDYN_GROUND;
    l->pub.parent_joint = -1;
    l->pub.first_collision = *ncoll;
    cdyn_status st = cdyn_urdf_name(map, n, "name", 1, &l->pub.name, NULL, r);
    unsigned seen = 0;
    EACH_CHILD(c, n)
    {
        if (st != CDYN_OK)
            return st;
        if (cdyn_urdf_is(c, "inertial")) {
            st = once(c, &seen, 1u, r);
            if (st == CDYN_OK)
                st = read_inertial(c, l, o, r);
        } else if (cdyn_urdf_is(c, "collision")) {
            ur_coll *k = &map->colls[*ncoll];
            k->pub.index = *ncoll;
            ++*ncoll;
            l->pub.ncollision++;
            st = read_collision(map, c, k, index, o, r);
        } else if (!in_list(c, link_ignored)) {
            st = unknown(c, n, o, r);
        }
    }
    return st;
}

static const struct {
    const char *name;
    cdyn_urdf_joint_type type;
} joint_types[] = {{"fixed", CDYN_URDF_FIXED},
                   {"revolute", CDYN_URDF_REVOLUTE},
                   {"continuous", CDYN_URDF_CONTINUOUS},
                   {"prismatic", CDYN_URDF_PRISMATIC},
                   {"floating", CDYN_URDF_FLOATING}};

static cdyn_status read_joint_type(const xmlNode *n, ur_joint *j, cdyn_report *r)
{
    xmlChar *t = xmlGetProp(n, (const xmlChar *)"type");
    const char *s = (const char *)t;
    cdyn_status st = CDYN_EFORMAT;
    for (size_t k = 0; s != NULL && k < sizeof joint_types / sizeof joint_types[0]; ++k)
        if (strcmp(s, joint_types[k].name) == 0) {
            j->pub.type = joint_types[k].type;
            st = CDYN_OK;
        }
    if (st != CDYN_OK) {
        if (s == NULL)
            cdyn_urdf_fail(r, n, "joint '%.40s' has no type", j->pub.name);
        else if (strcmp(s, "planar") == 0)
            cdyn_urdf_fail(r, n, "joint '%.40s': planar joints are not supported", j->pub.name);
        else
            cdyn_urdf_fail(r, n,
                           "joint '%.40s': unknown type '%.24s' (fixed, revolute, continuous, "
                           "prismatic, floating)",
                           j->pub.name, s);
    }
    xmlFree(t);
    return st;
}

static cdyn_status read_limit(const xmlNode *c, ur_joint *j, cdyn_report *r)
{
    int present;
    j->pub.has_limit = 1;
    cdyn_status st = cdyn_urdf_numbers(c, "lower", 1, &j->pub.lower, &present, r);
    if (st == CDYN_OK)
        st = cdyn_urdf_numbers(c, "upper", 1, &j->pub.upper, &present, r);
    if (st == CDYN_OK) /* required by the URDF specification */
        st = cdyn_urdf_numbers(c, "effort", 1, &j->pub.effort, NULL, r);
    if (st == CDYN_OK)
        st = cdyn_urdf_numbers(c, "velocity", 1, &j->pub.velocity, NULL, r);
    return st;
}

static cdyn_status read_dynamics(const xmlNode *c, ur_joint *j, cdyn_report *r)
{
    int present;
    j->pub.has_dynamics = 1;
    cdyn_status st = cdyn_urdf_numbers(c, "damping", 1, &j->pub.damping, &present, r);
    if (st == CDYN_OK)
        st = cdyn_urdf_numbers(c, "friction", 1, &j->pub.friction, &present, r);
    return st;
}

static cdyn_status read_joint_child(cdyn_urdf_map *map, const xmlNode *c, ur_joint *j,
                                    unsigned *seen, const cdyn_urdf_options *o, cdyn_report *r)
{
    static const char *const kinds[] = {"origin", "parent", "child", "axis",
                                        "limit",  "dynamics", "mimic"};
    for (unsigned k = 0; k < sizeof kinds / sizeof kinds[0]; ++k)
        if (cdyn_urdf_is(c, kinds[k])) {
            cdyn_status st = once(c, seen, 1u << k, r);
            if (st != CDYN_OK)
                return st;
            switch (k) {
            case 0:
                return read_origin(c, &j->origin, r);
            case 1:
                return cdyn_urdf_name(map, c, "link", 1, &j->pub.parent, NULL, r);
            case 2:
                return cdyn_urdf_name(map, c, "link", 1, &j->pub.child, NULL, r);
            case 3:
                return cdyn_urdf_numbers(c, "xyz", 3, j->pub.axis, NULL, r);
            case 4:
                return read_limit(c, j, r);
            case 5:
                return read_dynamics(c, j, r);
            default:
                if (!(o->skip & CDYN_URDF_SKIP_MIMIC))
                    return cdyn_urdf_fail(r, c,
                                          "joint '%.40s': <mimic> joints are not supported "
                                          "(CDYN_URDF_SKIP_MIMIC loads it as an independent joint)",
                                          j->pub.name);
                j->pub.mimic = 1;
                return CDYN_OK;
            }
        }
    return in_list(c, joint_ignored) ? CDYN_OK : unknown(c, c->parent, o, r);
}

static cdyn_status read_joint(cdyn_urdf_map *map, const xmlNode *n, int index,
                              const cdyn_urdf_options *o, cdyn_report *r)
{
    ur_joint *j = &map->joints[index];
    j->pub.index = index;
    j->pub.line = cdyn_urdf_line(n);
    j->pub.body = CDYN_GROUND;
    j->pub.axis[0] = 1.0; /* URDF's default axis */
    identity(&j->origin);
    cdyn_status st = cdyn_urdf_name(map, n, "name", 1, &j->pub.name, NULL, r);
    if (st == CDYN_OK)
        st = read_joint_type(n, j, r);
    unsigned seen = 0;
    EACH_CHILD(c, n)
    {
        if (st != CDYN_OK)
            return st;
        st = read_joint_child(map, c, j, &seen, o, r);
    }
    if (st != CDYN_OK)
        return st;
    if (!(seen & 2u) || !(seen & 4u))
        return cdyn_urdf_fail(r, n, "joint '%.40s' has no <%s>", j->pub.name,
                              (seen & 2u) ? "child" : "parent");
    if (!(seen & 16u) &&
        (j->pub.type == CDYN_URDF_REVOLUTE || j->pub.type == CDYN_URDF_PRISMATIC))
        return cdyn_urdf_fail(r, n,
                              "joint '%.40s' has no <limit> (URDF requires one for revolute "
                              "and prismatic joints)",
                              j->pub.name);
    return CDYN_OK;
}

/* The counting pass: elements and the bytes of the names that will be copied. */
static cdyn_status count(cdyn_urdf_map *map, const xmlNode *robot, size_t *names,
                         cdyn_report *r)
{
    cdyn_status st = CDYN_OK;
    EACH_CHILD(c, robot)
    {
        const int link = cdyn_urdf_is(c, "link"), joint = cdyn_urdf_is(c, "joint");
        if (!link && !joint)
            continue;
        map->nlink += link;
        map->njoint += joint;
        st = cdyn_urdf_name(map, c, "name", 1, NULL, names, r);
        EACH_CHILD(k, c)
        {
            if (st != CDYN_OK)
                return st;
            if (link && cdyn_urdf_is(k, "collision")) {
                map->ncoll++;
                st = cdyn_urdf_name(map, k, "name", 0, NULL, names, r);
            } else if (joint && (cdyn_urdf_is(k, "parent") || cdyn_urdf_is(k, "child"))) {
                st = cdyn_urdf_name(map, k, "link", 1, NULL, names, r);
            }
        }
        if (st != CDYN_OK)
            return st;
    }
    return st;
}

static cdyn_status allocate(cdyn_urdf_map *map, size_t names, cdyn_report *r)
{
    const cdyn_allocator *a = cdyn_urdf_allocator(map);
    map->names = cdyn_mem_alloc(a, names);
    map->links = cdyn_mem_array(a, (size_t)map->nlink, sizeof(ur_link));
    map->joints = cdyn_mem_array(a, (size_t)map->njoint, sizeof(ur_joint));
    map->colls = cdyn_mem_array(a, (size_t)map->ncoll, sizeof(ur_coll));
    map->link_by_name = cdyn_mem_array(a, (size_t)map->nlink, sizeof(ur_name));
    map->joint_by_name = cdyn_mem_array(a, (size_t)map->njoint, sizeof(ur_name));
    if (map->names == NULL || map->links == NULL || map->joints == NULL || map->colls == NULL ||
        map->link_by_name == NULL || map->joint_by_name == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "URDF: out of memory for %d links, %d joints",
                         map->nlink, map->njoint);
    map->names_size = names;
    memset(map->links, 0, sizeof(ur_link) * (size_t)map->nlink);
    memset(map->joints, 0, sizeof(ur_joint) * (size_t)map->njoint);
    memset(map->colls, 0, sizeof(ur_coll) * (size_t)map->ncoll);
    return CDYN_OK;
}

cdyn_status cdyn_urdf_read(cdyn_urdf_map *map, const xmlDoc *doc, const cdyn_urdf_options *o,
                           cdyn_report *r)
{
    const xmlNode *robot = xmlDocGetRootElement(doc);
    if (robot == NULL)
        return cdyn_fail(r, CDYN_EFORMAT, "line 1: no root element, expected <robot>");
    if (!cdyn_urdf_is(robot, "robot"))
        return cdyn_urdf_fail(r, robot, "the root element is <%.40s>, expected <robot>",
                              el_name(robot));
    size_t names = 0;
    cdyn_status st = count(map, robot, &names, r);
    if (st == CDYN_OK)
        st = allocate(map, names, r);
    int nl = 0, nj = 0, nc = 0;
    EACH_CHILD(c, robot)
    {
        if (st != CDYN_OK)
            return st;
        if (cdyn_urdf_is(c, "link"))
            st = read_link(map, c, nl++, &nc, o, r);
        else if (cdyn_urdf_is(c, "joint"))
            st = read_joint(map, c, nj++, o, r);
        else if (cdyn_urdf_is(c, "transmission") && !(o->skip & CDYN_URDF_SKIP_TRANSMISSION))
            st = cdyn_urdf_fail(r, c,
                                "<transmission> is not supported (CDYN_URDF_SKIP_TRANSMISSION "
                                "ignores it: actuation, not dynamics)");
        else if (!cdyn_urdf_is(c, "transmission") && !in_list(c, robot_ignored))
            st = unknown(c, robot, o, r);
    }
    return st;
}
