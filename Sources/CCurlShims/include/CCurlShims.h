#ifndef TYPESTORM_CCURLSHIMS_H
#define TYPESTORM_CCURLSHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <curl/curl.h>

/// libcurl entry points Swift cannot call directly: `curl_easy_setopt`, `curl_multi_setopt` and
/// `curl_easy_getinfo` are variadic, so there is one fixed-arity front per argument type (a
/// value of the wrong type cannot reach an option), and the epoll glue whose callbacks are C.
/// Every function returns curl's result code for the caller to check. Every symbol carries the
/// `CCurlShims_` prefix.

CURLcode CCurlShims_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode CCurlShims_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode CCurlShims_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode CCurlShims_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
/// `CURLOPT_WRITEFUNCTION`.
CURLcode CCurlShims_easy_setopt_write_function(CURL *easy, curl_write_callback callback);

CURLMcode CCurlShims_multi_setopt_long(CURLM *multi, CURLMoption option, long value);

CURLcode CCurlShims_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);
CURLcode CCurlShims_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode CCurlShims_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value);

/// The epoll glue of one multi handle: the epoll instance, libcurl's next timeout and what each
/// socket is registered for. Initialised by `CCurlShims_multi_use_epoll`; free its table with
/// `CCurlShims_epoll_release` after `curl_multi_cleanup` (libcurl closes cached connections
/// through it until then).
typedef struct {
    int epfd;
    /// libcurl's next timeout, absolute CLOCK_MONOTONIC nanoseconds (INT64_MAX: none).
    int64_t deadline_ns;
    /// Per file descriptor: registered events, whether libcurl wants them, whether the socket
    /// is a connection socket made through `CCurlShims_easy_use_epoll`'s callbacks.
    uint8_t *sockets;
    size_t capacity;
} CCurlShims_Epoll;

/// Drives `multi` with libcurl's socket API on the epoll instance `epfd`: libcurl's socket
/// callback adds, modifies and removes its sockets there (token = the socket), and its timer
/// callback stores the deadline in `epoll->deadline_ns`. A connection socket libcurl stops
/// watching between two requests stays registered, so reusing a connection costs no
/// `epoll_ctl`. On failure `*failed_option` names the option curl refused.
CURLMcode CCurlShims_multi_use_epoll(CURLM *multi, CCurlShims_Epoll *epoll, int epfd, const char **failed_option);

/// Makes `easy` open and close its connection sockets through `epoll`'s callbacks (plain
/// `socket()` and `close()`, which also keep the socket table right). On failure
/// `*failed_option` names the option curl refused.
CURLcode CCurlShims_easy_use_epoll(CURL *easy, CCurlShims_Epoll *epoll, const char **failed_option);

/// Frees `epoll`'s socket table.
void CCurlShims_epoll_release(CCurlShims_Epoll *epoll);

/// An epoll event for socket `fd` (mask `epoll_events`): `curl_multi_socket_action`, or, for a
/// connection socket libcurl is not watching, taking it out of the epoll set.
CURLMcode CCurlShims_multi_socket_event(CURLM *multi, CCurlShims_Epoll *epoll, int fd, uint32_t epoll_events, int *running);

/// `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`: lets libcurl handle its timers.
CURLMcode CCurlShims_multi_timeout_action(CURLM *multi, int *running);

#endif
