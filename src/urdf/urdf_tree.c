/* The shape of the URDF robot: unique names, joints resolved to links, one parent per link,
 * one root, no cycle, and an order of the links with parents first (cdyn adds a body only on
 * an earlier one). */
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "urdf/urdf_types.h"

static int by_name(const void *a, const void *b)
{
    const ur_name *x = a, *y = b;
    const int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

int cdyn_urdf_lookup(const ur_name *index, int n, const char *name)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        const int c = strcmp(index[mid].name, name);
        if (c == 0)
            return index[mid].index;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* Sort the names; equal neighbours are duplicates (the earlier index first). */
static int sort_names(ur_name *index, int n)
{
    qsort(index, (size_t)n, sizeof(ur_name), by_name);
    for (int k = 1; k < n; ++k)
        if (strcmp(index[k - 1].name, index[k].name) == 0)
            return k;
    return 0;
}

static cdyn_status index_names(cdyn_urdf_map *m, cdyn_report *r)
{
    for (int i = 0; i < m->nlink; ++i) {
        m->link_by_name[i].name = m->links[i].pub.name;
        m->link_by_name[i].index = i;
    }
    for (int i = 0; i < m->njoint; ++i) {
        m->joint_by_name[i].name = m->joints[i].pub.name;
        m->joint_by_name[i].index = i;
    }
    int k = sort_names(m->link_by_name, m->nlink);
    if (k > 0) {
        const ur_link *a = &m->links[m->link_by_name[k - 1].index];
        const ur_link *b = &m->links[m->link_by_name[k].index];
        return cdyn_fail(r, CDYN_EFORMAT, "line %d: a second link named '%.40s' (the first: line %d)",
                         b->pub.line, b->pub.name, a->pub.line);
    }
    k = sort_names(m->joint_by_name, m->njoint);
    if (k > 0) {
        const ur_joint *a = &m->joints[m->joint_by_name[k - 1].index];
        const ur_joint *b = &m->joints[m->joint_by_name[k].index];
        return cdyn_fail(r, CDYN_EFORMAT,
                         "line %d: a second joint named '%.40s' (the first: line %d)", b->pub.line,
                         b->pub.name, a->pub.line);
    }
    return CDYN_OK;
}

static cdyn_status resolve_joints(cdyn_urdf_map *m, cdyn_report *r)
{
    for (int i = 0; i < m->njoint; ++i) {
        ur_joint *j = &m->joints[i];
        j->parent_link = cdyn_urdf_lookup(m->link_by_name, m->nlink, j->pub.parent);
        j->child_link = cdyn_urdf_lookup(m->link_by_name, m->nlink, j->pub.child);
        if (j->parent_link < 0 || j->child_link < 0)
            return cdyn_fail(r, CDYN_EFORMAT, "line %d: joint '%.40s': unknown %s link '%.40s'",
                             j->pub.line, j->pub.name, j->parent_link < 0 ? "parent" : "child",
                             j->parent_link < 0 ? j->pub.parent : j->pub.child);
        if (j->parent_link == j->child_link)
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: joint '%.40s' joins link '%.40s' to itself (a cycle)",
                             j->pub.line, j->pub.name, j->pub.child);
        ur_link *child = &m->links[j->child_link];
        if (child->pub.parent_joint >= 0) {
            const ur_joint *first = &m->joints[child->pub.parent_joint];
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: link '%.40s' gets a second parent joint '%.40s' (the "
                             "first: '%.40s', line %d); closed loops are not supported",
                             j->pub.line, child->pub.name, j->pub.name, first->pub.name,
                             first->pub.line);
        }
        child->pub.parent_joint = i;
    }
    return CDYN_OK;
}

static cdyn_status find_root(const cdyn_urdf_map *m, int *root, cdyn_report *r)
{
    *root = -1;
    for (int i = 0; i < m->nlink; ++i) {
        if (m->links[i].pub.parent_joint >= 0)
            continue;
        if (*root >= 0)
            return cdyn_fail(r, CDYN_EFORMAT,
                             "line %d: link '%.40s' is a second root (no parent joint; the "
                             "first: '%.40s', line %d); a URDF robot is one tree",
                             m->links[i].pub.line, m->links[i].pub.name,
                             m->links[*root].pub.name, m->links[*root].pub.line);
        *root = i;
    }
    return CDYN_OK;
}

/* A cycle through the unreached link `start` (every link has a parent, so walking up from it
 * must come back to a link already met): name one joint on it. */
static cdyn_status cycle(const cdyn_urdf_map *m, int start, int *mark, cdyn_report *r)
{
    int l = start;
    while (mark[l] != 2) {
        mark[l] = 2;
        l = m->joints[m->links[l].pub.parent_joint].parent_link;
    }
    const ur_joint *j = &m->joints[m->links[l].pub.parent_joint];
    return cdyn_fail(r, CDYN_EFORMAT,
                     "line %d: joint '%.40s' closes a cycle: link '%.40s' is its own ancestor",
                     j->pub.line, j->pub.name, m->links[l].pub.name);
}

/* Breadth first from the root over child lists in file order (a CSR built from the joints). */
static cdyn_status order_links(const cdyn_urdf_map *m, int root, int *order, cdyn_report *r)
{
    const int nl = m->nlink, nj = m->njoint;
    int *start = cdyn_mem_array(cdyn_urdf_allocator(m), (size_t)(2 * nl + nj + 1), sizeof(int));
    if (start == NULL)
        return cdyn_fail(r, CDYN_ENOMEM, "URDF: out of memory ordering %d links", nl);
    int *kids = start + nl + 1, *mark = kids + nj;
    memset(start, 0, sizeof(int) * (size_t)(2 * nl + nj + 1));
    for (int i = 0; i < nj; ++i)
        start[m->joints[i].parent_link + 1]++;
    for (int i = 0; i < nl; ++i)
        start[i + 1] += start[i];
    for (int i = 0; i < nj; ++i) /* mark[] counts the filled places meanwhile */
        kids[start[m->joints[i].parent_link] + mark[m->joints[i].parent_link]++] =
            m->joints[i].child_link;
    memset(mark, 0, sizeof(int) * (size_t)nl);
    int n = 0;
    order[n++] = root;
    mark[root] = 1;
    for (int k = 0; k < n; ++k)
        for (int c = start[order[k]]; c < start[order[k] + 1]; ++c)
            if (!mark[kids[c]]) {
                mark[kids[c]] = 1;
                order[n++] = kids[c];
            }
    cdyn_status st = CDYN_OK;
    for (int i = 0; i < nl && st == CDYN_OK; ++i)
        if (!mark[i])
            st = cycle(m, i, mark, r);
    cdyn_mem_free(cdyn_urdf_allocator(m), start);
    return st;
}

cdyn_status cdyn_urdf_tree(cdyn_urdf_map *m, int *order, cdyn_report *r)
{
    if (m->nlink == 0)
        return cdyn_fail(r, CDYN_EFORMAT, "the robot has no <link>");
    cdyn_status st = index_names(m, r);
    if (st == CDYN_OK)
        st = resolve_joints(m, r);
    int root = -1;
    if (st == CDYN_OK)
        st = find_root(m, &root, r);
    if (st == CDYN_OK && root < 0) { /* every link has a parent: all lie on cycles */
        int *mark = order; /* free here: used as marks */
        memset(mark, 0, sizeof(int) * (size_t)m->nlink);
        st = cycle(m, 0, mark, r);
    }
    if (st == CDYN_OK)
        st = order_links(m, root, order, r);
    return st;
}
