#ifndef TYPESTORM_CPLAINHTTP_H
#define TYPESTORM_CPLAINHTTP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/// The wire side of the plain HTTP/1.1 client: one keep-alive connection's buffers, request
/// formatting, non-blocking send and receive, and the response parser (status line,
/// Content-Length, chunked transfer coding, Connection: close). The event loop (epoll, timeouts,
/// which request goes on which connection) is the Swift side's. Every symbol carries the
/// `CPlainHTTP_` prefix.

/// What `CPlainHTTP_receive` found.
enum {
    /// The response is not complete; wait until the socket is readable again.
    CPlainHTTP_more = 0,
    /// A whole response: `status`, `body_bytes`, `keep_alive` (and `body` when kept) are set.
    CPlainHTTP_done = 1,
    /// The peer closed the connection before any byte of the response.
    CPlainHTTP_closed_empty = -1,
    /// The peer closed the connection inside the response head.
    CPlainHTTP_closed_in_head = -2,
    /// The peer closed the connection before the body's announced end.
    CPlainHTTP_closed_in_body = -3,
    /// `recv` failed; `error` holds its errno.
    CPlainHTTP_receive_failed = -4,
    /// The first line is not `HTTP/1.x NNN ...`.
    CPlainHTTP_malformed_status = -5,
    /// A Content-Length that is not a number, or two that differ.
    CPlainHTTP_malformed_length = -6,
    /// A chunk-size line that is not hex, or chunk data not followed by CRLF.
    CPlainHTTP_malformed_chunk = -7,
    /// The response head is larger than `CPlainHTTP_max_head` bytes.
    CPlainHTTP_head_too_large = -8,
    /// Out of memory for the buffers.
    CPlainHTTP_no_memory = -9,
};

/// The largest response head accepted (status line and headers), in bytes.
#define CPlainHTTP_max_head (256 * 1024)

/// One connection's buffers and the state of the response being read on it. Zero-initialise,
/// then `CPlainHTTP_conn_init`; `CPlainHTTP_conn_free` releases the buffers.
typedef struct {
    uint8_t *in;
    size_t in_len, in_cap;
    /// Where the search for the end of the head resumes.
    size_t scan_from;
    uint8_t *out;
    size_t out_len, out_sent, out_cap;
    /// Keep the body's bytes in `body` (for the count path or the caller).
    int keep_body;
    uint8_t *body;
    size_t body_len, body_cap;

    /// Parser state (private).
    int state;
    int chunk_digits;
    uint64_t remaining;
    /// The response's status code, once the head is read.
    int status;
    /// The connection may carry another request after this response.
    int keep_alive;
    /// Body bytes after transfer decoding (chunk framing excluded).
    uint64_t body_bytes;
    /// Response bytes received so far (head and framing included).
    uint64_t received;
    /// CLOCK_MONOTONIC nanoseconds of the response's first byte; 0 before it.
    uint64_t first_byte_ns;
    /// errno of the failed `recv` or `send`.
    int error;
} CPlainHTTP_Conn;

/// Allocates the buffers; returns 0, or -1 when memory is short.
int CPlainHTTP_conn_init(CPlainHTTP_Conn *conn, int keep_body);
void CPlainHTTP_conn_free(CPlainHTTP_Conn *conn);

/// Formats `METHOD target HTTP/1.1`, the `head` lines (each ending in CRLF: Host and the fixed
/// headers), `Content-Length` when `has_body`, the blank line and the body into the connection's
/// output buffer, and resets the response state for the answer. Returns 0, or -1 when memory
/// is short.
int CPlainHTTP_request(CPlainHTTP_Conn *conn, const char *method, const uint8_t *target, size_t target_len,
                       const uint8_t *head, size_t head_len, int has_body, const uint8_t *body, size_t body_len);

/// Sends what is left of the request: 1 all sent, 0 the socket is full (wait for writable),
/// -1 `send` failed (`error` holds its errno).
int CPlainHTTP_send(CPlainHTTP_Conn *conn, int fd);

/// Reads what the socket has and parses it: one of the `CPlainHTTP_more`, `CPlainHTTP_done` or
/// failure codes above.
int CPlainHTTP_receive(CPlainHTTP_Conn *conn, int fd);

/// Feeds `bytes` to the parser as if received (no socket): the same codes as
/// `CPlainHTTP_receive`; `length` 0 means the peer closed the connection.
int CPlainHTTP_feed(CPlainHTTP_Conn *conn, const uint8_t *bytes, size_t length);

/// A non-blocking, close-on-exec TCP socket with TCP_NODELAY connecting to `address`: the
/// socket (>= 0) with `*in_progress` 1 while the connect completes, or -errno.
int CPlainHTTP_connect(const struct sockaddr *address, socklen_t length, int *in_progress);

/// The outcome of a non-blocking connect once the socket is writable: 0 or the errno.
int CPlainHTTP_connect_error(int fd);

/// An idle connection's socket became readable: 1 if the peer closed it or sent bytes nobody
/// asked for (the connection cannot carry a request), 0 if it is still good.
int CPlainHTTP_idle_broken(int fd);

/// Adds (`add` 1) or changes the registration of `fd` on `epfd`: readable, and writable too when
/// `writable`; `token` comes back with its events. Returns 0 or -1 with errno.
int CPlainHTTP_epoll_watch(int epfd, int fd, int add, int writable, uint64_t token);

/// Up to `capacity` addresses of `host`:`port` (numeric port) for TCP, in resolver order:
/// their count (>= 1), or a negative `getaddrinfo` code (`CPlainHTTP_resolve_error` words it).
int CPlainHTTP_resolve(const char *host, const char *port, struct sockaddr_storage *addresses, socklen_t *lengths, int capacity);
const char *CPlainHTTP_resolve_error(int code);

#endif
