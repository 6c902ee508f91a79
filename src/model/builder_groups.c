/* Pair groups: one builder call declares the contact pairs of group A against group B, or all
 * against all within one group, with one set of pair parameters. The group expands here into
 * explicit pairs in a documented order, so a model never knows groups: rows keep their numbers
 * from one evaluation to the next as for pairs declared one by one. */
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"

void cdyn_pair_group_defaults(cdyn_pair_group_options *opts)
{
    if (opts == NULL)
        return;
    memset(opts, 0, sizeof(*opts));
    opts->exclude_jointed = 1;
}

/* The rigid unit of a body (root: nearest ancestor-or-self with a moving joint; -1 for the ground
 * and bodies welded to it) and the unit its joint attaches it to (-1: the ground). */
static int unit_of(const cdyn_builder *b, int body)
{
    return body < 0 ? -1 : b->bodies[body].root;
}

static int parent_unit(const cdyn_builder *b, int unit)
{
    return unit < 0 ? -1 : unit_of(b, b->bodies[unit].parent);
}

/* Whether the bodies of two geometries are joined by a joint: one unit is the other's parent,
 * the ground excepted. */
static int jointed(const cdyn_builder *b, int ga, int gb)
{
    const int ua = unit_of(b, b->geoms[ga].body), ub = unit_of(b, b->geoms[gb].body);
    if (ua < 0 || ub < 0)
        return 0;
    return parent_unit(b, ua) == ub || parent_unit(b, ub) == ua;
}

/* Which pairs the group keeps: 0 keep, else the counter it goes to. */
enum { KEEP = 0, SKIP_SAME = 1, SKIP_JOINT = 2, SKIP_TYPES = 3 };

static int classify(const cdyn_builder *b, int ga, int gb, int exclude_jointed)
{
    if (cdyn_builder_same_body(b, ga, gb))
        return SKIP_SAME;
    if (exclude_jointed && jointed(b, ga, gb))
        return SKIP_JOINT;
    int swap;
    if (cdyn_model_pair_kind(b->dim, b->geoms[ga].type, b->geoms[gb].type, &swap) < 0)
        return SKIP_TYPES;
    return KEEP;
}

/* The group's candidates (ga, gb) in the documented order: A x B row by row, or the upper
 * triangle of A x A. */
typedef struct group_iter {
    const int *A, *B;
    int na, nb, i, j;
} group_iter;

static void iter_start(group_iter *it, const int *A, int na, const int *B, int nb)
{
    it->A = A;
    it->B = B;
    it->na = na;
    it->nb = nb;
    it->i = 0;
    it->j = B != NULL ? 0 : 1;
}

/* The current candidate, or 0 at the end; then advances. */
static int iter_next(group_iter *it, int *ga, int *gb)
{
    if (it->B != NULL) {
        if (it->i >= it->na)
            return 0;
        *ga = it->A[it->i];
        *gb = it->B[it->j];
        if (++it->j == it->nb) {
            it->j = 0;
            it->i++;
        }
        return 1;
    }
    if (it->i >= it->na - 1)
        return 0;
    *ga = it->A[it->i];
    *gb = it->A[it->j];
    if (++it->j == it->na) {
        it->i++;
        it->j = it->i + 1;
    }
    return 1;
}

/* Ids in range, none repeated within the groups or shared by them. */
static cdyn_status check_ids(const cdyn_builder *b, const int *A, int na, const int *B, int nb,
                             cdyn_report *report)
{
    unsigned char *seen = cdyn_mem_array(b->allocator, (size_t)b->ngeom + 1, 1);
    if (seen == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "builder allocation failed (pair group)");
    memset(seen, 0, (size_t)b->ngeom + 1);
    cdyn_status st = CDYN_OK;
    for (int s = 0; s < 2 && st == CDYN_OK; ++s) {
        const int *G = s == 0 ? A : B, n = s == 0 ? na : nb;
        for (int i = 0; G != NULL && i < n && st == CDYN_OK; ++i) {
            const int g = G[i];
            if (g < 0 || g >= b->ngeom)
                st = cdyn_fail(report, CDYN_EINVAL,
                               "group_%c[%d] = %d is not a geometry id (0..%d)", "ab"[s], i, g,
                               b->ngeom - 1);
            else if (seen[g])
                st = cdyn_fail(report, CDYN_EINVAL,
                               "geometry %d appears twice in the groups (group_%c[%d]); for all "
                               "against all within one group pass group_b = NULL",
                               g, "ab"[s], i);
            else
                seen[g] = 1;
        }
    }
    cdyn_mem_free(b->allocator, seen);
    return st;
}

cdyn_status cdyn_builder_add_pair_group(cdyn_builder *b, const int *A, int na, const int *B,
                                        int nb, const cdyn_contact_pair_desc *pair,
                                        const cdyn_pair_group_options *opts,
                                        cdyn_pair_group_info *info, cdyn_report *report)
{
    cdyn_report_clear(report, "builder");
    if (b == NULL || A == NULL || pair == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "builder, group_a or pair is NULL");
    if (na < 1 || (B != NULL && nb < 1))
        return cdyn_fail(report, CDYN_EINVAL, "empty group (na = %d, nb = %d)", na,
                         B != NULL ? nb : 0);
    cdyn_pair_group_options def;
    if (opts == NULL) {
        cdyn_pair_group_defaults(&def);
        opts = &def;
    }
    cdyn_status st = cdyn_builder_check_pair_params(pair, report);
    if (st != CDYN_OK)
        return st;
    if ((st = check_ids(b, A, na, B, nb, report)) != CDYN_OK)
        return st;
    cdyn_pair_group_info in;
    memset(&in, 0, sizeof(in));
    in.first_pair = b->npair;
    long long keep = 0;
    group_iter it;
    int ga, gb;
    iter_start(&it, A, na, B, nb);
    while (iter_next(&it, &ga, &gb)) {
        const int c = classify(b, ga, gb, opts->exclude_jointed != 0);
        keep += c == KEEP;
        in.skipped_same_body += c == SKIP_SAME;
        in.skipped_jointed += c == SKIP_JOINT;
        in.skipped_unsupported += c == SKIP_TYPES;
    }
    if (keep > (1 << 28) - (long long)b->npair)
        return cdyn_fail(report, CDYN_ETOOBIG, "pair group of %lld pairs is too large", keep);
    if ((st = cdyn_builder_grow_pairs(b, b->npair + (int)keep, report)) != CDYN_OK)
        return st;
    /* fill past npair; a refused pair leaves npair (and so the builder) as it was */
    int n = 0;
    iter_start(&it, A, na, B, nb);
    while (iter_next(&it, &ga, &gb)) {
        if (classify(b, ga, gb, opts->exclude_jointed != 0) != KEEP)
            continue;
        mpair *p = &b->pairs[b->npair + n];
        if ((st = cdyn_builder_make_pair(b, pair, ga, gb, p, report)) != CDYN_OK) {
            char msg[CDYN_REPORT_TEXT];
            if (report != NULL) {
                snprintf(msg, sizeof(msg), "%s", report->message);
                cdyn_fail(report, st, "pair group: geometries (%d, %d): %s", ga, gb, msg);
            }
            return st;
        }
        in.nrows += p->nrows;
        n++;
    }
    b->npair += n;
    in.npair = n;
    if (info != NULL)
        *info = in;
    return CDYN_OK;
}
