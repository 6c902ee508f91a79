/* cdyn_builder_add_urdf: options, the stages of the load (urdf_types.h) and its all-or-nothing
 * contract: the builder is rolled back to its mark after any failure. */
#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "io/file.h"
#include "model/builder_mark.h"
#include "urdf/urdf_types.h"

#include <libxml/tree.h>

void cdyn_urdf_defaults(cdyn_urdf_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->base_pose.quat[0] = 1.0;
}

static cdyn_status check_args(const cdyn_builder *b, const void *input,
                              const cdyn_urdf_options *o, cdyn_report *r)
{
    if (b == NULL || input == NULL)
        return cdyn_fail(r, CDYN_EINVAL, "builder or URDF input is NULL");
    if (cdyn_builder_dim(b) != 3)
        return cdyn_fail(r, CDYN_EINVAL,
                         "URDF robots are spatial: the builder has dim %d, needs 3",
                         cdyn_builder_dim(b));
    if ((o->floating_base != 0 && o->floating_base != 1) ||
        (o->cylinder_as_capsule != 0 && o->cylinder_as_capsule != 1))
        return cdyn_fail(r, CDYN_EINVAL, "floating_base and cylinder_as_capsule must be 0 or 1");
    const unsigned all = CDYN_URDF_SKIP_MESH | CDYN_URDF_SKIP_MIMIC |
                         CDYN_URDF_SKIP_TRANSMISSION | CDYN_URDF_SKIP_UNKNOWN |
                         CDYN_URDF_SKIP_FRICTION | CDYN_URDF_SKIP_LIMITS;
    if (o->skip & ~all)
        return cdyn_fail(r, CDYN_EINVAL, "skip = 0x%x has unknown bits", o->skip);
    for (int i = 0; i < 4; ++i)
        if (!isfinite(o->base_pose.quat[i]) || (i < 3 && !isfinite(o->base_pose.pos[i])))
            return cdyn_fail(r, CDYN_EINVAL, "base_pose is not finite");
    return CDYN_OK;
}

/* What both entry points do first: clear the report, default the options (into *def), check
 * the arguments and pick the allocator. */
static cdyn_status begin(const cdyn_builder *b, const void *input, const cdyn_urdf_options **o,
                         cdyn_urdf_options *def, const cdyn_allocator **a, cdyn_report *r)
{
    cdyn_report_clear(r, "urdf");
    if (*o == NULL) {
        cdyn_urdf_defaults(def);
        *o = def;
    }
    const cdyn_status st = check_args(b, input, *o, r);
    if (st == CDYN_OK)
        *a = (*o)->allocator != NULL ? (*o)->allocator : cdyn_builder_allocator(b);
    return st;
}

/* Parse, read, order and add, into a new map. */
static cdyn_status load(cdyn_builder *b, const char *text, size_t length,
                        const cdyn_urdf_options *o, cdyn_urdf_map *m, cdyn_report *r)
{
    xmlDoc *doc = NULL;
    cdyn_status st = cdyn_urdf_xml_parse(text, length, &doc, r);
    if (st != CDYN_OK)
        return st;
    st = cdyn_urdf_read(m, doc, o, r);
    xmlFreeDoc(doc); /* the map holds copies of the names */
    int *order = NULL;
    if (st == CDYN_OK) {
        order = cdyn_mem_array(cdyn_urdf_allocator(m), (size_t)m->nlink, sizeof(int));
        if (order == NULL)
            st = cdyn_fail(r, CDYN_ENOMEM, "URDF: out of memory for %d links", m->nlink);
    }
    if (st == CDYN_OK)
        st = cdyn_urdf_tree(m, order, r);
    if (st == CDYN_OK) {
        const cdyn_builder_mark mark = cdyn_builder_get_mark(b);
        st = cdyn_urdf_build(m, order, b, o, r);
        if (st != CDYN_OK)
            cdyn_builder_rollback(b, mark);
    }
    cdyn_mem_free(cdyn_urdf_allocator(m), order);
    return st;
}

cdyn_status cdyn_builder_add_urdf_string(cdyn_builder *builder, const char *text, size_t length,
                                         const cdyn_urdf_options *opts, cdyn_urdf_map **map,
                                         cdyn_report *report)
{
    cdyn_urdf_options def;
    const cdyn_allocator *a = NULL;
    cdyn_status st = begin(builder, text, &opts, &def, &a, report);
    if (st != CDYN_OK)
        return st;
    cdyn_urdf_map *m = cdyn_mem_alloc(a, sizeof(*m));
    if (m == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "URDF: out of memory for the name map");
    memset(m, 0, sizeof(*m));
    if (a != NULL) {
        m->allocator = *a;
        m->has_allocator = 1;
    }
    st = load(builder, text, length, opts, m, report);
    if (st == CDYN_OK && map != NULL)
        *map = m;
    else
        cdyn_urdf_map_free(m);
    if (st == CDYN_OK)
        cdyn_report_clear(report, "urdf");
    return st;
}

/* The file variant through the readers' whole-file helper, which also puts the file's name
 * before a failure's message. */
typedef struct urdf_job {
    cdyn_builder *builder;
    const cdyn_urdf_options *opts;
    cdyn_urdf_map **map;
} urdf_job;

static cdyn_status parse_job(const char *text, size_t length, const cdyn_allocator *a, void *out,
                             cdyn_report *r)
{
    (void)a; /* the options' allocator, or the builder's: add_urdf_string takes the same */
    const urdf_job *j = out;
    return cdyn_builder_add_urdf_string(j->builder, text, length, j->opts, j->map, r);
}

cdyn_status cdyn_builder_add_urdf(cdyn_builder *builder, const char *path,
                                  const cdyn_urdf_options *opts, cdyn_urdf_map **map,
                                  cdyn_report *report)
{
    cdyn_urdf_options def;
    const cdyn_allocator *a = NULL;
    const cdyn_status st = begin(builder, path, &opts, &def, &a, report);
    if (st != CDYN_OK)
        return st;
    urdf_job job = {builder, opts, map};
    return cdyn_io_read_parse(path, a, parse_job, &job, report);
}
