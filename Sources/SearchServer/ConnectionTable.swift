import Glibc
import Locking

/// Every open client connection, so a full server makes room by shedding the connections that
/// cost it nothing to lose: idle ones and slow ones still sending their headers (slowloris),
/// oldest first, never one whose request is being answered.
///
/// Without it, libmicrohttpd stops accepting at its connection limit and a `/healthz` waits in
/// the kernel's backlog until some idle connection times out; a slowloris client that sends a
/// byte every few seconds never times out at all.
///
/// Entries are the connections the `Acceptor` holds (waiting for their first request head) and
/// those libmicrohttpd serves. Shedding is `shutdown(2)` on the socket: the acceptor or
/// libmicrohttpd sees the end of the stream and closes the connection itself. The table's lock
/// is held from choosing a victim to the `shutdown`, and both report a connection closed
/// (`closed`, under the same lock) before closing the descriptor, so a descriptor number reused
/// by a new connection is never shut down.
final class ConnectionTable: Sendable {
    struct Entry {
        let fd: Int32
        /// When the connection was accepted or last finished a request.
        var lastActivityNanos: UInt64
        /// Requests answered on this connection: a client that was served is kept longer than
        /// one that never completed a request.
        var served = 0
        /// A request is past its headers and not yet completed (a search may be running).
        var busy = false
        /// Already shut down by us, waiting for libmicrohttpd to close it.
        var shed = false
    }

    private struct State {
        var entries: [UInt: Entry] = [:]
        /// Entries not shed.
        var live = 0
    }

    private let state = Locked(State())
    /// Live connections above which the oldest idle or slow ones are shed.
    let limit: Int

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    var liveCount: Int { state.withLock { $0.live } }

    /// A connection was accepted; when that makes more than `limit`, sheds others to make room.
    /// Returns how many were shed.
    @discardableResult
    func opened(_ key: UInt, fd: Int32, now: UInt64) -> Int {
        state.withLock { s in
            s.entries[key] = Entry(fd: fd, lastActivityNanos: now)
            s.live += 1
            var shed = 0
            while s.live > limit, let victim = Self.victim(in: s.entries, sparing: key) {
                s.entries[victim]!.shed = true
                s.live -= 1
                _ = Glibc.shutdown(s.entries[victim]!.fd, Int32(SHUT_RDWR))
                shed += 1
            }
            return shed
        }
    }

    /// The connection is being closed or handed on (its descriptor is still open). Returns
    /// whether it had been shed.
    @discardableResult
    func closed(_ key: UInt) -> Bool {
        state.withLock { s in
            guard let entry = s.entries.removeValue(forKey: key) else { return false }
            if !entry.shed { s.live -= 1 }
            return entry.shed
        }
    }

    /// A request's headers are complete: it is being answered and must not be shed.
    func requestStarted(_ key: UInt) {
        state.withLock { s in s.entries[key]?.busy = true }
    }

    /// A request completed; the connection is idle again.
    func requestFinished(_ key: UInt, now: UInt64) {
        state.withLock { s in
            guard s.entries[key] != nil else { return }
            s.entries[key]!.busy = false
            s.entries[key]!.served += 1
            s.entries[key]!.lastActivityNanos = now
        }
    }

    /// The connection to shed first: not busy, not already shed, not the one just accepted;
    /// connections never served before served ones, then the longest quiet.
    private static func victim(in entries: [UInt: Entry], sparing spared: UInt) -> UInt? {
        var best: (key: UInt, served: Bool, last: UInt64)?
        for (key, entry) in entries where !entry.busy && !entry.shed && key != spared {
            let candidate = (key: key, served: entry.served > 0, last: entry.lastActivityNanos)
            if let current = best {
                if (candidate.served ? 1 : 0, candidate.last) < (current.served ? 1 : 0, current.last) { best = candidate }
            } else {
                best = candidate
            }
        }
        return best?.key
    }
}
