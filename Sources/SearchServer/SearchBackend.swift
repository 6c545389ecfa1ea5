import Matching

/// One item of a result page.
package struct SearchHit: Sendable, Hashable {
    /// The product's id as the catalog has it (an opaque string).
    package var id: String
    package var name: String

    package init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// What a backend answers: one page of hits, the total number of matches, and how it found them.
package struct BackendResult: Sendable, Hashable {
    package var items: [SearchHit]
    /// All matches, not just this page.
    package var total: Int
    /// The match path the backend took (`scan`, `index`, `refine`, ...), reported to clients.
    package var path: String
    /// Items examined; summed into `/metrics` as filtering work.
    package var itemsScanned: Int

    package init(items: [SearchHit], total: Int, path: String, itemsScanned: Int) {
        self.items = items
        self.total = total
        self.path = path
        self.itemsScanned = itemsScanned
    }
}

/// Thrown by a backend that observed cancellation and stopped early.
package struct SearchCancelled: Error, Sendable, Equatable {
    /// Items examined before stopping: wasted work.
    package var itemsScanned: Int

    package init(itemsScanned: Int) {
        self.itemsScanned = itemsScanned
    }
}

/// The filter engine as the search server sees it.
///
/// The server calls `search` on one of its worker threads (never on the cooperative pool), so an
/// implementation may block and spin the CPU. It must call `isCancelled` often enough that a
/// disconnected client stops the work within a millisecond or so (every ~1,000 items on a scan;
/// the call is an atomic load: a watcher thread sets the flag when epoll reports the client's
/// hang-up)
/// and, once it returns `true`, throw `SearchCancelled` with the items examined so far.
/// Any other error becomes a 500 with the error's description.
///
/// The request is the engine's own `SearchRequest`, as the server parsed it from `GET /search`:
/// the text as sent (percent-decoded, valid UTF-8, not normalized: the backend owns folding and
/// trimming), and `needsTotal` set, because every answer carries the total.
package protocol SearchBackend: Sendable {
    func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult
}
