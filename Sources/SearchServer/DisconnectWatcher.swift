import CPosixShims
import Foundation
import Glibc
import TypestormSystem
import Locking
import Synchronization

/// One thread that waits on epoll for the clients of running searches to hang up (EPOLLRDHUP)
/// and sets their `CancellationFlag` the moment the kernel reports it.
///
/// Time to notice is then the epoll wake-up (microseconds), whatever the scan is doing; the
/// worker only has to load the flag. A descriptor is watched only while its connection is
/// suspended, and unwatched before the connection is resumed, so libmicrohttpd cannot close and
/// reuse it while it is in the epoll set.
final class DisconnectWatcher: Sendable {
    private let epollFD: Int32
    private let wake: SystemPipe
    private let flags = Locked<[UInt64: CancellationFlag]>([:])
    private let nextToken = Atomic<UInt64>(1)
    private let exited = DispatchSemaphore(value: 0)

    init() throws(SystemError) {
        let epoll = try Syscall.call("epoll_create1") { CPosixShims_epoll_create() }
        let pipe: SystemPipe
        do {
            pipe = try SystemPipe()
            _ = try Syscall.call("epoll_ctl") { CPosixShims_epoll_watch_readable(epoll, pipe.readEnd.rawValue, 0) }
        } catch {
            Glibc.close(epoll)
            throw error
        }
        epollFD = epoll
        wake = pipe
        let thread = Thread { [self] in self.run() }
        thread.name = "typestorm-hangups"
        thread.start()
    }

    private func run() {
        var tokens = [UInt64](repeating: 0, count: 64)
        loop: while true {
            guard let count = try? Syscall.call("epoll_wait", { CPosixShims_epoll_wait_tokens(epollFD, &tokens, 64, -1) }) else { break }
            let now = MonotonicClock.now()
            for token in tokens[0..<Int(count)] {
                if token == 0 { break loop }
                flags.withLock { $0[token] }?.cancel(at: now)
            }
        }
        exited.signal()
    }

    /// Starts watching `fd`; returns a token for `unwatch`, or nil if epoll refused (the flag then
    /// never fires and the caller falls back to polling).
    func watch(fd: Int32, flag: CancellationFlag) -> UInt64? {
        let token = nextToken.wrappingAdd(1, ordering: .relaxed).oldValue
        flags.withLock { $0[token] = flag }
        if CPosixShims_epoll_watch_hangup(epollFD, fd, token) != 0 {
            flags.withLock { _ = $0.removeValue(forKey: token) }
            return nil
        }
        return token
    }

    func unwatch(fd: Int32, token: UInt64) {
        _ = CPosixShims_epoll_unwatch(epollFD, fd)
        flags.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// Stops the thread and closes the epoll instance. Call once, after the last `unwatch`.
    func stop() {
        try? wake.writeEnd.writeAll([1])
        exited.wait()
        try? wake.writeEnd.close()
        try? wake.readEnd.close()
        Glibc.close(epollFD)
    }
}
