import Dispatch
import Foundation

/// Measures memory read bandwidth the way the scan reads memory: 16-byte vector loads over a
/// buffer several times larger than the last-level cache, on one core and on several at once.
enum Bandwidth {
    /// The last-level cache: its size in bytes and where it was read, or nil when sysfs does
    /// not say.
    static func lastLevelCache() -> (bytes: Int, source: String)? {
        let directory = "/sys/devices/system/cpu/cpu0/cache"
        var best: (level: Int, bytes: Int, source: String)? = nil
        for index in 0..<16 {
            let path = "\(directory)/index\(index)"
            guard let levelText = read("\(path)/level"), let level = Int(levelText),
                  let sizeText = read("\(path)/size"), let bytes = parseSize(sizeText) else { continue }
            if (read("\(path)/type") ?? "") == "Instruction" { continue }
            if best == nil || level > best!.level || (level == best!.level && bytes > best!.bytes) {
                best = (level, bytes, "L\(level) \(sizeText) from \(path)/size")
            }
        }
        return best.map { ($0.bytes, $0.source) }
    }

    /// "32768K" → 33,554,432; "1M" and plain byte counts too.
    static func parseSize(_ text: String) -> Int? {
        guard let last = text.last else { return nil }
        let scale = last == "K" ? 1 << 10 : last == "M" ? 1 << 20 : last == "G" ? 1 << 30 : 1
        return Int(scale == 1 ? text : String(text.dropLast())).map { $0 * scale }
    }

    private static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A buffer of `bytes` with every page touched (so reads hit memory, not the zero page).
    static func makeBuffer(bytes: Int) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes, alignment: 64)
        for offset in stride(from: 0, to: bytes, by: 4096) { buffer[offset] = UInt8(truncatingIfNeeded: offset >> 12) }
        return buffer
    }

    /// Reads all of `buffer` once on one thread: pushes everything else out of the caches.
    static func evictCaches(_ buffer: UnsafeMutableRawBufferPointer) {
        var a = SIMD16<UInt8>()
        let base = UnsafeRawPointer(buffer.baseAddress!)
        var p = 0
        while p + 16 <= buffer.count {
            a = a | base.load(fromByteOffset: p, as: SIMD16<UInt8>.self)
            p += 64
        }
        blackHole(a.wrappedSum())
    }

    /// Best-of-`runs` read bandwidth in bytes per second over `buffer`, using `threads` threads.
    static func measure(_ buffer: UnsafeMutableRawBufferPointer, threads: Int, runs: Int = 5) -> Double {
        let bytes = buffer.count & ~(64 * threads - 1)
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
