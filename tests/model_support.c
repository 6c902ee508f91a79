#include "model_support.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

const double TM_PENTAGON[10] = {0.04,   0,      0.012, 0.038, -0.032,
                                0.024, -0.032, -0.024, 0.012, -0.038};

cdyn_body_desc tm_free_body(double mass, double ixx, double iyy, double izz)
{
    cdyn_body_desc d;
    cdyn_body_desc_defaults(&d);
    d.mass = mass;
    d.inertia[0] = ixx;
    d.inertia[1] = iyy;
    d.inertia[2] = izz;
    return d;
}

cdyn_body_desc tm_joint(cdyn_joint_type joint, int parent, const double pos[3],
                        const double axis[3], double mass, const double com[3], double ixx,
                        double iyy, double izz)
{
    cdyn_body_desc d = tm_free_body(mass, ixx, iyy, izz);
    d.joint = joint;
    d.parent = parent;
    if (pos != NULL)
        memcpy(d.frame.pos, pos, 3 * sizeof(double));
    if (axis != NULL)
        memcpy(d.axis, axis, 3 * sizeof(double));
    if (com != NULL)
        memcpy(d.com, com, 3 * sizeof(double));
    return d;
}

cdyn_geom_desc tm_geom(int body, cdyn_geom_type type, double s0, double s1, double s2)
{
    cdyn_geom_desc g;
    cdyn_geom_desc_defaults(&g);
    g.body = body;
    g.type = type;
    g.size[0] = s0;
    g.size[1] = s1;
    g.size[2] = s2;
    return g;
}

void tm_step(const cdyn_model *m, const double *q, const double *w, double h, double *out)
{
    const int nq = cdyn_model_nq(m);
    double *qd = malloc(sizeof(double) * (size_t)nq);
    cdyn_model_qdot(m, q, w, qd, NULL);
    for (int i = 0; i < nq; ++i)
        out[i] = q[i] + h * qd[i];
    free(qd);
}

void tm_material_point(const cdyn_data *d, int body, const double loc[3], double p[3])
{
    if (body < 0) {
        memcpy(p, loc, 3 * sizeof(double));
        return;
    }
    double o[3], R[9];
    cdyn_data_body_pose(d, body, o, R);
    for (int i = 0; i < 3; ++i)
        p[i] = o[i] + R[i] * loc[0] + R[i + 3] * loc[1] + R[i + 6] * loc[2];
}

void tm_body_coords(const cdyn_data *d, int body, const double p[3], double loc[3])
{
    if (body < 0) {
        memcpy(loc, p, 3 * sizeof(double));
        return;
    }
    double o[3], R[9];
    cdyn_data_body_pose(d, body, o, R);
    for (int i = 0; i < 3; ++i)
        loc[i] =
            R[3 * i] * (p[0] - o[0]) + R[3 * i + 1] * (p[1] - o[1]) + R[3 * i + 2] * (p[2] - o[2]);
}

double tm_kinetic(const cdyn_model *m, const cdyn_data *d, const double *mass,
                  const double (*com)[3], const double (*inertia)[3])
{
    double T = 0.0;
    for (int k = 0; k < cdyn_model_nbody(m); ++k) {
        double o[3], R[9], vo[3], w[3], r[3], vc[3];
        cdyn_data_body_pose(d, k, o, R);
        cdyn_data_body_velocity(d, k, vo, w);
        for (int i = 0; i < 3; ++i)
            r[i] = R[i] * com[k][0] + R[i + 3] * com[k][1] + R[i + 6] * com[k][2];
        vc[0] = vo[0] + w[1] * r[2] - w[2] * r[1];
        vc[1] = vo[1] + w[2] * r[0] - w[0] * r[2];
        vc[2] = vo[2] + w[0] * r[1] - w[1] * r[0];
        /* body-axis angular velocity R^T w */
        double wb[3];
        for (int i = 0; i < 3; ++i)
            wb[i] = R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2];
        T += 0.5 * mass[k] * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2]);
        T += 0.5 * (inertia[k][0] * wb[0] * wb[0] + inertia[k][1] * wb[1] * wb[1] +
                    inertia[k][2] * wb[2] * wb[2]);
    }
    return T;
}

double tm_maxdiff(int n, const double *a, const double *b)
{
    double e = 0.0;
    for (int i = 0; i < n; ++i)
        e = fmax(e, fabs(a[i] - b[i]));
    return e;
}

double tm_dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void tm_qmul(const double *a, const double *b, double *c)
{
    c[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    c[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    c[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    c[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

void tm_qexp(const double *w, double *e)
{
    const double t = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    const double s = t > 0 ? sin(0.5 * t) / t : 0.5;
    e[0] = cos(0.5 * t);
    for (int i = 0; i < 3; i++)
        e[i + 1] = s * w[i];
}

int tm_verbose(void)
{
    return getenv("CDYN_TEST_VERBOSE") != NULL;
}

static double rel(double err, double ref)
{
    return err / (1.0 + fabs(ref));
}

int tm_fd_contact_rows(const cdyn_model *m, cdyn_data *d, const double *q, const double *v,
                       double eps, const tm_rows *rows, double *jac, double *gapgrad,
                       double *jdot)
{
    const int nq = cdyn_model_nq(m), nv = cdyn_model_nv(m), nc = cdyn_model_ncontact(m);
    double *qp = malloc(sizeof(double) * nq), *qm = malloc(sizeof(double) * nq);
    double *ej = calloc(nv, sizeof(double));
    double(*Pp)[6] = malloc(sizeof(double) * 6 * nc), *gp = malloc(sizeof(double) * nc);
    double *Jv = malloc(sizeof(double) * 3 * nc);
    int status = -1;
    for (int j = 0; j < nv; ++j) {
        ej[j] = 1.0;
        tm_step(m, q, ej, eps, qp);
        tm_step(m, q, ej, -eps, qm);
        ej[j] = 0.0;
        if (cdyn_eval(m, d, qp, NULL, CDYN_EVAL_CONTACTS, NULL) != CDYN_OK)
            goto done;
        for (int i = 0; i < nc; ++i) {
            tm_material_point(d, rows->ba[i], rows->la[i], Pp[i]);
            tm_material_point(d, rows->bb[i], rows->lb[i], Pp[i] + 3);
            gp[i] = cdyn_data_gap(d)[i];
        }
        if (cdyn_eval(m, d, qm, NULL, CDYN_EVAL_CONTACTS, NULL) != CDYN_OK)
            goto done;
        for (int i = 0; i < nc; ++i) {
            double Pa[3], Pb[3], dP[3];
            tm_material_point(d, rows->ba[i], rows->la[i], Pa);
            tm_material_point(d, rows->bb[i], rows->lb[i], Pb);
            for (int k = 0; k < 3; ++k)
                dP[k] = ((Pp[i][3 + k] - Pb[k]) - (Pp[i][k] - Pa[k])) / (2 * eps);
            const double *fr[3] = {rows->c[i].n, rows->c[i].t, rows->c[i].o};
            for (int k = rows->kmin; k < 3; ++k) {
                const double ref = tm_dot3(fr[k], dP);
                *jac = fmax(*jac, rel(fabs(rows->J[k][i + j * nc] - ref), ref));
            }
            const double gref = (gp[i] - cdyn_data_gap(d)[i]) / (2 * eps);
            *gapgrad = fmax(*gapgrad, rel(fabs(rows->J[0][i + j * nc] - gref), gref));
        }
    }
    /* Jacobian-dot along the trajectory */
    tm_step(m, q, v, eps, qp);
    tm_step(m, q, v, -eps, qm);
    for (int s = 0; s < 2; ++s) {
        if (cdyn_eval(m, d, s == 0 ? qp : qm, NULL, CDYN_EVAL_CONTACTS, NULL) != CDYN_OK)
            goto done;
        for (int k = 0; k < 3; ++k) {
            const double *Jk = cdyn_data_jacobian(d, (cdyn_dir)k);
            for (int i = 0; i < nc; ++i) {
                double a = 0;
                for (int j = 0; j < nv; ++j)
                    a += Jk[i + j * nc] * v[j];
                if (s == 0)
                    Jv[3 * i + k] = a;
                else {
                    const double ref = (Jv[3 * i + k] - a) / (2 * eps);
                    *jdot = fmax(*jdot, rel(fabs(rows->jd[k][i] - ref), ref));
                }
            }
        }
    }
    status = 0;
done:
    free(Jv);
    free(qp);
    free(qm);
    free(ej);
    free(Pp);
    free(gp);
    return status;
}

/* Add the bodies of a mount whose geometry sits near `center`; returns the body carrying the
 * geometry (CDYN_GROUND for TM_MOUNT_GROUND). */
int tm_add_mount(cdyn_builder *b, int dim, int mount, const double *center)
{
    const double z[3] = {0, 0, 1}, y[3] = {0, 1, 0}, x[3] = {1, 0, 0.2};
    int id = CDYN_GROUND;
    switch (mount) {
    case TM_MOUNT_FREE: {
        cdyn_body_desc f = tm_free_body(1.0, 0.01, 0.02, 0.015);
        f.frame.pos[0] = center[0];
        f.frame.pos[1] = center[1];
        f.frame.pos[2] = dim == 3 ? center[2] : 0.0;
        assert_int_equal(cdyn_builder_add_body(b, &f, &id, NULL), CDYN_OK);
        break;
    }
    case TM_MOUNT_CHAIN: {
        /* at q = 0 the last link's origin is base + (0.2, 0, 0) */
        const double base[3] = {center[0] - 0.2, center[1], dim == 3 ? center[2] : 0.0};
        const double p2[3] = {0.1, 0, 0}, p3[3] = {0.1, 0, 0};
        double xa[3] = {x[0], x[1], dim == 3 ? x[2] : 0.0};
        cdyn_body_desc l[3] = {
            tm_joint(CDYN_JOINT_REVOLUTE, 0, base, z, 0.5, NULL, 0.01, 0.01, 0.01),
            tm_joint(CDYN_JOINT_PRISMATIC, 0, p2, xa, 0.4, NULL, 0.01, 0.01, 0.01),
            tm_joint(CDYN_JOINT_REVOLUTE, 0, p3, dim == 3 ? y : z, 0.3, NULL, 0.01, 0.01, 0.01)};
        int ids[3];
        assert_int_equal(cdyn_builder_add_chain(b, CDYN_GROUND, 3, l, ids, NULL), CDYN_OK);
        id = ids[2];
        break;
    }
    case TM_MOUNT_WELDED: {
        cdyn_body_desc f = tm_free_body(1.0, 0.01, 0.02, 0.015);
        f.frame.pos[0] = center[0] - 0.03;
        f.frame.pos[1] = center[1];
        f.frame.pos[2] = dim == 3 ? center[2] : 0.0;
        int fid;
        assert_int_equal(cdyn_builder_add_body(b, &f, &fid, NULL), CDYN_OK);
        const double off[3] = {0.03, 0, 0};
        cdyn_body_desc w =
            tm_joint(CDYN_JOINT_FIXED, fid, off, NULL, 0.2, NULL, 0.001, 0.001, 0.001);
        w.frame.quat[0] = cos(0.35);
        w.frame.quat[3] = sin(0.35);
        assert_int_equal(cdyn_builder_add_body(b, &w, &id, NULL), CDYN_OK);
        break;
    }
    default:
        break;
    }
    return id;
}
