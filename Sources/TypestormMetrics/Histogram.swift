/// A log-linear histogram in the style of HdrHistogram: values within a fixed range are kept at a
/// fixed number of significant decimal digits, and two histograms with the same configuration
/// merge by adding counts, so recording into shards and merging equals recording into one.
///
/// Values are `Int64` in the caller's unit (nanoseconds for latencies, plain counts for fan-out).
/// A value above `highestTrackable` is recorded as `highestTrackable` and counted in `clamped`;
/// `min`, `max` and `sum` stay exact.
///
/// - Complexity: `record` is O(1) (a few shifts and one add); `percentile` is O(buckets).
public struct Histogram: Sendable, Equatable {
    /// The range and precision this histogram was created with; only histograms with equal
    /// configurations merge.
    public let configuration: Configuration
    /// Counts per bucket; index layout as in HdrHistogram (see `Configuration.index(of:)`).
    var counts: SlotCounts
    /// Values recorded, counting each `record(_:count:)` as `count` values.
    public private(set) var totalCount: Int64 = 0
    /// Exact sum of the recorded values (not clamped), in the caller's unit; with ``totalCount`` it
    /// gives the mean.
    public private(set) var sum: Int64 = 0
    /// Smallest value recorded, exact; `Int64.max` while the histogram is empty (check ``isEmpty``).
    public private(set) var min: Int64 = .max
    /// Largest value recorded, exact (not clamped); `Int64.min` while the histogram is empty (check
    /// ``isEmpty``).
    public private(set) var max: Int64 = .min
    /// Values recorded above `highestTrackable` (kept at the top bucket).
    public private(set) var clamped: Int64 = 0

    /// The shape of a histogram: range and precision. Only histograms with equal configurations
    /// merge.
    public struct Configuration: Sendable, Hashable, Codable {
        /// The smallest value told apart from 0, in the caller's unit (1 000 ns for ``latency``).
        public let lowestDiscernible: Int64
        /// The largest value kept exactly in a bucket; larger ones go to the top bucket and count in
        /// ``Histogram/clamped``.
        public let highestTrackable: Int64
        /// Significant decimal digits every bucket keeps (1 to 5): 3 means within 0.1 %.
        public let significantDigits: Int

        let unitMagnitude: Int
        let subBucketHalfCountMagnitude: Int
        let subBucketCount: Int
        let subBucketHalfCount: Int
        let subBucketMask: Int64
        let bucketCount: Int
        let countsLength: Int

        /// A shape for values from `lowestDiscernible` to `highestTrackable` at `significantDigits`
        /// decimal digits. Traps unless `lowestDiscernible >= 1`, `highestTrackable >=
        /// 2 × lowestDiscernible` and `significantDigits` is 1...5.
        public init(lowestDiscernible: Int64, highestTrackable: Int64, significantDigits: Int) {
            precondition(lowestDiscernible >= 1, "lowestDiscernible must be at least 1")
            precondition(highestTrackable >= 2 * lowestDiscernible, "highestTrackable must be at least twice lowestDiscernible")
            precondition((1...5).contains(significantDigits), "significantDigits must be 1...5")
            self.lowestDiscernible = lowestDiscernible
            self.highestTrackable = highestTrackable
            self.significantDigits = significantDigits

            var largestSingleUnit: Int64 = 2
            for _ in 0..<significantDigits { largestSingleUnit *= 10 }
            let subBucketCountMagnitude = Int((Double(largestSingleUnit)).log2Ceiling)
            subBucketHalfCountMagnitude = Swift.max(subBucketCountMagnitude, 1) - 1
            unitMagnitude = 63 - lowestDiscernible.leadingZeroBitCount
            subBucketCount = 1 << (subBucketHalfCountMagnitude + 1)
            subBucketHalfCount = subBucketCount / 2
            subBucketMask = Int64(subBucketCount - 1) << unitMagnitude

            var smallestUntrackable = Int64(subBucketCount) << unitMagnitude
            var buckets = 1
            while smallestUntrackable <= highestTrackable {
                if smallestUntrackable > Int64.max / 2 {
                    buckets += 1
                    break
                }
                smallestUntrackable <<= 1
                buckets += 1
            }
            bucketCount = buckets
            countsLength = (buckets + 1) * subBucketHalfCount
        }

        enum CodingKeys: String, CodingKey {
            case lowestDiscernible = "lowest", highestTrackable = "highest", significantDigits = "digits"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let lowest = try container.decode(Int64.self, forKey: .lowestDiscernible)
            let highest = try container.decode(Int64.self, forKey: .highestTrackable)
            let digits = try container.decode(Int.self, forKey: .significantDigits)
            guard lowest >= 1, highest >= 2 * lowest, (1...5).contains(digits) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .significantDigits, in: container,
                    debugDescription: "histogram configuration out of range (lowest \(lowest), highest \(highest), digits \(digits))")
            }
            self.init(lowestDiscernible: lowest, highestTrackable: highest, significantDigits: digits)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(lowestDiscernible, forKey: .lowestDiscernible)
            try container.encode(highestTrackable, forKey: .highestTrackable)
            try container.encode(significantDigits, forKey: .significantDigits)
        }

        /// Inlined into `record`, and in wrapping arithmetic: every operand is a small
        /// non-negative number (the shift is in `0..<64` for any value, as `subBucketMask` sets
        /// bit `63 - base`), so the checked operators only added branches to every record.
        @inline(__always)
        func index(of value: Int64) -> Int {
            let bucket = bucketIndex(of: value)
            let subBucket = Int(truncatingIfNeeded: value &>> Int64(truncatingIfNeeded: bucket &+ unitMagnitude))
            return ((bucket &+ 1) &<< subBucketHalfCountMagnitude) &+ (subBucket &- subBucketHalfCount)
        }

        @inline(__always)
        func bucketIndex(of value: Int64) -> Int {
            let base = 64 &- unitMagnitude &- subBucketHalfCountMagnitude &- 1
            return base &- (value | subBucketMask).leadingZeroBitCount
        }

        /// The lowest value that lands in counts slot `index`.
        func lowestValue(atIndex index: Int) -> Int64 {
            var bucket = (index >> subBucketHalfCountMagnitude) - 1
            var subBucket = (index & (subBucketHalfCount - 1)) + subBucketHalfCount
            if bucket < 0 {
                subBucket -= subBucketHalfCount
                bucket = 0
            }
            return Int64(subBucket) << Int64(bucket + unitMagnitude)
        }

        /// The highest value that lands in the same slot as `value`.
        func highestEquivalent(_ value: Int64) -> Int64 {
            let bucket = bucketIndex(of: value)
            let subBucket = Int(value >> Int64(bucket + unitMagnitude))
            let adjustedBucket = subBucket >= subBucketCount ? bucket + 1 : bucket
            let range = Int64(1) << Int64(unitMagnitude + adjustedBucket)
            let lowest = Int64(subBucket) << Int64(bucket + unitMagnitude)
            return lowest + range - 1
        }

        /// Latencies in nanoseconds: 1 µs to 1 h at 3 significant digits (docs/metrics.md).
        public static let latency = Configuration(lowestDiscernible: 1_000, highestTrackable: 3_600_000_000_000, significantDigits: 3)
        /// Small counts (fan-out per settle, display changes): exact below 2048, 3 digits above.
        public static let counts = Configuration(lowestDiscernible: 1, highestTrackable: 1_000_000_000, significantDigits: 3)
    }

    /// An empty histogram of the given shape (latencies in nanoseconds unless told otherwise).
    public init(_ configuration: Configuration = .latency) {
        self.configuration = configuration
        counts = SlotCounts(count: configuration.countsLength)
    }

    /// True when nothing was recorded; then ``mean`` and percentiles are `nil` and ``min``/``max``
    /// hold sentinels.
    public var isEmpty: Bool { totalCount == 0 }

    /// Records `value` once (negative values are recorded as 0).
    ///
    /// Inlined into the recorder's bookkeeping (its calls cost as much as the record).
    @inline(__always)
    public mutating func record(_ value: Int64) {
        // The one-count case, on every metric of every event: no multiply, no overflow report.
        let value = Swift.max(0, value)
        var slotValue = value
        if value > configuration.highestTrackable {
            slotValue = configuration.highestTrackable
            clamped += 1
        }
        counts.increment(at: configuration.index(of: slotValue))
        totalCount &+= 1
        sum &+= value
        if value < min { min = value }
        if value > max { max = value }
    }

    /// Records `value` `count` times (nothing for `count <= 0`; negative values as 0), as merging a
    /// histogram holding them would.
    public mutating func record(_ value: Int64, count: Int64) {
        guard count > 0 else { return }
        let value = Swift.max(0, value)
        var slotValue = value
        if value > configuration.highestTrackable {
            slotValue = configuration.highestTrackable
            clamped += count
        }
        counts.add(count, at: configuration.index(of: slotValue))
        totalCount += count
        sum = sum.addingReportingOverflow(value.multipliedReportingOverflow(by: count).partialValue).partialValue
        if value < min { min = value }
        if value > max { max = value }
    }

    /// Adds every count of `other`. Both must have the same configuration.
    public mutating func merge(_ other: Histogram) throws(MergeError) {
        guard other.configuration == configuration else {
            throw MergeError.incompatibleHistograms(configuration, other.configuration)
        }
        guard !other.isEmpty else { return }
        other.counts.forEachNonZero { index, count in
            counts.add(count, at: index)
            return true
        }
        totalCount += other.totalCount
        sum &+= other.sum
        clamped += other.clamped
        min = Swift.min(min, other.min)
        max = Swift.max(max, other.max)
    }

    /// The value at percentile `p` (0...100): the highest value equivalent to the recorded value
    /// at that rank, capped at the exact maximum. `nil` when empty.
    public func percentile(_ p: Double) -> Int64? {
        guard totalCount > 0 else { return nil }
        let clampedP = Swift.min(Swift.max(p, 0), 100)
        let rank = Swift.max(1, Int64((clampedP / 100 * Double(totalCount)).rounded(.up)))
        var seen: Int64 = 0
        var found: Int64?
        counts.forEachNonZero { index, count in
            seen += count
            guard seen >= rank else { return true }
            found = configuration.highestEquivalent(configuration.lowestValue(atIndex: index))
            return false
        }
        guard let found else { return max }
        return Swift.min(Swift.max(found, min), max)
    }

    /// Exact mean of the recorded values; `nil` when empty.
    public var mean: Double? {
        totalCount > 0 ? Double(sum) / Double(totalCount) : nil
    }

    /// Share of recorded values ≤ `value`, at the histogram's precision.
    public func fraction(atOrBelow value: Int64) -> Double {
        guard totalCount > 0 else { return 0 }
        let limit = configuration.index(of: Swift.min(Swift.max(0, value), configuration.highestTrackable))
        var seen: Int64 = 0
        counts.forEachNonZero { index, count in
            guard index <= limit else { return false }
            seen += count
            return true
        }
        return Double(seen) / Double(totalCount)
    }

    /// Non-empty buckets as (lowest value of the bucket, count), ascending: for CDF plots.
    public var buckets: [(value: Int64, count: Int64)] {
        var buckets: [(value: Int64, count: Int64)] = []
        counts.forEachNonZero { index, count in
            buckets.append((configuration.lowestValue(atIndex: index), count))
            return true
        }
        return buckets
    }
}

/// Why two measurements cannot be combined: ``Histogram``s of different shapes, ``RunRecord``s of
/// different schema versions, or records of different runs (scenario, seed or segments differ).
/// The description says which, in words a report can print.
public enum MergeError: Error, Equatable, CustomStringConvertible {
    case incompatibleHistograms(Histogram.Configuration, Histogram.Configuration)
    case incompatibleSchema(expected: Int, found: Int)
    case incompatibleRuns(String)

    public var description: String {
        switch self {
        case let .incompatibleHistograms(a, b):
            return "cannot merge histograms of different shapes (\(a.lowestDiscernible)–\(a.highestTrackable) at \(a.significantDigits) digits vs \(b.lowestDiscernible)–\(b.highestTrackable) at \(b.significantDigits) digits)"
        case let .incompatibleSchema(expected, found):
            return "run record schema \(found) cannot be merged with schema \(expected)"
        case let .incompatibleRuns(reason):
            return "run records do not belong to the same run: \(reason)"
        }
    }
}

extension Histogram: Codable {
    enum CodingKeys: String, CodingKey {
        case configuration, count, sum, min, max, clamped, counts, packedCounts
    }

    /// Set to `true` in an encoder's `userInfo` to write the counts in the packed wire form
    /// (`packedCounts`, see `packCounts`) instead of the `counts` array. The worker protocol
    /// does, because a snapshot's histograms dominate its size and its decoding cost; run
    /// records on disk keep the documented `counts` array. Decoding accepts either form.
    public static let packedCountsKey = CodingUserInfoKey(rawValue: "typestorm.histogram.packedCounts")!

    /// Encoded sparsely: `counts` is a flat array of (slot index, count) pairs of non-empty
    /// slots, or, with `packedCountsKey`, `packedCounts` holds the same pairs packed.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(configuration, forKey: .configuration)
        try container.encode(totalCount, forKey: .count)
        try container.encode(sum, forKey: .sum)
        try container.encode(isEmpty ? 0 : min, forKey: .min)
        try container.encode(isEmpty ? 0 : max, forKey: .max)
        try container.encode(clamped, forKey: .clamped)
        if encoder.userInfo[Self.packedCountsKey] as? Bool == true {
            try container.encode(Self.packCounts(counts), forKey: .packedCounts)
            return
        }
        var pairs: [Int64] = []
        counts.forEachNonZero { index, count in
            pairs.append(Int64(index))
            pairs.append(count)
            return true
        }
        try container.encode(pairs, forKey: .counts)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(try container.decode(Configuration.self, forKey: .configuration))
        var total: Int64 = 0
        if container.contains(.packedCounts) {
            let text = try container.decode(String.self, forKey: .packedCounts)
            do {
                total = try Self.unpackCounts(text, into: &counts)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .packedCounts, in: container, debugDescription: error.description)
            }
        } else {
            let pairs = try container.decode([Int64].self, forKey: .counts)
            guard pairs.count % 2 == 0 else {
                throw DecodingError.dataCorruptedError(forKey: .counts, in: container, debugDescription: "counts must hold (index, count) pairs")
            }
            for pair in stride(from: 0, to: pairs.count, by: 2) {
                let index = pairs[pair], count = pairs[pair + 1]
                guard index >= 0, index < Int64(counts.count), count > 0 else {
                    throw DecodingError.dataCorruptedError(forKey: .counts, in: container, debugDescription: "bucket \(index) with count \(count) is out of range")
                }
                counts.add(count, at: Int(index))
                let (added, overflow) = total.addingReportingOverflow(count)
                guard !overflow else {
                    throw DecodingError.dataCorruptedError(forKey: .counts, in: container, debugDescription: "the bucket counts overflow")
                }
                total = added
            }
        }
        totalCount = try container.decode(Int64.self, forKey: .count)
        guard total == totalCount else {
            throw DecodingError.dataCorruptedError(forKey: .count, in: container, debugDescription: "count \(totalCount) does not equal the sum of the buckets (\(total))")
        }
        sum = try container.decode(Int64.self, forKey: .sum)
        clamped = try container.decode(Int64.self, forKey: .clamped)
        if totalCount > 0 {
            min = try container.decode(Int64.self, forKey: .min)
            max = try container.decode(Int64.self, forKey: .max)
        }
    }
}

// MARK: Packed counts

/// Why a packed counts string could not be read.
public struct PackedCountsError: Error, Equatable, CustomStringConvertible {
    public var description: String
}

extension Histogram {
    /// The non-empty slots as base64 of LEB128 varints: per slot, the gap since the previous
    /// non-empty slot (index − previous index − 1, the first from −1), then the count. Counts of
    /// neighbouring slots are mostly small, so a pair takes 2–4 bytes instead of the ~12
    /// characters of the JSON array, and decoding is one string instead of thousands of numbers.
    static func packCounts(_ counts: SlotCounts) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        var previous = -1
        func append(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        counts.forEachNonZero { index, count in
            append(UInt64(index - previous - 1))
            append(UInt64(bitPattern: count))
            previous = index
            return true
        }
        return Base64.encode(bytes)
    }

    /// Adds the packed pairs of `text` to `counts` and returns their total; throws (never traps)
    /// on bad base64, a truncated or over-long varint, a slot outside `counts`, a count that is
    /// not positive, or a total that overflows.
    static func unpackCounts(_ text: String, into counts: inout SlotCounts) throws(PackedCountsError) -> Int64 {
        let bytes = try Base64.decode(text)
        var total: Int64 = 0
        var position = 0
        var previous = -1
        func next() throws(PackedCountsError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard position < bytes.count else { throw PackedCountsError(description: "packed counts end inside a number") }
                let byte = bytes[position]
                position += 1
                guard shift < 64, shift < 63 || byte & 0x7F <= 1 else {
                    throw PackedCountsError(description: "packed counts hold a number over 64 bits")
                }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while position < bytes.count {
            let gap = try next()
            let count = try next()
            guard gap < UInt64(counts.count - previous - 1) else {
                throw PackedCountsError(description: "packed counts name a bucket beyond the \(counts.count) of the configuration")
            }
            let index = previous + 1 + Int(gap)
            guard count > 0, count <= UInt64(Int64.max) else {
                throw PackedCountsError(description: "packed counts hold bucket \(index) with count \(Int64(bitPattern: count))")
            }
            let (added, overflow) = total.addingReportingOverflow(Int64(count))
            guard !overflow else { throw PackedCountsError(description: "the packed bucket counts overflow") }
            total = added
            counts.add(Int64(count), at: index)
            previous = index
        }
        return total
    }
}

/// Standard base64 (RFC 4648, with padding), here so the pure Measurement module needs no
/// Foundation for the packed form.
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// 0–63 for the alphabet, 0xFF for anything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    static func encode(_ bytes: [UInt8]) -> String {
        let length = (bytes.count + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: length) { output in
            alphabet.withUnsafeBufferPointer { alphabet in
                var out = 0
                var index = 0
                while index + 3 <= bytes.count {
                    let word = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 63)]
                    output[out + 2] = alphabet[Int(word >> 6 & 63)]
                    output[out + 3] = alphabet[Int(word & 63)]
                    out += 4
                    index += 3
                }
                let rest = bytes.count - index
                if rest > 0 {
                    let word = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    output[out] = alphabet[Int(word >> 18)]
                    output[out + 1] = alphabet[Int(word >> 12 & 63)]
                    output[out + 2] = rest == 2 ? alphabet[Int(word >> 6 & 63)] : UInt8(ascii: "=")
                    output[out + 3] = UInt8(ascii: "=")
                    out += 4
                }
                return out
            }
        }
    }

    static func decode(_ text: String) throws(PackedCountsError) -> [UInt8] {
        var text = text
        // `withUTF8` rethrows untyped errors: carry ours out as a `Result`.
        return try text.withUTF8 { input in Result { () throws(PackedCountsError) in try decode(input) } }.get()
    }

    private static func decode(_ input: UnsafeBufferPointer<UInt8>) throws(PackedCountsError) -> [UInt8] {
        do {
            guard input.count % 4 == 0 else {
                throw PackedCountsError(description: "packed counts are not base64 (length \(input.count) is not a multiple of 4)")
            }
            var padding = 0
            if input.count >= 4 {
                if input[input.count - 1] == UInt8(ascii: "=") { padding += 1 }
                if input[input.count - 2] == UInt8(ascii: "=") { padding += 1 }
            }
            let length = input.count / 4 * 3 - padding
            var failure: PackedCountsError?
            let output = [UInt8](unsafeUninitializedCapacity: length) { output, initialized in
                values.withUnsafeBufferPointer { values in
                    var index = 0, out = 0
                    while index < input.count {
                        let last = index + 4 == input.count
                        let a = values[Int(input[index])], b = values[Int(input[index + 1])]
                        let c = last && padding == 2 ? 0 : values[Int(input[index + 2])]
                        let d = last && padding >= 1 ? 0 : values[Int(input[index + 3])]
                        guard (a | b | c | d) & 0xC0 == 0 else {
                            failure = PackedCountsError(description: "packed counts are not base64 (bad character near offset \(index))")
                            break
                        }
                        let word = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
                        output[out] = UInt8(truncatingIfNeeded: word >> 16)
                        if out + 1 < length { output[out + 1] = UInt8(truncatingIfNeeded: word >> 8) }
                        if out + 2 < length { output[out + 2] = UInt8(truncatingIfNeeded: word) }
                        out += 3
                        index += 4
                    }
                }
                // Only whole bytes of a good input count; on failure nothing is kept.
                initialized = failure == nil ? length : 0
            }
            if let failure { throw failure }
            return output
        }
    }
}

extension Double {
    fileprivate var log2Ceiling: Double {
        var power = 1.0, exponent = 0.0
        while power < self {
            power *= 2
            exponent += 1
        }
        return exponent
    }
}
