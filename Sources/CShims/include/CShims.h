#ifndef TYPESTORM_CSHIMS_H
#define TYPESTORM_CSHIMS_H

#include <stddef.h>
#include <stdint.h>

/// Shims for C entry points that Swift cannot call directly (variadic functions, macros).
/// Every symbol carries the `cshims_` prefix.

/// `mallctl` read of a size_t statistic, after refreshing jemalloc's stats epoch.
/// Returns 0 on success, an errno value otherwise.
int cshims_jemalloc_read_size(const char *name, size_t *value);

/// Whether jemalloc is the allocator that serves this process's malloc.
int cshims_jemalloc_is_active(void);

#endif
