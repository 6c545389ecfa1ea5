#include "CMicroHTTPDShims.h"

#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *CMicroHTTPDShims_start(const CMicroHTTPDShims_Options *o) {
    struct sockaddr_in address;
    memset(&address, 0, sizeof(address));
    address.sin_family = AF_INET;
    address.sin_port = htons(o->port);
    address.sin_addr.s_addr = o->ipv4_address_be;
    return MHD_start_daemon(
        o->flags, o->port, NULL, NULL,
        o->access_handler, o->access_handler_cls,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size > 1 ? o->thread_pool_size : 0u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, o->listen_backlog,
        MHD_OPTION_NOTIFY_COMPLETED, o->completed_callback, o->completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, o->uri_log_callback, o->uri_log_cls,
        MHD_OPTION_NOTIFY_CONNECTION, o->notify_connection, o->notify_connection_cls,
        MHD_OPTION_END);
}

uint16_t CMicroHTTPDShims_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int CMicroHTTPDShims_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
