/* Internal: whitespace-separated tokens of a text buffer that need not be NUL-terminated, with
 * the line and ordinal of each token for error messages, and locale-independent number
 * conversion. Shared by the problem-file readers. */
#ifndef CDYN_IO_SCAN_H
#define CDYN_IO_SCAN_H

#include <stddef.h>

#include "cdyn/io.h"

typedef struct cdyn_scan {
    const char *cur;
    const char *end;
    size_t line;  /* line of cur, from 1 */
    size_t count; /* tokens returned so far */
} cdyn_scan;

typedef struct cdyn_token {
    const char *text;
    size_t len;
    size_t line;  /* from 1 */
    size_t index; /* ordinal in the whole text, from 1 */
} cdyn_token;

void cdyn_scan_init(cdyn_scan *s, const char *text, size_t length);

/* Next token; returns 0 (and leaves *t alone) at the end of the text. */
int cdyn_scan_next(cdyn_scan *s, cdyn_token *t);

/* Whitespace as the scanner sees it (the C locale's isspace set). */
int cdyn_scan_is_space(char c);

typedef enum cdyn_number_error {
    CDYN_NUMBER_OK = 0,
    CDYN_NUMBER_SYNTAX,    /* not a decimal number */
    CDYN_NUMBER_NONFINITE, /* nan or inf spelled out */
    CDYN_NUMBER_RANGE,     /* magnitude overflows the type */
    CDYN_NUMBER_TOO_LONG   /* more than CDYN_SCAN_MAX_NUMBER characters */
} cdyn_number_error;

#define CDYN_SCAN_MAX_NUMBER CDYN_LCP_FILE_MAX_TOKEN

/* [+-]digits. Values beyond +-2^62 give CDYN_NUMBER_RANGE (callers check their own range). */
cdyn_number_error cdyn_token_integer(const cdyn_token *t, long long *value);

/* [+-](digits[.digits]|.digits)[(e|E)[+-]digits], converted with correct rounding by strtod
 * whatever the current locale's decimal point is. Results that overflow to infinity are
 * CDYN_NUMBER_RANGE; results that underflow are kept (zero or subnormal). errno is preserved. */
cdyn_number_error cdyn_token_double(const cdyn_token *t, double *value);

/* The token quoted for a message: at most about 24 characters, unprintable bytes as '?',
 * "..." when cut. buf must hold at least 32 bytes. Returns buf. */
const char *cdyn_token_quote(const cdyn_token *t, char *buf, size_t size);

/* %.17g in the C locale's notation ('.' as decimal point): reading it back gives the same
 * double. buf must hold at least 32 bytes. Returns buf. */
const char *cdyn_format_double(double value, char *buf, size_t size);

#endif
