import ProductCatalog
import Testing
@testable import Matching

/// Property tests: on random catalogs and queries, every path of the engine returns exactly the
/// reference filter's page (same items, same order) and, when it gives one, the same total.
@Suite("Engine equals the reference", .timeLimit(.minutes(5)))
struct EngineEquivalenceTests {
    /// Fragments that names and queries are made of: mixed case, Turkish, full-width, Hangul
    /// precomposed and as conjoining jamo, Chinese, emoji (with ZWJ), combining marks, NUL.
    static let fragments = [
        "a", "b", "ab", "AB", "Ab", "abc", "cab", "bca", "x", "XY", "coffee", "Coffee", "MUG", "mug",
        "İ", "i", "I", "ı", "ß", "ss", "Ａ", "ｂ", "ﬁ", "fi", " ", "  ", "-", "1", "12",
        "한", "국", "한국", "\u{1112}\u{1161}\u{11AB}", "\u{1100}\u{116E}\u{11A8}", "커피", "추", "충",
        "中", "文", "中文", "咖啡", "😀", "👨‍👩‍👧", "👩", "e\u{301}", "é", "q\u{301}", "\u{301}", "\u{0}",
    ]

    static func randomText(_ random: inout CatalogRandom, maxFragments: Int) -> String {
        let n = random.below(maxFragments + 1)
        return (0..<n).map { _ in fragments[random.below(fragments.count)] }.joined()
    }

    static func randomCatalog(seed: UInt64, count: Int) throws -> Catalog {
        var random = CatalogRandom(seed: seed)
        let scopes = ["", "kitchen", "books", "toys"]
        let tokens = ["sale", "New", "new", "eco", "한정"]
        var products: [Product] = []
        for i in 0..<count {
            var name = randomText(&random, maxFragments: 7)
            if name.isEmpty { name = "x" }
            let tokenCount = random.below(3)
            products.append(Product(
                id: "id\(i)", name: name, scope: scopes[random.below(scopes.count)],
                tokens: (0..<tokenCount).map { _ in tokens[random.below(tokens.count)] },
                popularity: random.below(8)
            ))
        }
        return try Catalog(products)
    }

    static func randomQueries(_ catalog: Catalog, seed: UInt64, count: Int) -> [String] {
        var random = CatalogRandom(seed: seed ^ 0xABCD)
        // Longer than every name: the longest name with more appended, and plain repetition.
        let longest = catalog.indices.map { catalog.name(at: $0) }.max { $0.utf8.count < $1.utf8.count } ?? ""
        var queries = ["", " ", "\t \u{3000}", longest + "a", String(repeating: "ab", count: longest.utf8.count), "zzzz-not-there", "한", "中", "😀", "\u{301}"]
        while queries.count < count {
            switch random.below(3) {
            case 0:
                queries.append(randomText(&random, maxFragments: 3))
            case 1:
                // A piece of a real name, so queries hit.
                let name = Array(catalog.name(at: random.below(catalog.count)))
                guard !name.isEmpty else { continue }
                let from = random.below(name.count)
                let length = 1 + random.below(min(6, name.count - from))
                queries.append(String(name[from..<(from + length)]))
            default:
                // Same, with the case changed.
                let name = catalog.name(at: random.below(catalog.count))
                queries.append(random.below(2) == 0 ? name.uppercased() : String(name.prefix(3)).uppercased())
            }
        }
        return queries
    }

    static func check(seed: UInt64, count: Int, tuning: SearchEngine.Tuning) throws {
        let catalog = try randomCatalog(seed: seed, count: count)
        let engine = SearchEngine(catalog: catalog, tuning: tuning)
        let reference = ReferenceFilter(catalog: catalog)
        var random = CatalogRandom(seed: seed &+ 7)
        for query in randomQueries(catalog, seed: seed, count: 60) {
            for _ in 0..<4 {
                let request = SearchRequest(
                    text: query,
                    scope: [nil, "", "kitchen", "toys", "nowhere"][random.below(5)],
                    tokens: [[], [], ["sale"], ["NEW", "eco"], ["unknown"]][random.below(5)],
                    limit: [1, 5, 50][random.below(3)],
                    offset: [0, 0, 2][random.below(3)],
                    needsTotal: random.below(2) == 0
                )
                let expected = reference.search(request)
                for forcing in [nil, ForcedPath.scan, .index, .refine] {
                    let got = engine.search(request, forcing: forcing)
                    #expect(got.items == expected.items, "query \(query.debugDescription) \(request) forcing \(String(describing: forcing)) path \(got.path)")
                    if request.needsTotal { #expect(got.total != nil) }
                    if let total = got.total { #expect(total == expected.total, "total for \(query.debugDescription) \(request)") }
                    #expect(!got.wasCancelled)
                }
            }
        }
    }

    @Test("random catalogs, default tuning", arguments: [1, 2, 3] as [UInt64])
    func randomCatalogs(seed: UInt64) throws {
        try Self.check(seed: seed, count: 150, tuning: SearchEngine.Tuning())
    }

    @Test("random catalogs, scans split into parts", arguments: [4, 5] as [UInt64])
    func splitScans(seed: UInt64) throws {
        try Self.check(seed: seed, count: 200, tuning: SearchEngine.Tuning(firstPageBytes: 64, parallelMinimumBytes: 0, parts: 3, parallelVerifyMinimum: 1))
    }

    @Test func generatedCatalogAgrees() {
        let catalog = CatalogGenerator(seed: 9).makeCatalog(count: 1500)
        let engine = SearchEngine(catalog: catalog, tuning: SearchEngine.Tuning(firstPageBytes: 4096, parallelMinimumBytes: 0, parts: 2, parallelVerifyMinimum: 16))
        let reference = ReferenceFilter(catalog: catalog)
        for query in ["co", "Mug", "coffee grinder", "커피", "텀블러", "保温杯", "咖啡", "pro", "zzq", "500ml", "a"] {
            for needsTotal in [false, true] {
                let request = SearchRequest(text: query, limit: 20, needsTotal: needsTotal)
                let expected = reference.search(request)
                for forcing in [nil, ForcedPath.scan, .index, .refine] {
                    let got = engine.search(request, forcing: forcing)
                    #expect(got.items == expected.items, "\(query) \(String(describing: forcing))")
                    if let total = got.total { #expect(total == expected.total) }
                }
            }
        }
    }
}
