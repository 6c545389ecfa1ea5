#include "CCurlShims.h"

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

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

static int socket_callback(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp) {
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

static int timer_callback(CURLM *multi, long timeout_ms, void *userp) {
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

CURLMcode CCurlShims_multi_use_epoll(CURLM *multi, int epfd, int64_t *deadline_ns, const char **failed_option) {
    *deadline_ns = INT64_MAX;
    *failed_option = "CURLMOPT_SOCKETFUNCTION";
    CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, socket_callback);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_SOCKETDATA";
    rc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, (void *)(intptr_t)epfd);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_TIMERFUNCTION";
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, timer_callback);
    if (rc != CURLM_OK) return rc;
    *failed_option = "CURLMOPT_TIMERDATA";
    rc = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, (void *)deadline_ns);
    if (rc != CURLM_OK) return rc;
    *failed_option = NULL;
    return CURLM_OK;
}

CURLMcode CCurlShims_multi_socket_action(CURLM *multi, int fd, uint32_t epoll_events, int *running) {
    int mask = 0;
    if (epoll_events & EPOLLIN) mask |= CURL_CSELECT_IN;
    if (epoll_events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
    if (epoll_events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
    return curl_multi_socket_action(multi, fd, mask, running);
}

CURLMcode CCurlShims_multi_timeout_action(CURLM *multi, int *running) {
    return curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, running);
}
