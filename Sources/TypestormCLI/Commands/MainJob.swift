import Catalog
import Foundation
import Matching

/// The main job: what `typestorm` with no arguments runs (the README's first command).
///
/// For now (until the driver replaces it): load the shipped catalog (or generate the same one
/// if the file is not there), build the engine and run a short search session — a word typed
/// letter by letter, Korean and Chinese queries, a scope, a token, a zero-hit query — printing
/// each search's path, matches and time next to the reference filter's time.
enum MainJob {
    static let queries: [(String, String?, [String])] = [
        ("c", nil, []), ("co", nil, []), ("cof", nil, []), ("coff", nil, []), ("coffee", nil, []),
        ("coffee g", nil, []), ("coffee grinder", nil, []),
        ("커", nil, []), ("커피", nil, []), ("텀블러", nil, []),
        ("咖啡", nil, []), ("保温杯", nil, []),
        ("mug", "kitchen", []), ("", nil, ["sale"]), ("bottle", nil, ["eco"]),
        ("zzqx", nil, []), ("", nil, []),
    ]

    static let run: Command.Run = { invocation in
        let console = invocation.console
        let clock = ContinuousClock()
        let start = clock.now
        let catalog: Catalog
        var source = CatalogFiles.shippedPath
        if FileManager.default.fileExists(atPath: CatalogFiles.shippedPath) {
            catalog = try CatalogFiles.load(CatalogFiles.shippedPath, invocation).catalog
        } else {
            source = "generated (seed 2026, 20,000 products; \(CatalogFiles.shippedPath) not found)"
            catalog = CatalogGenerator(seed: 2026).makeCatalog(count: 20_000)
        }
        let loaded = clock.now
        let engine = SearchEngine(catalog: catalog)
        let built = clock.now
        let reference = ReferenceFilter(catalog: catalog)
        var rows: [[String]] = []
        var mismatches = 0
        for (query, scope, tokens) in queries {
            let request = SearchRequest(query: query, scope: scope, tokens: tokens, limit: 10, needsTotal: true)
            let response = engine.search(request, cancellation: .task)
            let expected = reference.search(request, cancellation: .task)
            if response.items != expected.items || response.total != expected.total { mismatches += 1 }
            let first = response.items.first.map { catalog.name(at: $0) } ?? "—"
            var label = "\"\(query)\""
            if let scope { label += " in \(scope)" }
            if !tokens.isEmpty { label += " +" + tokens.joined(separator: ",") }
            rows.append([
                label, response.path.name, (response.total ?? 0).formatted(),
                String(format: "%.3f", Double(response.elapsedNanoseconds) / 1e6),
                String(format: "%.2f", Double(expected.elapsedNanoseconds) / 1e6),
                first,
            ])
        }
        console.out("Typestorm search session on \(source): \(catalog.count.formatted()) products\n")
        console.out(String(format: "  loaded in %.0f ms, engine built in %.0f ms\n\n", SearchCommand.milliseconds(loaded - start), SearchCommand.milliseconds(built - loaded)))
        console.out(TextTable.render(header: ["query", "path", "matches", "engine ms", "reference ms", "first result"], rows: rows, rightAligned: [2, 3, 4]))
        console.out(mismatches == 0
            ? "\n  every answer equals the reference filter's (same items, same order, same total)\n"
            : "\n  \(mismatches) answers differ from the reference filter's\n")
        return mismatches == 0 ? ExitCode.success : ExitCode.failure
    }
}
