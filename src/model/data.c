/* cdyn_data: the per-thread workspace and outputs of cdyn_eval (one allocation at create), and
 * the accessors of its results. */
#include <string.h>

#include "core/carve.h"
#include "core/memory.h"
#include "core/report.h"
#include "model/model_internal.h"
#include "model/spatial.h"

void cdyn_data_defaults(cdyn_data_options *opts)
{
    if (opts == NULL)
        return;
    opts->dense = 1;
    opts->allocator = NULL;
}

cdyn_status cdyn_data_create(const cdyn_model *m, const cdyn_data_options *opts, cdyn_data **out,
                             cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "out is NULL");
    *out = NULL;
    if (m == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model is NULL");
    cdyn_data_options def;
    if (opts == NULL) {
        cdyn_data_defaults(&def);
        opts = &def;
    }
    const size_t nv = (size_t)m->nv, nc = (size_t)m->nc, nb = (size_t)m->nbody;
    const int dense = opts->dense != 0;
    cdyn_carve cv = {0, 0};
    const size_t o_data = cdyn_carve_take(&cv, 1, sizeof(cdyn_data));
    const size_t o_bodies = cdyn_carve_take(&cv, nb, sizeof(dbody));
    const size_t o_S = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 6, nv), sizeof(double));
    const size_t o_M =
        cdyn_carve_take(&cv, dense ? cdyn_carve_mul(&cv, nv, nv) : 0, sizeof(double));
    const size_t o_mv = cdyn_carve_take(&cv, (size_t)m->mass_nnz, sizeof(double));
    const size_t o_bias = cdyn_carve_take(&cv, nv, sizeof(double));
    const size_t o_gap = cdyn_carve_take(&cv, nc, sizeof(double));
    const size_t o_act = cdyn_carve_take(&cv, nc, sizeof(int));
    const size_t o_pa = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 3, nc), sizeof(double));
    const size_t o_pb = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 3, nc), sizeof(double));
    const size_t o_fr = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 9, nc), sizeof(double));
    size_t o_jv[3], o_jd[3], o_jdot[3];
    for (int d = 0; d < 3; ++d) {
        o_jv[d] = cdyn_carve_take(&cv, (size_t)m->jac_nnz, sizeof(double));
        o_jd[d] = cdyn_carve_take(&cv, dense ? cdyn_carve_mul(&cv, nc, nv) : 0, sizeof(double));
        o_jdot[d] = cdyn_carve_take(&cv, nc, sizeof(double));
    }
    const size_t nder = (size_t)m->der_nnz;
    const size_t o_id = cdyn_carve_take(&cv, nv, sizeof(double));
    const size_t o_v = cdyn_carve_take(&cv, nv, sizeof(double));
    const size_t o_dq = cdyn_carve_take(&cv, nder, sizeof(double));
    const size_t o_dv = cdyn_carve_take(&cv, nder, sizeof(double));
    const size_t o_dqd =
        cdyn_carve_take(&cv, dense ? cdyn_carve_mul(&cv, nv, nv) : 0, sizeof(double));
    const size_t o_dvd =
        cdyn_carve_take(&cv, dense ? cdyn_carve_mul(&cv, nv, nv) : 0, sizeof(double));
    size_t o_jq[3], o_jqd[3];
    for (int d = 0; d < 3; ++d) {
        o_jq[d] = cdyn_carve_take(&cv, (size_t)m->jac_nnz, sizeof(double));
        o_jqd[d] = cdyn_carve_take(&cv, dense ? cdyn_carve_mul(&cv, nc, nv) : 0, sizeof(double));
    }
    const size_t o_dscr = cdyn_carve_take(&cv, cdyn_model_deriv_scratch(m), sizeof(double));
    const size_t o_dstk = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 2, nb), sizeof(int));
    /* broad phase: per slot a box, a key and the order; per pair two lists and a state */
    const size_t ns = m->broad ? (size_t)m->bp_nslot : 0, np = m->broad ? (size_t)m->npair : 0;
    const size_t o_bbox = cdyn_carve_take(&cv, cdyn_carve_mul(&cv, 6, ns), sizeof(double));
    const size_t o_bkey = cdyn_carve_take(&cv, ns, sizeof(double));
    const size_t o_bord = cdyn_carve_take(&cv, ns, sizeof(int));
    const size_t o_bcand = cdyn_carve_take(&cv, np, sizeof(int));
    const size_t o_bdirty = cdyn_carve_take(&cv, np, sizeof(int));
    const size_t o_bstate = cdyn_carve_take(&cv, np, 1);
    if (cv.overflow)
        return cdyn_fail(report, CDYN_ETOOBIG, "data too large");
    char *block = cdyn_mem_alloc(opts->allocator, cv.off);
    if (block == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "data allocation failed");
    memset(block, 0, cv.off);
    cdyn_data *d = (cdyn_data *)(block + o_data);
    d->model = m;
    d->allocator = opts->allocator;
    d->dense = dense;
    d->bodies = (dbody *)(block + o_bodies);
    d->S = (double *)(block + o_S);
    d->M = dense ? (double *)(block + o_M) : NULL;
    d->mass_values = (double *)(block + o_mv);
    d->bias = (double *)(block + o_bias);
    d->gap = (double *)(block + o_gap);
    d->active = (int *)(block + o_act);
    d->pa = (double *)(block + o_pa);
    d->pb = (double *)(block + o_pb);
    d->frame = (double *)(block + o_fr);
    for (int k = 0; k < 3; ++k) {
        d->jac_values[k] = (double *)(block + o_jv[k]);
        d->jac_dense[k] = dense ? (double *)(block + o_jd[k]) : NULL;
        d->jdot[k] = (double *)(block + o_jdot[k]);
        d->jac_dq_v[k] = (double *)(block + o_jq[k]);
        d->jac_dq_v_dense[k] = dense ? (double *)(block + o_jqd[k]) : NULL;
    }
    d->id = (double *)(block + o_id);
    d->v = (double *)(block + o_v);
    d->der_q = (double *)(block + o_dq);
    d->der_v = (double *)(block + o_dv);
    d->der_q_dense = dense ? (double *)(block + o_dqd) : NULL;
    d->der_v_dense = dense ? (double *)(block + o_dvd) : NULL;
    d->dscr = (double *)(block + o_dscr);
    d->dstack = (int *)(block + o_dstk);
    d->bp_box = (double *)(block + o_bbox);
    d->bp_key = (double *)(block + o_bkey);
    d->bp_order = (int *)(block + o_bord);
    d->bp_cand = (int *)(block + o_bcand);
    d->bp_dirty = (int *)(block + o_bdirty);
    d->bp_state = (unsigned char *)(block + o_bstate);
    d->bp_axis = -1;
    for (size_t s = 0; s < ns; ++s)
        d->bp_order[s] = (int)s;
    /* swept pairs start as never evaluated: the rows of a pair beyond its margin */
    for (size_t p = 0; p < np; ++p)
        if (m->pairs[p].swept)
            cdyn_model_pair_far(m, d, (int)p);
    *out = d;
    return CDYN_OK;
}

void cdyn_data_free(cdyn_data *d)
{
    if (d == NULL)
        return;
    cdyn_mem_free(d->allocator, d); /* first object of its block */
}

const double *cdyn_data_mass(const cdyn_data *d)
{
    return d != NULL && (d->valid & CDYN_EVAL_MASS) ? d->M : NULL;
}

const double *cdyn_data_bias(const cdyn_data *d)
{
    return d != NULL && (d->valid & CDYN_EVAL_BIAS) ? d->bias : NULL;
}

cdyn_status cdyn_data_mass_csc(const cdyn_data *d, cdyn_csc *M)
{
    if (d == NULL || M == NULL || !(d->valid & CDYN_EVAL_MASS))
        return CDYN_EINVAL;
    M->nrows = M->ncols = d->model->nv;
    M->colptr = d->model->mass_colptr;
    M->rowind = d->model->mass_rowind;
    M->values = d->mass_values;
    return CDYN_OK;
}

int cdyn_data_pairs_evaluated(const cdyn_data *d)
{
    return d != NULL && (d->valid & CDYN_EVAL_CONTACTS) ? d->bp_last : -1;
}

const double *cdyn_data_gap(const cdyn_data *d)
{
    return d != NULL && (d->valid & CDYN_EVAL_CONTACTS) ? d->gap : NULL;
}

const int *cdyn_data_active(const cdyn_data *d)
{
    return d != NULL && (d->valid & CDYN_EVAL_CONTACTS) ? d->active : NULL;
}

const double *cdyn_data_jacobian(const cdyn_data *d, cdyn_dir dir)
{
    if (d == NULL || !(d->valid & CDYN_EVAL_CONTACTS) || (int)dir < 0 || (int)dir > 2)
        return NULL;
    return d->jac_dense[dir];
}

cdyn_status cdyn_data_jacobian_csc(const cdyn_data *d, cdyn_dir dir, cdyn_csc *J)
{
    if (d == NULL || J == NULL || !(d->valid & CDYN_EVAL_CONTACTS) || (int)dir < 0 || (int)dir > 2)
        return CDYN_EINVAL;
    J->nrows = d->model->nc;
    J->ncols = d->model->nv;
    J->colptr = d->model->jac_colptr;
    J->rowind = d->model->jac_rowind;
    J->values = d->jac_values[dir];
    return CDYN_OK;
}

const double *cdyn_data_jacobian_dot_v(const cdyn_data *d, cdyn_dir dir)
{
    if (d == NULL || !(d->valid & CDYN_EVAL_CONTACT_DOT) || (int)dir < 0 || (int)dir > 2)
        return NULL;
    return d->jdot[dir];
}

cdyn_status cdyn_data_contact(const cdyn_data *d, int row, cdyn_contact *c)
{
    if (d == NULL || c == NULL || !(d->valid & CDYN_EVAL_CONTACTS) || row < 0 ||
        row >= d->model->nc)
        return CDYN_EINVAL;
    c->pair = d->model->row_pair[row];
    c->index = d->model->row_index[row];
    c->active = d->active[row];
    c->gap = d->gap[row];
    memcpy(c->pa, d->pa + 3 * row, 3 * sizeof(double));
    memcpy(c->pb, d->pb + 3 * row, 3 * sizeof(double));
    memcpy(c->n, d->frame + 9 * row, 3 * sizeof(double));
    memcpy(c->t, d->frame + 9 * row + 3, 3 * sizeof(double));
    memcpy(c->o, d->frame + 9 * row + 6, 3 * sizeof(double));
    return CDYN_OK;
}

cdyn_status cdyn_data_body_pose(const cdyn_data *d, int body, double pos[3], double R[9])
{
    if (d == NULL || body < 0 || body >= d->model->nbody || !(d->valid & CDYN_VALID_KIN))
        return CDYN_EINVAL;
    if (pos != NULL)
        memcpy(pos, d->bodies[body].o, 3 * sizeof(double));
    if (R != NULL)
        memcpy(R, d->bodies[body].R, 9 * sizeof(double));
    return CDYN_OK;
}

cdyn_status cdyn_data_body_velocity(const cdyn_data *d, int body, double vel[3], double w[3])
{
    if (d == NULL || body < 0 || body >= d->model->nbody || !(d->valid & CDYN_VALID_KIN))
        return CDYN_EINVAL;
    const dbody *b = &d->bodies[body];
    if (vel != NULL)
        sp_point_vel(vel, b->V, b->o); /* velocity of the body point at the frame origin */
    if (w != NULL)
        memcpy(w, b->V, 3 * sizeof(double));
    return CDYN_OK;
}
