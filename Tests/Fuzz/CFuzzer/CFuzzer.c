/* Declarations only (include/CFuzzer.h); libFuzzer defines them. */
#include "CFuzzer.h"
