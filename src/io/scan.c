#include "io/scan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cdyn_scan_is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

void cdyn_scan_init(cdyn_scan *s, const char *text, size_t length)
{
    s->cur = text;
    s->end = text + length;
    s->line = 1;
    s->count = 0;
}

int cdyn_scan_next(cdyn_scan *s, cdyn_token *t)
{
    while (s->cur < s->end && cdyn_scan_is_space(*s->cur)) {
        if (*s->cur == '\n')
            s->line++;
        s->cur++;
    }
    if (s->cur == s->end)
        return 0;
    const char *start = s->cur;
    while (s->cur < s->end && !cdyn_scan_is_space(*s->cur))
        s->cur++;
    t->text = start;
    t->len = (size_t)(s->cur - start);
    t->line = s->line;
    t->index = ++s->count;
    return 1;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static char lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/* The current locale's decimal point (at most size - 1 bytes), read from snprintf's output
 * rather than localeconv(), whose static result is not safe to read while other threads call
 * setlocale or localeconv. */
static void locale_point(char *point, size_t size)
{
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%.1f", 0.5); /* "0" point "5" */
    size_t k = 0;
    if (len >= 3 && (size_t)len < sizeof buf)
        for (int i = 1; i < len - 1 && k + 1 < size; ++i)
            point[k++] = buf[i];
    if (k == 0)
        point[k++] = '.';
    point[k] = '\0';
}

/* Case-insensitive comparison of the token (after its sign) with a lowercase word. */
static int spelled(const char *p, size_t len, const char *word)
{
    size_t k = 0;
    for (; k < len && word[k] != '\0'; ++k)
        if (lower(p[k]) != word[k])
            return 0;
    return k == len && word[k] == '\0';
}

cdyn_number_error cdyn_token_integer(const cdyn_token *t, long long *value)
{
    const char *p = t->text, *end = t->text + t->len;
    int negative = 0;
    if (p < end && (*p == '+' || *p == '-'))
        negative = (*p++ == '-');
    if (p == end)
        return CDYN_NUMBER_SYNTAX;
    const long long limit = 1LL << 62;
    long long v = 0;
    int too_big = 0;
    for (; p < end; ++p) {
        if (!is_digit(*p))
            return CDYN_NUMBER_SYNTAX;
        const int digit = *p - '0';
        if (too_big || v > (limit - digit) / 10)
            too_big = 1; /* keep scanning: a later non-digit is a syntax error, not a range one */
        else
            v = v * 10 + digit;
    }
    if (too_big)
        return CDYN_NUMBER_RANGE;
    *value = negative ? -v : v;
    return CDYN_NUMBER_OK;
}

/* Decimal grammar only: strtod alone would also take hexadecimal floats, "nan(...)" and
 * "infinity", and would stop silently at a trailing "x" in "1.0x". */
static int decimal_syntax(const char *p, const char *end)
{
    if (p < end && (*p == '+' || *p == '-'))
        p++;
    size_t digits = 0;
    while (p < end && is_digit(*p))
        p++, digits++;
    if (p < end && *p == '.') {
        p++;
        while (p < end && is_digit(*p))
            p++, digits++;
    }
    if (digits == 0)
        return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        size_t exp_digits = 0;
        while (p < end && is_digit(*p))
            p++, exp_digits++;
        if (exp_digits == 0)
            return 0;
    }
    return p == end;
}

cdyn_number_error cdyn_token_double(const cdyn_token *t, double *value)
{
    const char *p = t->text, *end = t->text + t->len;
    const char *body = (p < end && (*p == '+' || *p == '-')) ? p + 1 : p;
    const size_t body_len = (size_t)(end - body);
    if (spelled(body, body_len, "nan") || spelled(body, body_len, "inf") ||
        spelled(body, body_len, "infinity") || (body_len > 4 && spelled(body, 4, "nan(")))
        return CDYN_NUMBER_NONFINITE;
    if (t->len > CDYN_SCAN_MAX_NUMBER)
        return CDYN_NUMBER_TOO_LONG;
    if (!decimal_syntax(p, end))
        return CDYN_NUMBER_SYNTAX;

    /* strtod reads the current locale's decimal point. Try '.' first (the C locale, nearly
       always); only when strtod stops early is the token rewritten with the locale's point. */
    char buf[2 * CDYN_SCAN_MAX_NUMBER + 16];
    memcpy(buf, p, t->len);
    buf[t->len] = '\0';
    const int saved_errno = errno;
    char *stop = NULL;
    double v = strtod(buf, &stop);
    if (stop != buf + t->len) {
        char point[8];
        locale_point(point, sizeof point);
        const size_t point_len = strlen(point);
        size_t k = 0;
        for (; p < end; ++p) {
            if (*p == '.') {
                memcpy(buf + k, point, point_len);
                k += point_len;
            } else {
                buf[k++] = *p;
            }
        }
        buf[k] = '\0';
        v = strtod(buf, &stop);
        if (stop != buf + k) {
            errno = saved_errno;
            return CDYN_NUMBER_SYNTAX; /* cannot happen after decimal_syntax */
        }
    }
    errno = saved_errno;
    if (isinf(v))
        return CDYN_NUMBER_RANGE;
    *value = v;
    return CDYN_NUMBER_OK;
}

const char *cdyn_token_quote(const cdyn_token *t, char *buf, size_t size)
{
    const size_t shown = 24;
    size_t k = 0;
    if (size < 32) {
        if (size > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[k++] = '\'';
    for (size_t i = 0; i < t->len && i < shown; ++i) {
        unsigned char c = (unsigned char)t->text[i];
        buf[k++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    if (t->len > shown) {
        memcpy(buf + k, "...", 3);
        k += 3;
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

const char *cdyn_format_double(double value, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    snprintf(buf, size, "%.17g", value);
    char point[8];
    locale_point(point, sizeof point);
    if (strcmp(point, ".") == 0)
        return buf;
    char *at = strstr(buf, point);
    if (at != NULL) {
        const size_t point_len = strlen(point);
        *at = '.';
        memmove(at + 1, at + point_len, strlen(at + point_len) + 1);
    }
    return buf;
}
