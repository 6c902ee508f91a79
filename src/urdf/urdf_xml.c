/* The URDF loader's contact with libxml2: parsing without printing, line numbers, attribute
 * values as numbers and names. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>

#include "core/report.h"
#include "io/scan.h"
#include "urdf/urdf_types.h"

/* Text is read as UTF-8 (IGNORE_ENC: declarations of other encodings are not followed, so no
 * converter runs: libxml2's converters report errors without a parser context, i.e. through its
 * global handler). No network, no entity substitution, no DTD loading; exact line numbers. */
#define URDF_XML_OPTIONS                                                                      \
    (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_IGNORE_ENC |     \
     XML_PARSE_BIG_LINES)

/* xmlInitParser sets up libxml2's process-wide tables; it must run once before parsers are
 * used from several threads. */
static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

static void libxml_init(void)
{
    xmlInitParser();
}

/* The first error (not warning) libxml2 reports for one parse. */
typedef struct xml_errors {
    int seen, nomem, line;
    char text[160];
} xml_errors;

#if LIBXML_VERSION >= 21200
static void on_error(void *ctx, const xmlError *err)
#else
static void on_error(void *ctx, xmlErrorPtr err)
#endif
{
    xml_errors *e = ((xmlParserCtxtPtr)ctx)->_private;
    if (e == NULL || err == NULL || e->seen || err->level < XML_ERR_ERROR)
        return; /* warnings (e.g. a relative namespace URI) do not fail the load */
    e->seen = 1;
    e->nomem = err->code == XML_ERR_NO_MEMORY;
    e->line = err->line;
    snprintf(e->text, sizeof e->text, "%s", err->message != NULL ? err->message : "error");
    size_t n = strlen(e->text);
    while (n > 0 && (e->text[n - 1] == '\n' || e->text[n - 1] == ' '))
        e->text[--n] = '\0';
}

/* Input libxml2 would decode with a converter (UTF-16 and UCS-4 have NUL bytes in ASCII text,
 * EBCDIC starts "<?xm" as 4C 6F A7 94): refused, the loader reads UTF-8. */
static int looks_utf8(const unsigned char *t, size_t n)
{
    if (memchr(t, '\0', n) != NULL)
        return 0;
    if (n >= 2 && ((t[0] == 0xFE && t[1] == 0xFF) || (t[0] == 0xFF && t[1] == 0xFE)))
        return 0;
    return !(n >= 4 && t[0] == 0x4C && t[1] == 0x6F && t[2] == 0xA7 && t[3] == 0x94);
}

cdyn_status cdyn_urdf_xml_parse(const char *text, size_t length, xmlDoc **doc,
                                cdyn_report *report)
{
    if (length == 0)
        return cdyn_fail(report, CDYN_EFORMAT, "line 1: empty input, expected <robot>");
    if (length > INT_MAX)
        return cdyn_fail(report, CDYN_ETOOBIG, "%zu bytes of URDF: libxml2 reads at most %d",
                         length, INT_MAX);
    if (!looks_utf8((const unsigned char *)text, length))
        return cdyn_fail(report, CDYN_EFORMAT,
                         "line 1: not UTF-8 text (a NUL byte, or a UTF-16/UCS-4/EBCDIC start)");
    pthread_once(&libxml_once, libxml_init);
    xmlParserCtxtPtr ctxt = xmlCreateMemoryParserCtxt(text, (int)length);
    if (ctxt == NULL)
        return cdyn_fail(report, CDYN_ENOMEM, "libxml2 could not create a parser");
    xml_errors errs = {0, 0, 0, ""};
    ctxt->_private = &errs;
    ctxt->sax->serror = on_error; /* this context's own handler copy: nothing global */
    xmlCtxtUseOptions(ctxt, URDF_XML_OPTIONS);
    xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_UTF8);
    xmlParseDocument(ctxt);
    xmlDoc *d = ctxt->myDoc;
    const int ok = ctxt->wellFormed && d != NULL && !errs.seen;
    ctxt->myDoc = NULL;
    xmlFreeParserCtxt(ctxt);
    if (!ok) {
        xmlFreeDoc(d);
        if (errs.nomem || !errs.seen)
            return cdyn_fail(report, errs.seen ? CDYN_ENOMEM : CDYN_EFORMAT,
                             "libxml2: %s", errs.seen ? errs.text : "malformed XML");
        return cdyn_fail(report, CDYN_EFORMAT, "line %d: malformed XML: %s", errs.line,
                         errs.text);
    }
    *doc = d;
    return CDYN_OK;
}

int cdyn_urdf_line(const xmlNode *node)
{
    const long line = xmlGetLineNo(node);
    return line > 0 && line <= INT_MAX ? (int)line : 0;
}

int cdyn_urdf_is(const xmlNode *node, const char *name)
{
    return node->type == XML_ELEMENT_NODE && (node->ns == NULL || node->ns->prefix == NULL) &&
           strcmp((const char *)node->name, name) == 0;
}

cdyn_status cdyn_urdf_fail(cdyn_report *report, const xmlNode *node, const char *fmt, ...)
{
    if (report != NULL) {
        char msg[CDYN_REPORT_TEXT];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        cdyn_fail(report, CDYN_EFORMAT, "line %d: %s", cdyn_urdf_line(node), msg);
    }
    return CDYN_EFORMAT;
}

static const char *number_problem(cdyn_number_error e)
{
    switch (e) {
    case CDYN_NUMBER_NONFINITE:
        return "is not finite";
    case CDYN_NUMBER_RANGE:
        return "overflows a double";
    case CDYN_NUMBER_TOO_LONG:
        return "is too long";
    default:
        return "is not a number";
    }
}

cdyn_status cdyn_urdf_numbers(const xmlNode *node, const char *attr, int n, double *x,
                              int *present, cdyn_report *report)
{
    xmlChar *value = xmlGetProp(node, (const xmlChar *)attr);
    if (present != NULL)
        *present = value != NULL;
    if (value == NULL)
        return present != NULL ? CDYN_OK
                               : cdyn_urdf_fail(report, node, "<%s> has no attribute %s",
                                                (const char *)node->name, attr);
    const char *s = (const char *)value;
    cdyn_scan scan;
    cdyn_scan_init(&scan, s, strlen(s));
    cdyn_token tok;
    double tmp[6];
    int count = 0;
    cdyn_status st = CDYN_OK;
    while (st == CDYN_OK && cdyn_scan_next(&scan, &tok)) {
        double v = 0.0;
        const cdyn_number_error e = cdyn_token_double(&tok, &v);
        char quoted[32];
        if (e != CDYN_NUMBER_OK)
            st = cdyn_urdf_fail(report, node, "<%s %s=\"...\">: %s %s", (const char *)node->name,
                                attr, cdyn_token_quote(&tok, quoted, sizeof quoted),
                                number_problem(e));
        else if (count < n && count < 6)
            tmp[count] = v;
        count++;
    }
    if (st == CDYN_OK && count != n)
        st = cdyn_urdf_fail(report, node, "<%s %s=\"...\">: %d number%s, expected %d",
                            (const char *)node->name, attr, count, count == 1 ? "" : "s", n);
    xmlFree(value);
    if (st == CDYN_OK)
        memcpy(x, tmp, sizeof(double) * (size_t)n);
    return st;
}

cdyn_status cdyn_urdf_name(cdyn_urdf_map *map, const xmlNode *node, const char *attr,
                           int required, const char **out, size_t *size, cdyn_report *report)
{
    xmlChar *value = xmlGetProp(node, (const xmlChar *)attr);
    if (value == NULL || (required && value[0] == '\0')) {
        xmlFree(value);
        if (!required) {
            if (out != NULL)
                *out = "";
            return CDYN_OK;
        }
        return cdyn_urdf_fail(report, node, "<%s> has no %s", (const char *)node->name, attr);
    }
    const size_t len = strlen((const char *)value) + 1;
    if (out == NULL) {
        *size += len;
    } else if (map->names_size - map->names_used < len) {
        /* the counting pass saw another text: cannot happen for one document */
        xmlFree(value);
        return cdyn_urdf_fail(report, node, "internal error: names outgrew their block");
    } else {
        char *dst = map->names + map->names_used;
        memcpy(dst, value, len);
        map->names_used += len;
        *out = dst;
    }
    xmlFree(value);
    return CDYN_OK;
}
