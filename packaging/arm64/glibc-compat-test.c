/*
 * Checks packaging/arm64/glibc-compat.c against what glibc 2.38 specifies for each function
 * it defines, calling each through the definition linked in (scripts/test-arm64.sh builds it
 * for arm64 against the Debian 12 sysroot and runs it under qemu-user). Prints a line per
 * check and "N passed, N failed"; exits 1 on a failure.
 */
#include <stdio.h>
#include <string.h>

long __isoc23_strtol(const char *text, char **end, int base);
long long __isoc23_strtoll(const char *text, char **end, int base);
unsigned long __isoc23_strtoul(const char *text, char **end, int base);
int __isoc23_sscanf(const char *text, const char *format, ...);
size_t strlcpy(char *destination, const char *source, size_t size);
size_t strlcat(char *destination, const char *source, size_t size);

static int passed, failed;

static void check(int condition, const char *description) {
    printf("%s - %s\n", condition ? "ok" : "FAIL", description);
    condition ? passed++ : failed++;
}

int main(void) {
    char *end;
    long number = __isoc23_strtol("  -42x", &end, 10);
    check(number == -42 && *end == 'x', "__isoc23_strtol reads \"  -42x\" as -42, stopping at x");
    number = __isoc23_strtol("ff", &end, 16);
    check(number == 255 && *end == '\0', "__isoc23_strtol reads hexadecimal ff as 255");
    long long big = __isoc23_strtoll("9223372036854775807", &end, 0);
    check(big == 9223372036854775807LL && *end == '\0', "__isoc23_strtoll reads LLONG_MAX");
    big = __isoc23_strtoll("nothing", &end, 10);
    check(big == 0 && strcmp(end, "nothing") == 0, "__isoc23_strtoll reads no digits as 0 at the start");
    unsigned long unsigned_number = __isoc23_strtoul("18446744073709551615 ", &end, 10);
    check(unsigned_number == 18446744073709551615UL && *end == ' ', "__isoc23_strtoul reads ULONG_MAX, stopping at the space");
    unsigned_number = __isoc23_strtoul("0x1F", &end, 16);
    check(unsigned_number == 31 && *end == '\0', "__isoc23_strtoul reads hexadecimal 0x1F as 31");

    int first = 0;
    char word[4] = "";
    int assigned = __isoc23_sscanf("7 abcdef", "%d %3s", &first, word);
    check(assigned == 2 && first == 7 && strcmp(word, "abc") == 0, "__isoc23_sscanf assigns an int and a bounded string");
    check(__isoc23_sscanf("x", "%d", &first) == 0, "__isoc23_sscanf assigns nothing from a mismatch");

    char buffer[8];
    check(strlcpy(buffer, "abc", sizeof buffer) == 3 && strcmp(buffer, "abc") == 0, "strlcpy copies a short string");
    check(strlcpy(buffer, "abcdefghij", sizeof buffer) == 10 && strcmp(buffer, "abcdefg") == 0,
          "strlcpy cuts to size - 1 bytes, terminates and returns the source's length");
    buffer[0] = 'z';
    check(strlcpy(buffer, "abc", 0) == 3 && buffer[0] == 'z', "strlcpy writes nothing for size 0");

    strcpy(buffer, "ab");
    check(strlcat(buffer, "cd", sizeof buffer) == 4 && strcmp(buffer, "abcd") == 0, "strlcat appends");
    check(strlcat(buffer, "efghij", sizeof buffer) == 10 && strcmp(buffer, "abcdefg") == 0,
          "strlcat cuts, terminates and returns the whole length");
    check(strlcat(buffer, "xy", 3) == 5 && strcmp(buffer, "abcdefg") == 0,
          "strlcat with no terminator within size changes nothing and returns size + strlen(source)");

    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
