import Matching
import Synchronization

/// Answers to first pages (`offset` 0) already searched for, as the bytes of their body.
///
/// The catalog a server serves does not change while it runs, so the same request gets the same
/// page and total: a hit is answered on the I/O thread without a worker hand-off or a search.
/// Keyed by the request as parsed (text as sent, scope, tokens, limit). Bounded: a full shard
/// drops an arbitrary entry for each new one. Split into shards with a lock each, so the I/O
/// threads rarely wait for one another.
final class FirstPageCache: Sendable {
    /// The parts of a `/search` body that do not depend on the request's timing.
    struct Page: Sendable {
        /// From `{"query":` up to and including the total.
        var head: [UInt8]
        /// `,"items":[...]`.
        var items: [UInt8]
    }

    private final class Shard: Sendable {
        let pages = Mutex<[SearchRequest: Page]>([:])
    }

    private static let shardCount = 16
    private let shards: [Shard]
    private let perShard: Int

    /// `capacity` pages at most (rounded up to a multiple of the shard count); 0 keeps none.
    init(capacity: Int) {
        perShard = capacity <= 0 ? 0 : (capacity + Self.shardCount - 1) / Self.shardCount
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    var isEnabled: Bool { perShard > 0 }

    /// Whether `request` is one this cache keeps: a first page.
    static func caches(_ request: SearchRequest) -> Bool { request.offset == 0 }

    func page(for request: SearchRequest) -> Page? {
        guard isEnabled else { return nil }
        return shard(request).pages.withLock { $0[request] }
    }

    func store(_ page: Page, for request: SearchRequest) {
        guard isEnabled, Self.caches(request) else { return }
        shard(request).pages.withLock { pages in
            if pages[request] == nil, pages.count >= perShard, let any = pages.indices.first { pages.remove(at: any) }
            pages[request] = page
        }
    }

    private func shard(_ request: SearchRequest) -> Shard {
        shards[Int(UInt(bitPattern: request.hashValue) % UInt(Self.shardCount))]
    }
}
