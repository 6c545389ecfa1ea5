import Dispatch

/// Measures memory read bandwidth the way the scan reads memory: 16-byte vector loads over a
/// buffer far larger than the caches, on one core and on several at once.
enum Bandwidth {
    /// Best-of-`runs` read bandwidth in bytes per second, using `threads` threads.
    static func measure(bytes: Int = 512 << 20, threads: Int, runs: Int = 5) -> Double {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        defer { buffer.deallocate() }
        // Touch every page so the reads below hit memory, not the zero page.
        for offset in stride(from: 0, to: bytes, by: 4096) { buffer[offset] = UInt8(truncatingIfNeeded: offset >> 12) }
        let base = SendablePointer(pointer: UnsafeRawPointer(buffer.baseAddress!))
        var best = 0.0
        for _ in 0..<runs {
            let sink = Sink(count: threads)
            let clock = ContinuousClock()
            let start = clock.now
            DispatchQueue.concurrentPerform(iterations: threads) { part in
                let from = bytes / threads * part, to = bytes / threads * (part + 1)
                // SIMD16 with `a = a | x`: `|=` on SIMD32<UInt8> compiles to per-lane code
                // (measured 0.08 GB/s) on the baseline x86-64 target.
                var a = SIMD16<UInt8>(), b = SIMD16<UInt8>(), c = SIMD16<UInt8>(), d = SIMD16<UInt8>()
                var p = from
                while p < to {
                    a = a | base.pointer.load(fromByteOffset: p, as: SIMD16<UInt8>.self)
                    b = b | base.pointer.load(fromByteOffset: p + 16, as: SIMD16<UInt8>.self)
                    c = c | base.pointer.load(fromByteOffset: p + 32, as: SIMD16<UInt8>.self)
                    d = d | base.pointer.load(fromByteOffset: p + 48, as: SIMD16<UInt8>.self)
                    p += 64
                }
                sink.store(part, (a | b | c | d).wrappedSum())
            }
            let elapsed = clock.now - start
            blackHole(sink.total)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            best = max(best, Double(bytes) / seconds)
        }
        return best
    }
}

/// A pointer read by worker threads. `@unchecked Sendable`: the buffer is only read while the
/// `concurrentPerform` that uses it runs, and outlives it.
struct SendablePointer: @unchecked Sendable {
    let pointer: UnsafeRawPointer
}

/// Keeps per-thread results alive so the reads are not optimized away.
/// `@unchecked Sendable`: each slot is written by one iteration, read after the loop.
final class Sink: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<UInt8>
    init(count: Int) { slots = .allocate(capacity: count); slots.initialize(repeating: 0) }
    deinit { slots.deallocate() }
    func store(_ i: Int, _ value: UInt8) { slots[i] = value }
    var total: Int { slots.reduce(0) { $0 + Int($1) } }
}

@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
