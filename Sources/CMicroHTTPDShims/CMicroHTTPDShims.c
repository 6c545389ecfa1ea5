#include "CMicroHTTPDShims.h"

#include <string.h>

struct MHD_Daemon *CMicroHTTPDShims_start(const CMicroHTTPDShims_Options *o) {
    return MHD_start_daemon(
        o->flags | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC, 0, NULL, NULL,
        o->access_handler, o->access_handler_cls,
        MHD_OPTION_CONNECTION_LIMIT, o->connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds,
        MHD_OPTION_THREAD_POOL_SIZE, o->thread_pool_size > 1 ? o->thread_pool_size : 0u,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, o->connection_memory_limit,
        MHD_OPTION_NOTIFY_COMPLETED, o->completed_callback, o->completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, o->uri_log_callback, o->uri_log_cls,
        MHD_OPTION_NOTIFY_CONNECTION, o->notify_connection, o->notify_connection_cls,
        MHD_OPTION_END);
}

int CMicroHTTPDShims_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
