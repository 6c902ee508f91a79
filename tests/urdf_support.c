#include "urdf_support.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support.h"

static void qmul(double r[4], const double a[4], const double b[4])
{
    const double w = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    const double x = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    const double y = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    const double z = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
    r[0] = w;
    r[1] = x;
    r[2] = y;
    r[3] = z;
}

cdyn_pose tu_pose(double x, double y, double z, double roll, double pitch, double yaw)
{
    const double qx[4] = {cos(roll / 2), sin(roll / 2), 0, 0};
    const double qy[4] = {cos(pitch / 2), 0, sin(pitch / 2), 0};
    const double qz[4] = {cos(yaw / 2), 0, 0, sin(yaw / 2)};
    cdyn_pose p = {{x, y, z}, {1, 0, 0, 0}};
    double t[4];
    qmul(t, qz, qy);
    qmul(p.quat, t, qx);
    return p;
}

/* R (column-major) of a unit quaternion. */
static void qmat(const double q[4], double R[9])
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    const double M[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y),
                         2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x),
                         2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)};
    memcpy(R, M, sizeof(M));
}

cdyn_pose tu_pose_mul(const cdyn_pose *a, const cdyn_pose *b)
{
    double R[9];
    qmat(a->quat, R);
    cdyn_pose r;
    for (int i = 0; i < 3; ++i)
        r.pos[i] = a->pos[i] + R[i] * b->pos[0] + R[i + 3] * b->pos[1] + R[i + 6] * b->pos[2];
    qmul(r.quat, a->quat, b->quat);
    return r;
}

/* C = A B, 3x3 column-major. */
static void mm(double C[9], const double A[9], const double B[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            double s = 0;
            for (int k = 0; k < 3; ++k)
                s += A[i + 3 * k] * B[k + 3 * j];
            C[i + 3 * j] = s;
        }
}

/* R = Rz(yaw) Ry(pitch) Rx(roll) as a product of the three elementary matrices. */
static void rpy_mat(const double rpy[3], double R[9])
{
    const double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
    const double cy = cos(rpy[2]), sy = sin(rpy[2]);
    const double Rx[9] = {1, 0, 0, 0, cr, sr, 0, -sr, cr};
    const double Ry[9] = {cp, 0, -sp, 0, 1, 0, sp, 0, cp};
    const double Rz[9] = {cy, sy, 0, -sy, cy, 0, 0, 0, 1};
    double T[9];
    mm(T, Ry, Rx);
    mm(R, Rz, T);
}

/* out = R S R^T for the URDF six values S, as a full 3x3. */
static void rotated_inertia(const double rpy[3], const double I6[6], double out[9])
{
    const double S[9] = {I6[0], I6[1], I6[2], I6[1], I6[3], I6[4], I6[2], I6[4], I6[5]};
    double R[9], RS[9], Rt[9];
    rpy_mat(rpy, R);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            Rt[i + 3 * j] = R[j + 3 * i];
    mm(RS, R, S);
    mm(out, RS, Rt);
}

static void set_inertia(cdyn_body_desc *d, const double I[9])
{
    d->inertia[0] = I[0];
    d->inertia[1] = I[4];
    d->inertia[2] = I[8];
    d->inertia[3] = I[3];
    d->inertia[4] = I[6];
    d->inertia[5] = I[7];
}

cdyn_body_desc tu_body(const tu_link *l)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.parent = l->parent;
    d.joint = l->joint;
    d.frame = l->origin;
    memcpy(d.axis, l->axis, sizeof(d.axis));
    d.mass = l->mass;
    memcpy(d.com, l->com, sizeof(d.com));
    double I[9];
    rotated_inertia(l->irpy, l->I, I);
    set_inertia(&d, I);
    return d;
}

/* I += m (|d|^2 E - d d^T) */
static void parallel_axis(double I[9], double m, const double d[3])
{
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            I[i + 3 * j] += m * ((i == j ? dd : 0.0) - d[i] * d[j]);
}

cdyn_body_desc tu_lump(const tu_link *a, const tu_link *b, const cdyn_pose *T)
{
    cdyn_body_desc d = tu_body(a);
    double R[9], Ia[9], Ib[9], IbT[9], Rt[9], tmp[9], cb[3];
    qmat(T->quat, R);
    for (int i = 0; i < 3; ++i) {
        cb[i] = T->pos[i] + R[i] * b->com[0] + R[i + 3] * b->com[1] + R[i + 6] * b->com[2];
        for (int j = 0; j < 3; ++j)
            Rt[i + 3 * j] = R[j + 3 * i];
    }
    rotated_inertia(a->irpy, a->I, Ia);
    rotated_inertia(b->irpy, b->I, Ib);
    mm(tmp, R, Ib);
    mm(IbT, tmp, Rt);
    const double m = a->mass + b->mass;
    double c[3], da[3], db[3], I[9];
    for (int i = 0; i < 3; ++i) {
        c[i] = (a->mass * a->com[i] + b->mass * cb[i]) / m;
        da[i] = a->com[i] - c[i];
        db[i] = cb[i] - c[i];
    }
    for (int i = 0; i < 9; ++i)
        I[i] = Ia[i] + IbT[i];
    parallel_axis(I, a->mass, da);
    parallel_axis(I, b->mass, db);
    d.mass = m;
    memcpy(d.com, c, sizeof(c));
    set_inertia(&d, I);
    return d;
}

cdyn_geom_desc tu_geom(int body, cdyn_geom_type type, const cdyn_pose *frame, double s0,
                       double s1, double s2)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    g.body = body;
    g.type = type;
    g.frame = *frame;
    g.size[0] = s0;
    g.size[1] = s1;
    g.size[2] = s2;
    return g;
}

cdyn_builder *tu_builder(void)
{
    cdyn_builder_options o;
    cdyn_builder_defaults(&o, 3);
    cdyn_builder *b = NULL;
    assert_int_equal(cdyn_builder_create(&o, &b, NULL), CDYN_OK);
    return b;
}

void tu_add_floor_pairs(cdyn_builder *b, int n, const int *geoms)
{
    cdyn_geom_desc floor;
    cdyn_geom_desc_defaults(&floor);
    floor.frame.pos[2] = -0.5; /* below everything: the pairs' defaults need motion */
    int gf;
    cdyn_report r;
    assert_int_equal(cdyn_builder_add_geom(b, &floor, &gf, &r), CDYN_OK);
    for (int k = 0; k < n; ++k) {
        cdyn_contact_pair_desc p;
        cdyn_contact_pair_desc_defaults(&p);
        p.geom_a = gf;
        p.geom_b = geoms[k];
        p.mu = 0.5;
        p.stiffness[0] = p.stiffness[4] = p.stiffness[8] = 1e4;
        if (cdyn_builder_add_contact_pair(b, &p, NULL, &r) != CDYN_OK)
            fail_msg("pair with geometry %d: %s", geoms[k], r.message);
    }
}

static double rel_err(int n, const double *a, const double *b)
{
    double scale = 1.0, diff = 0.0;
    for (int i = 0; i < n; ++i)
        scale = fmax(scale, fabs(b[i]));
    for (int i = 0; i < n; ++i)
        diff = fmax(diff, fabs(a[i] - b[i]));
    return diff / scale;
}

double tu_compare(const cdyn_model *a, const cdyn_model *b, int samples, unsigned seed)
{
    const int nq = cdyn_model_nq(a), nv = cdyn_model_nv(a), nc = cdyn_model_ncontact(a);
    assert_int_equal(nq, cdyn_model_nq(b));
    assert_int_equal(nv, cdyn_model_nv(b));
    assert_int_equal(nc, cdyn_model_ncontact(b));
    cdyn_data *da = NULL, *db = NULL;
    assert_int_equal(cdyn_data_create(a, NULL, &da, NULL), CDYN_OK);
    assert_int_equal(cdyn_data_create(b, NULL, &db, NULL), CDYN_OK);
    double *q = calloc((size_t)nq, sizeof(double)), *v = calloc((size_t)nv, sizeof(double));
    assert_true(q != NULL && v != NULL);
    test_rng rng;
    test_rng_seed(&rng, seed);
    double err = 0.0;
    for (int s = 0; s < samples; ++s) {
        cdyn_model_default_q(a, q);
        for (int i = 0; i < nq; ++i)
            q[i] += test_rng_range(&rng, -1.0, 1.0);
        assert_int_equal(cdyn_model_normalize_q(a, q, NULL), CDYN_OK);
        for (int i = 0; i < nv; ++i)
            v[i] = test_rng_range(&rng, -2.0, 2.0);
        cdyn_report r;
        assert_int_equal(cdyn_eval(a, da, q, v, CDYN_EVAL_ALL, &r), CDYN_OK);
        assert_int_equal(cdyn_eval(b, db, q, v, CDYN_EVAL_ALL, &r), CDYN_OK);
        err = fmax(err, rel_err(nv * nv, cdyn_data_mass(da), cdyn_data_mass(db)));
        err = fmax(err, rel_err(nv, cdyn_data_bias(da), cdyn_data_bias(db)));
        err = fmax(err, rel_err(nc, cdyn_data_gap(da), cdyn_data_gap(db)));
        for (int d = 0; d < 3; ++d)
            err = fmax(err, rel_err(nc * nv, cdyn_data_jacobian(da, (cdyn_dir)d),
                                    cdyn_data_jacobian(db, (cdyn_dir)d)));
    }
    free(q);
    free(v);
    cdyn_data_free(da);
    cdyn_data_free(db);
    return err;
}

cdyn_urdf_map *tu_load(cdyn_builder *b, const char *file, const cdyn_urdf_options *opts)
{
    char path[512];
    snprintf(path, sizeof path, "%s/urdf/%s", CDYN_TEST_DATA_DIR, file);
    cdyn_urdf_map *map = NULL;
    cdyn_report r;
    const cdyn_status st = cdyn_builder_add_urdf(b, path, opts, &map, &r);
    if (st != CDYN_OK)
        fail_msg("%s: %s: %s", file, cdyn_status_str(st), r.message);
    return map;
}

cdyn_model *tu_build(cdyn_builder *b)
{
    cdyn_model *m = NULL;
    cdyn_report r;
    if (cdyn_builder_build(b, &m, &r) != CDYN_OK)
        fail_msg("build: %s", r.message);
    return m;
}
