#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes deterministic synthetic catalogs: mixed English, Korean and Chinese names of 20–60
/// UTF-8 bytes, weighted scopes and tokens, Zipf popularity.
///
/// Row `i` depends only on the seed and `i` (each block of 4,096 rows has its own random
/// stream), so a catalog of 100k items is the first 100k rows of the 1M catalog with the same
/// seed. Popularity is `⌊10⁹ / k⌋` for `k` uniform in 1…10⁹, so P(popularity ≥ x) ≈ 1/x: a
/// Zipf (Pareto, α = 1) law that does not depend on the catalog size.
public struct CatalogGenerator: Sendable {
    public var vocabulary: Vocabulary
    public var seed: UInt64
    /// Share of rows per language, in `vocabulary.languages` order (default 60/20/20).
    public var languageWeights: [Int]

    public static let minimumNameBytes = 20
    public static let maximumNameBytes = 60
    static let blockSize = 4096

    public init(seed: UInt64, vocabulary: Vocabulary = .builtin, languageWeights: [Int] = [60, 20, 20]) {
        self.seed = seed
        self.vocabulary = vocabulary
        self.languageWeights = languageWeights
    }

    /// One generated row, as bytes in the generator's scratch buffers.
    struct Row {
        var id: [UInt8] = []
        var name: [UInt8] = []
        var scope = 0
        var tokens: [Int] = []
        var popularity: UInt32 = 0
        var language = 0
    }

    /// A catalog of `count` rows.
    ///
    /// - Parameter progress: called now and then with the number of rows made so far.
    public func makeCatalog(count: Int, progress: ((Int) -> Void)? = nil) -> Catalog {
        var builder = CatalogBuilder(checkDuplicateIDs: false)
        builder.reserveCapacity(products: count, nameBytes: count * 40)
        let scopeNames = vocabulary.scopes.map(\.name)
        let tokenNames = vocabulary.tokens.map(\.name)
        forEachRow(count: count, progress: progress) { row in
            row.id.withUnsafeBufferPointer { id in
                row.name.withUnsafeBufferPointer { name in
                    builder.appendGenerated(
                        id: id, name: name, scope: scopeNames[row.scope],
                        tokens: row.tokens.lazy.map { tokenNames[$0] }, popularity: row.popularity
                    )
                }
            }
        }
        return builder.build()
    }

    /// Writes `count` rows as TSV (with a header line) to the file descriptor `fd`.
    ///
    /// - Throws: `CatalogError` with kind `.cannotRead` (the system's reason) if a write fails.
    public func writeTSV(count: Int, to fd: Int32, fileName: String, progress: ((Int) -> Void)? = nil) throws(CatalogError) {
        let scopeNames = vocabulary.scopes.map { Array($0.name.utf8) }
        let tokenNames = vocabulary.tokens.map { Array($0.name.utf8) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 20 + 256)
        buffer.append(contentsOf: "id\tname\tscope\ttokens\tpopularity\n".utf8)
        var failure: CatalogError? = nil
        func flush() {
            guard failure == nil else { return }
            var written = 0
            buffer.withUnsafeBytes { raw in
                while written < raw.count {
                    let n = write(fd, raw.baseAddress! + written, raw.count - written)
                    if n < 0 {
                        if errno == EINTR { continue }
                        failure = CatalogError(file: fileName, kind: .cannotRead("write failed: \(String(cString: strerror(errno)))"))
                        return
                    }
                    written += n
                }
            }
            buffer.removeAll(keepingCapacity: true)
        }
        forEachRow(count: count, progress: progress) { row in
            buffer.append(contentsOf: row.id)
            buffer.append(0x09)
            buffer.append(contentsOf: row.name)
            buffer.append(0x09)
            buffer.append(contentsOf: scopeNames[row.scope])
            buffer.append(0x09)
            for (k, token) in row.tokens.enumerated() {
                if k > 0 { buffer.append(0x7C) }
                buffer.append(contentsOf: tokenNames[token])
            }
            buffer.append(0x09)
            Self.appendDecimal(UInt64(row.popularity), to: &buffer)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 { flush() }
        }
        flush()
        if let failure { throw failure }
    }

    /// Calls `body` with rows 0..<count in order.
    func forEachRow(count: Int, progress: ((Int) -> Void)?, _ body: (inout Row) -> Void) {
        let languages = vocabulary.languages
        let languagePicker = WeightedPicker(languageWeights)
        let scopePicker = WeightedPicker(vocabulary.scopes.map(\.weight))
        let tokenPicker = WeightedPicker(vocabulary.tokens.map(\.weight))
        let idDigits = max(8, String(count).count)
        var row = Row()
        row.name.reserveCapacity(Self.maximumNameBytes)
        var random = CatalogRandom(seed: seed, stream: 0)
        for index in 0..<count {
            if index % Self.blockSize == 0 {
                random = CatalogRandom(seed: seed, stream: UInt64(index / Self.blockSize))
                if index % (1 << 20) == 0, index > 0 { progress?(index) }
            }
            row.id.removeAll(keepingCapacity: true)
            row.id.append(0x50)
            Self.appendDecimal(UInt64(index + 1), to: &row.id, width: idDigits)
            row.language = languagePicker.pick(&random)
            Self.makeName(languages[row.language], into: &row.name, random: &random)
            row.scope = scopePicker.pick(&random)
            row.tokens.removeAll(keepingCapacity: true)
            let tokenCount = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3][random.below(10)]
            for _ in 0..<tokenCount {
                let token = tokenPicker.pick(&random)
                if !row.tokens.contains(token) { row.tokens.append(token) }
            }
            let k = UInt64(random.below(1_000_000_000)) + 1
            row.popularity = UInt32(1_000_000_000 / k)
            body(&row)
        }
        progress?(count)
    }

    /// Builds one name of 20–60 bytes: [brand] adjectives noun [specs].
    static func makeName(_ language: Vocabulary.Language, into name: inout [UInt8], random: inout CatalogRandom) {
        let target = minimumNameBytes + random.below(maximumNameBytes - minimumNameBytes + 1)
        let space = language.spacesBetweenWords
        let brand: [UInt8]? = random.below(10) < 7 ? language.brands[random.below(language.brands.count)] : nil
        let noun = language.nouns[random.below(language.nouns.count)]
        var adjectives: [Int] = []
        var specs: [Int] = []
        func length() -> Int {
            var total = noun.count
            if let brand { total += brand.count + 1 }
            for a in adjectives { total += language.adjectives[a].count + (space ? 1 : 0) }
            for s in specs { total += language.specs[s].count + 1 }
            return total
        }
        var attempts = 0
        var current = length()
        while attempts < 12 && (current < target || current < minimumNameBytes) {
            attempts += 1
            let wantsAdjective = adjectives.count < 3 && random.below(3) < 2
            if wantsAdjective {
                let a = random.below(language.adjectives.count)
                let added = language.adjectives[a].count + (space ? 1 : 0)
                if current + added <= maximumNameBytes && !adjectives.contains(a) { adjectives.append(a); current += added }
            } else if specs.count < 2 {
                let s = random.below(language.specs.count)
                let added = language.specs[s].count + 1
                if current + added <= maximumNameBytes && !specs.contains(s) { specs.append(s); current += added }
            }
        }
        name.removeAll(keepingCapacity: true)
        if let brand {
            name.append(contentsOf: brand)
            name.append(0x20)
        }
        for a in adjectives {
            name.append(contentsOf: language.adjectives[a])
            if space { name.append(0x20) }
        }
        name.append(contentsOf: noun)
        for s in specs {
            name.append(0x20)
            name.append(contentsOf: language.specs[s])
        }
        // Still short (few, short words drawn): a model number makes up the rest.
        if name.count < minimumNameBytes {
            name.append(contentsOf: " No.".utf8)
            while name.count < minimumNameBytes { name.append(0x30 + UInt8(random.below(10))) }
        }
    }

    static func appendDecimal(_ value: UInt64, to buffer: inout [UInt8], width: Int = 0) {
        var digits: [UInt8] = []
        var v = value
        repeat {
            digits.append(0x30 + UInt8(v % 10))
            v /= 10
        } while v > 0
        if digits.count < width { buffer.append(contentsOf: repeatElement(0x30, count: width - digits.count)) }
        buffer.append(contentsOf: digits.reversed())
    }
}

/// Picks an index with probability proportional to its weight.
struct WeightedPicker {
    let cumulative: [Int]

    init(_ weights: [Int]) {
        var total = 0
        cumulative = weights.map { total += $0; return total }
    }

    func pick(_ random: inout CatalogRandom) -> Int {
        let x = random.below(cumulative.last!)
        var i = 0
        while cumulative[i] <= x { i += 1 }
        return i
    }
}
