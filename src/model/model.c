/* Model queries and the configuration-space maps: default q, quaternion normalization, G(q) and
 * its left inverse. */
#include <math.h>
#include <string.h>

#include "core/report.h"
#include "model/model_internal.h"
#include "model/vec3.h"

const char *cdyn_model_joint_name(int joint)
{
    static const char *const names[] = {"free", "revolute", "prismatic", "fixed"};
    return joint >= 0 && joint <= 3 ? names[joint] : "unknown";
}

const char *cdyn_model_geom_name(int type)
{
    static const char *const names[] = {"plane",   "sphere",  "box",       "capsule",
                                        "point",   "circle",  "ellipse",   "rectangle",
                                        "polygon", "arc"};
    return type >= 0 && type <= 9 ? names[type] : "unknown";
}

int cdyn_model_dim(const cdyn_model *m)
{
    return m ? m->dim : 0;
}
int cdyn_model_nq(const cdyn_model *m)
{
    return m ? m->nq : 0;
}
int cdyn_model_nv(const cdyn_model *m)
{
    return m ? m->nv : 0;
}
int cdyn_model_nbody(const cdyn_model *m)
{
    return m ? m->nbody : 0;
}
int cdyn_model_ngeom(const cdyn_model *m)
{
    return m ? m->ngeom : 0;
}
int cdyn_model_npair(const cdyn_model *m)
{
    return m ? m->npair : 0;
}
int cdyn_model_ncontact(const cdyn_model *m)
{
    return m ? m->nc : 0;
}

void cdyn_model_gravity(const cdyn_model *m, double g[3])
{
    if (m == NULL || g == NULL)
        return;
    memcpy(g, m->gravity, 3 * sizeof(double));
}

cdyn_status cdyn_model_body_info(const cdyn_model *m, int body, cdyn_body_info *info)
{
    if (m == NULL || info == NULL || body < 0 || body >= m->nbody)
        return CDYN_EINVAL;
    const mbody *b = &m->bodies[body];
    info->parent = b->parent;
    info->joint = (cdyn_joint_type)b->joint;
    info->nq = b->nq;
    info->nv = b->nv;
    info->qadr = b->qadr;
    info->vadr = b->vadr;
    info->mass = b->mass;
    info->damping = b->damping;
    info->friction = b->friction;
    info->limited = b->limited;
    info->lower = b->lower;
    info->upper = b->upper;
    info->limit_restitution = b->limit_restitution;
    info->limit_solref[0] = b->limit_solref[0];
    info->limit_solref[1] = b->limit_solref[1];
    return CDYN_OK;
}

int cdyn_model_limit_rows(const cdyn_model *m)
{
    int n = 0;
    for (int k = 0; m != NULL && k < m->nbody; ++k)
        if (m->bodies[k].limited)
            n += isfinite(m->bodies[k].lower) + isfinite(m->bodies[k].upper);
    return n;
}

cdyn_status cdyn_model_limit_row(const cdyn_model *m, int row, int *body, int *upper)
{
    if (m == NULL || row < 0)
        return CDYN_EINVAL;
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (!b->limited)
            continue;
        for (int end = 0; end < 2; ++end) {
            if (!isfinite(end == 0 ? b->lower : b->upper) || row-- > 0)
                continue;
            if (body != NULL)
                *body = k;
            if (upper != NULL)
                *upper = end;
            return CDYN_OK;
        }
    }
    return CDYN_EINVAL;
}

int cdyn_model_joint_damping(const cdyn_model *m, double *d)
{
    if (m == NULL || d == NULL)
        return 0;
    int n = 0;
    for (int j = 0; j < m->nv; ++j) {
        const mbody *b = &m->bodies[m->dof_body[j]];
        d[j] = b->nv == 1 ? b->damping : 0.0;
        n += d[j] > 0.0;
    }
    return n;
}

int cdyn_model_joint_limit_count(const cdyn_model *m, int *first)
{
    int n = 0;
    if (first != NULL)
        *first = -1;
    if (m == NULL)
        return 0;
    for (int k = 0; k < m->nbody; ++k)
        if (m->bodies[k].limited) {
            if (n++ == 0 && first != NULL)
                *first = k;
        }
    return n;
}

int cdyn_model_joint_friction_count(const cdyn_model *m, int *first)
{
    int n = 0;
    if (first != NULL)
        *first = -1;
    if (m == NULL)
        return 0;
    for (int k = 0; k < m->nbody; ++k)
        if (m->bodies[k].friction > 0.0) {
            if (n++ == 0 && first != NULL)
                *first = k;
        }
    return n;
}

cdyn_status cdyn_model_pair_info(const cdyn_model *m, int pair, cdyn_pair_info *info)
{
    if (m == NULL || info == NULL || pair < 0 || pair >= m->npair)
        return CDYN_EINVAL;
    const mpair *p = &m->pairs[pair];
    info->geom_a = p->ga;
    info->geom_b = p->gb;
    info->body_a = m->geoms[p->ga].body;
    info->body_b = m->geoms[p->gb].body;
    info->row = p->row;
    info->nrows = p->nrows;
    info->mu = p->mu;
    memcpy(info->stiffness, p->K, sizeof(p->K));
    memcpy(info->damping, p->C, sizeof(p->C));
    info->restitution = p->restitution;
    memcpy(info->baumgarte, p->baumgarte, sizeof(p->baumgarte));
    info->margin = p->margin;
    info->patch_n = p->patch_n;
    info->patch_half_width = p->patch_w;
    memcpy(info->solref, p->solref, sizeof(p->solref));
    info->defaults = p->defaults;
    return CDYN_OK;
}

cdyn_status cdyn_model_contact_compliance(const cdyn_model *m, int row, double K[9], double C[9])
{
    if (m == NULL || row < 0 || row >= m->nc)
        return CDYN_EINVAL;
    const mpair *p = &m->pairs[m->row_pair[row]];
    /* a patch shares the pair's K and C among its elements */
    const double s = p->patch != PATCH_NONE ? 1.0 / (double)p->nrows : 1.0;
    for (int i = 0; i < 9; ++i) {
        if (K != NULL)
            K[i] = s * p->K[i];
        if (C != NULL)
            C[i] = s * p->C[i];
    }
    return CDYN_OK;
}

/* Is body k's joint a 3D free joint (the only one with a quaternion)? */
static int has_quat(const cdyn_model *m, const mbody *b)
{
    return b->joint == CDYN_JOINT_FREE && m->dim == 3;
}

/* max |e_i|; NaN when e is not finite. */
static double quat_scale(const double *e)
{
    double s = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (!isfinite(e[i]))
            return NAN;
        s = fmax(s, fabs(e[i]));
    }
    return s;
}

void cdyn_model_default_q(const cdyn_model *m, double *q)
{
    if (m == NULL || q == NULL)
        return;
    memset(q, 0, sizeof(double) * (size_t)m->nq);
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (b->joint != CDYN_JOINT_FREE)
            continue;
        double *qb = q + b->qadr;
        if (m->dim == 3) {
            memcpy(qb, b->fpos, 3 * sizeof(double));
            memcpy(qb + 3, b->fquat, 4 * sizeof(double));
        } else {
            qb[0] = b->fpos[0];
            qb[1] = b->fpos[1];
            qb[2] = 2.0 * atan2(b->fquat[3], b->fquat[0]);
        }
    }
}

cdyn_status cdyn_model_normalize_q(const cdyn_model *m, double *q, cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || q == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model or q is NULL");
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (!has_quat(m, b))
            continue;
        if (!(quat_scale(q + b->qadr + 3) > 0.0))
            return cdyn_fail(report, CDYN_EINVAL,
                             "quaternion of body %d (q[%d..%d]) is zero or not finite", k,
                             b->qadr + 3, b->qadr + 6);
    }
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (!has_quat(m, b))
            continue;
        /* divide by the largest entry first: |e|^2 of a finite e may overflow or underflow */
        double *e = q + b->qadr + 3;
        const double s = quat_scale(e);
        for (int i = 0; i < 4; ++i)
            e[i] /= s;
        const double n = sqrt(quat_norm2(e));
        for (int i = 0; i < 4; ++i)
            e[i] /= n;
    }
    return CDYN_OK;
}

static cdyn_status check_q(const cdyn_model *m, const double *q, cdyn_report *report)
{
    for (int i = 0; i < m->nq; ++i)
        if (!isfinite(q[i]))
            return cdyn_fail(report, CDYN_EINVAL, "q[%d] is not finite", i);
    return CDYN_OK;
}

/* The quaternion block E(e) of G: edot = E(e) w with w in world axes, i.e.
 * edot = 1/2 (0, w) (x) e (Song, Kumar & Pang's G for the billiard ball). E is 4x3 stored in
 * G at rows r0.., columns c0.. with leading dimension ld. */
static void quat_block(const double *e, double scale, double *G, int ld, int r0, int c0)
{
    const double w = e[0], x = e[1], y = e[2], z = e[3];
    const double E[4][3] = {{-x, -y, -z}, {w, z, -y}, {-z, w, x}, {y, -x, w}};
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 3; ++j)
            G[(r0 + i) + (size_t)(c0 + j) * ld] = scale * E[i][j];
}

cdyn_status cdyn_model_G(const cdyn_model *m, const double *q, double *G, cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || q == NULL || G == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model, q or G is NULL");
    cdyn_status st = check_q(m, q, report);
    if (st != CDYN_OK)
        return st;
    memset(G, 0, sizeof(double) * (size_t)m->nq * (size_t)m->nv);
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (has_quat(m, b)) {
            for (int i = 0; i < 3; ++i)
                G[(b->qadr + i) + (size_t)(b->vadr + i) * m->nq] = 1.0;
            quat_block(q + b->qadr + 3, 0.5, G, m->nq, b->qadr + 3, b->vadr + 3);
        } else {
            for (int i = 0; i < b->nv; ++i)
                G[(b->qadr + i) + (size_t)(b->vadr + i) * m->nq] = 1.0;
        }
    }
    return CDYN_OK;
}

cdyn_status cdyn_model_G_pinv(const cdyn_model *m, const double *q, double *H, cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || q == NULL || H == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model, q or H is NULL");
    cdyn_status st = check_q(m, q, report);
    if (st != CDYN_OK)
        return st;
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (!has_quat(m, b))
            continue;
        const double n2 = quat_norm2(q + b->qadr + 3);
        if (!(n2 > 0.0) || !isfinite(n2))
            return cdyn_fail(report, CDYN_EINVAL,
                             "quaternion of body %d is zero or its squared norm overflows", k);
    }
    memset(H, 0, sizeof(double) * (size_t)m->nq * (size_t)m->nv);
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        if (has_quat(m, b)) {
            const double *e = q + b->qadr + 3;
            const double n2 = quat_norm2(e);
            for (int i = 0; i < 3; ++i)
                H[(b->vadr + i) + (size_t)(b->qadr + i) * m->nv] = 1.0;
            /* H block = (4/|e|^2) E^T, written transposed: E^T(j, i) = E(i, j). Since E has
             * orthogonal columns of norm |e|/2, this E^T E = I. */
            double E[12];
            quat_block(e, 0.5, E, 4, 0, 0);
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 3; ++j)
                    H[(b->vadr + 3 + j) + (size_t)(b->qadr + 3 + i) * m->nv] =
                        4.0 / n2 * E[i + 4 * j];
        } else {
            for (int i = 0; i < b->nv; ++i)
                H[(b->vadr + i) + (size_t)(b->qadr + i) * m->nv] = 1.0;
        }
    }
    return CDYN_OK;
}

cdyn_status cdyn_model_qdot(const cdyn_model *m, const double *q, const double *v, double *qdot,
                            cdyn_report *report)
{
    cdyn_report_clear(report, "model");
    if (m == NULL || q == NULL || v == NULL || qdot == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "model, q, v or qdot is NULL");
    cdyn_status st = check_q(m, q, report);
    if (st != CDYN_OK)
        return st;
    for (int i = 0; i < m->nv; ++i)
        if (!isfinite(v[i]))
            return cdyn_fail(report, CDYN_EINVAL, "v[%d] is not finite", i);
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        const double *vb = v + b->vadr;
        double *qd = qdot + b->qadr;
        if (has_quat(m, b)) {
            const double *e = q + b->qadr + 3;
            double E[12];
            quat_block(e, 0.5, E, 4, 0, 0);
            qd[0] = vb[0];
            qd[1] = vb[1];
            qd[2] = vb[2];
            for (int i = 0; i < 4; ++i)
                qd[3 + i] = E[i] * vb[3] + E[i + 4] * vb[4] + E[i + 8] * vb[5];
        } else {
            for (int i = 0; i < b->nv; ++i)
                qd[i] = vb[i];
        }
    }
    return CDYN_OK;
}

int cdyn_model_tangent_map(const cdyn_model *m, const double *q, int j, int qidx[4], double G[4],
                           double H[4])
{
    if (m == NULL || q == NULL || qidx == NULL || j < 0 || j >= m->nv)
        return 0;
    const mbody *b = &m->bodies[m->dof_body[j]];
    const int t = j - b->vadr;
    if (!has_quat(m, b) || t < 3) {
        qidx[0] = b->qadr + t;
        if (G != NULL)
            G[0] = 1.0;
        if (H != NULL)
            H[0] = 1.0;
        return 1;
    }
    /* column t - 3 of 1/2 E(e) and row t - 3 of (4/|e|^2) E(e)^T */
    const double *e = q + b->qadr + 3;
    const double n2 = quat_norm2(e);
    if (!(n2 > 0.0) || !isfinite(n2))
        return 0;
    double E[12];
    quat_block(e, 1.0, E, 4, 0, 0);
    for (int i = 0; i < 4; ++i) {
        qidx[i] = b->qadr + 3 + i;
        if (G != NULL)
            G[i] = 0.5 * E[i + 4 * (t - 3)];
        if (H != NULL)
            H[i] = 2.0 / n2 * E[i + 4 * (t - 3)];
    }
    return 4;
}

cdyn_status cdyn_model_quat_rate_de(const cdyn_model *m, int body, const double *v, double D[16])
{
    if (m == NULL || v == NULL || D == NULL || body < 0 || body >= m->nbody ||
        !has_quat(m, &m->bodies[body]))
        return CDYN_EINVAL;
    const double *w = v + m->bodies[body].vadr + 3;
    /* edot = 1/2 E(e) w is linear in e: d edot/de = 1/2 L((0, w)), L(p) e = p (x) e */
    const double L[4][4] = {{0, -w[0], -w[1], -w[2]},
                            {w[0], 0, -w[2], w[1]},
                            {w[1], w[2], 0, -w[0]},
                            {w[2], -w[1], w[0], 0}};
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 4; ++k)
            D[i + 4 * k] = 0.5 * L[i][k];
    return CDYN_OK;
}
