#ifndef TYPESTORM_CMICROHTTPDSHIMS_H
#define TYPESTORM_CMICROHTTPDSHIMS_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// libmicrohttpd entry points Swift cannot call directly: the variadic `MHD_start_daemon` and
/// the info unions. Every symbol carries the `CMicroHTTPDShims_` prefix.

/// libmicrohttpd's URI log callback (`MHD_OPTION_URI_LOG_CALLBACK`), which its header leaves
/// unnamed: called with the raw request target before anything else; its result becomes the
/// request's context pointer.
typedef void *(*CMicroHTTPDShims_URILogCallback)(void *cls, const char *uri, struct MHD_Connection *connection);

/// Options for `CMicroHTTPDShims_start`, a fixed-arity front for `MHD_start_daemon`.
typedef struct CMicroHTTPDShims_Options {
    unsigned int flags;              /* MHD_FLAG bits; MHD_USE_NO_LISTEN_SOCKET is always added */
    unsigned int connection_limit;   /* MHD's hard connection limit */
    unsigned int connection_timeout_seconds;
    unsigned int thread_pool_size;   /* 0 or 1: one internal polling thread */
    size_t connection_memory_limit;  /* per-connection buffer, bounds the request line */
    MHD_AccessHandlerCallback access_handler;
    void *access_handler_cls;
    MHD_RequestCompletedCallback completed_callback;    /* may be NULL */
    void *completed_cls;
    CMicroHTTPDShims_URILogCallback uri_log_callback;   /* may be NULL */
    void *uri_log_cls;
    MHD_NotifyConnectionCallback notify_connection;     /* may be NULL */
    void *notify_connection_cls;
} CMicroHTTPDShims_Options;

/// Starts an MHD daemon with `options` and no listening socket of its own: connections come
/// in through `MHD_add_connection`. NULL on failure (errno may say why).
struct MHD_Daemon *CMicroHTTPDShims_start(const CMicroHTTPDShims_Options *options);

/// The socket of a connection, or -1.
int CMicroHTTPDShims_connection_fd(struct MHD_Connection *connection);

#endif
