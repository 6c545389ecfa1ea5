import ProductCatalog
import Foundation
import TypestormSystem
import Matching

// The filter benchmark: catalogs of 100k, 1M and 10M generated items; per size, queries of 2, 4
// and 8 characters, a zero-hit, a Korean and a Chinese query, timed through the reference
// filter, each engine path and the planner, for the first page and for all hits. Memory read
// bandwidth on one and two cores is measured in the same run; results go to a table on stdout
// and JSON (--json FILE). See docs/engine.md.

struct Options {
    var sizes = [100_000, 1_000_000, 10_000_000]
    var jsonPath: String? = nil
    var seed: UInt64 = 2026
    var firstPageRuns = 301
    var allHitsRuns = 15
    /// At or above this size the reference runs on a 1M prefix and is scaled (it takes seconds).
    var referenceSampleAbove = 1_000_000
    /// Only the queries with these labels or texts (empty: all).
    var only: [String] = []
    var skipReference = false

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var i = 0
        func value() -> String {
            i += 1
            guard i < arguments.count else { fail("option \(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--sizes":
                options.sizes = value().split(separator: ",").map { text in
                    guard let n = parseCount(String(text)), n > 0 else { fail("--sizes: '\(text)' is not a count like 100k or 1M") }
                    return n
                }
            case "--json": options.jsonPath = value()
            case "--only": options.only = value().split(separator: ",").map(String.init)
            case "--no-reference": options.skipReference = true
            case "--seed":
                guard let seed = UInt64(value()) else { fail("--seed needs a non-negative integer") }
                options.seed = seed
            case "--runs":
                guard let runs = Int(value()), runs > 0 else { fail("--runs needs a positive integer") }
                options.allHitsRuns = runs
                options.firstPageRuns = runs * 20 + 1
            case "-h", "--help":
                print("""
                USAGE: FilterBenchmark [--sizes 100k,1M,10M] [--json FILE] [--seed S] [--runs N] [--only Q,…] [--no-reference]
                  --sizes  catalog sizes to generate and time (default 100k,1M,10M)
                  --json   also write the results as JSON to FILE
                  --runs   timed runs per all-hits measurement (first page: 20× as many)
                  --only   only these queries (labels such as "2 chars" or query texts)
                  --no-reference  skip the reference filter (quick runs; no speedups then)
                """)
                exit(0)
            default: fail("unknown option '\(arguments[i])'; see --help")
            }
            i += 1
        }
        return options
    }

    static func parseCount(_ text: String) -> Int? {
        var digits = text.replacingOccurrences(of: "_", with: "")
        var scale = 1
        if let last = digits.last, "kKmM".contains(last) {
            scale = last == "k" || last == "K" ? 1_000 : 1_000_000
            digits.removeLast()
        }
        return Int(digits).map { $0 * scale }
    }
}

/// The 1-minute load average from /proc/loadavg.
func loadAverage() -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
    return text.split(separator: " ").first.flatMap { Double($0) }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FilterBenchmark: error: \(message)\n".utf8))
    exit(64)
}

func log(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

struct Query: Codable {
    var label: String
    var text: String
}

let allQueries = [
    Query(label: "2 chars", text: "ca"),
    Query(label: "4 chars", text: "lamp"),
    Query(label: "8 chars", text: "backpack"),
    Query(label: "zero hits", text: "qzxjv"),
    Query(label: "Korean", text: "운동화"),
    Query(label: "Chinese", text: "保温杯"),
]

struct Measurement: Codable {
    var query: String
    var queryText: String
    /// reference, scan, index, refine, planner.
    var method: String
    /// first-page or all-hits.
    var mode: String
    var path: String
    var runs: Int
    var p50Ms: Double
    var minMs: Double
    var hits: Int?
    var itemsScanned: Int
    var bytesScanned: Int
    var itemsPerSecond: Double
    var gigabytesPerSecond: Double
    /// Time over the bandwidth floor (bytes read / max(1-core, 2-core bandwidth)).
    var floorRatio: Double?
    /// Reference time over this time (how many times faster than the reference).
    var speedupOverReference: Double?
    var referenceSampled: Bool
    /// Same page (and total, when given) as the reference; nil where the reference ran on a
    /// sample.
    var agreesWithReference: Bool?
}

struct SizeResult: Codable {
    var items: Int
    var nameBytes: Int
    var foldedBytes: Int
    var generateSeconds: Double
    var buildSeconds: Double
    /// The engine's heap: jemalloc's allocated bytes after the build minus before.
    var engineBytesJemalloc: Int?
    /// The engine's large tables mapped in whole pages (outside jemalloc's statistics).
    var engineBytesMapped: Int
    var engineBytesCounted: Int
    var engineBytesPerItem: Double
    var engineBytesOverNameBytes: Double
    var breakdown: [String: Int]
    var fullScanFloorMs: Double
    var measurements: [Measurement]
    /// FNV-1a over every measured answer's query, method, mode, items and total: equal across
    /// builds exactly when every answer is.
    var resultChecksum: String
}

struct Floor: Codable {
    var name: String
    var target: String
    var measured: String
    var met: Bool
}

struct Report: Codable {
    var cores: Int
    /// The buffer the bandwidth was measured on (and read to evict the caches before a cold scan).
    var bandwidthBufferBytes: Int
    var lastLevelCacheBytes: Int?
    var bandwidth1CoreGBps: Double
    var bandwidth2CoreGBps: Double
    var floorBandwidthGBps: Double
    /// The machine's 1-minute load average at the end (other processes skew the timings).
    var loadAverage: Double?
    var sizes: [SizeResult]
    var floors: [Floor]
}

/// Times `body` `runs` times after one warm-up; returns the median, the minimum and the last
/// response.
func time(runs: Int, prepare: () -> Void = {}, _ body: () -> SearchResponse) -> (p50: Double, min: Double, last: SearchResponse) {
    prepare()
    var last = body()
    var samples: [Double] = []
    samples.reserveCapacity(runs)
    for _ in 0..<runs {
        prepare()
        let start = ContinuousClock.now
        last = body()
        samples.append(seconds(ContinuousClock.now - start) * 1e3)
        blackHole(last)
    }
    samples.sort()
    return (samples[samples.count / 2], samples[0], last)
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
let queries = options.only.isEmpty ? allQueries : allQueries.filter { options.only.contains($0.label) || options.only.contains($0.text) }
let cores = Processors.active
// The bandwidth buffer: 4× the last-level cache (at least 512 MiB), so that no run reads from
// the cache; the same buffer is read before each cold scan to evict the store.
let lastLevelCache = Bandwidth.lastLevelCache()
let bandwidthBufferBytes = max(512 << 20, 4 * (lastLevelCache?.bytes ?? 0))
let bandwidthBuffer = Bandwidth.makeBuffer(bytes: bandwidthBufferBytes)
let bandwidthBufferNote = "\(bandwidthBufferBytes >> 20) MiB; last-level cache " + (lastLevelCache.map { "\($0.source) (buffer \(String(format: "%.0f", Double(bandwidthBufferBytes) / Double($0.bytes)))× it)" } ?? "unknown (sysfs has no cache sizes)")
log("measuring memory read bandwidth (\(bandwidthBufferNote), 1 and 2 threads)…")
let bandwidth1 = Bandwidth.measure(bandwidthBuffer, threads: 1)
let bandwidth2 = Bandwidth.measure(bandwidthBuffer, threads: 2)
log(String(format: "bandwidth: %.1f GB/s (1 core), %.1f GB/s (2 cores)", bandwidth1 / 1e9, bandwidth2 / 1e9))

/// The bandwidth floors are computed from: the 2-core figure, or the 1-core one when other
/// processes on the machine made two threads read slower than one (the stricter floor).
let floorBandwidth = max(bandwidth1, bandwidth2)

var sizeResults: [SizeResult] = []
var referenceOnPrefix: [String: Double] = [:]
var referencePrefixCatalog: Catalog? = nil

for size in options.sizes {
    log("generating \(size.formatted()) items…")
    let generateStart = ContinuousClock.now
    let catalog = CatalogGenerator(seed: options.seed).makeCatalog(count: size)
    let generateSeconds = seconds(ContinuousClock.now - generateStart)
    log(String(format: "  generated in %.2f s; building the engine…", generateSeconds))
    let before = Jemalloc.allocatedBytes()
    let buildStart = ContinuousClock.now
    let engine: SearchEngine
    do {
        engine = try SearchEngine.build(catalog: catalog)
    } catch {
        fail("\(size) items: \(error)")
    }
    let buildSeconds = seconds(ContinuousClock.now - buildStart)
    let after = Jemalloc.allocatedBytes()
    let engineJemalloc = before.flatMap { b in after.map { $0 - b } }
    let breakdown = engine.memoryBreakdown
    let counted = breakdown.values.reduce(0, +)
    // What the engine holds: its heap as jemalloc counts it plus the pages it mapped.
    let engineBytes = engineJemalloc.map { $0 + engine.mappedByteCount } ?? counted
    let foldedBytes = engine.foldedByteCount
    log(String(format: "  built in %.2f s; engine holds %.1f MB (%.2f× the %.1f MB of names)", buildSeconds, Double(engineBytes) / 1e6, Double(engineBytes) / Double(catalog.nameByteCount), Double(catalog.nameByteCount) / 1e6))

    let floorMs = Double(foldedBytes) / floorBandwidth * 1e3
    // The reference: on the catalog itself up to 1M, on the 1M prefix (scaled) above.
    let sampled = size > options.referenceSampleAbove
    var referenceMs: [String: Double] = [:]
    var referenceHits: [String: Int] = [:]
    var referenceItems: [String: [Int]] = [:]
    if options.skipReference {
        // No reference times: speedups stay empty.
    } else if sampled {
        let prefixSize = options.referenceSampleAbove
        if referencePrefixCatalog == nil || referencePrefixCatalog!.count != prefixSize {
            referencePrefixCatalog = CatalogGenerator(seed: options.seed).makeCatalog(count: prefixSize)
        }
        let reference = ReferenceFilter(catalog: referencePrefixCatalog!)
        for query in queries {
            let key = query.text
            if referenceOnPrefix[key] == nil {
                log("  reference on the \(prefixSize.formatted())-item prefix: \(query.label)…")
                let t = time(runs: 1) { reference.search(SearchRequest(text: query.text, limit: 50, needsTotal: true)) }
                referenceOnPrefix[key] = t.p50
            }
            referenceMs[key] = referenceOnPrefix[key]! * Double(size) / Double(prefixSize)
        }
    } else {
        let reference = ReferenceFilter(catalog: catalog)
        let runs = size <= 100_000 ? 3 : 1
        for query in queries {
            log("  reference: \(query.label)…")
            let t = time(runs: runs) { reference.search(SearchRequest(text: query.text, limit: 50, needsTotal: true)) }
            referenceMs[query.text] = t.p50
            referenceHits[query.text] = t.last.total
            referenceItems[query.text] = t.last.items
            if size == options.referenceSampleAbove { referenceOnPrefix[query.text] = t.p50 }
        }
    }

    var measurements: [Measurement] = []
    var checksum = Checksum()
    func record(_ query: Query, method: String, mode: String, _ t: (p50: Double, min: Double, last: SearchResponse), runs: Int) {
        let r = t.last
        checksum.add("\(query.text)|\(method)|\(mode)|\(r.total.map(String.init) ?? "-")|" + r.items.map(String.init).joined(separator: ","))
        let bytes = r.bytesScanned
        let ref = referenceMs[query.text]
        measurements.append(Measurement(
            query: query.label, queryText: query.text, method: method, mode: mode, path: r.path.name, runs: runs,
            p50Ms: t.p50, minMs: t.min, hits: r.total, itemsScanned: r.itemsScanned, bytesScanned: bytes,
            itemsPerSecond: Double(r.itemsScanned) / (t.p50 / 1e3), gigabytesPerSecond: Double(bytes) / (t.p50 / 1e3) / 1e9,
            floorRatio: bytes > 0 ? t.p50 / (Double(bytes) / floorBandwidth * 1e3) : nil,
            speedupOverReference: method == "reference" ? nil : ref.map { $0 / t.p50 },
            referenceSampled: sampled,
            agreesWithReference: referenceItems[query.text].map { $0 == r.items && (r.total == nil || r.total == referenceHits[query.text]) }
        ))
    }
    for query in queries {
        log("  engine: \(query.label)…")
        if let ms = referenceMs[query.text] {
            measurements.append(Measurement(
                query: query.label, queryText: query.text, method: "reference", mode: "all-hits", path: "reference",
                runs: 1, p50Ms: ms, minMs: ms, hits: referenceHits[query.text], itemsScanned: size, bytesScanned: catalog.nameByteCount,
                itemsPerSecond: Double(size) / (ms / 1e3), gigabytesPerSecond: Double(catalog.nameByteCount) / (ms / 1e3) / 1e9,
                floorRatio: nil, speedupOverReference: nil, referenceSampled: sampled, agreesWithReference: nil
            ))
        }
        let scale = max(1, size / 1_000_000)
        let allRuns = max(3, options.allHitsRuns / scale)
        let pageRuns = max(11, options.firstPageRuns / scale)
        let clear = { engine.clearCache() }
        for (method, forcing) in [("scan", ForcedPath.scan), ("index", .index), ("planner", nil)] as [(String, ForcedPath?)] {
            let all = SearchRequest(text: query.text, limit: 50, needsTotal: true)
            let page = SearchRequest(text: query.text, limit: 50, needsTotal: false)
            let tAll = time(runs: allRuns, prepare: clear) { engine.search(all, forcing: forcing) }
            if method == "index" && tAll.last.path != .index { continue }
            record(query, method: method, mode: "all-hits", tAll, runs: allRuns)
            let tPage = time(runs: pageRuns, prepare: clear) { engine.search(page, forcing: forcing) }
            record(query, method: method, mode: "first-page", tPage, runs: pageRuns)
        }
        // The zero-hit scan again, with the caches evicted before each run (the store read from
        // memory, as the bandwidth floor is).
        if query.label == "zero hits" {
            let all = SearchRequest(text: query.text, limit: 50, needsTotal: true)
            let t = time(runs: allRuns, prepare: { engine.clearCache(); Bandwidth.evictCaches(bandwidthBuffer) }) { engine.search(all, forcing: .scan) }
            record(query, method: "scan-cold", mode: "all-hits", t, runs: allRuns)
        }
        // Refine: the query typed one character shorter was answered just before.
        let shorter = String(query.text.dropLast())
        if !shorter.isEmpty {
            let previous = SearchRequest(text: shorter, limit: 50, needsTotal: true)
            let all = SearchRequest(text: query.text, limit: 50, needsTotal: true)
            let t = time(runs: allRuns, prepare: { engine.clearCache(); _ = engine.search(previous) }) { engine.search(all, forcing: .refine) }
            if t.last.path == .refine { record(query, method: "refine", mode: "all-hits", t, runs: allRuns) }
        }
    }
    sizeResults.append(SizeResult(
        items: size, nameBytes: catalog.nameByteCount, foldedBytes: foldedBytes, generateSeconds: generateSeconds, buildSeconds: buildSeconds,
        engineBytesJemalloc: engineJemalloc, engineBytesMapped: engine.mappedByteCount, engineBytesCounted: counted,
        engineBytesPerItem: Double(engineBytes) / Double(size), engineBytesOverNameBytes: Double(engineBytes) / Double(catalog.nameByteCount),
        breakdown: breakdown, fullScanFloorMs: floorMs, measurements: measurements, resultChecksum: checksum.hex
    ))
}

// Floors, judged where the run has the size they name.
var floors: [Floor] = []
if let oneM = sizeResults.first(where: { $0.items == 1_000_000 }) {
    let m = oneM.measurements
    let worst = queries.compactMap { q in
        m.first { $0.queryText == q.text && $0.method == "planner" && $0.mode == "all-hits" }.flatMap { x in x.speedupOverReference.map { (q.label, $0) } }
    }.min { $0.1 < $1.1 }
    if let worst {
        floors.append(Floor(name: "1M: all hits vs reference, every query (planner)", target: "≥ 300×", measured: String(format: "worst %.0f× (%@)", worst.1, worst.0), met: worst.1 >= 300))
    }
    if let zero = m.first(where: { $0.query == "zero hits" && $0.method == "scan-cold" && $0.mode == "all-hits" }) {
        let ratio = zero.p50Ms / oneM.fullScanFloorMs
        let warm = m.first { $0.query == "zero hits" && $0.method == "scan" && $0.mode == "all-hits" }
        floors.append(Floor(name: "1M: zero-hit full scan (forced scan, all hits, caches evicted) vs memory-bandwidth floor", target: "≤ 2×", measured: String(format: "p50 %.2f× (%.3f ms; min %.3f ms) vs floor %.3f ms; warm %.3f ms = %.2f×", ratio, zero.p50Ms, zero.minMs, oneM.fullScanFloorMs, warm?.p50Ms ?? .nan, (warm?.p50Ms ?? .nan) / oneM.fullScanFloorMs), met: ratio <= 2))
    }
    if let two = m.first(where: { $0.query == "2 chars" && $0.method == "planner" && $0.mode == "first-page" }) {
        floors.append(Floor(name: "1M: first page p50, 2-char query (planner)", target: "≤ 0.05 ms", measured: String(format: "%.4f ms (%@)", two.p50Ms, two.path), met: two.p50Ms <= 0.05))
    }
    let eight = m.filter { $0.query == "8 chars" && ($0.method == "index" || $0.method == "planner") && $0.mode == "all-hits" }
    if let best = eight.min(by: { $0.p50Ms < $1.p50Ms }) {
        floors.append(Floor(name: "1M: 8-char query, index or planner, all hits", target: "≤ 1 ms", measured: String(format: "%.3f ms (%@ → %@)", best.p50Ms, best.method, best.path), met: best.p50Ms <= 1))
    }
}
if let tenM = sizeResults.first(where: { $0.items == 10_000_000 }) {
    floors.append(Floor(name: "10M: folded store + indexes vs raw name bytes (jemalloc + mapped pages)", target: "≤ 2×", measured: String(format: "%.2f× (%.1f bytes/item)", tenM.engineBytesOverNameBytes, tenM.engineBytesPerItem), met: tenM.engineBytesOverNameBytes <= 2))
    floors.append(Floor(name: "10M: engine build (fold, trigram and bigram indexes, scopes, tokens), wall", target: "≤ 15 s", measured: String(format: "%.2f s on %d cores", tenM.buildSeconds, cores), met: tenM.buildSeconds <= 15))
    if let zero = tenM.measurements.first(where: { $0.query == "zero hits" && $0.method == "scan-cold" && $0.mode == "all-hits" }) {
        let ratio = zero.p50Ms / tenM.fullScanFloorMs
        floors.append(Floor(name: "10M: zero-hit full scan (caches evicted) vs memory-bandwidth floor", target: "≤ 2×", measured: String(format: "p50 %.2f× (%.2f ms) vs floor %.2f ms", ratio, zero.p50Ms, tenM.fullScanFloorMs), met: ratio <= 2))
    }
}

// The readable table.
func fmt(_ x: Double?, _ format: String) -> String { x.map { String(format: format, $0) } ?? "—" }
var out = String(format: "Filter benchmark — %d cores; memory read bandwidth %.1f GB/s (1 core), %.1f GB/s (2 cores) over a %@; floors use %.1f GB/s; load average %.1f\n", cores, bandwidth1 / 1e9, bandwidth2 / 1e9, bandwidthBufferNote, floorBandwidth / 1e9, loadAverage() ?? -1)
for s in sizeResults {
    out += String(format: "\n%@ items: names %.1f MB, generated in %.2f s, engine built in %.2f s, engine %.1f MB (heap and mapped pages) = %.1f bytes/item = %.2f× name bytes; full-scan floor (2 cores) %.3f ms; result checksum %@\n",
                  s.items.formatted(), Double(s.nameBytes) / 1e6, s.generateSeconds, s.buildSeconds, s.engineBytesPerItem * Double(s.items) / 1e6, s.engineBytesPerItem, s.engineBytesOverNameBytes, s.fullScanFloorMs, s.resultChecksum)
    out += "  engine parts (bytes): " + s.breakdown.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.formatted())" }.joined(separator: ", ") + "\n"
    let header = ["query", "method", "mode", "path", "p50 ms", "min ms", "hits", "Mitems/s", "GB/s", "×floor", "×faster than ref"]
    var rows: [[String]] = []
    for m in s.measurements {
        rows.append([
            "\(m.query) '\(m.queryText)'", m.method + (m.method == "reference" && m.referenceSampled ? " (1M prefix, scaled)" : ""), m.mode, m.path,
            fmt(m.p50Ms, "%.4f"), fmt(m.minMs, "%.4f"), m.hits.map { $0.formatted() } ?? "—",
            fmt(m.itemsPerSecond / 1e6, "%.0f"), fmt(m.gigabytesPerSecond, "%.2f"), fmt(m.floorRatio, "%.2f"), fmt(m.speedupOverReference, "%.0f"),
        ])
    }
    var widths = header.map(\.count)
    for row in rows { for (k, cell) in row.enumerated() { widths[k] = max(widths[k], cell.count) } }
    func line(_ cells: [String]) -> String {
        cells.enumerated().map { k, c in k >= 4 ? String(repeating: " ", count: widths[k] - c.count) + c : c + String(repeating: " ", count: widths[k] - c.count) }.joined(separator: "  ")
    }
    out += "  " + line(header) + "\n  " + widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
    for row in rows { out += "  " + line(row) + "\n" }
}
let checked = sizeResults.flatMap(\.measurements).compactMap(\.agreesWithReference)
if !checked.isEmpty {
    let wrong = checked.filter { !$0 }.count
    out += wrong == 0
        ? "\nEvery engine answer checked against the reference was equal (\(checked.count) measurements: same page, same total).\n"
        : "\nWRONG: \(wrong) of \(checked.count) engine answers differ from the reference.\n"
}
if !floors.isEmpty {
    out += "\nFloors:\n"
    for f in floors { out += "  [\(f.met ? "met" : "NOT MET")] \(f.name): \(f.measured) (target \(f.target))\n" }
}
print(out, terminator: "")

if let path = options.jsonPath {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    let report = Report(cores: cores, bandwidthBufferBytes: bandwidthBufferBytes, lastLevelCacheBytes: lastLevelCache?.bytes, bandwidth1CoreGBps: bandwidth1 / 1e9, bandwidth2CoreGBps: bandwidth2 / 1e9, floorBandwidthGBps: floorBandwidth / 1e9, loadAverage: loadAverage(), sizes: sizeResults, floors: floors)
    do {
        try encoder.encode(report).write(to: URL(fileURLWithPath: path))
        log("wrote \(path)")
    } catch {
        fail("cannot write \(path): \(error)")
    }
}

/// FNV-1a, 64-bit, over the answers a run measured.
struct Checksum {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ text: String) {
        for byte in text.utf8 { state = (state ^ UInt64(byte)) &* 0x100_0000_01b3 }
        state = (state ^ 0x0A) &* 0x100_0000_01b3
    }
    var hex: String { String(state, radix: 16) }
}
