#include "CCurlShims.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

static int socket_open_plain(int family, int type, int protocol) { return socket(family, type, protocol); }

CURLcode CCurlShims_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurlShims_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurlShims_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurlShims_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}

CURLcode CCurlShims_easy_setopt_write_function(CURL *easy, curl_write_callback callback) {
    return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback);
}

CURLMcode CCurlShims_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

CURLcode CCurlShims_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    char *pointer = NULL;  /* CURLINFO_PRIVATE is documented as a char * */
    CURLcode rc = curl_easy_getinfo(easy, info, &pointer);
    *value = pointer;
    return rc;
}

CURLcode CCurlShims_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLcode CCurlShims_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(easy, info, value);
}

/* Per-socket state of the epoll set, indexed by file descriptor. */
enum {
    SOCKET_WATCH_IN = 1,   /* registered with EPOLLIN */
    SOCKET_WATCH_OUT = 2,  /* registered with EPOLLOUT */
    SOCKET_WANTED = 4,     /* libcurl wants the registered events (not CURL_POLL_REMOVE) */
    SOCKET_OWNED = 8,      /* a connection socket made by open_socket, closed by close_socket */
};
#define SOCKET_WATCHED (SOCKET_WATCH_IN | SOCKET_WATCH_OUT)

/* The state of `socket`, growing the table; NULL when `socket` is negative or memory is short
   (the socket is then handled eagerly, as one that is not owned). */
static uint8_t *socket_state(CCurlShims_Epoll *epoll, curl_socket_t socket) {
    if (socket < 0) return NULL;
    if ((size_t)socket >= epoll->capacity) {
        size_t capacity = epoll->capacity ? epoll->capacity : 64;
        while (capacity <= (size_t)socket) capacity *= 2;
        uint8_t *grown = realloc(epoll->sockets, capacity);
        if (!grown) return NULL;
        memset(grown + epoll->capacity, 0, capacity - epoll->capacity);
        epoll->sockets = grown;
        epoll->capacity = capacity;
    }
    return &epoll->sockets[socket];
}

static void unwatch(CCurlShims_Epoll *epoll, curl_socket_t socket, uint8_t *state) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    epoll_ctl(epoll->epfd, EPOLL_CTL_DEL, socket, &event);
    if (state) *state &= (uint8_t)~SOCKET_WATCHED;
}

/* libcurl's socket callback. A connection socket libcurl stops watching (CURL_POLL_REMOVE: its
   transfer is done and the connection goes back to the cache) stays in the epoll set with the
   events it had, so reusing it for the next request costs no epoll_ctl; should it become ready
   while libcurl does not want it, the loop takes it out then (CCurlShims_multi_socket_event). */
static int socket_callback(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    CCurlShims_Epoll *epoll = userp;
    uint8_t *state = socket_state(epoll, socket);
    if (what == CURL_POLL_REMOVE) {
        if (state && (*state & SOCKET_OWNED) && (*state & SOCKET_WATCHED)) {
            *state &= (uint8_t)~SOCKET_WANTED;
        } else {
            unwatch(epoll, socket, state);
            if (state) *state &= (uint8_t)~SOCKET_WANTED;
        }
        return 0;
    }
    uint8_t watch = 0;
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) {
        event.events |= EPOLLIN;
        watch |= SOCKET_WATCH_IN;
    }
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) {
        event.events |= EPOLLOUT;
        watch |= SOCKET_WATCH_OUT;
    }
    event.data.u64 = (uint64_t)socket;
    uint8_t had = state ? (*state & SOCKET_WATCHED) : 0;
    if (state && had == watch) {
        *state |= SOCKET_WANTED;
        return 0;
    }
    int rc;
    if (state && !had) {
        rc = epoll_ctl(epoll->epfd, EPOLL_CTL_ADD, socket, &event);
        if (rc != 0 && errno == EEXIST) rc = epoll_ctl(epoll->epfd, EPOLL_CTL_MOD, socket, &event);
    } else {
        rc = epoll_ctl(epoll->epfd, EPOLL_CTL_MOD, socket, &event);
        if (rc != 0 && errno == ENOENT) rc = epoll_ctl(epoll->epfd, EPOLL_CTL_ADD, socket, &event);
    }
    if (state) {
        *state &= (uint8_t)~SOCKET_WATCHED;
        if (rc == 0) *state |= (uint8_t)(watch | SOCKET_WANTED);
    }
    return 0;
}

static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    CCurlShims_Epoll *epoll = clientp;
    curl_socket_t socket = (curl_socket_t)socket_open_plain(address->family, address->socktype, address->protocol);
    uint8_t *state = socket_state(epoll, socket);
    if (state) *state = SOCKET_OWNED;
    return socket;
}

static int close_socket(void *clientp, curl_socket_t socket) {
    CCurlShims_Epoll *epoll = clientp;
    uint8_t *state = socket_state(epoll, socket);
    /* Closing takes a socket out of the epoll set only when no other descriptor (a child's
       inherited copy) refers to it; a parked one is taken out here. */
    if (state && (*state & SOCKET_WATCHED)) unwatch(epoll, socket, state);
    if (state) *state = 0;
    return close(socket);
}

static int timer_callback(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    CCurlShims_Epoll *epoll = userp;
    if (timeout_ms < 0) {
        epoll->deadline_ns = INT64_MAX;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        epoll->deadline_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec + (int64_t)timeout_ms * 1000000LL;
    }
    return 0;
}

CURLMcode CCurlShims_multi_use_epoll(CURLM *multi, CCurlShims_Epoll *epoll, int epfd, const char **failed_option) {
    memset(epoll, 0, sizeof(*epoll));
    epoll->epfd = epfd;
    epoll->deadline_ns = INT64_MAX;
    *failed_option = "CURLMOPT_SOCKETFUNCTION";
    CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_callback);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_SOCKETDATA";
    rc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, (void *)epoll);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_TIMERFUNCTION";
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_callback);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_TIMERDATA";
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, (void *)epoll);
    if (rc != CURLM_OK) return rc;
    *failed_option = NULL;
    return CURLM_OK;
}

CURLcode CCurlShims_easy_use_epoll(CURL *easy, CCurlShims_Epoll *epoll, const char **failed_option) {
    *failed_option = "CURLOPT_OPENSOCKETFUNCTION";
    CURLcode rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    if (rc != CURLE_OK) return rc;
    *failed_option = "CURLOPT_OPENSOCKETDATA";
    rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, (void *)epoll);
    if (rc != CURLE_OK) return rc;
    *failed_option = "CURLOPT_CLOSESOCKETFUNCTION";
    rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, close_socket);
    if (rc != CURLE_OK) return rc;
    *failed_option = "CURLOPT_CLOSESOCKETDATA";
    rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, (void *)epoll);
    if (rc != CURLE_OK) return rc;
    *failed_option = NULL;
    return CURLE_OK;
}

void CCurlShims_epoll_release(CCurlShims_Epoll *epoll) {
    free(epoll->sockets);
    epoll->sockets = NULL;
    epoll->capacity = 0;
}

CURLMcode CCurlShims_multi_socket_event(CURLM *multi, CCurlShims_Epoll *epoll, int fd, uint32_t epoll_events, int *running) {
    uint8_t *state = socket_state(epoll, fd);
    if (state && (*state & SOCKET_OWNED) && !(*state & SOCKET_WANTED)) {
        /* A parked connection became ready (the server closed it, most likely): stop watching
           it; libcurl finds out when it next checks the connection before reusing it. */
        unwatch(epoll, fd, state);
        return CURLM_OK;
    }
    int mask = 0;
    if (epoll_events & EPOLLIN) mask |= CURL_CSELECT_IN;
    if (epoll_events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
    if (epoll_events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
    return curl_multi_socket_action(multi, fd, mask, running);
}

CURLMcode CCurlShims_multi_timeout_action(CURLM *multi, int *running) {
    return curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, running);
}
