import FieldRuntime
import ProductCatalog
import Diagnostics
import Foundation
import Orchestration
import TypestormSystem
import Matching
import SearchServer

/// `typestorm serve`: the HTTP search server, for the HTTP runner or for a user's own client.
enum ServeCommand {
    static let command = Command(
        name: "serve",
        abstract: "Run the HTTP search server (GET /search, /healthz, /metrics).",
        discussion: """
        Prints the bound address once it accepts connections (--port 0 picks a free port), then
        serves until SIGINT or SIGTERM, which drain in-flight searches before exiting.
        The backend is the filter engine over the catalog (TSV, CSV or JSON Lines, as for
        'typestorm catalog stats'); --synthetic N serves N generated products instead.
        Fault injection: --fault-latency exp:5ms | uniform:1ms-20ms | fixed:10ms, --fault-tail 0.01:500ms,
        --fault-error-rate 0.02; --fault-params also accepts fault_delay_ms and fault_error per request.
        --latency FILE delays each search on its worker by the service time of a scenario backend
        model (a scenario's "backend" object alone, as 'calibrate --out' writes): log-normal
        through its serviceTime median and p99, its slow tail and errorRate, drawn as the virtual
        runner draws them (seeded by --fault-seed); its workers become --workers unless given.
        The model's round trip is not added: the network is the real one.
        JSON keys (--json, one line on listening): host, port, url, items, workers, allocator.
        TYPESTORM_ALLOCATOR=system runs on glibc's malloc instead of jemalloc, for comparison.
        """,
        options: [
            .value("catalog", "FILE", help: "Catalog file to serve (.tsv, .csv or .jsonl).", default: CatalogFiles.shippedPath),
            .value("format", "FORMAT", help: "Catalog format when the extension does not say: tsv, csv or jsonl."),
            .flag("skip-bad-rows", help: "Skip malformed catalog rows (counted on stderr) instead of failing."),
            .value("synthetic", "N", help: "Serve N generated products instead of a file."),
            .value("seed", "S", help: "Seed of the --synthetic catalog.", default: "1"),
            .value("host", "ADDR", help: "IPv4 address to bind.", default: "127.0.0.1"),
            .value("port", "PORT", help: "TCP port; 0 picks a free one.", default: "7700"),
            .value("workers", "N", help: "Threads running searches (the backend's capacity).", default: "2"),
            .value("io-threads", "N", help: "Network I/O threads.", default: "2"),
            .flag("search-on-io-threads", help: "Run searches on the I/O threads, not the worker pool (for microsecond searches)."),
            .value("queue", "N", help: "Searches that may wait for a worker before 503.", default: "1024"),
            .value("max-connections", "N", help: "Open connections kept; beyond, the oldest idle or slow one is closed for a new one (503 with Retry-After when all are busy).", default: "1024"),
            .value("page-cache", "N", help: "First pages kept to answer repeated searches without searching (0: off; off with fault injection).", default: "4096"),
            .value("timeout", "SECONDS", help: "Disconnect idle or slow clients after this long.", default: "10"),
            .value("fault-latency", "DIST", help: "Added latency per search: none, fixed:D, uniform:D-D, exp:MEAN.", default: "none"),
            .value("fault-tail", "P:D", help: "Share P of searches get D more latency, e.g. 0.01:500ms."),
            .value("fault-error-rate", "P", help: "Share of searches answered with an injected 500.", default: "0"),
            .flag("fault-params", help: "Accept fault_delay_ms and fault_error on /search."),
            .value("fault-seed", "N", help: "Seed of the fault sampler.", default: "1"),
            .value("latency", "FILE", help: "Delay searches by a backend model's service time (and workers, errors); see above."),
            .json,
        ],
        run: run
    )

    static func run(_ invocation: Invocation) async throws -> Int32 {
        let arguments = invocation.arguments
        var configuration = SearchServerConfiguration()
        configuration.host = arguments.value("host") ?? "127.0.0.1"
        guard SearchServerConfiguration.ipv4Address(configuration.host) != nil else {
            throw UsageError.invalidValue(option: "host", value: configuration.host, expected: "an IPv4 address such as 127.0.0.1 or 0.0.0.0")
        }
        configuration.port = UInt16(try arguments.int("port", default: 7700, in: 0...65535))
        configuration.workers = try arguments.int("workers", default: 2, in: 1...1024)
        configuration.ioThreads = try arguments.int("io-threads", default: 2, in: 1...64)
        configuration.searchOnIOThreads = arguments.flag("search-on-io-threads")
        configuration.queueCapacity = try arguments.int("queue", default: 1024, in: 1...1_000_000)
        configuration.maxConnections = try arguments.int("max-connections", default: 1024, in: 1...100_000)
        configuration.connectionTimeoutSeconds = try arguments.int("timeout", default: 10, in: 1...3600)
        configuration.firstPageCacheEntries = try arguments.int("page-cache", default: 4096, in: 0...10_000_000)
        configuration.faults = try faults(arguments)
        if let model = configuration.faults.model, arguments.value("workers") == nil {
            configuration.workers = model.workers
        }

        let catalog: Catalog
        switch (arguments.value("catalog"), try arguments.int("synthetic", default: nil, in: 1...100_000_000)) {
        case (_?, _?):
            throw UsageError.conflictingOptions("catalog", "synthetic")
        case (nil, let count?):
            catalog = CatalogGenerator(seed: try arguments.uint64("seed", default: 1)).makeCatalog(count: count)
        case (let path, nil):
            catalog = try CatalogFiles.load(try path ?? CatalogFiles.shipped(CatalogFiles.shippedPath), invocation).catalog
        }
        let backend = EngineBackend(catalog: catalog, engine: try SearchEngine.build(catalog: catalog))

        let server = SearchServer(configuration: configuration, backend: backend)
        let signals = try TerminationSignals { _ in server.shutdownGracefully() }
        defer { signals.cancel() }
        let console = invocation.console
        let json = arguments.flag("json")
        let host = configuration.host
        let workers = configuration.workers
        let items = catalog.count
        do {
            try await server.run { port in
                if json {
                    console.out("{\"host\":\"\(host)\",\"port\":\(port),\"url\":\"http://\(host):\(port)\",\"items\":\(items),\"workers\":\(workers),\"allocator\":\"\(Allocator.current.rawValue)\"}\n")
                } else {
                    console.out("listening on http://\(host):\(port) (\(items) items, \(workers) worker\(workers == 1 ? "" : "s"))\n")
                }
            }
        } catch let error as SearchServerError {
            throw ToolError("serve: \(error)", exitCode: ExitCode.failure)
        }
        let usage = try? ResourceUsage.current()
        let heap = AllocatorStats.current().map { ", jemalloc allocated \($0.allocatedBytes >> 20) MiB" } ?? ""
        console.err("serve: drained and stopped (cpu \(usage.map { String(format: "%.2f", $0.cpuSeconds) } ?? "?") s, peak rss \((usage?.peakRSSBytes ?? 0) >> 20) MiB\(heap))\n")
        return ExitCode.success
    }

    static func faults(_ arguments: ParsedArguments) throws -> FaultInjection {
        var faults = FaultInjection()
        let latency = arguments.value("fault-latency") ?? "none"
        do { faults.latency = try LatencyDistribution(parsing: latency) } catch {
            throw UsageError.invalidValue(option: "fault-latency", value: latency, expected: "none, fixed:10ms, uniform:1ms-20ms or exp:5ms")
        }
        if let tail = arguments.value("fault-tail") {
            let parts = tail.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, let probability = Double(parts[0]), (0...1).contains(probability),
                  let nanos = LatencyDistribution.duration(parts[1]) else {
                throw UsageError.invalidValue(option: "fault-tail", value: tail, expected: "P:DURATION with P in 0...1, e.g. 0.01:500ms")
            }
            faults.slowTailProbability = probability
            faults.slowTailNanos = nanos
        }
        faults.errorRate = try arguments.double("fault-error-rate", default: 0, in: 0...1)
        faults.allowPerRequestParameters = arguments.flag("fault-params")
        faults.seed = try arguments.uint64("fault-seed", default: 1)
        if let file = arguments.value("latency") {
            guard let bytes = FileManager.default.contents(atPath: file) else {
                throw ToolError("\(file) (--latency): cannot be read", exitCode: ExitCode.noInput)
            }
            do {
                faults.model = try ScenarioReader.readBackend(bytes: Array(bytes), file: file).model
            } catch {
                throw ToolError("\(error.description) (--latency)", exitCode: ExitCode.dataError)
            }
        }
        return faults
    }
}
