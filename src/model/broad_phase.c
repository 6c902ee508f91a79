/* The broad phase of cdyn_eval (docs/theory.md, "Broad phase"): axis-aligned boxes of the swept
 * geometries at the current kinematics, sweep and prune along one axis (slots kept sorted
 * between evaluations, re-sorted by insertion: O(n + swaps) when the scene moves little), the
 * exact box test of each pair with its own margin, then the narrow phase on the always-pairs and
 * the candidates. A swept pair that is not a candidate has a gap larger than its margin (its
 * boxes are farther apart than that), so it is inactive as an evaluation would find it; its rows
 * are reset only when it stops being a candidate. No allocation: the buffers are the data's. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model/contacts.h"

/* Relative slack of the boxes: they must contain the geometry as the narrow phase computes it,
 * to rounding. A box too large only adds a candidate that the narrow phase finds inactive. */
#define BOX_SLACK 1e-12

/* The world box (lo[3], hi[3]) of geometry gi at the data's kinematics. */
static void geom_box(const cdyn_model *m, const cdyn_data *d, int gi, double *box)
{
    gstate s;
    cdyn_geom_state(m, d, gi, NULL, &s);
    const mgeom *g = s.g;
    const double *R = s.R, *c = s.c, *sz = g->size; /* column j of R: local axis j */
    double e[3] = {0, 0, 0}, *lo = box, *hi = box + 3;
    for (int k = 0; k < 3; ++k) {
        switch (g->type) {
        case CDYN_GEOM_SPHERE:
        case CDYN_GEOM_CIRCLE: e[k] = sz[0]; break;
        case CDYN_GEOM_CAPSULE: e[k] = fabs(R[k]) * sz[1] + sz[0]; break;
        case CDYN_GEOM_BOX:
            e[k] = fabs(R[k]) * sz[0] + fabs(R[3 + k]) * sz[1] + fabs(R[6 + k]) * sz[2];
            break;
        case CDYN_GEOM_RECTANGLE: e[k] = fabs(R[k]) * sz[0] + fabs(R[3 + k]) * sz[1]; break;
        case CDYN_GEOM_ELLIPSE: e[k] = hypot(R[k] * sz[0], R[3 + k] * sz[1]); break;
        case CDYN_GEOM_ARC: e[k] = sz[1] + sz[0]; break; /* the whole ring */
        default: e[k] = 0.0; break;                      /* point; polygon below */
        }
        lo[k] = c[k] - e[k];
        hi[k] = c[k] + e[k];
    }
    if (g->type == CDYN_GEOM_POLYGON)
        for (int v = 0; v < g->nvert; ++v) {
            const double *x = m->verts + 2 * (size_t)(g->vert0 + v);
            for (int k = 0; k < 3; ++k) {
                const double p = c[k] + R[k] * x[0] + R[3 + k] * x[1];
                lo[k] = fmin(lo[k], p);
                hi[k] = fmax(hi[k], p);
            }
        }
    double scale = 1.0;
    for (int k = 0; k < 3; ++k)
        scale = fmax(scale, fmax(fabs(lo[k]), fabs(hi[k])));
    for (int k = 0; k < 3; ++k) {
        lo[k] -= BOX_SLACK * scale;
        hi[k] += BOX_SLACK * scale;
    }
}

/* The axis with the largest spread of the box centres; the current one is kept unless another
 * spreads twice as much (each change costs a full sort). */
static int choose_axis(const cdyn_model *m, const cdyn_data *d, int nax)
{
    const int ns = m->bp_nslot;
    double var[3] = {0, 0, 0};
    for (int k = 0; k < nax; ++k) {
        double mean = 0.0, sq = 0.0;
        for (int s = 0; s < ns; ++s)
            mean += 0.5 * (d->bp_box[6 * s + k] + d->bp_box[6 * s + 3 + k]);
        mean /= ns;
        for (int s = 0; s < ns; ++s) {
            const double x = 0.5 * (d->bp_box[6 * s + k] + d->bp_box[6 * s + 3 + k]) - mean;
            sq += x * x;
        }
        var[k] = sq;
    }
    int best = 0;
    for (int k = 1; k < nax; ++k)
        if (var[k] > var[best])
            best = k;
    if (d->bp_axis >= 0 && !(var[best] > 2.0 * var[d->bp_axis]))
        return d->bp_axis;
    return best;
}

static void sift_down(int *a, const double *key, int root, int n)
{
    for (;;) {
        int child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && key[a[child + 1]] > key[a[child]])
            child++;
        if (!(key[a[child]] > key[a[root]]))
            return;
        const int t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

/* In place, O(n log n): after a change of axis. */
static void heap_sort(int *a, const double *key, int n)
{
    for (int i = n / 2 - 1; i >= 0; --i)
        sift_down(a, key, i, n);
    for (int end = n - 1; end > 0; --end) {
        const int t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, key, 0, end);
    }
}

/* O(n + swaps): the order of the last evaluation is nearly sorted. */
static void insertion_sort(int *a, const double *key, int n)
{
    for (int i = 1; i < n; ++i) {
        const int x = a[i];
        const double kx = key[x];
        int j = i - 1;
        while (j >= 0 && key[a[j]] > kx) {
            a[j + 1] = a[j];
            --j;
        }
        a[j + 1] = x;
    }
}

/* Whether boxes A and B lie within `margin` of each other along every axis. */
static int within(const double *A, const double *B, double margin, int nax)
{
    for (int k = 0; k < nax; ++k)
        if (B[k] - A[3 + k] > margin || A[k] - B[3 + k] > margin)
            return 0;
    return 1;
}

/* The pairs of slots a and b whose boxes are within their margins join the candidates. */
static int add_pairs(const cdyn_model *m, cdyn_data *d, int a, int b, int nax, int ncand)
{
    const int *ptr = m->bp_adj_ptr;
    if (ptr[a + 1] - ptr[a] > ptr[b + 1] - ptr[b]) { /* search the shorter list */
        const int t = a;
        a = b;
        b = t;
    }
    int lo = ptr[a], hi = ptr[a + 1];
    while (lo < hi) { /* first entry of a's list with other slot >= b */
        const int mid = lo + (hi - lo) / 2;
        if (m->bp_adj_slot[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    const double *A = d->bp_box + 6 * (size_t)a, *B = d->bp_box + 6 * (size_t)b;
    for (int e = lo; e < ptr[a + 1] && m->bp_adj_slot[e] == b; ++e) {
        const int p = m->bp_adj_pair[e];
        if (within(A, B, m->pairs[p].margin, nax)) {
            d->bp_cand[ncand++] = p;
            d->bp_state[p] |= BP_CAND;
        }
    }
    return ncand;
}

/* Sweep and prune over the slots: the candidate pairs into d->bp_cand; returns their count. */
static int sweep(const cdyn_model *m, cdyn_data *d, int nax)
{
    const int ns = m->bp_nslot;
    if (ns == 0)
        return 0;
    for (int s = 0; s < ns; ++s)
        geom_box(m, d, m->bp_geom[s], d->bp_box + 6 * (size_t)s);
    const int ax = choose_axis(m, d, nax);
    const double *reach = m->bp_reach;
    for (int s = 0; s < ns; ++s)
        d->bp_key[s] = d->bp_box[6 * s + ax] - reach[s];
    if (ax != d->bp_axis)
        heap_sort(d->bp_order, d->bp_key, ns);
    else
        insertion_sort(d->bp_order, d->bp_key, ns);
    d->bp_axis = ax;
    int ncand = 0;
    for (int i = 0; i < ns; ++i) {
        const int a = d->bp_order[i];
        const double *A = d->bp_box + 6 * (size_t)a;
        const double end = A[3 + ax] + reach[a];
        for (int j = i + 1; j < ns; ++j) {
            const int b = d->bp_order[j];
            if (d->bp_key[b] > end)
                break;
            const double *B = d->bp_box + 6 * (size_t)b, rr = reach[a] + reach[b];
            int overlap = 1;
            for (int k = 0; k < nax && overlap; ++k)
                if (k != ax && (B[k] - A[3 + k] > rr || A[k] - B[3 + k] > rr))
                    overlap = 0;
            if (overlap)
                ncand = add_pairs(m, d, a, b, nax, ncand);
        }
    }
    return ncand;
}

void cdyn_model_pair_far(const cdyn_model *m, cdyn_data *d, int pi)
{
    const mpair *pr = &m->pairs[pi];
    const double far = nextafter(pr->margin, INFINITY);
    for (int r = 0; r < pr->nrows; ++r) {
        const int row = pr->row + r;
        d->gap[row] = far;
        d->active[row] = 0;
        for (int dir = 0; dir < 3; ++dir) {
            d->jdot[dir][row] = 0.0;
            for (int k = 0; k < pr->ncols; ++k)
                d->jac_values[dir][m->jac_map[pr->map0 + r * pr->ncols + k]] = 0.0;
        }
    }
}

void cdyn_model_contacts_broad(const cdyn_model *m, cdyn_data *d, int with_dot)
{
    const int nax = m->dim == 2 ? 2 : 3;
    for (int i = 0; i < m->bp_nalways; ++i)
        cdyn_model_contact_pair(m, d, m->bp_always[i], with_dot);
    const int ncand = sweep(m, d, nax);
    /* pairs whose rows hold values from an evaluation and that are no candidates now */
    for (int i = 0; i < d->bp_ndirty; ++i) {
        const int p = d->bp_dirty[i];
        if (!(d->bp_state[p] & BP_CAND)) {
            cdyn_model_pair_far(m, d, p);
            d->bp_state[p] = 0;
        }
    }
    for (int i = 0; i < ncand; ++i) {
        const int p = d->bp_cand[i];
        cdyn_model_contact_pair(m, d, p, with_dot);
        d->bp_state[p] = BP_DIRTY;
    }
    int *t = d->bp_dirty; /* the candidates are the dirty pairs now */
    d->bp_dirty = d->bp_cand;
    d->bp_cand = t;
    d->bp_ndirty = ncand;
    d->bp_last = m->bp_nalways + ncand;
    cdyn_model_contacts_dense(m, d);
}
