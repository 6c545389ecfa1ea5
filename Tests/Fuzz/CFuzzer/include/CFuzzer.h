#ifndef TYPESTORM_CFUZZER_H
#define TYPESTORM_CFUZZER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry for programs with their own main (compiler-rt, FuzzerInterface.h). Present
/// only in a binary linked with `-sanitize=fuzzer`; the fuzz driver calls it under `FUZZING`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
