import ProductCatalog
import Diagnostics
import Foundation
import Reporting
import Orchestration

/// `typestorm catalog generate|stats`: make synthetic catalogs and describe catalog files.
enum CatalogCommand {
    static let command = Command(
        name: "catalog",
        abstract: "Generate synthetic catalogs and describe catalog files.",
        discussion: """
        Catalog files are TSV, CSV or JSON Lines with the columns id, name, scope, tokens
        (separated by '|') and popularity; the format follows the file's extension.
        """,
        subcommands: [generate, stats]
    )

    static let generate = Command(
        name: "generate",
        abstract: "Write a deterministic synthetic catalog (mixed en/ko/zh) as TSV.",
        discussion: """
        Row i depends only on the seed and i: the first N rows of a larger catalog with the same
        seed are the smaller catalog. Names are 20–60 UTF-8 bytes, 60 % English, 20 % Korean,
        20 % Chinese; popularity is Zipf-distributed (P(popularity ≥ x) ≈ 1/x).
        """,
        options: [
            .value("items", "N", help: "Number of products (accepts 100k, 10M).", default: "20000"),
            .value("seed", "S", help: "Random seed.", default: "2026"),
            .value("out", "FILE", help: "Write to FILE instead of standard output."),
            .value("vocabulary", "DIR", help: "Read the vocabularies from DIR (default: the built-in copy of Datasets/vocabularies)."),
        ],
        run: { invocation in
            let arguments = invocation.arguments
            let items = try arguments.int("items", default: 20_000, in: 0...100_000_000)
            let seed = try arguments.uint64("seed", default: 2026)
            var vocabulary = Vocabulary.builtin
            if let directory = arguments.value("vocabulary") {
                vocabulary = try loadVocabulary(directory)
            }
            let generator = CatalogGenerator(seed: seed, vocabulary: vocabulary)
            let out = arguments.value("out")
            let fd: Int32
            if let out {
                fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard fd >= 0 else {
                    throw ToolError("cannot create '\(out)': \(String(cString: strerror(errno)))", exitCode: ExitCode.cannotCreate)
                }
            } else {
                fd = 1
            }
            defer { if out != nil { close(fd) } }
            let started = ContinuousClock.now
            let console = invocation.console
            let showProgress = items >= 1_000_000
            do {
                try generator.writeTSV(count: items, to: fd, fileName: out ?? "<stdout>", progress: { done in
                    guard showProgress else { return }
                    let line = "generating: \(done.formatted()) / \(items.formatted()) products"
                    console.err(console.isInteractive ? "\r\(line)" : "\(line)\n")
                })
            } catch {
                throw ToolError(String(describing: error), exitCode: ExitCode.cannotCreate)
            }
            if showProgress && console.isInteractive { console.err("\n") }
            let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18 + Double((ContinuousClock.now - started).components.seconds)
            if let out {
                console.err("wrote \(items.formatted()) products to \(out) in \(String(format: "%.2f", seconds)) s\n")
            }
            return ExitCode.success
        }
    )

    static let stats = Command(
        name: "stats",
        abstract: "Count a catalog's products, languages, name lengths, scopes and tokens.",
        discussion: """
        JSON keys: file, format, products, nameBytes, skippedRows, languages {code: count},
        nameLength {min, p50, p90, p99, max, mean}, popularity {same}, scopes {name: count},
        tokens {name: count}. Languages are told by script: ko (any Hangul), zh (Han), ja
        (kana), en (ASCII only), other.
        """,
        options: [
            .value("format", "FORMAT", help: "tsv, csv or jsonl (default: from the extension)."),
            .flag("skip-bad-rows", help: "Skip malformed rows, counting them, instead of stopping."),
            .json,
        ],
        positionals: [Positional("file", help: "The catalog file.")],
        run: { invocation in
            let path = try invocation.arguments.requiredPositional(0, name: "file")
            let loaded = try CatalogFiles.load(path, invocation)
            let stats = CatalogStatistics(loaded.catalog)
            if invocation.arguments.flag("json") {
                let report = StatsReport(file: path, format: loaded.format.rawValue, skippedRows: loaded.skippedRows, statistics: stats)
                invocation.console.out(try JSONDocument.text(report))
                return ExitCode.success
            }
            var out = "\(path) (\(loaded.format.rawValue))\n"
            out += "  products    \(stats.products.formatted())\n"
            out += "  name bytes  \(stats.nameBytes.formatted())\n"
            if loaded.skippedRows > 0 { out += "  skipped     \(loaded.skippedRows.formatted()) rows\n" }
            let l = stats.nameLength
            out += "  name length min \(l.min)  p50 \(l.p50)  p90 \(l.p90)  p99 \(l.p99)  max \(l.max)  mean \(String(format: "%.1f", l.mean)) bytes\n"
            let p = stats.popularity
            out += "  popularity  min \(p.min)  p50 \(p.p50)  p90 \(p.p90)  p99 \(p.p99)  max \(p.max)\n\n"
            func section(_ title: String, _ counts: [String: Int]) -> String {
                let rows = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { [$0.key, $0.value.formatted(), String(format: "%.1f %%", 100 * Double($0.value) / Double(max(1, stats.products)))] }
                return TextTable(headers: [title, "products", "share"], rows: rows, rightAligned: [1, 2], indent: "  ").render() + "\n"
            }
            out += section("language", stats.languages)
            out += section("scope", stats.scopes)
            out += section("token", stats.tokens)
            invocation.console.out(out)
            return ExitCode.success
        }
    )

    struct StatsReport: Encodable {
        var file: String
        var format: String
        var skippedRows: Int
        var statistics: CatalogStatistics

        enum CodingKeys: String, CodingKey {
            case file, format, skippedRows, products, nameBytes, languages, nameLength, popularity, scopes, tokens
        }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(file, forKey: .file)
            try c.encode(format, forKey: .format)
            try c.encode(skippedRows, forKey: .skippedRows)
            try c.encode(statistics.products, forKey: .products)
            try c.encode(statistics.nameBytes, forKey: .nameBytes)
            try c.encode(statistics.languages, forKey: .languages)
            try c.encode(statistics.nameLength, forKey: .nameLength)
            try c.encode(statistics.popularity, forKey: .popularity)
            try c.encode(statistics.scopes, forKey: .scopes)
            try c.encode(statistics.tokens, forKey: .tokens)
        }
    }

    static func loadVocabulary(_ directory: String) throws -> Vocabulary {
        var files: [String: String] = [:]
        for name in Vocabulary.fileNames {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ToolError("cannot read vocabulary file '\(path)'", exitCode: ExitCode.noInput)
            }
            files[name] = text
        }
        do {
            return try Vocabulary.parse(files: files)
        } catch {
            throw ToolError("\(directory)/\(error.description)", exitCode: ExitCode.dataError)
        }
    }
}

/// Loading catalog files for commands: options, errors mapped to exit codes, warnings.
enum CatalogFiles {
    /// The catalog shipped in the repository, used when a command is given none.
    static let shippedPath = ShippedData.catalog

    /// Finds shipped data (`ShippedData`) for a command's default, as a user-facing error.
    static func shipped(_ relativePath: String) throws -> String {
        do { return try ShippedData.find(relativePath) } catch {
            throw ToolError(error.description, exitCode: ExitCode.noInput)
        }
    }

    static func load(_ path: String, _ invocation: Invocation) throws -> CatalogLoadResult {
        let format = try invocation.arguments.choice("format", among: CatalogFormat.allCases.map(\.rawValue)).flatMap(CatalogFormat.init(rawValue:))
        let options = CatalogLoadOptions(format: format, skipBadRows: invocation.arguments.flag("skip-bad-rows"))
        let result: CatalogLoadResult
        do {
            result = try CatalogLoader.load(path: path, options: options)
        } catch {
            if case .cannotRead = error.kind { throw ToolError(error.description, exitCode: ExitCode.noInput) }
            var message = error.description
            if error.line != nil { message += "\n  (use --skip-bad-rows to skip such rows)" }
            throw ToolError(message, exitCode: ExitCode.dataError)
        }
        if result.skippedRows > 0 {
            let kinds = result.skippedByKind.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            invocation.console.err("warning: skipped \(result.skippedRows) bad rows (\(kinds)); first: \(result.skippedErrors.first?.description ?? "")\n")
        }
        return result
    }
}
