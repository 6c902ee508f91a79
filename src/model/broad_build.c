/* The broad phase's tables of a model (docs/theory.md, "Broad phase"): which pairs are swept,
 * the slots of their geometries, the reach of each slot and, per slot, its pairs sorted by the
 * other slot (so that the sweep finds the pairs of two overlapping boxes by binary search). */
#include <math.h>
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"

/* Sets the pointers of the tables in block (NULL: only measures cv->off). */
static void layout(cdyn_carve *cv, void *block, cdyn_model *m, int nswept)
{
    m->bp_always = cdyn_carve_ints(cv, block, (size_t)m->bp_nalways);
    m->bp_geom = cdyn_carve_ints(cv, block, (size_t)m->bp_nslot);
    m->bp_reach = cdyn_carve_doubles(cv, block, (size_t)m->bp_nslot);
    m->bp_adj_ptr = cdyn_carve_ints(cv, block, (size_t)m->bp_nslot + 1);
    m->bp_adj_slot = cdyn_carve_ints(cv, block, 2 * (size_t)nswept);
    m->bp_adj_pair = cdyn_carve_ints(cv, block, 2 * (size_t)nswept);
}

cdyn_status cdyn_model_build_broad(cdyn_model *m, cdyn_report *report)
{
    if (!m->broad)
        return CDYN_OK;
    const cdyn_allocator *a = m->allocator;
    /* slot of each geometry (-1: none), then the unsorted incidence lists */
    int *slot = cdyn_mem_array(a, (size_t)m->ngeom + 1, sizeof(int));
    if (slot == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed (broad phase)");
    for (int g = 0; g < m->ngeom; ++g)
        slot[g] = -1;
    int nswept = 0, nslot = 0;
    for (int p = 0; p < m->npair; ++p) {
        mpair *pr = &m->pairs[p];
        pr->swept = isfinite(pr->margin) && m->geoms[pr->ga].type != CDYN_GEOM_PLANE &&
                    m->geoms[pr->gb].type != CDYN_GEOM_PLANE;
        if (!pr->swept)
            continue;
        nswept++;
        if (slot[pr->ga] < 0)
            slot[pr->ga] = nslot++;
        if (slot[pr->gb] < 0)
            slot[pr->gb] = nslot++;
    }
    m->bp_nalways = m->npair - nswept;
    m->bp_nslot = nslot;
    cdyn_carve cv = {0, 0};
    layout(&cv, NULL, m, nswept);
    const size_t ntmp = (size_t)nslot + 1 + 2 * (size_t)nswept;
    int *tmp = cdyn_mem_array(a, ntmp, sizeof(int));
    void *block = cv.overflow ? NULL : cdyn_mem_alloc(a, cv.off);
    if (tmp == NULL || block == NULL) {
        cdyn_mem_free(a, slot);
        cdyn_mem_free(a, tmp);
        cdyn_mem_free(a, block);
        return cdyn_fail(report, CDYN_ENOMEM, "model allocation failed (broad phase)");
    }
    memset(block, 0, cv.off);
    cdyn_carve cv2 = {0, 0};
    layout(&cv2, block, m, nswept);
    m->bp_block = block;

    int na = 0;
    int *ptr = m->bp_adj_ptr, *inc_ptr = tmp, *inc = tmp + nslot + 1;
    memset(ptr, 0, sizeof(int) * ((size_t)nslot + 1));
    for (int g = 0; g < m->ngeom; ++g)
        if (slot[g] >= 0) {
            m->bp_geom[slot[g]] = g;
            m->bp_reach[slot[g]] = 0.0;
        }
    for (int p = 0; p < m->npair; ++p) {
        const mpair *pr = &m->pairs[p];
        if (!pr->swept) {
            m->bp_always[na++] = p;
            continue;
        }
        const int s[2] = {slot[pr->ga], slot[pr->gb]};
        for (int k = 0; k < 2; ++k) {
            ptr[s[k] + 1]++;
            /* half the margin: two boxes grown by half of it each overlap when the pair's
             * boxes are within the margin */
            m->bp_reach[s[k]] = fmax(m->bp_reach[s[k]], 0.5 * pr->margin);
        }
    }
    for (int k = 0; k < nslot; ++k)
        ptr[k + 1] += ptr[k];
    /* incidence lists in pair order, then per other slot in increasing order: each list of
     * the final CSR receives its entries sorted by the other slot (then by pair) */
    memcpy(inc_ptr, ptr, sizeof(int) * ((size_t)nslot + 1));
    for (int p = 0; p < m->npair; ++p) {
        const mpair *pr = &m->pairs[p];
        if (!pr->swept)
            continue;
        inc[inc_ptr[slot[pr->ga]]++] = p;
        inc[inc_ptr[slot[pr->gb]]++] = p;
    }
    int *fill = inc_ptr; /* reused: write positions of the final lists */
    memcpy(fill, ptr, sizeof(int) * (size_t)nslot);
    for (int v = 0; v < nslot; ++v)
        for (int e = ptr[v]; e < ptr[v + 1]; ++e) {
            const int p = inc[e];
            const mpair *pr = &m->pairs[p];
            const int u = slot[pr->ga] == v ? slot[pr->gb] : slot[pr->ga];
            m->bp_adj_slot[fill[u]] = v;
            m->bp_adj_pair[fill[u]++] = p;
        }
    cdyn_mem_free(a, slot);
    cdyn_mem_free(a, tmp);
    return CDYN_OK;
}
