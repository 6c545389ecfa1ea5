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
            #expect(one.data == three.data)
            #expect(one.offsets == three.offsets)
            #expect(one.counts == three.counts)
            // And the lists decode to exactly the ranks whose names hold each gram.
            var expected = [[UInt32]](repeating: [], count: one.counts.count)
            for rank in 0..<store.count {
                let name = Array(store.bytes[Int(store.starts[rank])..<Int(store.starts[rank + 1]) - 1])
                var buckets = Set<Int>()
                for i in 0..<max(0, name.count - one.gramLength + 1) {
                    if kind == .trigrams {
                        buckets.insert(GramIndex.trigramBucket(name[i], name[i + 1], name[i + 2], bits: one.bucketBits))
                    } else if GramIndex.bigramIndexed(name[i], name[i + 1]) {
                        buckets.insert(Int(name[i]) << 8 | Int(name[i + 1]))
                    }
                }
                for bucket in buckets { expected[bucket].append(UInt32(rank)) }
            }
            for bucket in 0..<one.counts.count {
                #expect(one.decode(bucket) == expected[bucket])
            }
        }
    }

    @Test func theMessageSaysWhatAndHowMuch() {
        let error = SearchEngine.CapacityError(part: "folded names", bytes: 5_000_000_000, limit: 4_294_967_295, items: 120_000_000)
        #expect(error.description == "catalog too large for the search engine: its 120000000 products' folded names take 5000000000 bytes, more than the 4294967295 that its 32-bit offsets address; split the catalog into smaller ones")
    }
}
