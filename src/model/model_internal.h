/* Internal: the layout of cdyn_builder, cdyn_model and cdyn_data, shared by src/model/.
 *
 * Everything is computed in 3D world coordinates; a planar model is the special case in which
 * all frames rotate about z and all positions have z = 0 (see docs/theory.md). Spatial
 * vectors are Plucker coordinates in world axes at the world origin: a motion vector is
 * (angular; linear velocity of the point at the origin), a force vector (moment about the
 * origin; force). */
#ifndef CDYN_MODEL_INTERNAL_H
#define CDYN_MODEL_INTERNAL_H

#include "cdyn/model.h"

/* A body as stored in the model. */
typedef struct mbody {
    int parent; /* -1 = ground */
    int joint;  /* cdyn_joint_type */
    int nq, nv, qadr, vadr;
    int root; /* nearest ancestor-or-self with a moving joint, -1 if none: bodies with the
                 same root move as one rigid body */
    double fpos[3], fR[9]; /* joint frame in the parent frame */
    double fquat[4];       /* its quaternion (FREE: the default pose) */
    double axis[3];        /* unit joint axis in the joint frame */
    double mass, com[3];
    double inertia[9]; /* about the COM, body axes, column-major */
    double damping;    /* viscous joint damping (1-dof joints; 0 otherwise) */
    double friction;   /* Coulomb joint friction bound (1-dof joints; 0 otherwise) */
    int limited;       /* joint limits [lower, upper] (1-dof joints) */
    double lower, upper; /* -INFINITY, INFINITY when not limited */
    double limit_restitution; /* of the limit stops, [0, 1] */
    double limit_solref[2];   /* (tau, zeta) of the stops, defaults filled in; 0 without limits */
} mbody;

typedef struct mgeom {
    int body;            /* -1 = ground */
    int type;            /* cdyn_geom_type */
    double pos[3], R[9]; /* in the body frame */
    double size[3];
    int nvert, vert0; /* POLYGON: vertices (x, y) at verts[2*vert0 ...] */
} mgeom;

/* Distributed patch kinds (patches.c, docs/theory.md, model Sec. 9). */
enum { PATCH_NONE = 0, PATCH_ROUND = 1, PATCH_FACE = 2 };

typedef struct mpair {
    int ga, gb;      /* as declared by the user */
    int kind;        /* index into the contact-function table (contacts.c) */
    int swap;        /* the table's function takes (gb, ga): results are flipped */
    int row, nrows;  /* contact rows */
    int col0, ncols; /* the pair's Jacobian columns: pair_cols[col0 .. col0+ncols) */
    int map0;        /* CSC positions of its entries: jac_map[map0 + r*ncols + k] */
    int dmap0;       /* derivative pattern positions of its column pairs: der_map[dmap0 + ...] */
    double mu, K[9], C[9], restitution, baumgarte[3], margin;
    int patch, patch_n; /* PATCH_*, n_s (1 without a patch) */
    double patch_w;     /* half-width of a round patch */
    double solref[2];   /* as declared */
    unsigned defaults;  /* CDYN_PAIR_DEFAULT_* bits (contact_defaults.c) */
    int swept;          /* the broad phase decides whether it is evaluated (broad_build.c) */
} mpair;

/* Fill the unset K, C and Baumgarte gains of the pairs of a model being built from their solref
 * (cdyn_contact_pair_desc_defaults). CDYN_EINVAL naming a pair that cannot have them;
 * CDYN_ENOMEM. */
cdyn_status cdyn_model_contact_defaults(cdyn_model *m, cdyn_report *report);

/* cdyn_data.valid bit for body poses (set by every successful eval). */
#define CDYN_VALID_KIN 256u

/* Column membership flags of a pair's Jacobian columns. */
enum { COL_IN_A = 1, COL_IN_B = 2 };

struct cdyn_model {
    const cdyn_allocator *allocator;
    int dim, nq, nv, nbody, ngeom, npair, nc;
    double gravity[3];
    mbody *bodies;
    mgeom *geoms;
    double *verts;
    mpair *pairs;
    int *dof_body;  /* nv: body owning each dof */
    int *pair_cols; /* sorted dof lists of the pairs */
    unsigned char *pair_colflags;
    int *row_pair, *row_index; /* nc */
    /* Gamma CSC pattern (nc x nv) and the position of each pair entry */
    int *jac_colptr, *jac_rowind, *jac_map;
    int jac_nnz;
    /* M CSC pattern (lower triangle, nv x nv) */
    int *mass_colptr, *mass_rowind;
    int mass_nnz;
    /* the body tree's children (CSR): child_list[child_ptr[k] .. child_ptr[k+1]) */
    int *child_ptr, *child_list;
    int max_pair_cols; /* largest ncols of a pair */
    /* Pattern of the derivatives (cdyn_eval_derivatives, nv x nv, both triangles): (i, j) when
     * the dofs lie on one root-to-leaf path or are columns of one pair. der_map[dmap0 + kc *
     * ncols + kr] is the position of (pair_cols[col0 + kr], pair_cols[col0 + kc]). A second
     * allocation of the model (der_block), built by cdyn_model_build_derivs. */
    int *der_colptr, *der_rowind, *der_map;
    unsigned char *der_tree; /* der_nnz: 1 where the dofs lie on one root-to-leaf path (the
                                tree's terms), 0 where only a pair's coupling reaches */
    int der_nnz;
    void *der_block;
    /* Broad phase (broad_build.c, broad_phase.c; docs/theory.md "Broad phase"). Pairs with a
     * finite margin between two bounded geometries are "swept": evaluated only when their
     * boxes, grown by the margin, overlap. The others (a plane, or margin INFINITY) are always
     * evaluated: bp_always lists them. Swept geometries get a slot; bp_reach[slot] is half the
     * largest margin of its pairs, bp_adj_* its pairs (CSR by slot, sorted by the other slot).
     * One allocation, bp_block. broad = 0: the builder option is off, no tables. */
    int broad;
    int bp_nalways, bp_nslot;
    int *bp_always;  /* bp_nalways pair ids */
    int *bp_geom;    /* bp_nslot: geometry of each slot */
    double *bp_reach; /* bp_nslot */
    int *bp_adj_ptr, *bp_adj_slot, *bp_adj_pair; /* bp_nslot + 1; 2 x swept pairs */
    void *bp_block;
};

/* Builder: growable arrays of what the model will hold. */
struct cdyn_builder {
    const cdyn_allocator *allocator;
    int dim;
    double gravity[3];
    mbody *bodies;
    int nbody, cap_body;
    mgeom *geoms;
    int ngeom, cap_geom;
    double *verts;
    int nvert, cap_vert;
    mpair *pairs;
    int npair, cap_pair;
    int broad_phase; /* cdyn_builder_options.broad_phase */
};

/* Per-body results of forward kinematics. */
typedef struct dbody {
    double R[9], o[3]; /* world rotation and origin of the body frame */
    double c[3];       /* world centre of mass */
    double V[6];       /* spatial velocity (w; v at the world origin) */
    double A[6];       /* spatial acceleration with vdot = 0 and no gravity (velocity product) */
    /* spatial inertia at the world origin: mass, first moment m c, 3x3 rotational part */
    double m, h[3], I[9];
    /* composite inertia (CRBA) and force (RNEA) */
    double cm, ch[3], cI[9];
    double f[6];
} dbody;

struct cdyn_data {
    const cdyn_model *model;
    const cdyn_allocator *allocator;
    int dense;
    unsigned valid; /* CDYN_EVAL_* bits of the last successful eval */
    int has_v;
    double *v; /* nv: the v of the last eval (when has_v) */
    dbody *bodies;
    double *S;               /* 6 x nv: world motion subspace column of each dof */
    double *M;               /* nv x nv (dense) or NULL */
    double *mass_values;     /* mass_nnz */
    double *bias;            /* nv */
    double *gap;             /* nc */
    int *active;             /* nc */
    double *pa, *pb, *frame; /* 3 nc, 3 nc, 9 nc (n, t, o) */
    double *jac_values[3];   /* jac_nnz each */
    double *jac_dense[3];    /* nc x nv each, or NULL */
    double *jdot[3];         /* nc each */
    /* cdyn_eval_derivatives (derivs.c, contact_derivs.c) */
    unsigned der_valid;      /* nonzero after a successful cdyn_eval_derivatives */
    double *id;              /* nv: M a + bias - Gamma' lambda */
    double *der_q, *der_v;   /* der_nnz each: d id/dq G and d id/dv */
    double *der_q_dense, *der_v_dense; /* nv x nv each, or NULL */
    double *jac_dq_v[3];     /* jac_nnz each: d(Gamma_d v)/dq G, in Gamma's pattern */
    double *jac_dq_v_dense[3]; /* nc x nv each, or NULL */
    double *dscr;            /* body and pair scratch of the derivatives */
    int *dstack;             /* nbody: subtree traversal */
    /* broad phase (broad_phase.c), when model->broad */
    double *bp_box;          /* 6 per slot: lo[3], hi[3] at the last broad phase */
    double *bp_key;          /* per slot: grown lower bound along bp_axis */
    int *bp_order;           /* slots sorted by bp_key (kept between evals) */
    int bp_axis;             /* sweep axis, -1 before the first sort */
    int *bp_cand, *bp_dirty; /* npair each: candidates now; swept pairs whose rows hold values */
    int bp_ndirty;
    unsigned char *bp_state; /* npair: BP_DIRTY, BP_CAND bits */
    int bp_last;             /* candidates of the last broad phase (statistics) */
};

enum { BP_DIRTY = 1, BP_CAND = 2 };

/* ---- internal functions of src/model/ ---- */

/* kinematics.c: poses, motion subspaces, velocities (V = NULL: zero) and bias accelerations. */
void cdyn_model_forward_kinematics(const cdyn_model *m, cdyn_data *d, const double *q,
                                   const double *v);
/* chains.c */
void cdyn_model_crba(const cdyn_model *m, cdyn_data *d);
void cdyn_model_rnea(const cdyn_model *m, cdyn_data *d);
/* joint_damping.c: out[j] += d_j v_j for the damped dofs (the bias and the inverse dynamics),
 * and d_j added on the diagonal of d id/dv (d->der_v). */
void cdyn_model_damping_force(const cdyn_model *m, const double *v, double *out);
void cdyn_model_damping_dv(const cdyn_model *m, cdyn_data *d);
/* contact_rows.c: points, frames, Jacobians and (with_dot) Jacobian-dot terms of every pair, or
 * of the pairs with pairs[p] != 0 (the others' rows keep their values). */
void cdyn_model_contacts(const cdyn_model *m, cdyn_data *d, int with_dot, const int *pairs);
/* One pair's rows, and the dense copies of the Jacobians (when the data keeps them). */
void cdyn_model_contact_pair(const cdyn_model *m, cdyn_data *d, int pair, int with_dot);
void cdyn_model_contacts_dense(const cdyn_model *m, cdyn_data *d);

/* broad_build.c: the broad-phase tables of a model being built (m->bp_block). CDYN_ENOMEM. */
cdyn_status cdyn_model_build_broad(cdyn_model *m, cdyn_report *report);
/* broad_phase.c: every pair's rows with the broad phase (always-pairs, then the candidates);
 * swept pairs that are not candidates get the rows of a pair beyond its margin. */
void cdyn_model_contacts_broad(const cdyn_model *m, cdyn_data *d, int with_dot);
/* Rows of swept pair p as "not evaluated": active 0, gap just above the margin, zero Jacobian
 * entries and Jacobian-dot terms. */
void cdyn_model_pair_far(const cdyn_model *m, cdyn_data *d, int pair);
/* Record that swept pair p's rows hold evaluated values (to be reset when it leaves). Inline:
 * contact_rows.c calls it, and broad_phase.c calls contact_rows.c. */
static inline void cdyn_model_mark_dirty(cdyn_data *d, int pair)
{
    if (!(d->bp_state[pair] & BP_DIRTY)) {
        d->bp_state[pair] |= BP_DIRTY;
        d->bp_dirty[d->bp_ndirty++] = pair;
    }
}

/* builder.c: what cdyn_builder_add_contact_pair checks and builds, for the pair groups. */
cdyn_status cdyn_builder_check_pair_params(const cdyn_contact_pair_desc *d, cdyn_report *report);
int cdyn_builder_same_body(const cdyn_builder *b, int geom_a, int geom_b);
cdyn_status cdyn_builder_make_pair(const cdyn_builder *b, const cdyn_contact_pair_desc *d,
                                   int geom_a, int geom_b, mpair *p, cdyn_report *report);
cdyn_status cdyn_builder_grow_pairs(cdyn_builder *b, int need, cdyn_report *report);

/* build_derivs.c: children lists are laid out by build.c; this adds the derivative pattern and
 * der_map (m->der_block). CDYN_ENOMEM / CDYN_ETOOBIG. */
cdyn_status cdyn_model_build_derivs(cdyn_model *m, cdyn_report *report);
/* Doubles of derivative scratch a data object needs (derivs.c): per body first, then a pair's. */
#define CDYN_DERIV_BODY_SCRATCH 48
size_t cdyn_model_deriv_scratch(const cdyn_model *m);
/* Linear dofs of a free body. */
static inline int cdyn_model_free_nlin(const cdyn_model *m)
{
    return m->dim == 3 ? 3 : 2;
}

/* Whether dof j is a linear dof of a free body. */
static inline int cdyn_model_free_linear(const cdyn_model *m, int j)
{
    const mbody *b = &m->bodies[m->dof_body[j]];
    return b->joint == CDYN_JOINT_FREE && j - b->vadr < cdyn_model_free_nlin(m);
}

/* d S_i / ds along G e_j for dofs i, j on one path (zero unless i's body is j's or below it):
 * S_j x_m S_i below j's body; on a free body the angular columns (e; o x e) follow o only, so a
 * linear dof turns them by (0; e_j x e). (Inline: the contact derivatives call it per entry.) */
static inline void cdyn_model_sdot(const cdyn_model *m, const cdyn_data *d, int j, int i,
                                   double *r)
{
    const double *Sj = d->S + 6 * (size_t)j, *Si = d->S + 6 * (size_t)i;
    r[0] = r[1] = r[2] = r[3] = r[4] = r[5] = 0.0;
    if (m->dof_body[i] > m->dof_body[j]) {
        r[0] = Sj[1] * Si[2] - Sj[2] * Si[1]; /* S_j x_m S_i (spatial.h's sp_cross_m) */
        r[1] = Sj[2] * Si[0] - Sj[0] * Si[2];
        r[2] = Sj[0] * Si[1] - Sj[1] * Si[0];
        r[3] = Sj[1] * Si[5] - Sj[2] * Si[4] + Sj[4] * Si[2] - Sj[5] * Si[1];
        r[4] = Sj[2] * Si[3] - Sj[0] * Si[5] + Sj[5] * Si[0] - Sj[3] * Si[2];
        r[5] = Sj[0] * Si[4] - Sj[1] * Si[3] + Sj[3] * Si[1] - Sj[4] * Si[0];
    } else if (m->dof_body[i] == m->dof_body[j] && cdyn_model_free_linear(m, j) &&
               !cdyn_model_free_linear(m, i)) {
        r[3] = Sj[4] * Si[2] - Sj[5] * Si[1]; /* (0; e_j x e_i) */
        r[4] = Sj[5] * Si[0] - Sj[3] * Si[2];
        r[5] = Sj[3] * Si[1] - Sj[4] * Si[0];
    }
}
/* contact_derivs.c: d(Gamma_d v)/dq G into d->jac_dq_v (rows with rows[row] != 0, or all when
 * rows is NULL), -Gamma' lambda added to d->id and -d(Gamma' lambda)/dq G to d->der_q (lambda:
 * nc x 3, or NULL). */
void cdyn_model_contact_derivs(const cdyn_model *m, cdyn_data *d, const double *lambda,
                               const int *rows);

/* contacts.c: the contact-function table. */
int cdyn_model_pair_kind(int dim, int type_a, int type_b, int *swap);
int cdyn_model_pair_max_points(int kind, const mgeom *ga, const mgeom *gb, int swap);
/* Names of the supported pairs for messages ("plane-sphere, ..."). */
const char *cdyn_model_pair_list(int dim);

/* patches.c: which pairs take a patch, and its element count (n^2 in 3D, n in 2D). */
int cdyn_model_patch_kind(int dim, int type_a, int type_b);
int cdyn_model_patch_elements(int dim, int n);
const char *cdyn_model_patch_list(int dim);

/* model.c */
const char *cdyn_model_joint_name(int joint);
const char *cdyn_model_geom_name(int type);

#endif
