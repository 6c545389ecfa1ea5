import ProductCatalog
import Testing
@testable import Matching

@Suite("Engine capacity", .timeLimit(.minutes(2)))
struct EngineCapacityTests {
    static let catalog = try! Catalog((0..<200).map { i in
        Product(id: "\(i)", name: "Product number \(i) with a longer name", scope: "all", popularity: i % 7)
    })

    @Test func foldedNamesOverTheLimitAreAnErrorNamingThePart() throws {
        let folded = try SearchEngine.build(catalog: Self.catalog).foldedByteCount
        #expect(throws: SearchEngine.CapacityError(part: "folded names", bytes: folded, limit: folded - 1, items: 200)) {
            try SearchEngine.build(catalog: Self.catalog, byteLimit: folded - 1)
        }
        // At the limit exactly it is accepted (and answers like an engine built without one).
        let limited = try SearchEngine.build(catalog: Self.catalog, byteLimit: folded)
        #expect(limited.search(SearchRequest(text: "number 1", needsTotal: true)).total == 111)
    }

    @Test func anIndexOverTheLimitIsAnError() throws {
        let store = try FoldedStore(catalog: Self.catalog)
        let trigrams = try GramIndex(store: store, kind: .trigrams)
        let bytes = trigrams.data.count - GramIndex.padding
        #expect(bytes > 0)
        #expect(throws: SearchEngine.CapacityError(part: "trigram index", bytes: bytes, limit: bytes - 1, items: 200)) {
            try GramIndex(store: store, kind: .trigrams, byteLimit: bytes - 1)
        }
        let bigramBytes = try GramIndex(store: store, kind: .bigrams).data.count - GramIndex.padding
        #expect(throws: SearchEngine.CapacityError(part: "bigram index", bytes: bigramBytes, limit: 10, items: 200)) {
            try GramIndex(store: store, kind: .bigrams, byteLimit: 10)
        }
    }

    @Test func aParallelBuildWritesTheSameLists() throws {
        let store = try FoldedStore(catalog: Self.catalog)
        for kind in [GramIndex.Kind.trigrams, .bigrams] {
            let one = try GramIndex(store: store, kind: kind, parts: 1)
            let three = try GramIndex(store: store, kind: kind, parts: 3)
            #expect(one.data.elements == three.data.elements)
            #expect(one.offsets == three.offsets)
            #expect(one.counts == three.counts)
            #expect(one.buckets == three.buckets)
            // And the lists decode to exactly the ranks whose names hold each gram, and every
            // bucket some name holds has a list.
            var expected: [Int: [UInt32]] = [:]
            let bytes = store.bytes.elements
            for rank in 0..<store.count {
                let name = Array(bytes[store.starts[rank]..<store.starts[rank + 1] - 1])
                var buckets = Set<Int>()
                for i in 0..<max(0, name.count - one.gramLength + 1) {
                    if kind == .trigrams {
                        buckets.insert(GramIndex.trigramBucket(name[i], name[i + 1], name[i + 2], bits: one.bucketBits))
                    } else if GramIndex.bigramIndexed(name[i], name[i + 1]) {
                        buckets.insert(Int(name[i]) << 8 | Int(name[i + 1]))
                    }
                }
                for bucket in buckets { expected[bucket, default: []].append(UInt32(rank)) }
            }
            #expect(one.buckets.map(Int.init) == expected.keys.sorted())
            for (list, bucket) in one.buckets.enumerated() {
                #expect(Int(one.counts[list]) == expected[Int(bucket)]?.count)
                #expect(one.decode(list) == expected[Int(bucket)])
            }
        }
    }

    @Test func bigramsAroundWhiteSpaceHaveNoList() throws {
        #expect(GramIndex.bigramIndexed(UInt8(ascii: "c"), UInt8(ascii: "a")))
        #expect(!GramIndex.bigramIndexed(UInt8(ascii: "a"), UInt8(ascii: " ")))
        #expect(!GramIndex.bigramIndexed(UInt8(ascii: "\t"), UInt8(ascii: "a")))
        #expect(GramIndex.bigramIndexed(0xC3, 0xA9))  // é
        #expect(!GramIndex.bigramIndexed(0xC2, 0x85))  // U+0085, white space
        // A two-byte query never has a space at either end (queries are trimmed), so the
        // answers stay those of the reference.
        let catalog = try Catalog([
            Product(id: "1", name: "a b", popularity: 2), Product(id: "2", name: "ab", popularity: 1),
        ])
        let engine = try SearchEngine.build(catalog: catalog)
        let reference = ReferenceFilter(catalog: catalog)
        for text in ["a ", " b", "a b", "ab", "\u{85}a"] {
            let request = SearchRequest(text: text, needsTotal: true)
            #expect(engine.search(request).items == reference.search(request).items)
        }
    }

    @Test func theMessageSaysWhatAndHowMuch() {
        let error = SearchEngine.CapacityError(part: "folded names", bytes: 5_000_000_000, limit: 4_294_967_295, items: 120_000_000)
        #expect(error.description == "catalog too large for the search engine: its 120000000 products' folded names take 5000000000 bytes, more than the 4294967295 that its 32-bit offsets address; split the catalog into smaller ones")
    }
}
