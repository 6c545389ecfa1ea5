import Dispatch

/// A complete result set kept for refinement: the ranks matching `pattern` (folded) under a
/// scope and a set of tokens.
struct CachedResult: Sendable {
    var pattern: [UInt8]
    var scopeKey: Int
    var tokenKey: [[UInt8]]
    var ranks: [UInt32]
}

/// The most recent complete, small result sets, newest last.
struct ResultCache: Sendable {
    static let capacity = 16
    var entries: [CachedResult] = []

    mutating func insert(_ entry: CachedResult) {
        entries.removeAll { $0.pattern == entry.pattern && $0.scopeKey == entry.scopeKey && $0.tokenKey == entry.tokenKey }
        if entries.count >= Self.capacity { entries.removeFirst() }
        entries.append(entry)
    }

    /// The smallest cached set whose query is contained in `pattern` (same scope and tokens).
    ///
    /// Containment, not prefix: `ab` refines `xaby`, and a Hangul syllable still being composed
    /// (추 → 충) is not contained in the next text, so it is correctly not refined.
    func best(for pattern: [UInt8], scopeKey: Int, tokenKey: [[UInt8]]) -> CachedResult? {
        var best: CachedResult? = nil
        for entry in entries where entry.scopeKey == scopeKey && entry.tokenKey == tokenKey {
            guard entry.pattern.count <= pattern.count, SearchEngine.contains(pattern[...], entry.pattern) else { continue }
            if best == nil || entry.ranks.count < best!.ranks.count { best = entry }
        }
        return best
    }
}

extension SearchEngine {
    enum Choice {
        case scan
        case absent
        /// Posting ranges, shortest first.
        case index([Range<Int>])
        case refine(CachedResult)
    }

    /// Scan throughput the planner assumes (bytes per nanosecond): one core, all cores.
    static let scanBytesPerNanosecond = (one: 4.0, all: 7.0)
    /// Cost the planner assumes per candidate verified (index, refine), in nanoseconds.
    static let verifyNanoseconds = 25.0

    func choosePath(_ plan: Plan, forcing: ForcedPath?) -> Choice {
        let pattern = plan.pattern
        var lists: [Range<Int>] = []
        var absent = false
        var allDropped = true
        if pattern.count >= 3 {
            for i in 0..<(pattern.count - 2) {
                switch trigrams.lookup(pattern[i], pattern[i + 1], pattern[i + 2]) {
                case .absent: absent = true
                case .dropped: break
                case let .postings(range):
                    allDropped = false
                    if !lists.contains(range) { lists.append(range) }
                }
                if absent { break }
            }
            lists.sort { $0.count < $1.count }
        }
        let cached = cache.withLock { $0.best(for: pattern, scopeKey: plan.scopeKey, tokenKey: plan.tokenKey) }
        switch forcing {
        case .scan: return .scan
        case .index:
            if absent { return .absent }
            if !lists.isEmpty { return .index(lists) }
        case .refine:
            if let cached { return .refine(cached) }
        case nil: break
        }
        if absent { return .absent }
        let bytes = Double(store.scannedByteCount)
        let n = Double(count)
        // Expected hits: bounded by the shortest posting list; unknown (short or common
        // patterns) is taken as a common query.
        let estimatedHits = lists.first.map { Double($0.count) } ?? (allDropped && pattern.count >= 3 ? Double(trigrams.dropThreshold) : n / 20)
        let scanCost: Double
        if let need = plan.need {
            let fraction = min(1, Double(max(need, 1)) / max(estimatedHits, 1))
            scanCost = bytes * fraction / Self.scanBytesPerNanosecond.one
        } else {
            scanCost = bytes / Self.scanBytesPerNanosecond.all
        }
        let indexCost = lists.first.map { Double($0.count) * Self.verifyNanoseconds } ?? .infinity
        let refineCost = cached.map { Double($0.ranks.count) * Self.verifyNanoseconds } ?? .infinity
        if let cached, refineCost <= indexCost, refineCost <= scanCost { return .refine(cached) }
        if indexCost <= scanCost { return .index(lists) }
        return .scan
    }

    /// Whether `text` contains `pattern` as bytes.
    @inline(__always)
    static func contains(_ text: ArraySlice<UInt8>, _ pattern: [UInt8]) -> Bool {
        text.withUnsafeBufferPointer { t in
            pattern.withUnsafeBufferPointer { p in contains(t, p) }
        }
    }

    @inline(__always)
    static func contains(_ text: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        let m = pattern.count, n = text.count
        guard m <= n else { return false }
        if m == 0 { return true }
        let first = pattern[0]
        var s = 0
        while s <= n - m {
            if text[s] == first && PackedPairScanner.equal(text.baseAddress! + s, pattern) { return true }
            s += 1
        }
        return false
    }

    /// Stops worker threads once the caller's cancellation is seen by any of them.
    final class StopSignal: Sendable {
        let flag = SearchCancellationFlag()
        let cancellation: SearchCancellation

        init(_ cancellation: SearchCancellation) { self.cancellation = cancellation }

        func shouldStop() -> Bool {
            if flag.isCancelled { return true }
            if cancellation.isCancelled {
                flag.cancel()
                return true
            }
            return false
        }
    }

    /// The first page by a sequential scan of the most popular names; if the first 256 KiB do
    /// not fill it, the rest is scanned on all cores (which also yields the total).
    func scanFirstPage(_ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        let scanner = PackedPairScanner(pattern: plan.pattern, frequency: store.byteFrequency)
        let budget = tuning.firstPageBytes
        let firstEnd = store.starts.withUnsafeBufferPointer { starts in
            min(count, PackedPairScanner.rank(containing: min(budget, max(0, store.scannedByteCount - 1)), from: 0, starts, count) + 1)
        }
        let outcome = scanner.scan(store, ranks: 0, firstEnd, shouldStop: { cancellation.isCancelled }, onMatch: { collector.add($0) })
        if outcome.cancelled { return (outcome.stoppedAt, outcome.bytesScanned, true) }
        if collector.satisfied || firstEnd >= count {
            if !collector.satisfied { collector.finish() }
            return (outcome.stoppedAt, outcome.bytesScanned, false)
        }
        let (scanned, bytes, cancelled) = scanAll(plan, &collector, cancellation, from: firstEnd)
        return (firstEnd + scanned, outcome.bytesScanned + bytes, cancelled)
    }

    /// Scans ranks `from..<count` split across the cores; every name hit goes to `collector`.
    func scanAll(_ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation, from: Int = 0) -> (Int, Int, Bool) {
        let scanner = PackedPairScanner(pattern: plan.pattern, frequency: store.byteFrequency)
        let signal = StopSignal(cancellation)
        let remaining = store.scannedByteCount - Int(store.starts[from])
        let parts = remaining < tuning.parallelMinimumBytes ? 1 : max(1, min(tuning.parts, count - from))
        var bounds = [from]
        store.starts.withUnsafeBufferPointer { starts in
            for part in 1..<parts {
                let target = Int(starts[from]) + remaining * part / parts
                bounds.append(max(bounds.last!, PackedPairScanner.rank(containing: target, from: from, starts, count)))
            }
        }
        bounds.append(count)
        let partBounds = bounds
        let results = PartResults<([UInt32], PackedPairScanner.Outcome)>(count: parts)
        let scope = plan.scope
        let store = store
        let work: @Sendable (Int) -> Void = { part in
            var hits: [UInt32] = []
            let outcome = scanner.scan(store, ranks: partBounds[part], partBounds[part + 1], shouldStop: { signal.shouldStop() }, onMatch: { rank in
                if let scope, !scope.contains(rank) { return true }
                hits.append(UInt32(rank))
                return true
            })
            results.set(part, (hits, outcome))
        }
        if parts == 1 { work(0) } else { DispatchQueue.concurrentPerform(iterations: parts, execute: work) }
        var bytes = 0
        var cancelled = false
        for part in 0..<parts {
            let (hits, outcome) = results.take(part)
            bytes += outcome.bytesScanned
            cancelled = cancelled || outcome.cancelled
            if cancelled { continue }
            for rank in hits where !collector.add(Int(rank)) { break }
        }
        if !cancelled && !collector.satisfied { collector.finish() }
        return (count - from, bytes, cancelled)
    }

    /// Intersects the posting lists, then verifies the candidates in rank order.
    func indexSearch(_ lists: [Range<Int>], _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        var candidates = Array(trigrams.postings[lists[0]])
        for range in lists.dropFirst() {
            if candidates.isEmpty { break }
            if cancellation.isCancelled { return (0, 0, true) }
            candidates = Self.intersect(candidates, trigrams.postings, range)
        }
        return verify(candidates, plan, &collector, cancellation)
    }

    /// Keeps the `candidates` that occur in `postings[range]` (both ascending), galloping
    /// through the longer list.
    static func intersect(_ candidates: [UInt32], _ postings: [UInt32], _ range: Range<Int>) -> [UInt32] {
        var kept: [UInt32] = []
        kept.reserveCapacity(candidates.count)
        postings.withUnsafeBufferPointer { list in
            var lo = range.lowerBound
            let hi = range.upperBound
            for candidate in candidates {
                var step = 1
                var probe = lo
                while probe < hi && list[probe] < candidate {
                    lo = probe + 1
                    probe = lo + step
                    step <<= 1
                }
                var upper = min(probe, hi)
                // list[lo - 1] < candidate (or lo is the range start); list[upper] >= candidate or upper == hi.
                while lo < upper {
                    let mid = (lo + upper) / 2
                    if list[mid] < candidate { lo = mid + 1 } else { upper = mid }
                }
                if lo >= hi { break }
                if list[lo] == candidate { kept.append(candidate) }
            }
        }
        return kept
    }

    /// Checks each candidate's folded name for the pattern, in order.
    func verify(_ candidates: [UInt32], _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        var checked = 0, bytes = 0
        let done: Bool? = store.bytes.withUnsafeBufferPointer { all in
            store.starts.withUnsafeBufferPointer { starts in
                plan.pattern.withUnsafeBufferPointer { pattern in
                    for candidate in candidates {
                        if checked & 4095 == 4095, cancellation.isCancelled { return nil }
                        let rank = Int(candidate)
                        if let scope = plan.scope, !scope.contains(rank) { continue }
                        checked += 1
                        let from = Int(starts[rank]), to = Int(starts[rank + 1]) - 1
                        bytes += to - from
                        if Self.contains(UnsafeBufferPointer(rebasing: all[from..<to]), pattern), !collector.add(rank) { return false }
                    }
                    return true
                }
            }
        }
        guard let done else { return (checked, bytes, true) }
        if done { collector.finish() }
        return (checked, bytes, false)
    }

    /// Verifies the cached superset's members.
    func refine(_ entry: CachedResult, _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        verify(entry.ranks, plan, &collector, cancellation)
    }

    /// Keeps a complete result set for refinement if it is small enough to be worth it.
    func remember(_ plan: Plan, _ ranks: [UInt32]) {
        guard ranks.count <= count / Self.refineShare else { return }
        let entry = CachedResult(pattern: plan.pattern, scopeKey: plan.scopeKey, tokenKey: plan.tokenKey, ranks: ranks)
        cache.withLock { $0.insert(entry) }
    }
}
