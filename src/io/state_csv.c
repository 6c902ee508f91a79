/* cdyn_recorder: states as CSV lines (t, q, v, delta, lambda, modes; then, for models with joint
 * limits only, the limit rows' deformations, forces and modes). Numbers are written with
 * "%.17g" in the C locale's format regardless of the process locale (the decimal point is
 * replaced when a host locale uses a comma). */
#include "cdyn/step.h"

#include "core/memory.h"
#include "core/report.h"
#include "io/file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct cdyn_recorder {
    FILE *f;
    int nq, nv, nc, nl;
    int failed; /* a write failed: reported by close */
    int err;
};

static void put_number(cdyn_recorder *rec, double x)
{
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", x);
    for (char *c = buf; *c != '\0'; c++)
        if (*c == ',')
            *c = '.';
    if (fputs(buf, rec->f) < 0) {
        rec->failed = 1;
        rec->err = errno;
    }
}

static void put_text(cdyn_recorder *rec, const char *text)
{
    if (fputs(text, rec->f) < 0) {
        rec->failed = 1;
        rec->err = errno;
    }
}

static void put_names(cdyn_recorder *rec, const char *prefix, int n)
{
    char buf[48];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, ",%s%d", prefix, i);
        put_text(rec, buf);
    }
}

cdyn_status cdyn_recorder_open(const cdyn_model *model, const char *path, cdyn_recorder **out,
                               cdyn_report *report)
{
    cdyn_report_clear(report, "recorder");
    if (out == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_recorder_open: out is NULL");
    *out = NULL;
    if (model == NULL || path == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_recorder_open: NULL model or path");
    cdyn_recorder *rec = cdyn_mem_alloc(NULL, sizeof *rec);
    if (rec == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "cdyn_recorder_open: out of memory");
    rec->f = fopen(path, "w");
    if (rec->f == NULL) {
        char buf[128];
        int err = errno;
        cdyn_mem_free(NULL, rec);
        return cdyn_fail(report, CDYN_EIO, "cannot write '%s': %s", cdyn_io_path_tail(path),
                         cdyn_io_errno_text(err, buf, sizeof buf));
    }
    rec->nq = cdyn_model_nq(model);
    rec->nv = cdyn_model_nv(model);
    rec->nc = cdyn_model_ncontact(model);
    rec->failed = 0;
    rec->err = 0;
    put_text(rec, "t");
    put_names(rec, "q", rec->nq);
    put_names(rec, "v", rec->nv);
    static const char *const dn[3] = {"delta_n", "delta_t", "delta_o"};
    static const char *const ln[3] = {"lambda_n", "lambda_t", "lambda_o"};
    char buf[48];
    for (int i = 0; i < rec->nc; i++)
        for (int d = 0; d < 3; d++) {
            snprintf(buf, sizeof buf, ",%s%d", dn[d], i);
            put_text(rec, buf);
        }
    for (int i = 0; i < rec->nc; i++)
        for (int d = 0; d < 3; d++) {
            snprintf(buf, sizeof buf, ",%s%d", ln[d], i);
            put_text(rec, buf);
        }
    put_names(rec, "mode", rec->nc);
    rec->nl = cdyn_model_limit_rows(model);
    put_names(rec, "limit_delta", rec->nl);
    put_names(rec, "limit_lambda", rec->nl);
    put_names(rec, "limit_mode", rec->nl);
    put_text(rec, "\n");
    *out = rec;
    return CDYN_OK;
}

static void put_list(cdyn_recorder *rec, int n, const double *x)
{
    for (int i = 0; i < n; i++) {
        put_text(rec, ",");
        put_number(rec, x[i]);
    }
}

static void put_modes(cdyn_recorder *rec, int n, const int *mode)
{
    char buf[16];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, ",%d", mode[i]);
        put_text(rec, buf);
    }
}

cdyn_status cdyn_recorder_write(cdyn_recorder *rec, const cdyn_state *x, cdyn_report *report)
{
    cdyn_report_clear(report, "recorder");
    if (rec == NULL || x == NULL)
        return cdyn_fail(report, CDYN_EINVAL, "cdyn_recorder_write: NULL recorder or state");
    if (x->nq != rec->nq || x->nv != rec->nv || x->nc != rec->nc || x->nl != rec->nl)
        return cdyn_fail(report, CDYN_EINVAL,
                         "cdyn_recorder_write: the state's sizes are not the model's");
    put_number(rec, x->t);
    put_list(rec, rec->nq, x->q);
    put_list(rec, rec->nv, x->v);
    put_list(rec, 3 * rec->nc, x->delta);
    put_list(rec, 3 * rec->nc, x->lambda);
    put_modes(rec, rec->nc, x->mode);
    put_list(rec, rec->nl, x->limit_delta);
    put_list(rec, rec->nl, x->limit_lambda);
    put_modes(rec, rec->nl, x->limit_mode);
    put_text(rec, "\n");
    if (rec->failed) {
        char eb[128];
        return cdyn_fail(report, CDYN_EIO, "cdyn_recorder_write: %s",
                         cdyn_io_errno_text(rec->err, eb, sizeof eb));
    }
    return CDYN_OK;
}

cdyn_status cdyn_recorder_close(cdyn_recorder *rec, cdyn_report *report)
{
    cdyn_report_clear(report, "recorder");
    if (rec == NULL)
        return CDYN_OK;
    if (fclose(rec->f) != 0 && !rec->failed) {
        rec->failed = 1;
        rec->err = errno;
    }
    int failed = rec->failed, err = rec->err;
    cdyn_mem_free(NULL, rec);
    if (failed) {
        char eb[128];
        return cdyn_fail(report, CDYN_EIO, "cdyn_recorder_close: a write failed: %s",
                         cdyn_io_errno_text(err, eb, sizeof eb));
    }
    return CDYN_OK;
}
