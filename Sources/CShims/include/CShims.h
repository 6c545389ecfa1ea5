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

/* ---- Process control (driver branch: Sources/Platform/Process) ---- */

/// Linux `prctl(PR_SET_PDEATHSIG, signal)`: the kernel sends `signal` to the calling process
/// when its parent thread exits. Returns 0 on success, -1 elsewhere (errno set).
int cshims_set_parent_death_signal(int signal);

/// `pipe2(fds, O_CLOEXEC [| O_NONBLOCK])` (glibc declares it only under _GNU_SOURCE).
/// Returns 0 or -1 with errno set.
int cshims_pipe_cloexec(int fds[2], int nonblocking);

#endif
