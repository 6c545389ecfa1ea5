/// Counts that describe a catalog: what `typestorm catalog stats` prints.
public struct CatalogStatistics: Sendable, Codable, Equatable {
    /// Products in the catalog.
    public var products: Int
    /// Total size of all names, in UTF-8 bytes.
    public var nameBytes: Int
    /// Products per script of their name: `ko` (any Hangul), `zh` (any Han, no Hangul, no
    /// kana), `ja` (kana), `en` (ASCII only), `other`.
    public var languages: [String: Int]
    /// Name lengths, in UTF-8 bytes.
    public var nameLength: Distribution
    /// Products per scope; products without one count under `(none)`.
    public var scopes: [String: Int]
    /// Products per token (a product with several tokens counts under each).
    public var tokens: [String: Int]
    /// Product popularities.
    public var popularity: Distribution

    /// Quantiles of a non-negative integer quantity.
    public struct Distribution: Sendable, Codable, Equatable {
        /// The smallest value (0 for an empty catalog).
        public var min: Int
        /// The median.
        public var p50: Int
        /// The 90th percentile.
        public var p90: Int
        /// The 99th percentile.
        public var p99: Int
        /// The largest value.
        public var max: Int
        /// The arithmetic mean.
        public var mean: Double

        init(_ values: [Int]) {
            guard !values.isEmpty else {
                self.min = 0; p50 = 0; p90 = 0; p99 = 0; self.max = 0; mean = 0
                return
            }
            let sorted = values.sorted()
            func quantile(_ q: Double) -> Int { sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * q))] }
            self.min = sorted[0]
            p50 = quantile(0.5)
            p90 = quantile(0.9)
            p99 = quantile(0.99)
            self.max = sorted[sorted.count - 1]
            mean = Double(values.reduce(0, +)) / Double(values.count)
        }
    }

    /// - Complexity: O(name bytes + n log n).
    public init(_ catalog: Catalog) {
        products = catalog.count
        nameBytes = catalog.nameByteCount
        var languages: [String: Int] = [:]
        var lengths: [Int] = []
        lengths.reserveCapacity(catalog.count)
        catalog.withNameStorage { bytes, offsets in
            for index in 0..<catalog.count {
                let name = UnsafeBufferPointer(rebasing: bytes[offsets[index]..<offsets[index + 1]])
                lengths.append(name.count)
                languages[Self.script(of: name), default: 0] += 1
            }
        }
        self.languages = languages
        nameLength = Distribution(lengths)
        var scopeCounts = [Int](repeating: 0, count: catalog.scopes.count)
        var tokenCounts = [Int](repeating: 0, count: catalog.tokens.count)
        for index in catalog.indices {
            scopeCounts[catalog.scopeID(at: index)] += 1
            for token in catalog.tokenIDs(at: index) { tokenCounts[Int(token)] += 1 }
        }
        var scopes: [String: Int] = [:]
        for (id, count) in scopeCounts.enumerated() where count > 0 { scopes[catalog.scopes[id].isEmpty ? "(none)" : catalog.scopes[id]] = count }
        self.scopes = scopes
        var tokens: [String: Int] = [:]
        for (id, count) in tokenCounts.enumerated() where count > 0 { tokens[catalog.tokens[id]] = count }
        self.tokens = tokens
        popularity = Distribution(catalog.indices.map { catalog.popularity(at: $0) })
    }

    static func script(of name: UnsafeBufferPointer<UInt8>) -> String {
        var sawHan = false, sawKana = false, sawOther = false, allASCII = true
        for scalar in String(decoding: name, as: UTF8.self).unicodeScalars {
            let v = scalar.value
            if v < 0x80 { continue }
            allASCII = false
            switch v {
            case 0xAC00...0xD7A3, 0x1100...0x11FF, 0x3130...0x318F: return "ko"
            case 0x3040...0x30FF: sawKana = true
            case 0x4E00...0x9FFF, 0x3400...0x4DBF, 0x20000...0x2A6DF, 0xF900...0xFAFF: sawHan = true
            default: sawOther = true
            }
        }
        if sawKana { return "ja" }
        if sawHan { return "zh" }
        if allASCII { return "en" }
        return sawOther ? "other" : "en"
    }
}
