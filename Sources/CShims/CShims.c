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

/* ---- Process control (driver branch: Sources/Platform/Process) ---- */

#ifdef __linux__
#include <sys/prctl.h>
#include <fcntl.h>
#include <unistd.h>
int pipe2(int pipefd[2], int flags);
int cshims_pipe_cloexec(int fds[2], int nonblocking) {
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}

int cshims_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}
#else
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
int cshims_pipe_cloexec(int fds[2], int nonblocking) {
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        fcntl(fds[i], F_SETFD, FD_CLOEXEC);
        if (nonblocking) fcntl(fds[i], F_SETFL, O_NONBLOCK);
    }
    return 0;
}
int cshims_set_parent_death_signal(int signal) {
    (void)signal;
    errno = ENOSYS;
    return -1;
}
#endif
