/* Forward kinematics of the body tree in world coordinates: body poses, the world motion
 * subspace S_j of every dof, spatial velocities V_k = V_parent + S_k qdot_k, and the velocity
 * product terms of the spatial accelerations, A_k = A_parent + Sdot_k qdot_k (the acceleration
 * at vdot = 0, without gravity). Equations: docs/theory.md, "Kinematics". */
#include <math.h>
#include <string.h>

#include "model/model_internal.h"
#include "model/spatial.h"

void cdyn_model_forward_kinematics(const cdyn_model *m, cdyn_data *d, const double *q,
                                   const double *v)
{
    for (int k = 0; k < m->nbody; ++k) {
        const mbody *b = &m->bodies[k];
        dbody *db = &d->bodies[k];
        double Rp[9], op[3], Vp[6], Ap[6];
        if (b->parent < 0) {
            m3_identity(Rp);
            memset(op, 0, sizeof(op));
            memset(Vp, 0, sizeof(Vp));
            memset(Ap, 0, sizeof(Ap));
        } else {
            const dbody *pb = &d->bodies[b->parent];
            memcpy(Rp, pb->R, sizeof(Rp));
            memcpy(op, pb->o, sizeof(op));
            memcpy(Vp, pb->V, sizeof(Vp));
            memcpy(Ap, pb->A, sizeof(Ap));
        }
        double *S = d->S + 6 * (size_t)b->vadr;
        const double *qb = q + b->qadr;
        const double *vb = v != NULL ? v + b->vadr : NULL;
        memcpy(db->V, Vp, sizeof(Vp));
        memcpy(db->A, Ap, sizeof(Ap));
        if (b->joint == CDYN_JOINT_FREE) {
            /* Parent is the ground. S maps (odot, w) to (w; odot + o x w). */
            if (m->dim == 3) {
                double e[4];
                const double ne = sqrt(quat_norm2(qb + 3));
                for (int i = 0; i < 4; ++i)
                    e[i] = qb[3 + i] / ne;
                quat_to_mat(db->R, e);
                v3_copy(db->o, qb);
            } else {
                rot_z(db->R, qb[2]);
                v3_set(db->o, qb[0], qb[1], 0.0);
            }
            const int nlin = m->dim == 3 ? 3 : 2;
            memset(S, 0, sizeof(double) * 6 * (size_t)b->nv);
            for (int i = 0; i < nlin; ++i)
                S[6 * i + 3 + i] = 1.0;
            for (int i = 0; i < b->nv - nlin; ++i) {
                double *Si = S + 6 * (nlin + i);
                const int axis = m->dim == 3 ? i : 2;
                Si[axis] = 1.0;
                v3_cross(Si + 3, db->o, Si);
            }
            if (vb != NULL) {
                double od[3] = {0, 0, 0}, w[3] = {0, 0, 0};
                for (int i = 0; i < nlin; ++i)
                    od[i] = vb[i];
                if (m->dim == 3)
                    v3_copy(w, vb + 3);
                else
                    w[2] = vb[2];
                v3_copy(db->V, w);
                v3_copy(db->V + 3, od);
                v3_cross_add(db->V + 3, db->o, w);
                /* Sdot qdot = (0; odot x w) */
                memset(db->A, 0, 3 * sizeof(double));
                v3_cross(db->A + 3, od, w);
            }
        } else {
            double Rj[9], x[3];
            m3_mul(Rj, Rp, b->fR);
            m3_mul_v(x, Rp, b->fpos);
            x[0] += op[0];
            x[1] += op[1];
            x[2] += op[2];
            double a[3];
            m3_mul_v(a, Rj, b->axis);
            if (b->joint == CDYN_JOINT_REVOLUTE) {
                double Rq[9];
                axis_angle_to_mat(Rq, b->axis, qb[0]);
                m3_mul(db->R, Rj, Rq);
                v3_copy(db->o, x);
                v3_copy(S, a);
                v3_cross(S + 3, x, a);
            } else if (b->joint == CDYN_JOINT_PRISMATIC) {
                memcpy(db->R, Rj, sizeof(Rj));
                v3_axpy(db->o, x, qb[0], a);
                memset(S, 0, 3 * sizeof(double));
                v3_copy(S + 3, a);
            } else {
                memcpy(db->R, Rj, sizeof(Rj));
                v3_copy(db->o, x);
            }
            if (vb != NULL && b->nv == 1) {
                double Sq[6], c[6];
                for (int i = 0; i < 6; ++i)
                    Sq[i] = S[i] * vb[0];
                for (int i = 0; i < 6; ++i)
                    db->V[i] += Sq[i];
                sp_cross_m(c, Vp, Sq); /* Sdot qdot = V_parent x_m (S qdot) */
                for (int i = 0; i < 6; ++i)
                    db->A[i] += c[i];
            }
        }
        /* Spatial inertia at the origin. */
        double Ic[9], c[3];
        m3_mul_v(c, db->R, b->com);
        v3_add(db->c, db->o, c);
        m3_congruence(Ic, db->R, b->inertia);
        db->m = b->mass;
        v3_scale(db->h, b->mass, db->c);
        const double cc = v3_dot(db->c, db->c);
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                db->I[i + 3 * j] =
                    Ic[i + 3 * j] + b->mass * ((i == j ? cc : 0.0) - db->c[i] * db->c[j]);
    }
}
