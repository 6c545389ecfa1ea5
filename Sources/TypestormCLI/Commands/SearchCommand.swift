import ProductCatalog
import Diagnostics
import Foundation
import Reporting
import Matching

/// `typestorm search`: one query against a catalog file, through the engine or the reference.
enum SearchCommand {
    static let command = Command(
        name: "search",
        abstract: "Search a catalog: the first page, the total, the path the engine took and the time.",
        discussion: """
        A product matches when it is in --scope (if given) and its name contains the query
        (case-insensitive after Unicode NFKC case folding), or it carries one of the --token
        tags. Results: popularity descending, then catalog order.
        JSON keys: query, catalog, path, total, elapsedMs, itemsScanned, bytesScanned,
        loadMs, buildMs, items [{id, name, scope, tokens, popularity}].
        """,
        options: [
            .value("catalog", "FILE", help: "Catalog file (TSV, CSV or JSON Lines).", default: CatalogFiles.shippedPath),
            .value("format", "FORMAT", help: "tsv, csv or jsonl (default: from the extension)."),
            .value("scope", "SCOPE", help: "Only products in this scope."),
            .value("token", "TOKEN", help: "An active token: products carrying it match too.", repeatable: true),
            .value("limit", "N", help: "Page size.", default: "10"),
            .value("offset", "N", help: "Results to skip.", default: "0"),
            .value("path", "PATH", help: "Force a path: scan, index, or reference (the plain filter); default: the planner."),
            .flag("skip-bad-rows", help: "Skip malformed catalog rows, counting them."),
            .json,
        ],
        positionals: [Positional("query", help: "The text typed into the search field.")],
        run: { invocation in
            let arguments = invocation.arguments
            let query = try arguments.requiredPositional(0, name: "query")
            let limit = try arguments.int("limit", default: 10, in: 0...100_000)
            let offset = try arguments.int("offset", default: 0, in: 0...100_000_000)
            let forced = try arguments.choice("path", among: ["scan", "index", "reference"])
            let path = try arguments.value("catalog") ?? CatalogFiles.shipped(CatalogFiles.shippedPath)
            let clock = ContinuousClock()
            let loadStart = clock.now
            let catalog = try CatalogFiles.load(path, invocation).catalog
            let loadTime = clock.now - loadStart
            let request = SearchRequest(text: query, scope: arguments.value("scope"), tokens: arguments.values("token"), limit: limit, offset: offset, needsTotal: true)
            var buildTime = Duration.zero
            let response: SearchResponse
            if forced == "reference" {
                response = ReferenceFilter(catalog: catalog).search(request)
            } else {
                let buildStart = clock.now
                let engine = try SearchEngine.build(catalog: catalog)
                buildTime = clock.now - buildStart
                response = engine.search(request, forcing: forced.flatMap(ForcedPath.init(rawValue:)))
            }
            let ms = Double(response.elapsedNanoseconds) / 1e6
            if arguments.flag("json") {
                let report = Report(
                    query: query, catalog: path, path: response.path.name, total: response.total, elapsedMs: ms,
                    itemsScanned: response.itemsScanned, bytesScanned: response.bytesScanned,
                    loadMs: milliseconds(loadTime), buildMs: milliseconds(buildTime),
                    items: response.items.map { Item(catalog[$0]) }
                )
                invocation.console.out(try JSONDocument.text(report))
                return ExitCode.success
            }
            let rows = response.items.enumerated().map { k, index in
                let product = catalog[index]
                return [String(offset + k + 1), product.id, product.name, product.scope, product.tokens.joined(separator: "|"), product.popularity.formatted()]
            }
            var out = TextTable(headers: ["#", "id", "name", "scope", "tokens", "popularity"], rows: rows, rightAligned: [0, 5], indent: "  ").render()
            let total = response.total.map { $0.formatted() } ?? "?"
            out += "\n  \(total) matches; path \(response.path.name); \(String(format: "%.3f", ms)) ms"
            out += " (\(response.itemsScanned.formatted()) items, \(response.bytesScanned.formatted()) bytes examined)\n"
            out += "  catalog loaded in \(String(format: "%.1f", milliseconds(loadTime))) ms"
            if forced != "reference" { out += ", engine built in \(String(format: "%.1f", milliseconds(buildTime))) ms" }
            out += "\n"
            invocation.console.out(out)
            return ExitCode.success
        }
    )

    struct Item: Encodable {
        var id: String, name: String, scope: String, tokens: [String], popularity: Int
        init(_ p: Product) { id = p.id; name = p.name; scope = p.scope; tokens = p.tokens; popularity = p.popularity }
    }

    struct Report: Encodable {
        var query: String
        var catalog: String
        var path: String
        var total: Int?
        var elapsedMs: Double
        var itemsScanned: Int
        var bytesScanned: Int
        var loadMs: Double
        var buildMs: Double
        var items: [Item]
    }

    static func milliseconds(_ d: Duration) -> Double {
        Double(d.components.seconds) * 1e3 + Double(d.components.attoseconds) / 1e15
    }
}
