/*
 * Linked into the arm64 binaries only (scripts/build-release.sh --arch arm64), so that they
 * start on Debian 12's glibc 2.36.
 *
 * The static Swift runtime of Debian's swiftlang (6.2.3, built against glibc 2.41) calls five
 * functions that glibc added in 2.38: the C23 variants of strtol, strtoll and sscanf (their
 * headers redirect to them when compiled as C23 or C++20 and later) and the BSD strlcpy and
 * strlcat; its static Foundation (CoreFoundation's UUIDs and ICU, linked into the e2e driver
 * that vm/test-arm64-kernel.sh cross-builds, not into the packaged binaries) also calls the
 * C23 strtoul. Defined here in the executable, the runtime's calls bind to these at link time
 * and the binaries need no GLIBC_2.38 symbol (scripts/test-arm64.sh checks both: the versions
 * the binaries need, and each function below against its specification).
 *
 * The C23 variants differ from the C99 ones only in also reading a "0b"/"0B" binary prefix
 * (base 0 or 2, and %i); the runtime parses no such text (environment variables and
 * /proc files of decimal numbers; Foundation's, hexadecimal UUIDs and ICU's version and
 * number strings), so forwarding to the C99 functions is exact for it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long __isoc23_strtol(const char *text, char **end, int base) { return strtol(text, end, base); }

long long __isoc23_strtoll(const char *text, char **end, int base) { return strtoll(text, end, base); }

unsigned long __isoc23_strtoul(const char *text, char **end, int base) { return strtoul(text, end, base); }

int __isoc23_sscanf(const char *text, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int assigned = vsscanf(text, format, arguments);
    va_end(arguments);
    return assigned;
}

/* Copies at most size - 1 bytes of source and terminates destination (when size > 0);
 * returns strlen(source), so a result >= size means the copy was cut. */
size_t strlcpy(char *destination, const char *source, size_t size) {
    size_t length = strlen(source);
    if (size > 0) {
        size_t copied = length < size - 1 ? length : size - 1;
        memcpy(destination, source, copied);
        destination[copied] = '\0';
    }
    return length;
}

/* Appends source to the string in destination, of capacity size, terminated; returns the
 * length the whole string would have (>= size when cut). */
size_t strlcat(char *destination, const char *source, size_t size) {
    size_t existing = strnlen(destination, size);
    if (existing == size) {
        return size + strlen(source);
    }
    return existing + strlcpy(destination + existing, source, size - existing);
}
