#ifndef TYPESTORM_CPOSIXSHIMS_H
#define TYPESTORM_CPOSIXSHIMS_H

#include <stdint.h>
#include <sys/epoll.h>

/// Linux entry points Swift cannot call directly (variadic `prctl`, `pipe2` and `accept4` behind
/// `_GNU_SOURCE`, `struct epoll_event`, which glibc packs), and the one signal handler, which
/// must be async-signal-safe C. Every symbol carries the `CPosixShims_` prefix.

/// Whether the peer of a connected socket has closed or reset it: 1 closed, 0 open.
/// One non-blocking `recv(MSG_PEEK)`; pipelined request bytes count as open.
int CPosixShims_socket_peer_closed(int fd);

/// A close-on-exec epoll instance, or -1 with errno.
int CPosixShims_epoll_create(void);

/// Watches `fd` on the epoll instance `epfd` for the peer closing or resetting it (one shot,
/// EPOLLRDHUP), reporting `token`. Returns 0 or -1 with errno.
int CPosixShims_epoll_watch_hangup(int epfd, int fd, uint64_t token);

/// Watches `fd` for readability (EPOLLIN), reporting `token`. Returns 0 or -1 with errno.
int CPosixShims_epoll_watch_readable(int epfd, int fd, uint64_t token);

/// Watches `fd` edge-triggered for new input and for the peer closing (EPOLLIN | EPOLLRDHUP |
/// EPOLLET), reporting `token`: each arrival of bytes reports once, so a reader that only peeks
/// is not woken again for bytes it has already seen. Returns 0 or -1 with errno.
int CPosixShims_epoll_watch_arrivals(int epfd, int fd, uint64_t token);
/// Event bits of `CPosixShims_epoll_wait_events`: the socket failed or is shut both ways.
static const uint32_t CPosixShims_epoll_event_hangup = EPOLLERR | EPOLLHUP;
/// Event bit: the peer has closed its sending side (no more bytes will come).
static const uint32_t CPosixShims_epoll_event_peer_shut = EPOLLRDHUP;
/// Stops watching `fd`. Returns 0 or -1 with errno.
int CPosixShims_epoll_unwatch(int epfd, int fd);

/// Waits for events and stores up to `capacity` tokens; returns their count or -1 with errno.
int CPosixShims_epoll_wait_tokens(int epfd, uint64_t *tokens, int capacity, int timeout_ms);

/// Waits for events and stores up to `capacity` (token, epoll event mask) pairs; returns their
/// count or -1 with errno.
int CPosixShims_epoll_wait_events(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms);

/// Installs a handler for `signo` that writes the signal number as one byte to `fd` (a
/// non-blocking pipe), the async-signal-safe way to hand a signal to a normal thread. One `fd`
/// for all signals installed this way. Returns 0 or -1 with errno.
int CPosixShims_signal_forward_to_fd(int signo, int fd);

/// Restores the default action of `signo`. Returns 0 or -1 with errno.
int CPosixShims_signal_restore_default(int signo);

/// `prctl(PR_SET_PDEATHSIG, signal)`: the kernel sends `signal` to the calling process when its
/// parent thread exits. Returns 0 or -1 with errno.
int CPosixShims_set_parent_death_signal(int signal);

/// `pipe2(fds, O_CLOEXEC [| O_NONBLOCK])`: both ends close-on-exec from the start, so a child
/// started concurrently by another thread cannot inherit them. Returns 0 or -1 with errno.
int CPosixShims_pipe_cloexec(int fds[2], int nonblocking);

/// A listening TCP socket on `address_be:port` (network byte order address, host order port;
/// port 0 lets the kernel pick), non-blocking, close-on-exec, with SO_REUSEADDR. Returns the
/// descriptor, or -1 with errno from the call that failed (e.g. EADDRINUSE from bind).
int CPosixShims_listen_ipv4(uint32_t address_be, uint16_t port, int backlog);
/// The local port a socket is bound to, or 0.
uint16_t CPosixShims_socket_port(int fd);
/// `accept4(fd, …, SOCK_NONBLOCK | SOCK_CLOEXEC)`, storing the peer's IPv4 address (16 bytes,
/// a `struct sockaddr_in`) in `address`. Returns the new descriptor or -1 with errno.
int CPosixShims_accept_nonblocking(int fd, void *address, uint32_t *address_length);
#endif
