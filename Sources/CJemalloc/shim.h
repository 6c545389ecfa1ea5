#include <stdint.h>
#include <stdlib.h>
#include <jemalloc/jemalloc.h>

/* Helpers over mallctl, inline so that no C target has to link jemalloc: a build without it
   (TYPESTORM_JEMALLOC=0, for the sanitizers) simply does not import this module. */

/// A size_t statistic (`stats.allocated`, ...) after refreshing jemalloc's statistics epoch,
/// which its counters are cached per. Returns 0 on success, an errno value otherwise.
static inline int CJemalloc_read_size(const char *name, size_t *value) {
    uint64_t epoch = 1;
    size_t epoch_size = sizeof(epoch);
    int rc = mallctl("epoch", &epoch, &epoch_size, &epoch, epoch_size);
    if (rc != 0) return rc;
    size_t size = sizeof(*value);
    return mallctl(name, value, &size, NULL, 0);
}

/// Whether jemalloc serves this thread's `malloc`, judged by jemalloc's per-thread allocation
/// counter (`thread.allocated`): unlike process-wide stats it cannot be disturbed by other
/// threads freeing memory at the same moment. 1 yes, 0 no. In C so the probe allocation, through
/// a volatile pointer, cannot be optimised away as an unused malloc/free pair.
static inline int CJemalloc_serves_malloc(void) {
    uint64_t before = 0, after = 0;
    size_t size = sizeof(before);
    if (mallctl("thread.allocated", &before, &size, NULL, 0) != 0) return 0;
    void *volatile probe = malloc(1 << 20);
    if (probe == NULL) return 0;
    size = sizeof(after);
    int rc = mallctl("thread.allocated", &after, &size, NULL, 0);
    free(probe);
    return rc == 0 && after >= before + (1 << 20);
}
