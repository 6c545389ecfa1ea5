import ProductCatalog
import Dispatch
import TypestormSystem

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
        /// Trigram lists, fewest names first.
        case index([Int])
        /// The bigram list that is exactly the answer of a two-byte query.
        case exactBigram(Int)
        case refine(CachedResult)
    }

    /// Scan throughput the planner assumes (bytes per nanosecond): one core, all cores.
    static let scanBytesPerNanosecond = (one: 4.0, all: 7.0)
    /// Cost the planner assumes per candidate verified (index, refine), in nanoseconds.
    static let verifyNanoseconds = 25.0
    /// Cost per posting decoded (Elias–Fano, sequential), in nanoseconds.
    static let decodeNanoseconds = 1.5

    func choosePath(_ plan: Plan, forcing: ForcedPath?) -> Choice {
        let pattern = plan.pattern
        var lists: [(list: Int, count: Int)] = []
        var absent = false
        var smallestDropped = Int.max
        var exact: (list: Int, count: Int)? = nil
        if pattern.count >= 3 {
            for i in 0..<(pattern.count - 2) {
                switch trigrams.lookup(pattern, at: i) {
                case .absent: absent = true
                case let .dropped(count): smallestDropped = min(smallestDropped, count)
                case let .postings(list, count):
                    if !lists.contains(where: { $0.list == list }) { lists.append((list, count)) }
                }
                if absent { break }
            }
            lists.sort { $0.count < $1.count }
        } else if pattern.count == 2, GramIndex.bigramIndexed(pattern[0], pattern[1]) {
            switch bigrams.lookup(pattern, at: 0) {
            case .absent: absent = true
            case let .postings(list, count): exact = (list, count)
            case .dropped: break
            }
        }
        let cached = cache.withLock { $0.best(for: pattern, scopeKey: plan.scopeKey, tokenKey: plan.tokenKey) }
        switch forcing {
        case .scan: return .scan
        case .index:
            if absent { return .absent }
            if let exact { return .exactBigram(exact.list) }
            if !lists.isEmpty { return .index(lists.map(\.list)) }
        case .refine:
            if let cached { return .refine(cached) }
        case nil: break
        }
        if absent { return .absent }
        let bytes = Double(store.scannedByteCount)
        let n = Double(count)
        // Expected hits: bounded by the smallest gram count; unknown (one-byte or common
        // patterns) is taken as a common query.
        let estimatedHits = exact.map { Double($0.count) } ?? lists.first.map { Double($0.count) }
            ?? (smallestDropped < Int.max ? Double(smallestDropped) : n / 20)
        let scanCost: Double
        if let need = plan.need {
            // The first round reads `firstPageBytes` on one core; later rounds, four times
            // larger each, run on all cores.
            let expected = bytes * min(1, Double(max(need, 1)) / max(estimatedHits, 1))
            let first = Double(tuning.firstPageBytes)
            scanCost = expected <= first
                ? expected / Self.scanBytesPerNanosecond.one
                : first / Self.scanBytesPerNanosecond.one + min(bytes, max(expected, 4 * first)) / Self.scanBytesPerNanosecond.all
        } else {
            scanCost = bytes / Self.scanBytesPerNanosecond.all
        }
        var indexCost = Double.infinity
        if let exact {
            let decoded = plan.need.map { min(Double(exact.count), Double($0) * n / max(estimatedHits, 1)) } ?? Double(exact.count)
            indexCost = decoded * Self.decodeNanoseconds
        } else if let first = lists.first {
            // Decoding the intersected lists, then verifying every candidate (all hits) or
            // about `need` of them (first page).
            let decoded = lists.prefix(4).reduce(0.0) { $0 + Double($1.count) }
            let verified = plan.need.map { min(Double(first.count), Double($0) * Double(first.count) / max(estimatedHits, 1)) } ?? Double(first.count)
            indexCost = decoded * Self.decodeNanoseconds + verified * Self.verifyNanoseconds
        }
        let refineCost = cached.map { Double($0.ranks.count) * Self.verifyNanoseconds } ?? .infinity
        if let cached, refineCost <= indexCost, refineCost <= scanCost { return .refine(cached) }
        if indexCost <= scanCost {
            if let exact { return .exactBigram(exact.list) }
            return .index(lists.map(\.list))
        }
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
        let flag = CancellationFlag()
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

    /// The first page: a sequential scan of the most popular names first, then rounds four
    /// times larger each, split across the cores, until the page is full or the store ends.
    ///
    /// Common queries fill the page within the first few KiB; rare ones cost about a full
    /// parallel scan (and then the total comes with them).
    func scanFirstPage(_ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        let scanner = PackedPairScanner(pattern: plan.pattern, frequency: store.byteFrequency)
        var rank = 0
        var bytes = 0
        var budget = tuning.firstPageBytes
        var first = true
        while rank < count {
            let end = roundEnd(from: rank, bytes: budget)
            if first {
                let outcome = scanner.scan(store, ranks: rank, end, shouldStop: { cancellation.isCancelled }, onMatch: { collector.add($0) })
                bytes += outcome.bytesScanned
                if outcome.cancelled { return (outcome.stoppedAt, bytes, true) }
                if collector.satisfied { return (outcome.stoppedAt, bytes, false) }
                first = false
            } else {
                let (roundBytes, cancelled) = scanParallel(scanner, plan, rank, end, &collector, cancellation)
                bytes += roundBytes
                if cancelled { return (end, bytes, true) }
                if collector.satisfied { return (end, bytes, false) }
            }
            rank = end
            budget = budget.multipliedReportingOverflow(by: 4).overflow ? Int.max / 2 : budget * 4
        }
        collector.finish()
        return (count, bytes, false)
    }

    /// The rank after the one holding the byte `bytes` past rank `from`'s start (at least
    /// `from + 1`, at most `count`).
    private func roundEnd(from: Int, bytes: Int) -> Int {
        store.starts.withView { starts in
            let target = starts[from] + bytes
            if target >= starts[count] { return count }
            return PackedPairScanner.rank(containing: target, from: from, starts, count) + 1
        }
    }

    /// Scans all ranks split across the cores; every name hit goes to `collector`.
    func scanAll(_ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        let scanner = PackedPairScanner(pattern: plan.pattern, frequency: store.byteFrequency)
        let (bytes, cancelled) = scanParallel(scanner, plan, 0, count, &collector, cancellation)
        if !cancelled && !collector.satisfied { collector.finish() }
        return (count, bytes, cancelled)
    }

    /// Scans ranks `lo..<hi` split across the cores, then hands the hits to `collector` in
    /// order (stopping once it is satisfied).
    private func scanParallel(_ scanner: PackedPairScanner, _ plan: Plan, _ lo: Int, _ hi: Int, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Bool) {
        let signal = StopSignal(cancellation)
        let remaining = store.starts[hi] - store.starts[lo]
        let parts = remaining < tuning.parallelMinimumBytes ? 1 : max(1, min(tuning.parts, hi - lo))
        var bounds = [lo]
        store.starts.withView { starts in
            for part in 1..<max(1, parts) {
                let target = starts[lo] + remaining * part / parts
                bounds.append(max(bounds.last!, PackedPairScanner.rank(containing: target, from: lo, starts, hi)))
            }
        }
        bounds.append(hi)
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
            if cancelled || collector.satisfied { continue }
            for rank in hits where !collector.add(Int(rank)) { break }
        }
        return (bytes, cancelled)
    }

    /// Intersects the posting lists of the (up to four) rarest trigrams, then verifies the
    /// candidates in rank order.
    func indexSearch(_ lists: [Int], _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        var candidates = trigrams.decode(lists[0])
        for list in lists.dropFirst().prefix(3) {
            if candidates.count < 64 { break }
            if cancellation.isCancelled { return (0, 0, true) }
            candidates = trigrams.intersect(candidates, list)
        }
        return verify(candidates, plan, &collector, cancellation)
    }

    /// A two-byte query: its bigram list is the set of names that contain it.
    func exactSearch(_ list: Int, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Bool) {
        var decoded = 0
        var cancelled = false
        var stopped = false
        bigrams.forEachWhile(list) { rank in
            decoded += 1
            if decoded & 65535 == 0, cancellation.isCancelled {
                cancelled = true
                return false
            }
            if !collector.add(Int(rank)) {
                stopped = true
                return false
            }
            return true
        }
        if !cancelled && !stopped { collector.finish() }
        return (decoded, cancelled)
    }

    /// Checks each candidate's folded name for the pattern, in order.
    func verify(_ candidates: [UInt32], _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        // All hits of many candidates: each check is mostly a cache miss into the store, so
        // the candidates are split across the cores; the first page stays sequential and stops
        // early.
        if plan.need == nil, candidates.count >= tuning.parallelVerifyMinimum, tuning.parts > 1 {
            return verifyParallel(candidates, plan, &collector, cancellation)
        }
        var checked = 0, bytes = 0
        let done: Bool? = store.bytes.withUnsafeBufferPointer { all in
            store.starts.withView { starts in
                plan.pattern.withUnsafeBufferPointer { pattern in
                    for candidate in candidates {
                        if checked & 4095 == 4095, cancellation.isCancelled { return nil }
                        let rank = Int(candidate)
                        if let scope = plan.scope, !scope.contains(rank) { continue }
                        checked += 1
                        let from = starts[rank], to = starts[rank + 1] - 1
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

    private func verifyParallel(_ candidates: [UInt32], _ plan: Plan, _ collector: inout MatchCollector, _ cancellation: SearchCancellation) -> (Int, Int, Bool) {
        let parts = tuning.parts
        let signal = StopSignal(cancellation)
        let results = PartResults<(hits: [UInt32], checked: Int, bytes: Int, cancelled: Bool)>(count: parts)
        let store = store
        let pattern = plan.pattern
        let scope = plan.scope
        DispatchQueue.concurrentPerform(iterations: parts) { part in
            let lo = candidates.count * part / parts, hi = candidates.count * (part + 1) / parts
            var hits: [UInt32] = []
            var checked = 0, bytes = 0, cancelled = false
            store.bytes.withUnsafeBufferPointer { all in
                store.starts.withView { starts in
                    pattern.withUnsafeBufferPointer { pattern in
                        for k in lo..<hi {
                            if checked & 4095 == 4095, signal.shouldStop() {
                                cancelled = true
                                return
                            }
                            let rank = Int(candidates[k])
                            if let scope, !scope.contains(rank) { continue }
                            checked += 1
                            let from = starts[rank], to = starts[rank + 1] - 1
                            bytes += to - from
                            if Self.contains(UnsafeBufferPointer(rebasing: all[from..<to]), pattern) { hits.append(UInt32(rank)) }
                        }
                    }
                }
            }
            results.set(part, (hits, checked, bytes, cancelled))
        }
        var checked = 0, bytes = 0, cancelled = false
        for part in 0..<parts {
            let result = results.take(part)
            checked += result.checked
            bytes += result.bytes
            cancelled = cancelled || result.cancelled
            if !cancelled { for rank in result.hits { _ = collector.add(Int(rank)) } }
        }
        if cancelled { return (checked, bytes, true) }
        collector.finish()
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
