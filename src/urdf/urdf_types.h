/* Internal: the URDF loader's parsed robot, which is also the name map handed to the caller.
 * Stages, one file each: urdf_xml.c (libxml2 and attribute values), urdf_read.c (elements into
 * this description), urdf_tree.c (names, parents, the order of the tree), urdf_build.c (builder
 * calls), urdf_map.c (the map's public accessors). */
#ifndef CDYN_URDF_TYPES_H
#define CDYN_URDF_TYPES_H

#include <libxml/tree.h>

#include "cdyn/urdf.h"

typedef struct ur_link {
    cdyn_urdf_link pub;
    int has_inertial;
    double com[3];     /* centre of mass in the link frame */
    double inertia[6]; /* about it, in link axes (rotated from the <inertial> frame) */
} ur_link;

typedef struct ur_joint {
    cdyn_urdf_joint pub;
    int parent_link, child_link; /* link indices (urdf_tree.c) */
    cdyn_pose origin;
} ur_joint;

typedef struct ur_coll {
    cdyn_urdf_collision pub;
    cdyn_pose origin; /* in the link frame */
    double size[3];   /* as the builder takes them (box: half-extents) */
    int cylinder;     /* a cylinder loaded as a capsule: turn its x axis onto z */
    int skipped;      /* an unsupported geometry the caller asked to skip */
} ur_coll;

typedef struct ur_name {
    const char *name;
    int index;
} ur_name;

struct cdyn_urdf_map {
    cdyn_allocator allocator; /* copied: the caller's struct may not outlive the map */
    int has_allocator;
    char *names; /* every name, NUL-terminated, in one block sized before it is filled */
    size_t names_used, names_size;
    ur_link *links;
    ur_joint *joints;
    ur_coll *colls;
    int nlink, njoint, ncoll;
    ur_name *link_by_name, *joint_by_name; /* sorted by name (urdf_tree.c) */
};

/* The allocator of everything the map owns (NULL: malloc/free). */
static inline const cdyn_allocator *cdyn_urdf_allocator(const cdyn_urdf_map *map)
{
    return map->has_allocator ? &map->allocator : NULL;
}

/* ---- urdf_xml.c ---- */

/* Parse `length` bytes into a document (*doc; xmlFreeDoc it). CDYN_EFORMAT with libxml2's first
 * error and its line, CDYN_ETOOBIG, CDYN_ENOMEM. Nothing is printed. */
cdyn_status cdyn_urdf_xml_parse(const char *text, size_t length, xmlDoc **doc,
                                cdyn_report *report);

/* CDYN_EFORMAT with "line L: <element>: " before the message. */
cdyn_status cdyn_urdf_fail(cdyn_report *report, const xmlNode *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int cdyn_urdf_line(const xmlNode *node);
int cdyn_urdf_is(const xmlNode *node, const char *name); /* an element named so, no prefix */

/* Attribute `attr` of node as exactly n numbers into x. Absent: x untouched and *present = 0
 * (present NULL: absence is an error). Finite decimal numbers only. */
cdyn_status cdyn_urdf_numbers(const xmlNode *node, const char *attr, int n, double *x,
                              int *present, cdyn_report *report);

/* Attribute `attr` (required) copied into the map's name block; *out points at the copy. With
 * out NULL only its length + 1 is added to *size (the counting pass). */
cdyn_status cdyn_urdf_name(cdyn_urdf_map *map, const xmlNode *node, const char *attr,
                           int required, const char **out, size_t *size, cdyn_report *report);

/* ---- urdf_read.c ---- */

/* Fill map (zeroed, allocator set) from the <robot> element: allocates its arrays and names. */
cdyn_status cdyn_urdf_read(cdyn_urdf_map *map, const xmlDoc *doc,
                           const cdyn_urdf_options *opts, cdyn_report *report);

/* ---- urdf_tree.c ---- */

/* Sort the names (duplicates refused), resolve joints' parent and child links, refuse two
 * parents, several roots and cycles; order[] receives the links, parents before children
 * (order[0] the root). Needs nlink ints in order. */
cdyn_status cdyn_urdf_tree(cdyn_urdf_map *map, int *order, cdyn_report *report);

/* Index of `name` in a by-name index of n entries, or -1. */
int cdyn_urdf_lookup(const ur_name *by_name, int n, const char *name);

/* ---- urdf_build.c ---- */

/* Add the bodies (in `order`) and geometry to the builder; on failure the caller rolls back. */
cdyn_status cdyn_urdf_build(cdyn_urdf_map *map, const int *order, cdyn_builder *builder,
                            const cdyn_urdf_options *opts, cdyn_report *report);

/* ---- urdf_map.c ---- */

void cdyn_urdf_map_release(cdyn_urdf_map *map); /* the arrays, not the struct */

#endif
