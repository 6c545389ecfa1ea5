#ifndef TYPESTORM_CCURLSHIMS_H
#define TYPESTORM_CCURLSHIMS_H

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

/// Drives `multi` with libcurl's socket API on the epoll instance `epfd`: libcurl's socket
/// callback adds, modifies and removes its sockets there (token = the socket), and its timer
/// callback stores the absolute CLOCK_MONOTONIC deadline in `*deadline_ns` (INT64_MAX: none).
/// On failure `*failed_option` names the option curl refused.
CURLMcode CCurlShims_multi_use_epoll(CURLM *multi, int epfd, int64_t *deadline_ns, const char **failed_option);

/// `curl_multi_socket_action` for socket `fd` with the epoll event mask `epoll_events`.
CURLMcode CCurlShims_multi_socket_action(CURLM *multi, int fd, uint32_t epoll_events, int *running);

/// `curl_multi_socket_action(CURL_SOCKET_TIMEOUT)`: lets libcurl handle its timers.
CURLMcode CCurlShims_multi_timeout_action(CURLM *multi, int *running);

#endif
