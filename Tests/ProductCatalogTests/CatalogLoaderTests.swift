import Testing
@testable import ProductCatalog

@Suite("Catalog loaders", .timeLimit(.minutes(5)))
struct CatalogLoaderTests {
    func load(_ text: String, _ format: CatalogFormat, skip: Bool = false) throws(CatalogError) -> CatalogLoadResult {
        try CatalogLoader.load(bytes: Array(text.utf8), name: "test.\(format.rawValue)", format: format, options: CatalogLoadOptions(skipBadRows: skip))
    }

    func loadError(_ text: String, _ format: CatalogFormat) -> CatalogError? {
        do {
            _ = try load(text, format)
            return nil
        } catch {
            return error
        }
    }

    @Test func tsvLoadsEveryColumnInAnyOrder() throws {
        let result = try load("name\tid\tpopularity\ttokens\tscope\textra\nCoffee Mug\tp1\t12\tsale|new\tkitchen\tx\r\n한국어 책\tp2\t\t\tbooks\ty\n", .tsv)
        #expect(result.catalog.products == [
            Product(id: "p1", name: "Coffee Mug", scope: "kitchen", tokens: ["sale", "new"], popularity: 12),
            Product(id: "p2", name: "한국어 책", scope: "books", tokens: [], popularity: 0),
        ])
    }

    @Test func csvHandlesQuotesAndNewlinesInQuotes() throws {
        let text = "id,name,scope,tokens,popularity\n1,\"Mug, \"\"large\"\"\",kitchen,sale|eco,3\n2,\"two\nlines\",,,\n3,plain,toys,,7\n"
        let catalog = try load(text, .csv).catalog
        #expect(catalog.count == 3)
        #expect(catalog.name(at: 0) == "Mug, \"large\"")
        #expect(catalog.tokens(at: 0) == ["sale", "eco"])
        #expect(catalog.name(at: 1) == "two\nlines")
        #expect(catalog.scope(at: 2) == "toys")
    }

    @Test func csvLineNumbersCountQuotedNewlines() {
        let text = "id,name\n1,\"a\nb\"\n1,dup\n"
        let error = loadError(text, .csv)
        #expect(error?.line == 4)
        #expect(error?.field == "id")
        #expect(error?.kind == .duplicateID(id: "1", firstLine: 2))
    }

    @Test func jsonLinesDecodesEscapesAndSkipsUnknownKeys() throws {
        let text = #"""
        {"id": 7, "name": "Caf\u00e9 \"Bleu\" \ud83d\ude00", "scope": "kitchen", "tokens": ["a", "b"], "popularity": 42, "meta": {"x": [1, {"y": null}]}}

        {"id": "k2", "name": "커피", "tokens": null, "scope": null}
        """#
        let catalog = try load(text, .jsonl).catalog
        #expect(catalog.count == 2)
        #expect(catalog[0] == Product(id: "7", name: "Café \"Bleu\" 😀", scope: "kitchen", tokens: ["a", "b"], popularity: 42))
        #expect(catalog[1] == Product(id: "k2", name: "커피"))
    }

    @Test("errors name the file, line and field", arguments: [
        ("id\tname\n1\tok\n2\n", CatalogFormat.tsv, 3, "name", "malformed-row"),
        ("id\tname\n1\tok\n\tnoid\n", .tsv, 3, "id", "missing-field"),
        ("id\tname\tpopularity\n1\tok\tmany\n", .tsv, 2, "popularity", "invalid-value"),
        ("id\tname\n1\tok\n1\tagain\n", .tsv, 3, "id", "duplicate-id"),
        ("id,name\n1,\"open\n", .csv, 2, nil, "malformed-row"),
        ("{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"name\":3}\n", .jsonl, 2, "name", "invalid-value"),
        ("{\"id\":1,\"name\":\"a\"}\n{\"id\":2 \"name\":\"b\"}\n", .jsonl, 2, nil, "malformed-row"),
        ("{\"id\":1}\n", .jsonl, 1, "name", "missing-field"),
        ("name\n", .tsv, 1, "id", "bad-header"),
    ] as [(String, CatalogFormat, Int, String?, String)])
    func located(text: String, format: CatalogFormat, line: Int, field: String?, kind: String) throws {
        let error = try #require(loadError(text, format))
        #expect(error.file == "test.\(format.rawValue)")
        #expect(error.line == line)
        #expect(error.field == field)
        #expect(error.kind.name == kind)
        #expect(error.description.hasPrefix("test.\(format.rawValue):\(line): "))
    }

    @Test func invalidUTF8IsReportedWithItsField() throws {
        var bytes = Array("id\tname\n1\tgood\n2\tbad".utf8)
        bytes.append(0xFF)
        bytes.append(contentsOf: Array("\n".utf8))
        do {
            _ = try CatalogLoader.load(bytes: bytes, name: "x.tsv", format: .tsv)
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.field == "name")
            #expect(error.kind == .invalidUTF8(byteOffset: 3))
        }
    }

    @Test func skippingBadRowsCountsThem() throws {
        var bytes = Array("id\tname\n1\tok\n2\n1\tdup\n\tnoid\n3\tfine\n4\tx".utf8)
        bytes.append(0xC3)
        let result = try CatalogLoader.load(bytes: bytes, name: "x.tsv", format: .tsv, options: CatalogLoadOptions(skipBadRows: true))
        #expect(result.catalog.products.map(\.id) == ["1", "3"])
        #expect(result.skippedRows == 4)
        #expect(result.skippedByKind == ["malformed-row": 1, "duplicate-id": 1, "missing-field": 1, "invalid-utf8": 1])
        #expect(result.skippedErrors.map(\.line) == [3, 4, 5, 7])
    }

    @Test func longLinesAcrossChunkBoundaries() throws {
        var text = "id\tname\n"
        for i in 0..<500 { text += "p\(i)\t" + String(repeating: "n", count: 3000 + i) + "\n" }
        var reader = LineReader(source: .memory(Array(text.utf8)), chunkSize: 1024)
        var lengths: [Int] = []
        while let length = try reader.nextLine({ (line: UnsafeBufferPointer<UInt8>) throws(CatalogError) -> Int in line.count }) { lengths.append(length) }
        #expect(lengths.count == 501)
        #expect(lengths[1] == "p0\t".utf8.count + 3000)
        #expect(lengths[500] == "p499\t".utf8.count + 3499)
    }

    @Test func unknownExtensionAndMissingFile() {
        #expect(throws: CatalogError.self) { try CatalogLoader.load(path: "/tmp/catalog.xyz") }
        do {
            _ = try CatalogLoader.load(path: "/nonexistent/catalog.tsv")
        } catch {
            #expect(error.file == "/nonexistent/catalog.tsv")
            if case .cannotRead = error.kind {} else { Issue.record("expected cannotRead, got \(error.kind)") }
        }
    }
}
