import Foundation
import Testing
@testable import ProductCatalog

@Suite("Catalog generator", .timeLimit(.minutes(5)))
struct CatalogGeneratorTests {
    @Test func sameSeedSameCatalogDifferentSeedDifferent() {
        let a = CatalogGenerator(seed: 1).makeCatalog(count: 2000)
        let b = CatalogGenerator(seed: 1).makeCatalog(count: 2000)
        let c = CatalogGenerator(seed: 2).makeCatalog(count: 2000)
        #expect(a.products == b.products)
        #expect(a.products != c.products)
    }

    @Test func aSmallCatalogIsAPrefixOfALargerOne() {
        let small = CatalogGenerator(seed: 5).makeCatalog(count: 5000)
        let large = CatalogGenerator(seed: 5).makeCatalog(count: 9000)
        #expect(small.products == Array(large.products.prefix(5000)))
    }

    @Test func namesAreTwentyToSixtyBytesInThreeLanguages() {
        let catalog = CatalogGenerator(seed: 3).makeCatalog(count: 20_000)
        let stats = CatalogStatistics(catalog)
        #expect(stats.nameLength.min >= 20)
        #expect(stats.nameLength.max <= 60)
        let share = { (code: String) in Double(stats.languages[code] ?? 0) / Double(stats.products) }
        #expect(abs(share("en") - 0.6) < 0.03)
        #expect(abs(share("ko") - 0.2) < 0.03)
        #expect(abs(share("zh") - 0.2) < 0.03)
        #expect(stats.scopes.count == Vocabulary.builtin.scopes.count)
        #expect(Set(catalog.products.map(\.id)).count == 20_000)
    }

    @Test func popularityFollowsZipf() {
        let catalog = CatalogGenerator(seed: 8).makeCatalog(count: 20_000)
        let values = catalog.indices.map { catalog.popularity(at: $0) }
        // P(popularity ≥ x) ≈ 1/x.
        for x in [10, 100] {
            let share = Double(values.filter { $0 >= x }.count) / Double(values.count)
            #expect(abs(share * Double(x) - 1) < 0.25, "x = \(x), share = \(share)")
        }
    }

    @Test func tsvWrittenByTheGeneratorLoadsBackIdentically() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-gen-\(getpid()).tsv").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        #expect(fd >= 0)
        try CatalogGenerator(seed: 11).writeTSV(count: 3000, to: fd, fileName: path)
        close(fd)
        let loaded = try CatalogLoader.load(path: path).catalog
        #expect(loaded.products == CatalogGenerator(seed: 11).makeCatalog(count: 3000).products)
    }

    @Test func builtInVocabularyMatchesTheShippedFiles() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Datasets/vocabularies").standardized
        for name in Vocabulary.fileNames {
            let file = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let builtin = try #require(BuiltinVocabularyText.files[name])
            // A multi-line literal drops the file's final newline.
            #expect(builtin + "\n" == file, "\(name) differs from Datasets/vocabularies/\(name)")
        }
    }

    @Test func shippedCatalogIsTheGeneratorsOutput() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Datasets/catalogs/products-20k.tsv").standardized.path
        let shipped = try CatalogLoader.load(path: path).catalog
        #expect(shipped.count == 20_000)
        #expect(shipped.products == CatalogGenerator(seed: 2026).makeCatalog(count: 20_000).products)
    }

    @Test func duplicateIDsInMemoryAreRejected() {
        #expect(throws: CatalogError.self) {
            try Catalog([Product(id: "a", name: "x"), Product(id: "a", name: "y")])
        }
    }

    @Test func idTableGrowsPastManyRows() throws {
        let products = (0..<10_000).map { Product(id: "id-\($0)", name: "n") }
        let catalog = try Catalog(products + [Product(id: "fresh", name: "n")])
        #expect(catalog.count == 10_001)
        #expect(throws: CatalogError.self) { try Catalog(products + [Product(id: "id-9999", name: "n")]) }
    }
}
