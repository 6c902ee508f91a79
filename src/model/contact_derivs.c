/* Derivatives of the contact terms along the tangent directions G(q) e_j (cdyn_eval_derivatives).
 *
 * For a row with points pa, pb and direction d in {n, t, o}, Gamma_d(q) u = d . (u_b(pb) -
 * u_a(pa)), u_k(p) = U_k,lin + U_k,ang x p with U_k = sum S_i u_i over the dofs moving body k.
 * Moving q along G e_j changes d, the points and the S_i; the bilinear form
 *   B_d(j, i) = d/ds [Gamma_d e_i] = d'_j . dv_i + d . sum_k +-(Sdot_ij,lin + Sdot_ij,ang x p_k
 *                                                              + S_i,ang x p'_k,j)
 * (dv_i = S_i(pb) - S_i(pa) on the sides i moves, Sdot_ij = d S_i/ds from cdyn_model_sdot on the
 * sides both move, p'_k,j and d'_j the rates of the points and the frame) takes the rates from
 * the pair's own contact function run with the motion S_j instead of the bodies' velocities:
 * every geometry pair and patch gets its derivative from the code that already differentiates
 * it in time. Then d(Gamma_d v)/dq G e_j = sum_i B_d(j, i) v_i and d(Gamma' lambda)_i/dq G e_j =
 * sum_d lambda_d B_d(j, i). Derivation: docs/theory.md, "Model derivatives". */
#include <string.h>

#include "model/contacts.h"
#include "model/spatial.h"

/* The rates a row needs from one direction's run: points of the row (c) and of its normal row
 * (cn), and the frame. */
typedef struct row_rates {
    double dpa[3], dpb[3], dpan[3], dpbn[3], dfr[9];
} row_rates;

/* S_i at p on the sides flags says i moves: S_i(pb) - S_i(pa). */
static void point_delta(const double *S, unsigned flags, const double *pa, const double *pb,
                        double *delta)
{
    double va[3];
    v3_set(delta, 0, 0, 0);
    if (flags & COL_IN_B)
        sp_point_vel(delta, S, pb);
    if (flags & COL_IN_A) {
        sp_point_vel(va, S, pa);
        v3_sub(delta, delta, va);
    }
}

/* One side's term of B: Sdot_lin + Sdot_ang x p (when j and i both move it) + S_i,ang x p'. */
static void side_acc(const cdyn_model *m, const cdyn_data *d, int j, int i, int both, int i_moves,
                     const double *p, const double *pd, double *acc)
{
    v3_set(acc, 0, 0, 0);
    if (both) {
        double D[6];
        cdyn_model_sdot(m, d, j, i, D);
        v3_copy(acc, D + 3);
        v3_cross_add(acc, D, p);
    }
    if (i_moves)
        v3_cross_add(acc, d->S + 6 * (size_t)i, pd);
}

/* B (3 ncols^2, B[dir][k + l ncols] for direction column k, column l) of row r of pair pr. */
static void row_forms(const cdyn_model *m, cdyn_data *d, const mpair *pr, int r, double *B,
                      row_rates *rates)
{
    static const double zero[6] = {0, 0, 0, 0, 0, 0};
    const int nk = pr->ncols;
    const int *cols = m->pair_cols + pr->col0;
    const unsigned char *flags = m->pair_colflags + pr->col0;
    gstate ga, gb;
    cpoint c, cn;
    double fr[9], dfr[9];
    cdyn_geom_state(m, d, pr->ga, NULL, &ga);
    cdyn_geom_state(m, d, pr->gb, NULL, &gb);
    cdyn_pair_row(m, pr, &ga, &gb, r, &c, &cn, fr, dfr);
    for (int k = 0; k < nk; ++k) {
        const double *Sj = d->S + 6 * (size_t)cols[k];
        cpoint ck, cnk;
        double frk[9];
        cdyn_geom_state(m, d, pr->ga, (flags[k] & COL_IN_A) ? Sj : zero, &ga);
        cdyn_geom_state(m, d, pr->gb, (flags[k] & COL_IN_B) ? Sj : zero, &gb);
        cdyn_pair_row(m, pr, &ga, &gb, r, &ck, &cnk, frk, rates[k].dfr);
        v3_copy(rates[k].dpa, ck.dpa);
        v3_copy(rates[k].dpb, ck.dpb);
        v3_copy(rates[k].dpan, cnk.dpa);
        v3_copy(rates[k].dpbn, cnk.dpb);
    }
    /* The normal row uses the points cn, the tangential rows c; they differ only in round
     * patches. One pass per set of points: its B entries for the directions that use it. */
    const int split = pr->patch == PATCH_ROUND;
    for (int set = 0; set <= split; ++set) {
        const cpoint *p = set == 0 ? &c : &cn;
        const int d0 = set == 0 && split ? 1 : set == 1 ? 0 : 0, d1 = set == 1 ? 0 : 2;
        for (int l = 0; l < nk; ++l) {
            const int i = cols[l];
            double dv[3];
            point_delta(d->S + 6 * (size_t)i, flags[l], p->pa, p->pb, dv);
            for (int k = 0; k < nk; ++k) {
                const int j = cols[k];
                const row_rates *rk = &rates[k];
                const double *pda = set == 1 ? rk->dpan : rk->dpa;
                const double *pdb = set == 1 ? rk->dpbn : rk->dpb;
                double ab[3], aa[3], da[3];
                side_acc(m, d, j, i, (flags[k] & flags[l] & COL_IN_B) != 0,
                         (flags[l] & COL_IN_B) != 0, p->pb, pdb, ab);
                side_acc(m, d, j, i, (flags[k] & flags[l] & COL_IN_A) != 0,
                         (flags[l] & COL_IN_A) != 0, p->pa, pda, aa);
                v3_sub(da, ab, aa);
                for (int dir = d0; dir <= d1; ++dir)
                    B[(size_t)dir * nk * nk + k + (size_t)l * nk] =
                        v3_dot(rk->dfr + 3 * dir, dv) + v3_dot(fr + 3 * dir, da);
            }
        }
    }
}

void cdyn_model_contact_derivs(const cdyn_model *m, cdyn_data *d, const double *lambda,
                               const int *rows)
{
    const int mc = m->max_pair_cols;
    double *B = d->dscr + CDYN_DERIV_BODY_SCRATCH * (size_t)m->nbody;
    row_rates *rates = (row_rates *)(void *)(B + 3 * (size_t)mc * mc);
    for (int dir = 0; dir < 3; ++dir)
        memset(d->jac_dq_v[dir], 0, (size_t)m->jac_nnz * sizeof(double));
    for (int pi = 0; pi < m->npair; ++pi) {
        const mpair *pr = &m->pairs[pi];
        const int nk = pr->ncols;
        const int *cols = m->pair_cols + pr->col0;
        for (int r = 0; r < pr->nrows; ++r) {
            const int row = pr->row + r;
            const double *lam = lambda != NULL ? lambda + 3 * (size_t)row : NULL;
            const int loaded = lam != NULL && (lam[0] != 0 || lam[1] != 0 || lam[2] != 0);
            const int wanted = rows == NULL || rows[row] != 0;
            if (!loaded && !wanted)
                continue;
            row_forms(m, d, pr, r, B, rates);
            if (wanted)
                for (int k = 0; k < nk; ++k) {
                    const int pos = m->jac_map[pr->map0 + r * nk + k];
                    for (int dir = 0; dir < 3; ++dir) {
                        double acc = 0;
                        for (int l = 0; l < nk; ++l)
                            acc += B[(size_t)dir * nk * nk + k + (size_t)l * nk] * d->v[cols[l]];
                        d->jac_dq_v[dir][pos] = acc;
                    }
                }
            if (!loaded)
                continue;
            for (int l = 0; l < nk; ++l) {
                const int pos = m->jac_map[pr->map0 + r * nk + l];
                for (int dir = 0; dir < 3; ++dir)
                    d->id[cols[l]] -= lam[dir] * d->jac_values[dir][pos];
            }
            for (int k = 0; k < nk; ++k)
                for (int l = 0; l < nk; ++l) {
                    double acc = 0;
                    for (int dir = 0; dir < 3; ++dir)
                        acc += lam[dir] * B[(size_t)dir * nk * nk + k + (size_t)l * nk];
                    d->der_q[m->der_map[pr->dmap0 + k * nk + l]] -= acc;
                }
        }
    }
    if (d->jac_dq_v_dense[0] != NULL) {
        const size_t nc = (size_t)m->nc;
        for (int dir = 0; dir < 3; ++dir) {
            double *J = d->jac_dq_v_dense[dir];
            memset(J, 0, sizeof(double) * nc * (size_t)m->nv);
            for (int j = 0; j < m->nv; ++j)
                for (int p = m->jac_colptr[j]; p < m->jac_colptr[j + 1]; ++p)
                    J[(size_t)m->jac_rowind[p] + (size_t)j * nc] = d->jac_dq_v[dir][p];
        }
    }
}
