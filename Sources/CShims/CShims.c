#include "CShims.h"
#include <stdint.h>
#include <stdlib.h>

#ifdef TYPESTORM_NO_JEMALLOC
/* A build without jemalloc (for the sanitizers): there are no jemalloc statistics to read. */
int cshims_jemalloc_read_size(const char *name, size_t *value) { (void)name; (void)value; return -1; }
int cshims_jemalloc_is_active(void) { return 0; }
int cshims_jemalloc_serves_malloc(void) { return 0; }
#else
#include <jemalloc/jemalloc.h>

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

int cshims_jemalloc_serves_malloc(void) {
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
#endif

/* ---- Live section: libmicrohttpd and libcurl. ---- */

#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <microhttpd.h>

struct MHD_Daemon *cshims_mhd_start(const cshims_mhd_options *o) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(o->port);
    address.sin_addr.s_addr = o->ipv4_address_be;
    return MHD_start_daemon(
        o->flags, o->port, NULL, NULL,
        (MHD_AccessHandlerCallback)o->access_handler, o->access_handler_cls,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size > 1 ? o->thread_pool_size : 0u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, o->listen_backlog,
        MHD_OPTION_NOTIFY_COMPLETED, (MHD_RequestCompletedCallback)o->completed_callback, o->completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, (void *(*)(void *, const char *, struct MHD_Connection *))o->uri_log_callback, o->uri_log_cls,
        MHD_OPTION_NOTIFY_CONNECTION, (MHD_NotifyConnectionCallback)o->notify_connection, o->notify_connection_cls,
        MHD_OPTION_END);
}

uint16_t cshims_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int cshims_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

int cshims_socket_peer_closed(int fd) {
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

int cshims_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int cshims_epoll_watch_hangup(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLRDHUP | EPOLLHUP | EPOLLERR | EPOLLONESHOT;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int cshims_epoll_watch_readable(int epfd, int fd, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLIN;
    event.data.u64 = token;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int cshims_epoll_unwatch(int epfd, int fd) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}

int cshims_epoll_wait_tokens(int epfd, uint64_t *tokens, int capacity, int timeout_ms) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) tokens[i] = events[i].data.u64;
    return count;
}

int cshims_epoll_wait_events(int epfd, uint64_t *tokens, uint32_t *events, int capacity, int timeout_ms) {
    struct epoll_event ready[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, ready, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        tokens[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}

static int cshims_curl_socket_callback(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    int epfd = (int)(intptr_t)userp;
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, socket, &event);
        return 0;
    }
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) event.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) event.events |= EPOLLOUT;
    event.data.u64 = (uint64_t)socket;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, socket, &event) != 0 && errno == ENOENT) {
        epoll_ctl(epfd, EPOLL_CTL_ADD, socket, &event);
    }
    return 0;
}

static int cshims_curl_timer_callback(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    int64_t *deadline = (int64_t *)userp;
    if (timeout_ms < 0) {
        *deadline = INT64_MAX;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        *deadline = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec + (int64_t)timeout_ms * 1000000LL;
    }
    return 0;
}

int cshims_curl_multi_use_epoll(void *multi, int epfd, int64_t *deadline_ns) {
    *deadline_ns = INT64_MAX;
    CURLMcode rc = curl_multi_setopt((CURLM *)multi, CURLMOPT_SOCKETFUNCTION, cshims_curl_socket_callback);
    if (rc == CURLM_OK) rc = curl_multi_setopt((CURLM *)multi, CURLMOPT_SOCKETDATA, (void *)(intptr_t)epfd);
    if (rc == CURLM_OK) rc = curl_multi_setopt((CURLM *)multi, CURLMOPT_TIMERFUNCTION, cshims_curl_timer_callback);
    if (rc == CURLM_OK) rc = curl_multi_setopt((CURLM *)multi, CURLMOPT_TIMERDATA, (void *)deadline_ns);
    return (int)rc;
}

int cshims_curl_multi_socket_action(void *multi, int fd, uint32_t epoll_events, int *running) {
    int mask = 0;
    if (epoll_events & EPOLLIN) mask |= CURL_CSELECT_IN;
    if (epoll_events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
    if (epoll_events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
    return (int)curl_multi_socket_action((CURLM *)multi, fd, mask, running);
}

int cshims_curl_multi_timeout_action(void *multi, int *running) {
    return (int)curl_multi_socket_action((CURLM *)multi, CURL_SOCKET_TIMEOUT, 0, running);
}

static volatile sig_atomic_t cshims_signal_fd = -1;

static void cshims_signal_handler(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    int fd = cshims_signal_fd;
    if (fd >= 0) (void)write(fd, &byte, 1);
    errno = saved;
}

int cshims_signal_forward_to_fd(int signo, int fd) {
    cshims_signal_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = cshims_signal_handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(signo, &action, NULL);
}

int cshims_signal_restore_default(int signo) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}

int cshims_curl_easy_setopt_long(void *easy, int option, long value) {
    return (int)curl_easy_setopt((CURL *)easy, (CURLoption)option, value);
}

int cshims_curl_easy_setopt_pointer(void *easy, int option, void *value) {
    return (int)curl_easy_setopt((CURL *)easy, (CURLoption)option, value);
}

int cshims_curl_multi_setopt_long(void *multi, int option, long value) {
    return (int)curl_multi_setopt((CURLM *)multi, (CURLMoption)option, value);
}

void *cshims_curl_easy_private(void *easy) {
    char *pointer = NULL;
    curl_easy_getinfo((CURL *)easy, CURLINFO_PRIVATE, &pointer);
    return pointer;
}

long cshims_curl_easy_response_code(void *easy) {
    long code = 0;
    curl_easy_getinfo((CURL *)easy, CURLINFO_RESPONSE_CODE, &code);
    return code;
}

int64_t cshims_curl_easy_info_off_t(void *easy, int info) {
    curl_off_t value = -1;
    if (curl_easy_getinfo((CURL *)easy, (CURLINFO)info, &value) != CURLE_OK) return -1;
    return (int64_t)value;
}

long cshims_curl_easy_info_long(void *easy, int info) {
    long value = 0;
    if (curl_easy_getinfo((CURL *)easy, (CURLINFO)info, &value) != CURLE_OK) return 0;
    return value;
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
