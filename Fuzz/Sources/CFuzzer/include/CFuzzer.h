#ifndef GESTURED_CFUZZER_H
#define GESTURED_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/* libFuzzer's driver, for programs that keep their own `main` (SwiftPM names the
   executable's entry point itself, so libFuzzer's `main` cannot be used). */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
#endif
