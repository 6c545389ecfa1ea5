#include "CShims.h"
#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdlib.h>

int cshims_jemalloc_read_size(const char *name, size_t *value) {
    uint64_t epoch = 1;
    size_t epoch_size = sizeof(epoch);
    int rc = mallctl("epoch", &epoch, &epoch_size, &epoch, epoch_size);
    if (rc != 0) return rc;
    size_t size = sizeof(*value);
    return mallctl(name, value, &size, NULL, 0);
}

int cshims_jemalloc_is_active(void) {
    /* malloc_usable_size from jemalloc answers for jemalloc's own blocks; if malloc is served by
       another allocator the stats stay at jemalloc's start-up values. */
    size_t allocated_before = 0, allocated_after = 0;
    if (cshims_jemalloc_read_size("stats.allocated", &allocated_before) != 0) return 0;
    void *volatile probe = malloc(1 << 20);
    if (probe == NULL) return 0;
    int rc = cshims_jemalloc_read_size("stats.allocated", &allocated_after);
    free(probe);
    return rc == 0 && allocated_after >= allocated_before + (1 << 20);
}
