import ProductCatalog
import TypestormSystem
import Testing
@testable import Matching

@Suite("Search engine", .timeLimit(.minutes(5)))
struct SearchEngineTests {
    static let catalog = try! Catalog([
        Product(id: "1", name: "Coffee Grinder", scope: "kitchen", tokens: ["sale"], popularity: 5),
        Product(id: "2", name: "coffee mug", scope: "kitchen", popularity: 9),
        Product(id: "3", name: "İstanbul Tea Glass", scope: "kitchen", popularity: 1),
        Product(id: "4", name: "한국어 책", scope: "books", tokens: ["new"], popularity: 7),
        Product(id: "5", name: "中文书", scope: "books", popularity: 7),
        Product(id: "6", name: "Ｃｏｆｆｅｅ beans", scope: "grocery", popularity: 2),
    ])

    @Test func ordersByPopularityThenCatalogPosition() {
        let engine = SearchEngine(catalog: Self.catalog)
        let response = engine.search(SearchRequest(text: "COFFEE", needsTotal: true))
        #expect(engine.ids(of: response) == ["2", "1", "6"])
        #expect(response.total == 3)
        let all = engine.search(SearchRequest(text: ""))
        #expect(engine.ids(of: all) == ["2", "4", "5", "1", "6", "3"])
        #expect(all.path == .browse)
    }

    @Test func hangulDecomposedQueryFindsPrecomposedName() {
        let engine = SearchEngine(catalog: Self.catalog)
        let response = engine.search(SearchRequest(text: "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}"))
        #expect(engine.ids(of: response) == ["4"])
    }

    @Test func turkishAndFullWidth() {
        let engine = SearchEngine(catalog: Self.catalog)
        #expect(engine.ids(of: engine.search(SearchRequest(text: "istanbul"))) == ["3"])
        #expect(engine.ids(of: engine.search(SearchRequest(text: "İSTANBUL"))) == ["3"])
        #expect(engine.ids(of: engine.search(SearchRequest(text: "ｂｅａｎｓ"))) == ["6"])
    }

    @Test func scopeNarrowsAndTokensWiden() {
        let engine = SearchEngine(catalog: Self.catalog)
        #expect(engine.ids(of: engine.search(SearchRequest(text: "coffee", scope: "grocery"))) == ["6"])
        #expect(engine.ids(of: engine.search(SearchRequest(text: "coffee", tokens: ["NEW"]))) == ["2", "4", "1", "6"])
        #expect(engine.ids(of: engine.search(SearchRequest(text: "", tokens: ["sale"]))) == ["1"])
        #expect(engine.search(SearchRequest(text: "", tokens: ["sale"])).path == .tokens)
        #expect(engine.search(SearchRequest(text: "coffee", scope: "nowhere")).items.isEmpty)
    }

    @Test func pagesWithOffset() {
        let engine = SearchEngine(catalog: Self.catalog)
        let response = engine.search(SearchRequest(text: "", limit: 2, offset: 3))
        #expect(engine.ids(of: response) == ["1", "6"])
        #expect(engine.search(SearchRequest(text: "coffee", limit: 2, offset: 10)).items.isEmpty)
    }

    @Test func zeroHitTrigramIsAnsweredByTheIndex() {
        let engine = SearchEngine(catalog: Self.catalog)
        let response = engine.search(SearchRequest(text: "qqqzz", needsTotal: true))
        #expect(response.items.isEmpty)
        #expect(response.total == 0)
        #expect(response.path == .index)
    }

    @Test func refinesASmallPreviousResult() {
        let catalog = CatalogGenerator(seed: 3).makeCatalog(count: 4000)
        let engine = SearchEngine(catalog: catalog)
        let reference = ReferenceFilter(catalog: catalog)
        let first = engine.search(SearchRequest(text: "grinder", needsTotal: true))
        #expect(first.total != nil)
        let second = engine.search(SearchRequest(text: "grinder 2", needsTotal: true))
        #expect(second.path == .refine)
        #expect(second.items == reference.search(SearchRequest(text: "grinder 2")).items)
        // A syllable being composed is not contained in the next text: no refine from 추 to 충.
        _ = engine.search(SearchRequest(text: "추", needsTotal: true))
        let composed = engine.search(SearchRequest(text: "충", needsTotal: true), forcing: .refine)
        #expect(composed.path != .refine)
    }

    @Test func plannerUsesTheIndexForRareQueriesAndTheScanForCommonOnes() {
        let catalog = CatalogGenerator(seed: 4).makeCatalog(count: 8_000)
        let engine = SearchEngine(catalog: catalog)
        let rare = engine.search(SearchRequest(text: "grinder 2l", needsTotal: true))
        #expect(rare.path == .index)
        let common = engine.search(SearchRequest(text: "e", limit: 50))
        #expect(common.path == .scanFirstPage)
        #expect(common.total == nil)
        #expect(common.items.count == 50)
    }

    @Test func cancelledFlagStopsTheScan() {
        let catalog = CatalogGenerator(seed: 5).makeCatalog(count: 8_000)
        let engine = SearchEngine(catalog: catalog)
        let flag = CancellationFlag()
        flag.cancel()
        let response = engine.search(SearchRequest(text: "zz", needsTotal: true), cancellation: .flag(flag), forcing: .scan)
        #expect(response.wasCancelled)
        #expect(response.items.isEmpty)
        #expect(response.total == nil)
        let live = engine.search(SearchRequest(text: "zz", needsTotal: true), forcing: .scan)
        #expect(!live.wasCancelled)
        #expect(live.bytesScanned > 64 * 1024)
    }

    @Test func cancelledTaskStopsTheScan() async {
        let catalog = CatalogGenerator(seed: 6).makeCatalog(count: 8_000)
        let engine = SearchEngine(catalog: catalog)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return engine.search(SearchRequest(text: "zz", needsTotal: true), cancellation: .task, forcing: .scan)
        }
        let response = await task.value
        #expect(response.wasCancelled)
    }

    @Test func sparseScopesAndTokensAreListsAndGiveTheSameAnswers() throws {
        var products = (0..<400).map { Product(id: "p\($0)", name: "item \($0 % 17) mug", scope: "common", tokens: ["often"], popularity: $0 % 5) }
        products[7].scope = "rare"
        products[300].scope = "rare"
        products[11].tokens = ["Seldom"]
        products[250].tokens = ["often", "seldom"]
        let catalog = try Catalog(products)
        let engine = SearchEngine(catalog: catalog)
        #expect(engine.memoryBreakdown["token-sets"]! < 400 / 8 + 2 * 4 + 64)
        let reference = ReferenceFilter(catalog: catalog)
        for request in [
            SearchRequest(text: "", scope: "rare", needsTotal: true),
            SearchRequest(text: "mug", scope: "rare", needsTotal: true),
            SearchRequest(text: "", tokens: ["SELDOM"], needsTotal: true),
            SearchRequest(text: "item 3 ", tokens: ["seldom"], limit: 5, needsTotal: true),
            SearchRequest(text: "item 1", scope: "rare", tokens: ["seldom"], needsTotal: true),
        ] {
            let expected = reference.search(request)
            let got = engine.search(request)
            #expect(got.items == expected.items, "\(request)")
            #expect(got.total == expected.total, "\(request)")
        }
    }

    @Test func concurrentSearchesShareOneEngine() async {
        let catalog = CatalogGenerator(seed: 12).makeCatalog(count: 3000)
        let engine = SearchEngine(catalog: catalog, tuning: SearchEngine.Tuning(firstPageBytes: 2048, parallelMinimumBytes: 0, parts: 2, parallelVerifyMinimum: 8))
        let reference = ReferenceFilter(catalog: catalog)
        let queries = ["c", "co", "cof", "coffee", "mug", "커", "커피", "保", "保温杯", "zz", "", "pro"]
        let requests = queries.flatMap { [SearchRequest(text: $0, limit: 20, needsTotal: true), SearchRequest(text: $0, limit: 20)] }
        let expected = requests.map { reference.search($0).items }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<3 {
                        for k in requests.indices {
                            let i = (k + task * 5 + round) % requests.count
                            if engine.search(requests[i], cancellation: .task).items != expected[i] { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test func referenceMatchesTheSameRule() {
        let reference = ReferenceFilter(catalog: Self.catalog)
        let response = reference.search(SearchRequest(text: "coffee", limit: 2))
        #expect(response.items == [1, 0])
        #expect(response.total == 3)
        #expect(response.path == .reference)
    }
}
