import Dispatch
import TypestormSystem
#if canImport(Glibc)
import Glibc
#endif

/// Makes deterministic synthetic catalogs: mixed English, Korean and Chinese names of 20–60
/// UTF-8 bytes, weighted scopes and tokens, Zipf popularity.
///
/// Row `i` depends only on the seed and `i` (each block of 4,096 rows has its own random
/// stream), so a catalog of 100k items is the first 100k rows of the 1M catalog with the same
/// seed. Popularity is `⌊10⁹ / k⌋` for `k` uniform in 1…10⁹, so P(popularity ≥ x) ≈ 1/x: a
/// Zipf (Pareto, α = 1) law that does not depend on the catalog size.
public struct CatalogGenerator: Sendable {
    /// The words names are made of, per language, and the scopes and tokens with their weights.
    public var vocabulary: Vocabulary
    /// The seed: with the vocabulary and weights, it fixes every row.
    public var seed: UInt64
    /// Share of rows per language, in `vocabulary.languages` order (default 60/20/20).
    public var languageWeights: [Int]

    /// The shortest generated name, in UTF-8 bytes.
    public static let minimumNameBytes = 20
    /// The longest generated name, in UTF-8 bytes.
    public static let maximumNameBytes = 60
    static let blockSize = 4096

    /// A generator of rows from `vocabulary` (the shipped one by default) under `seed`, with the
    /// given share of rows per language.
    public init(seed: UInt64, vocabulary: Vocabulary = .builtin, languageWeights: [Int] = [60, 20, 20]) {
        self.seed = seed
        self.vocabulary = vocabulary
        self.languageWeights = languageWeights
    }

    /// A catalog of `count` rows, generated on all cores (block by block, so the result does
    /// not depend on the number of cores).
    ///
    /// - Parameter progress: called now and then with the number of rows made so far.
    public func makeCatalog(count: Int, progress: ((Int) -> Void)? = nil) -> Catalog {
        var builder = CatalogBuilder(checkDuplicateIDs: false)
        builder.reserveCapacity(products: count, nameBytes: count * 42)
        let scopeNames = vocabulary.scopes.map(\.name)
        let tokenNames = vocabulary.tokens.map(\.name)
        forEachBlock(count: count, renderTSV: false, progress: progress) { block in
            block.ids.withUnsafeBufferPointer { ids in
                block.names.withUnsafeBufferPointer { names in
                    var idStart = 0, nameStart = 0, tokenStart = 0
                    for row in 0..<block.count {
                        let tokenEnd = block.tokenEnds[row]
                        builder.appendGenerated(
                            id: UnsafeBufferPointer(rebasing: ids[idStart..<block.idEnds[row]]),
                            name: UnsafeBufferPointer(rebasing: names[nameStart..<block.nameEnds[row]]),
                            scope: scopeNames[block.scopes[row]],
                            tokens: block.tokens[tokenStart..<tokenEnd].lazy.map { tokenNames[$0] },
                            popularity: block.popularities[row]
                        )
                        idStart = block.idEnds[row]
                        nameStart = block.nameEnds[row]
                        tokenStart = tokenEnd
                    }
                }
            }
        }
        return builder.build()
    }

    /// Writes `count` rows as TSV (with a header line) to the file descriptor `fd`.
    ///
    /// - Throws: `CatalogError` with kind `.cannotRead` (the system's reason) if a write fails.
    public func writeTSV(count: Int, to fd: Int32, fileName: String, progress: ((Int) -> Void)? = nil) throws(CatalogError) {
        var failure: CatalogError? = nil
        func write(_ bytes: [UInt8]) {
            guard failure == nil else { return }
            var written = 0
            bytes.withUnsafeBytes { raw in
                while written < raw.count {
                    do throws(SystemError) {
                        written += try Syscall.call("write") { Glibc.write(fd, raw.baseAddress! + written, raw.count - written) }
                    } catch {
                        failure = CatalogError(file: fileName, kind: .cannotRead("write failed: \(String(cString: strerror(error.errno)))"))
                        return
                    }
                }
            }
        }
        write(Array("id\tname\tscope\ttokens\tpopularity\n".utf8))
        forEachBlock(count: count, renderTSV: true, progress: progress) { block in write(block.tsv) }
        if let failure { throw failure }
    }

    /// The rows of one block of `blockSize`, as flat columns (and optionally as TSV text).
    struct Block: Sendable {
        var ids: [UInt8] = []
        var idEnds: [Int] = []
        var names: [UInt8] = []
        var nameEnds: [Int] = []
        var scopes: [Int] = []
        var tokenEnds: [Int] = []
        var tokens: [Int] = []
        var popularities: [UInt32] = []
        var tsv: [UInt8] = []
        var count: Int { popularities.count }
    }

    /// Generates the blocks of a `count`-row catalog on all cores, handing them to `consume`
    /// in order.
    func forEachBlock(count: Int, renderTSV: Bool, progress: ((Int) -> Void)?, _ consume: (Block) -> Void) {
        let blocks = (count + Self.blockSize - 1) / Self.blockSize
        let batch = 32
        var next = 0
        var reported = 0
        while next < blocks {
            let first = next
            let upper = min(blocks, next + batch)
            let slots = PartResults<CatalogGenerator.Block>(count: upper - first)
            let generator = self
            DispatchQueue.concurrentPerform(iterations: upper - first) { k in
                slots.set(k, generator.makeBlock(first + k, total: count, renderTSV: renderTSV))
            }
            for k in 0..<(upper - first) { consume(slots.take(k)) }
            next = upper
            let done = min(count, next * Self.blockSize)
            if done - reported >= 1 << 20 || done == count {
                progress?(done)
                reported = done
            }
        }
    }

    func makeBlock(_ blockIndex: Int, total: Int, renderTSV: Bool) -> Block {
        let languages = vocabulary.languages
        let languagePicker = WeightedPicker(languageWeights)
        let scopePicker = WeightedPicker(vocabulary.scopes.map(\.weight))
        let tokenPicker = WeightedPicker(vocabulary.tokens.map(\.weight))
        let scopeNames = vocabulary.scopes.map { Array($0.name.utf8) }
        let tokenNames = vocabulary.tokens.map { Array($0.name.utf8) }
        let idDigits = max(8, String(total).count)
        var random = CatalogRandom(seed: seed, stream: UInt64(blockIndex))
        var block = Block()
        let lo = blockIndex * Self.blockSize, hi = min(total, lo + Self.blockSize)
        block.names.reserveCapacity((hi - lo) * 42)
        block.ids.reserveCapacity((hi - lo) * (idDigits + 1))
        if renderTSV { block.tsv.reserveCapacity((hi - lo) * 80) }
        var name: [UInt8] = []
        name.reserveCapacity(Self.maximumNameBytes)
        var rowTokens: [Int] = []
        for index in lo..<hi {
            let idStart = block.ids.count
            block.ids.append(0x50)
            Self.appendDecimal(UInt64(index + 1), to: &block.ids, width: idDigits)
            block.idEnds.append(block.ids.count)
            let language = languagePicker.pick(&random)
            Self.makeName(languages[language], into: &name, random: &random)
            block.names.append(contentsOf: name)
            block.nameEnds.append(block.names.count)
            let scope = scopePicker.pick(&random)
            block.scopes.append(scope)
            rowTokens.removeAll(keepingCapacity: true)
            let tokenCount = [0, 0, 0, 1, 1, 1, 1, 2, 2, 3][random.below(10)]
            for _ in 0..<tokenCount {
                let token = tokenPicker.pick(&random)
                if !rowTokens.contains(token) { rowTokens.append(token) }
            }
            block.tokens.append(contentsOf: rowTokens)
            block.tokenEnds.append(block.tokens.count)
            let k = UInt64(random.below(1_000_000_000)) + 1
            let popularity = UInt32(1_000_000_000 / k)
            block.popularities.append(popularity)
            if renderTSV {
                block.tsv.append(contentsOf: block.ids[idStart...])
                block.tsv.append(0x09)
                block.tsv.append(contentsOf: name)
                block.tsv.append(0x09)
                block.tsv.append(contentsOf: scopeNames[scope])
                block.tsv.append(0x09)
                for (j, token) in rowTokens.enumerated() {
                    if j > 0 { block.tsv.append(0x7C) }
                    block.tsv.append(contentsOf: tokenNames[token])
                }
                block.tsv.append(0x09)
                Self.appendDecimal(UInt64(popularity), to: &block.tsv)
                block.tsv.append(0x0A)
            }
        }
        if renderTSV {
            // The writer needs only the text.
            block.ids = []; block.names = []; block.tokens = []
        }
        return block
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

/// Per-part results of a parallel loop, each slot written by exactly one iteration.
///
/// `@unchecked Sendable`: each slot is written once by the iteration that owns it and read only
/// after `concurrentPerform` returns (which orders the writes before the reads).
package final class PartResults<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T?>

    package init(count: Int) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: nil)
    }

    deinit {
        _ = slots.deinitialize()
        slots.deallocate()
    }

    package func set(_ i: Int, _ value: T) { slots[i] = value }
    package func get(_ i: Int) -> T { slots[i]! }
    package func take(_ i: Int) -> T {
        let value = slots[i]!
        slots[i] = nil
        return value
    }
}
