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

/* ---- Live section: libmicrohttpd and libcurl entry points that are variadic
   or behind macros; everything Swift cannot call directly. ---- */

struct MHD_Daemon;
struct MHD_Connection;

/// Options for `cshims_mhd_start`, a fixed-arity front for the variadic `MHD_start_daemon`.
typedef struct cshims_mhd_options {
    unsigned int flags;              /* MHD_FLAG bits */
    uint16_t port;                   /* 0: let the kernel pick */
    uint32_t ipv4_address_be;        /* bind address, network byte order */
    unsigned int connection_limit;   /* MHD's hard connection limit */
    unsigned int connection_timeout_seconds;
    unsigned int thread_pool_size;   /* 0 or 1: one internal polling thread */
    size_t connection_memory_limit;  /* per-connection buffer, bounds the request line */
    unsigned int listen_backlog;
    void *access_handler;            /* MHD_AccessHandlerCallback */
    void *access_handler_cls;
    void *completed_callback;        /* MHD_RequestCompletedCallback, may be NULL */
    void *completed_cls;
    void *uri_log_callback;          /* void *(*)(void *cls, const char *uri, struct MHD_Connection *) */
    void *uri_log_cls;
    void *notify_connection;         /* MHD_NotifyConnectionCallback, may be NULL */
    void *notify_connection_cls;
} cshims_mhd_options;

/// Starts an MHD daemon with `options`; NULL on failure.
struct MHD_Daemon *cshims_mhd_start(const cshims_mhd_options *options);

/// The port the daemon is bound to (useful after binding to port 0), or 0.
uint16_t cshims_mhd_bound_port(struct MHD_Daemon *daemon);

/// The socket of a connection, or -1.
int cshims_mhd_connection_fd(struct MHD_Connection *connection);

/// Whether the peer of a connected socket has closed or reset it: 1 closed, 0 open.
/// One non-blocking `recv(MSG_PEEK)`; pipelined request bytes count as open.
int cshims_socket_peer_closed(int fd);

/// Whether jemalloc serves this thread's `malloc`, judged by jemalloc's per-thread allocation
/// counter (`thread.allocated`): unlike process-wide stats it cannot be disturbed by other
/// threads freeing memory at the same moment. 1 yes, 0 no.
int cshims_jemalloc_serves_malloc(void);

/// A close-on-exec epoll instance, or -1 with errno.
int cshims_epoll_create(void);

/// Watches `fd` on the epoll instance `epfd` for the peer closing or resetting it (one shot,
/// EPOLLRDHUP), reporting `token`. Returns 0 or -1 with errno.
int cshims_epoll_watch_hangup(int epfd, int fd, uint64_t token);

/// Watches `fd` for readability (EPOLLIN), reporting `token`. Returns 0 or -1 with errno.
int cshims_epoll_watch_readable(int epfd, int fd, uint64_t token);

/// Stops watching `fd`. Returns 0 or -1 with errno.
int cshims_epoll_unwatch(int epfd, int fd);

/// Waits for events and stores up to `capacity` tokens; returns their count or -1 with errno.
int cshims_epoll_wait_tokens(int epfd, uint64_t *tokens, int capacity, int timeout_ms);

/// Waits for events and stores up to `capacity` (token, epoll event mask) pairs; returns their
/// count or -1 with errno.
int cshims_epoll_wait_events(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms);

/// Drives `multi` with libcurl's socket API on the epoll instance `epfd`: libcurl's socket
/// callback adds, modifies and removes its sockets there (token = the socket), and its timer
/// callback stores the absolute CLOCK_MONOTONIC deadline in `*deadline_ns` (INT64_MAX: none).
int cshims_curl_multi_use_epoll(void *multi, int epfd, int64_t *deadline_ns);

/// `curl_multi_socket_action` for socket `fd` with the epoll event mask `epoll_events`.
int cshims_curl_multi_socket_action(void *multi, int fd, uint32_t epoll_events, int *running);

/// `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`: lets libcurl handle its timers.
int cshims_curl_multi_timeout_action(void *multi, int *running);

/// Installs a handler for `signo` that writes the signal number as one byte to `fd` (a
/// non-blocking pipe), the async-signal-safe way to hand a signal to a normal thread. One `fd`
/// for all signals installed this way. Returns 0 or -1 with errno.
int cshims_signal_forward_to_fd(int signo, int fd);

/// Restores the default action of `signo`. Returns 0 or -1 with errno.
int cshims_signal_restore_default(int signo);

/// `curl_easy_setopt` / `curl_multi_setopt`, which are variadic; they return the CURLcode/CURLMcode.
int cshims_curl_easy_setopt_long(void *easy, int option, long value);
int cshims_curl_easy_setopt_pointer(void *easy, int option, void *value);
int cshims_curl_multi_setopt_long(void *multi, int option, long value);
/// `CURLINFO_PRIVATE` of an easy handle.
void *cshims_curl_easy_private(void *easy);
/// `CURLINFO_RESPONSE_CODE` of an easy handle.
long cshims_curl_easy_response_code(void *easy);
/// A `curl_off_t` info of an easy handle (e.g. `CURLINFO_STARTTRANSFER_TIME_T`, microseconds);
/// -1 if curl does not know it.
int64_t cshims_curl_easy_info_off_t(void *easy, int info);
/// A `long` info of an easy handle (e.g. `CURLINFO_OS_ERRNO`); 0 if curl does not know it.
long cshims_curl_easy_info_long(void *easy, int info);
/* ---- Process control (driver branch: Sources/Platform/Process) ---- */

/// Linux `prctl(PR_SET_PDEATHSIG, signal)`: the kernel sends `signal` to the calling process
/// when its parent thread exits. Returns 0 on success, -1 elsewhere (errno set).
int cshims_set_parent_death_signal(int signal);

/// `pipe2(fds, O_CLOEXEC [| O_NONBLOCK])` (glibc declares it only under _GNU_SOURCE).
/// Returns 0 or -1 with errno set.
int cshims_pipe_cloexec(int fds[2], int nonblocking);

#endif
