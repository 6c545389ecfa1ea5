#define _GNU_SOURCE
#include "CPlainHTTP.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

enum {
    STATE_HEAD,
    STATE_LENGTH,
    STATE_UNTIL_CLOSE,
    STATE_CHUNK_SIZE,
    STATE_CHUNK_EXTENSION,
    STATE_CHUNK_DATA,
    STATE_CHUNK_DATA_CR,
    STATE_CHUNK_DATA_LF,
    STATE_TRAILER_START,
    STATE_TRAILER_LINE,
    STATE_TRAILER_END_LF,
    STATE_DONE,
};

static int grow(uint8_t **buffer, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return 0;
    size_t next = *capacity ? *capacity : 256;
    while (next < needed) next *= 2;
    uint8_t *grown = realloc(*buffer, next);
    if (!grown) return -1;
    *buffer = grown;
    *capacity = next;
    return 0;
}

int CPlainHTTP_conn_init(CPlainHTTP_Conn *conn, int keep_body) {
    memset(conn, 0, sizeof(*conn));
    conn->keep_body = keep_body;
    if (grow(&conn->in, &conn->in_cap, 16384) != 0) return -1;
    if (grow(&conn->out, &conn->out_cap, 1024) != 0) return -1;
    return 0;
}

void CPlainHTTP_conn_free(CPlainHTTP_Conn *conn) {
    free(conn->in);
    free(conn->out);
    free(conn->body);
    memset(conn, 0, sizeof(*conn));
}

static void reset_response(CPlainHTTP_Conn *conn) {
    conn->in_len = 0;
    conn->scan_from = 0;
    conn->body_len = 0;
    conn->state = STATE_HEAD;
    conn->chunk_digits = 0;
    conn->remaining = 0;
    conn->status = 0;
    conn->keep_alive = 1;
    conn->body_bytes = 0;
    conn->received = 0;
    conn->first_byte_ns = 0;
    conn->error = 0;
}

static int append(CPlainHTTP_Conn *conn, const void *bytes, size_t length) {
    if (grow(&conn->out, &conn->out_cap, conn->out_len + length) != 0) return -1;
    memcpy(conn->out + conn->out_len, bytes, length);
    conn->out_len += length;
    return 0;
}

int CPlainHTTP_request(CPlainHTTP_Conn *conn, const char *method, const uint8_t *target, size_t target_len,
                       const uint8_t *head, size_t head_len, int has_body, const uint8_t *body, size_t body_len) {
    conn->out_len = 0;
    conn->out_sent = 0;
    reset_response(conn);
    static const char version[] = " HTTP/1.1\r\n";
    if (append(conn, method, strlen(method)) || append(conn, " ", 1) || append(conn, target, target_len)
        || append(conn, version, sizeof(version) - 1) || append(conn, head, head_len)) return -1;
    if (has_body) {
        char line[48];
        int n = snprintf(line, sizeof(line), "Content-Length: %zu\r\n", body_len);
        if (append(conn, line, (size_t)n)) return -1;
    }
    if (append(conn, "\r\n", 2)) return -1;
    if (has_body && body_len && append(conn, body, body_len)) return -1;
    return 0;
}

int CPlainHTTP_send(CPlainHTTP_Conn *conn, int fd) {
    while (conn->out_sent < conn->out_len) {
        ssize_t n = send(fd, conn->out + conn->out_sent, conn->out_len - conn->out_sent, MSG_NOSIGNAL);
        if (n > 0) {
            conn->out_sent += (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            conn->error = n < 0 ? errno : EPIPE;
            return -1;
        }
    }
    return 1;
}

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* The header name `text[0..length)` is `name` (lower case, `n` bytes), case-insensitively. */
static int name_is(const uint8_t *text, size_t length, const char *name, size_t n) {
    if (length != n) return 0;
    for (size_t i = 0; i < n; i++) if (lower(text[i]) != name[i]) return 0;
    return 1;
}
#define NAME_IS(text, length, literal) name_is(text, length, literal, sizeof(literal) - 1)

/* The comma-separated header value `value[0..length)` holds the token `token` (lower case). */
static int has_token(const uint8_t *value, size_t length, const char *token) {
    size_t n = strlen(token), i = 0;
    while (i < length) {
        while (i < length && (value[i] == ' ' || value[i] == '\t' || value[i] == ',')) i++;
        size_t start = i;
        while (i < length && value[i] != ',') i++;
        size_t end = i;
        while (end > start && (value[end - 1] == ' ' || value[end - 1] == '\t')) end--;
        if (end - start == n) {
            size_t k = 0;
            while (k < n && lower(value[start + k]) == token[k]) k++;
            if (k == n) return 1;
        }
    }
    return 0;
}

/* Parses the head `text[0..length)` (without the blank line): status, framing, keep-alive. */
static int parse_head(CPlainHTTP_Conn *conn, const uint8_t *text, size_t length) {
    const uint8_t *line_end = memchr(text, '\n', length);
    size_t line = line_end ? (size_t)(line_end - text) : length;
    if (line && text[line - 1] == '\r') line--;
    if (line < 12 || memcmp(text, "HTTP/1.", 7) != 0 || (text[7] != '0' && text[7] != '1') || text[8] != ' '
        || text[9] < '1' || text[9] > '5' || text[10] < '0' || text[10] > '9' || text[11] < '0' || text[11] > '9'
        || (line > 12 && text[12] != ' ')) return CPlainHTTP_malformed_status;
    conn->status = (text[9] - '0') * 100 + (text[10] - '0') * 10 + (text[11] - '0');
    int http10 = text[7] == '0';
    int keep_alive = !http10, chunked = 0, has_length = 0;
    uint64_t length_value = 0;
    size_t at = line_end ? (size_t)(line_end - text) + 1 : length;
    while (at < length) {
        const uint8_t *end = memchr(text + at, '\n', length - at);
        size_t stop = end ? (size_t)(end - text) : length;
        size_t last = stop;
        if (last > at && text[last - 1] == '\r') last--;
        const uint8_t *colon = memchr(text + at, ':', last - at);
        /* Lines without a colon and folded continuation lines carry nothing this client reads. */
        if (colon && text[at] != ' ' && text[at] != '\t') {
            size_t name_length = (size_t)(colon - (text + at));
            const uint8_t *value = colon + 1;
            size_t value_length = (size_t)((text + last) - value);
            while (value_length && (*value == ' ' || *value == '\t')) { value++; value_length--; }
            while (value_length && (value[value_length - 1] == ' ' || value[value_length - 1] == '\t')) value_length--;
            if (NAME_IS(text + at, name_length, "content-length")) {
                if (value_length == 0 || value_length > 18) return CPlainHTTP_malformed_length;
                uint64_t parsed = 0;
                for (size_t i = 0; i < value_length; i++) {
                    if (value[i] < '0' || value[i] > '9') return CPlainHTTP_malformed_length;
                    parsed = parsed * 10 + (uint64_t)(value[i] - '0');
                }
                if (has_length && parsed != length_value) return CPlainHTTP_malformed_length;
                has_length = 1;
                length_value = parsed;
            } else if (NAME_IS(text + at, name_length, "transfer-encoding")) {
                if (has_token(value, value_length, "chunked")) chunked = 1;
            } else if (NAME_IS(text + at, name_length, "connection")) {
                if (has_token(value, value_length, "close")) keep_alive = 0;
                else if (has_token(value, value_length, "keep-alive")) keep_alive = 1;
            }
        }
        at = stop + 1;
    }
    conn->keep_alive = keep_alive;
    if ((conn->status >= 100 && conn->status < 200) || conn->status == 204 || conn->status == 304) {
        conn->state = STATE_DONE;
    } else if (chunked) {
        conn->state = STATE_CHUNK_SIZE;
        conn->remaining = 0;
        conn->chunk_digits = 0;
    } else if (has_length) {
        conn->remaining = length_value;
        conn->state = length_value ? STATE_LENGTH : STATE_DONE;
    } else {
        conn->state = STATE_UNTIL_CLOSE;
        conn->keep_alive = 0;
    }
    return CPlainHTTP_more;
}

static int sink(CPlainHTTP_Conn *conn, const uint8_t *bytes, size_t length) {
    conn->body_bytes += length;
    if (!conn->keep_body || length == 0) return 0;
    if (grow(&conn->body, &conn->body_cap, conn->body_len + length) != 0) return -1;
    memcpy(conn->body + conn->body_len, bytes, length);
    conn->body_len += length;
    return 0;
}

static int hex(uint8_t c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Body bytes `bytes[0..length)` through the framing state machine; CPlainHTTP_done once the
   body ends (bytes after it mean the connection cannot be trusted for another request). */
static int body(CPlainHTTP_Conn *conn, const uint8_t *bytes, size_t length) {
    size_t i = 0;
    while (i < length) {
        switch (conn->state) {
        case STATE_LENGTH: {
            size_t take = length - i;
            if ((uint64_t)take > conn->remaining) take = (size_t)conn->remaining;
            if (sink(conn, bytes + i, take)) return CPlainHTTP_no_memory;
            i += take;
            conn->remaining -= take;
            if (conn->remaining == 0) conn->state = STATE_DONE;
            break;
        }
        case STATE_UNTIL_CLOSE:
            if (sink(conn, bytes + i, length - i)) return CPlainHTTP_no_memory;
            i = length;
            break;
        case STATE_CHUNK_SIZE: {
            uint8_t c = bytes[i++];
            int v = hex(c);
            if (v >= 0) {
                if (conn->chunk_digits >= 15) return CPlainHTTP_malformed_chunk;
                conn->remaining = conn->remaining * 16 + (uint64_t)v;
                conn->chunk_digits++;
            } else if (conn->chunk_digits && (c == ';' || c == ' ' || c == '\t' || c == '\r')) {
                conn->state = STATE_CHUNK_EXTENSION;
            } else if (conn->chunk_digits && c == '\n') {
                conn->state = conn->remaining ? STATE_CHUNK_DATA : STATE_TRAILER_START;
            } else {
                return CPlainHTTP_malformed_chunk;
            }
            break;
        }
        case STATE_CHUNK_EXTENSION:
            if (bytes[i++] == '\n') conn->state = conn->remaining ? STATE_CHUNK_DATA : STATE_TRAILER_START;
            break;
        case STATE_CHUNK_DATA: {
            size_t take = length - i;
            if ((uint64_t)take > conn->remaining) take = (size_t)conn->remaining;
            if (sink(conn, bytes + i, take)) return CPlainHTTP_no_memory;
            i += take;
            conn->remaining -= take;
            if (conn->remaining == 0) conn->state = STATE_CHUNK_DATA_CR;
            break;
        }
        case STATE_CHUNK_DATA_CR: {
            uint8_t c = bytes[i++];
            if (c == '\r') conn->state = STATE_CHUNK_DATA_LF;
            else if (c == '\n') { conn->state = STATE_CHUNK_SIZE; conn->chunk_digits = 0; }
            else return CPlainHTTP_malformed_chunk;
            break;
        }
        case STATE_CHUNK_DATA_LF:
            if (bytes[i++] != '\n') return CPlainHTTP_malformed_chunk;
            conn->state = STATE_CHUNK_SIZE;
            conn->chunk_digits = 0;
            conn->remaining = 0;
            break;
        case STATE_TRAILER_START: {
            uint8_t c = bytes[i++];
            if (c == '\r') conn->state = STATE_TRAILER_END_LF;
            else if (c == '\n') conn->state = STATE_DONE;
            else conn->state = STATE_TRAILER_LINE;
            break;
        }
        case STATE_TRAILER_LINE:
            if (bytes[i++] == '\n') conn->state = STATE_TRAILER_START;
            break;
        case STATE_TRAILER_END_LF:
            if (bytes[i++] != '\n') return CPlainHTTP_malformed_chunk;
            conn->state = STATE_DONE;
            break;
        case STATE_DONE:
            /* Bytes after the response: this client sends one request at a time, so the server
               is out of step; the connection is not reused. */
            conn->keep_alive = 0;
            return CPlainHTTP_done;
        default:
            return CPlainHTTP_malformed_chunk;
        }
    }
    return conn->state == STATE_DONE ? CPlainHTTP_done : CPlainHTTP_more;
}

/* Parses what `in` holds: the head (when complete), then its body bytes, which are consumed. */
static int process(CPlainHTTP_Conn *conn) {
    size_t offset = 0;
    while (conn->state == STATE_HEAD) {
        size_t from = conn->scan_from, skip = 0, head_length = 0;
        int found = 0;
        /* The head ends at a blank line: CRLF CRLF, or bare LFs as lenient servers send. */
        for (size_t i = offset + from; i < conn->in_len; i++) {
            const uint8_t *p = memchr(conn->in + i, '\n', conn->in_len - i);
            if (!p) break;
            i = (size_t)(p - conn->in);
            if (i + 1 < conn->in_len && conn->in[i + 1] == '\n') { skip = 2; }
            else if (i + 2 < conn->in_len && conn->in[i + 1] == '\r' && conn->in[i + 2] == '\n') { skip = 3; }
            else continue;
            head_length = i + 1 - offset;
            found = 1;
            break;
        }
        if (!found) {
            if (conn->in_len - offset > CPlainHTTP_max_head) return CPlainHTTP_head_too_large;
            if (offset) {
                memmove(conn->in, conn->in + offset, conn->in_len - offset);
                conn->in_len -= offset;
            }
            size_t kept = conn->in_len;
            conn->scan_from = kept > 2 ? kept - 2 : 0;
            /* A status line that cannot become valid fails now, not when the head ends. */
            if (kept >= 5 && memcmp(conn->in, "HTTP/", 5) != 0) return CPlainHTTP_malformed_status;
            return CPlainHTTP_more;
        }
        int rc = parse_head(conn, conn->in + offset, head_length);
        if (rc != CPlainHTTP_more) return rc;
        offset += head_length + skip - 1;
        conn->scan_from = 0;
        if (conn->status >= 100 && conn->status < 200 && conn->status != 101) {
            /* An interim response (100 Continue, 103 Early Hints): the final one follows. */
            conn->state = STATE_HEAD;
            conn->keep_alive = 1;
            continue;
        }
        if (conn->status == 101) return CPlainHTTP_malformed_status;
    }
    int rc = conn->state == STATE_DONE ? CPlainHTTP_done : CPlainHTTP_more;
    if (offset < conn->in_len) rc = body(conn, conn->in + offset, conn->in_len - offset);
    else if (conn->state == STATE_DONE) rc = CPlainHTTP_done;
    conn->in_len = 0;
    return rc;
}

static int closed(CPlainHTTP_Conn *conn) {
    switch (conn->state) {
    case STATE_HEAD:
        return conn->received ? CPlainHTTP_closed_in_head : CPlainHTTP_closed_empty;
    case STATE_UNTIL_CLOSE:
        conn->state = STATE_DONE;
        conn->keep_alive = 0;
        return CPlainHTTP_done;
    case STATE_DONE:
        return CPlainHTTP_done;
    default:
        return CPlainHTTP_closed_in_body;
    }
}

static uint64_t now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
}

int CPlainHTTP_receive(CPlainHTTP_Conn *conn, int fd) {
    for (;;) {
        if (conn->in_len == conn->in_cap && grow(&conn->in, &conn->in_cap, conn->in_cap * 2) != 0) return CPlainHTTP_no_memory;
        size_t room = conn->in_cap - conn->in_len;
        ssize_t n = recv(fd, conn->in + conn->in_len, room, 0);
        if (n > 0) {
            if (!conn->received) conn->first_byte_ns = now_ns();
            conn->received += (uint64_t)n;
            conn->in_len += (size_t)n;
            int rc = process(conn);
            if (rc != CPlainHTTP_more) return rc;
            /* A short read drained the socket; level-triggered epoll reports the next bytes. */
            if ((size_t)n < room) return CPlainHTTP_more;
        } else if (n == 0) {
            return closed(conn);
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return CPlainHTTP_more;
        } else {
            conn->error = errno;
            return CPlainHTTP_receive_failed;
        }
    }
}

int CPlainHTTP_feed(CPlainHTTP_Conn *conn, const uint8_t *bytes, size_t length) {
    if (length == 0) return closed(conn);
    if (grow(&conn->in, &conn->in_cap, conn->in_len + length) != 0) return CPlainHTTP_no_memory;
    if (!conn->received) conn->first_byte_ns = now_ns();
    conn->received += length;
    memcpy(conn->in + conn->in_len, bytes, length);
    conn->in_len += length;
    return process(conn);
}

int CPlainHTTP_connect(const struct sockaddr *address, socklen_t length, int *in_progress) {
    *in_progress = 0;
    int fd = socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_TCP);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (connect(fd, address, length) == 0) return fd;
    if (errno == EINPROGRESS || errno == EINTR) {
        *in_progress = 1;
        return fd;
    }
    int error = errno;
    close(fd);
    return -error;
}

int CPlainHTTP_connect_error(int fd) {
    int error = 0;
    socklen_t length = sizeof(error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) return errno;
    return error;
}

int CPlainHTTP_idle_broken(int fd) {
    uint8_t byte;
    ssize_t n = recv(fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return 0;
    return 1;
}

int CPlainHTTP_epoll_watch(int epfd, int fd, int add, int writable, uint64_t token) {
    struct epoll_event event;
    memset(&event, 0, sizeof(event));
    event.events = EPOLLIN | (writable ? EPOLLOUT : 0);
    event.data.u64 = token;
    return epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event);
}

int CPlainHTTP_resolve(const char *host, const char *port, struct sockaddr_storage *addresses, socklen_t *lengths, int capacity) {
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    hints.ai_flags = AI_NUMERICSERV;
    int rc = getaddrinfo(host, port, &hints, &found);
    if (rc != 0) return rc < 0 ? rc : -rc;
    int count = 0;
    for (struct addrinfo *at = found; at && count < capacity; at = at->ai_next) {
        if (at->ai_addrlen > sizeof(struct sockaddr_storage)) continue;
        memcpy(&addresses[count], at->ai_addr, at->ai_addrlen);
        lengths[count] = at->ai_addrlen;
        count++;
    }
    freeaddrinfo(found);
    return count ? count : EAI_NONAME;
}

const char *CPlainHTTP_resolve_error(int code) { return gai_strerror(code); }
