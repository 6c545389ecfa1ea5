/* pipe2 is a GNU extension: glibc declares it only under _GNU_SOURCE. */
#define _GNU_SOURCE
#include "CPosixShims.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

int CPosixShims_socket_peer_closed(int fd) {
    char byte;
    for (;;) {
        ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n > 0) return 0;
        if (n == 0) return 1;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return 1;
    }
}

int CPosixShims_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int CPosixShims_epoll_watch_hangup(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLRDHUP | EPOLLHUP | EPOLLERR | EPOLLONESHOT;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int CPosixShims_epoll_watch_readable(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLIN;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int CPosixShims_epoll_unwatch(int epfd, int fd) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

int CPosixShims_epoll_wait_tokens(int epfd, uint64_t *tokens, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) tokens[i] = events[i].data.u64;
    return count;
}

int CPosixShims_epoll_wait_events(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

static volatile sig_atomic_t forwarding_fd = -1;

static void forward_signal(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    int fd = forwarding_fd;
    if (fd >= 0) (void)write(fd, &byte, 1);
    errno = saved;
}

int CPosixShims_signal_forward_to_fd(int signo, int fd) {
    forwarding_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = forward_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}

int CPosixShims_signal_restore_default(int signo) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

int CPosixShims_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0);
}

int CPosixShims_pipe_cloexec(int fds[2], int nonblocking) {
    return pipe2(fds, O_CLOEXEC | (nonblocking ? O_NONBLOCK : 0));
}
