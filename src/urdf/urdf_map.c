/* The name map's accessors: counts, entries by index, entries by name. */
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "urdf/urdf_types.h"

void cdyn_urdf_map_release(cdyn_urdf_map *m)
{
    const cdyn_allocator *a = cdyn_urdf_allocator(m);
    cdyn_mem_free(a, m->names);
    cdyn_mem_free(a, m->links);
    cdyn_mem_free(a, m->joints);
    cdyn_mem_free(a, m->colls);
    cdyn_mem_free(a, m->link_by_name);
    cdyn_mem_free(a, m->joint_by_name);
}

void cdyn_urdf_map_free(cdyn_urdf_map *map)
{
    if (map == NULL)
        return;
    cdyn_urdf_map_release(map);
    const cdyn_allocator a = map->allocator;
    cdyn_mem_free(map->has_allocator ? &a : NULL, map);
}

void cdyn_urdf_map_sizes(const cdyn_urdf_map *map, int *nlink, int *njoint, int *ncollision)
{
    if (nlink != NULL)
        *nlink = map != NULL ? map->nlink : 0;
    if (njoint != NULL)
        *njoint = map != NULL ? map->njoint : 0;
    if (ncollision != NULL)
        *ncollision = map != NULL ? map->ncoll : 0;
}

/* The checks every accessor makes; what names the kind of entry ("link", ...). */
static cdyn_status check_index(const cdyn_urdf_map *map, const void *out, int index, int count,
                               const char *what, cdyn_report *r)
{
    cdyn_report_clear(r, "urdf");
    if (map == NULL || out == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "map or out is NULL");
    if (index < 0 || index >= count)
        return cdyn_fail(r, CDYN_EINVAL, "%s index %d, the map has %d", what, index, count);
    return CDYN_OK;
}

cdyn_status cdyn_urdf_link_at(const cdyn_urdf_map *map, int index, cdyn_urdf_link *out,
                              cdyn_report *report)
{
    cdyn_status st = check_index(map, out, index, map ? map->nlink : 0, "link", report);
    if (st == CDYN_OK)
        *out = map->links[index].pub;
    return st;
}

cdyn_status cdyn_urdf_joint_at(const cdyn_urdf_map *map, int index, cdyn_urdf_joint *out,
                               cdyn_report *report)
{
    cdyn_status st = check_index(map, out, index, map ? map->njoint : 0, "joint", report);
    if (st == CDYN_OK)
        *out = map->joints[index].pub;
    return st;
}

cdyn_status cdyn_urdf_collision_at(const cdyn_urdf_map *map, int index, cdyn_urdf_collision *out,
                                   cdyn_report *report)
{
    cdyn_status st = check_index(map, out, index, map ? map->ncoll : 0, "collision", report);
    if (st == CDYN_OK)
        *out = map->colls[index].pub;
    return st;
}

/* Index of `name` among the map's names of one kind, or a failure naming it. */
static cdyn_status find(const cdyn_urdf_map *map, const ur_name *index, int n, const char *name,
                        const void *out, const char *what, int *at, cdyn_report *r)
{
    cdyn_report_clear(r, "urdf");
    if (map == NULL || name == NULL || out == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "map, name or out is NULL");
    *at = cdyn_urdf_lookup(index, n, name);
    if (*at < 0)
        return cdyn_fail(r, CDYN_EINVAL, "no %s named '%.60s'", what, name);
    return CDYN_OK;
}

cdyn_status cdyn_urdf_find_link(const cdyn_urdf_map *map, const char *name, cdyn_urdf_link *out,
                                cdyn_report *report)
{
    int i = -1; /* set by find on success (GCC -O3 cannot see it) */
    cdyn_status st = find(map, map ? map->link_by_name : NULL, map ? map->nlink : 0, name, out,
                          "link", &i, report);
    if (st == CDYN_OK)
        *out = map->links[i].pub;
    return st;
}

cdyn_status cdyn_urdf_find_joint(const cdyn_urdf_map *map, const char *name,
                                 cdyn_urdf_joint *out, cdyn_report *report)
{
    int i = -1; /* set by find on success (GCC -O3 cannot see it) */
    cdyn_status st = find(map, map ? map->joint_by_name : NULL, map ? map->njoint : 0, name, out,
                          "joint", &i, report);
    if (st == CDYN_OK)
        *out = map->joints[i].pub;
    return st;
}

cdyn_status cdyn_urdf_find_collision(const cdyn_urdf_map *map, const char *link,
                                     const char *name, cdyn_urdf_collision *out,
                                     cdyn_report *report)
{
    int i = -1; /* set by find on success (GCC -O3 cannot see it) */
    cdyn_status st = find(map, map ? map->link_by_name : NULL, map ? map->nlink : 0, link, out,
                          "link", &i, report);
    if (st == CDYN_OK && name == NULL)
        st = cdyn_fail(report, CDYN_EINVAL, "name is NULL");
    if (st != CDYN_OK)
        return st;
    const cdyn_urdf_link *l = &map->links[i].pub;
    for (int k = l->first_collision; k < l->first_collision + l->ncollision; ++k)
        if (strcmp(map->colls[k].pub.name, name) == 0) {
            *out = map->colls[k].pub;
            return CDYN_OK;
        }
    return cdyn_fail(report, CDYN_EINVAL, "link '%.40s' has no collision named '%.40s'", link,
                     name);
}
