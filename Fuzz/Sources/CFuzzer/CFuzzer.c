/* Declarations only: libFuzzer itself is linked by -sanitize=fuzzer (scripts/fuzz.sh). */
#include "CFuzzer.h"
