/* cdyn_state: one allocation holding the struct and its arrays. */
#include "cdyn/step.h"

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"

#include <string.h>

/* The state keeps its allocator right after the struct, so that cdyn_state_free needs no
 * argument. */
typedef struct state_block {
    cdyn_state s;
    cdyn_allocator alloc;
    int has_alloc;
} state_block;

static void state_layout(cdyn_carve *cv, void *base, cdyn_state *s)
{
    (void)cdyn_carve_ptr(cv, base, 1, sizeof(state_block));
    s->q = cdyn_carve_doubles(cv, base, (size_t)s->nq);
    s->v = cdyn_carve_doubles(cv, base, (size_t)s->nv);
    s->delta = cdyn_carve_doubles(cv, base, 3 * (size_t)s->nc);
    s->lambda = cdyn_carve_doubles(cv, base, 3 * (size_t)s->nc);
    s->mode = cdyn_carve_ints(cv, base, (size_t)s->nc);
    s->limit_delta = cdyn_carve_doubles(cv, base, (size_t)s->nl);
    s->limit_lambda = cdyn_carve_doubles(cv, base, (size_t)s->nl);
    s->limit_mode = cdyn_carve_ints(cv, base, (size_t)s->nl);
}

cdyn_status cdyn_state_create(const cdyn_model *model, const cdyn_allocator *allocator,
                              cdyn_state **out, cdyn_report *report)
{
    cdyn_report_clear(report, "state");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_state_create: out is NULL");
    *out = NULL;
    if (model == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_state_create: model is NULL");
    cdyn_state shape = {0};
    shape.nq = cdyn_model_nq(model);
    shape.nv = cdyn_model_nv(model);
    shape.nc = cdyn_model_ncontact(model);
    shape.nl = cdyn_model_limit_rows(model);
    cdyn_carve cv = {0, 0};
    state_layout(&cv, NULL, &shape);
    if (cv.overflow)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_state_create: size overflow");
    state_block *blk = cdyn_mem_alloc(allocator, cv.off);
    if (blk == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_state_create: out of memory");
    memset(blk, 0, cv.off);
    blk->s = shape;
    blk->has_alloc = allocator != NULL;
    if (allocator != NULL)
        blk->alloc = *allocator;
    cdyn_carve cv2 = {0, 0};
    state_layout(&cv2, blk, &blk->s);
    cdyn_model_default_q(model, blk->s.q);
    for (int i = 0; i < shape.nc; i++)
        blk->s.mode[i] = CDYN_MODE_FREE;
    for (int i = 0; i < shape.nl; i++)
        blk->s.limit_mode[i] = CDYN_LIMIT_FREE;
    *out = &blk->s;
    return CDYN_OK;
}

void cdyn_state_free(cdyn_state *state)
{
    if (state == NULL)
        return;
    state_block *blk = (state_block *)state;
    if (blk->has_alloc) {
        cdyn_allocator a = blk->alloc;
        cdyn_mem_free(&a, blk);
    } else {
        cdyn_mem_free(NULL, blk);
    }
}

cdyn_status cdyn_state_copy(cdyn_state *dst, const cdyn_state *src, cdyn_report *report)
{
    cdyn_report_clear(report, "state");
    if (dst == NULL || src == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_state_copy: NULL state");
    if (dst->nq != src->nq || dst->nv != src->nv || dst->nc != src->nc || dst->nl != src->nl)
        return cdyn_fail(report, CDYN_EINVAL,
                         "cdyn_state_copy: sizes differ (nq %d/%d, nv %d/%d, nc %d/%d, nl %d/%d)",
                         dst->nq, src->nq, dst->nv, src->nv, dst->nc, src->nc, dst->nl, src->nl);
    if (dst == src)
        return CDYN_OK;
    dst->t = src->t;
    memcpy(dst->q, src->q, (size_t)src->nq * sizeof(double));
    memcpy(dst->v, src->v, (size_t)src->nv * sizeof(double));
    memcpy(dst->delta, src->delta, 3 * (size_t)src->nc * sizeof(double));
    memcpy(dst->lambda, src->lambda, 3 * (size_t)src->nc * sizeof(double));
    memcpy(dst->mode, src->mode, (size_t)src->nc * sizeof(int));
    const size_t nl = (size_t)src->nl;
    if (nl > 0) {
        memcpy(dst->limit_delta, src->limit_delta, nl * sizeof(double));
        memcpy(dst->limit_lambda, src->limit_lambda, nl * sizeof(double));
        memcpy(dst->limit_mode, src->limit_mode, nl * sizeof(int));
    }
    return CDYN_OK;
}

const char *cdyn_contact_mode_str(cdyn_contact_mode mode)
{
    switch (mode) {
    case CDYN_MODE_FREE: return "free";
    case CDYN_MODE_STICK: return "stick";
    case CDYN_MODE_SLIP: return "slip";
    case CDYN_MODE_CONTACT: return "contact";
    case CDYN_MODE_BALLISTIC: return "ballistic";
    }
    return "unknown mode";
}

const char *cdyn_limit_mode_str(cdyn_limit_mode mode)
{
    switch (mode) {
    case CDYN_LIMIT_FREE: return "free";
    case CDYN_LIMIT_AT_LOWER: return "lower";
    case CDYN_LIMIT_AT_UPPER: return "upper";
    }
    return "unknown limit mode";
}
