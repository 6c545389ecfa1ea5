import Foundation
import Testing
@testable import TypestormCLI

/// Commands run through `CommandLineTool.main` with a captured console: what a user sees, exit codes
/// included, without starting a process.
@Suite("Commands end to end", .timeLimit(.minutes(5)))
struct CommandTests {
    final class Captured: @unchecked Sendable {
        // Appended to only from the single task that runs `CommandLineTool.main` in each test.
        var out = "", err = ""
    }

    /// The package's root, so the shipped data is found wherever `swift test` runs from.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let catalog = root + "/Datasets/catalogs/products-20k.tsv"

    func run(_ argv: [String]) async -> (code: Int32, out: String, err: String) {
        let captured = Captured()
        let console = Console(writeOut: { captured.out += $0 }, writeErr: { captured.err += $0 }, isInteractive: false)
        let code = await CommandLineTool.main(arguments: argv, console: console)
        return (code, captured.out, captured.err)
    }

    func temporaryFile(_ name: String, _ contents: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func searchPrintsJSONWithThePathAndTotal() async throws {
        let result = await run(["search", "--catalog", Self.catalog, "--json", "커피"])
        #expect(result.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect((object["total"] as? Int).map { $0 > 0 } == true)
        #expect(object["path"] is String)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.allSatisfy { ($0["name"] as? String)?.contains("커피") == true })
    }

    @Test func catalogErrorsNameFileLineAndField() async throws {
        let path = try temporaryFile("dup.tsv", "id\tname\n1\tfoo\n1\tbar\n")
        let result = await run(["catalog", "stats", path])
        #expect(result.code == 65)
        #expect(result.err.contains("dup.tsv:3: field 'id': duplicate id '1' (first used on line 2)"))
        let skipped = await run(["catalog", "stats", path, "--skip-bad-rows", "--json"])
        #expect(skipped.code == 0)
        #expect(skipped.out.contains("\"skippedRows\" : 1"))
    }

    @Test func missingCatalogIsNoInput() async {
        let result = await run(["catalog", "stats", "/nonexistent/catalog.tsv"])
        #expect(result.code == 66)
        #expect(result.err.contains("/nonexistent/catalog.tsv"))
    }

    @Test func typistSamplesAreDeterministic() async {
        let first = await run(["typists", "sample", "--count", "2", "--seed", "9", "--language", "ko", "--json"])
        let second = await run(["typists", "sample", "--count", "2", "--seed", "9", "--language", "ko", "--json"])
        #expect(first.code == 0)
        #expect(first.out == second.out)
        #expect(first.out.contains("\"language\":\"ko\""))
        let other = await run(["typists", "sample", "--count", "2", "--seed", "10", "--language", "ko", "--json"])
        #expect(other.out != first.out)
    }

    @Test func simulateComparesStrategiesAndIsDeterministic() async throws {
        let argv = ["simulate", "--typists", "40", "--seed", "5", "--strategies", "naive,split-state", "--json"]
        let first = await run(argv)
        let second = await run(argv)
        #expect(first.code == 0)
        #expect(first.out == second.out)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.out.utf8)) as? [String: Any])
        let strategies = try #require(object["strategies"] as? [[String: Any]])
        #expect(strategies.compactMap { $0["name"] as? String } == ["naive", "split-state"])
    }

    /// `simulate` runs a scenario's default backend: the model a scenario without a `backend`
    /// block states, with no slow tail on top.
    @Test func simulateStartsFromTheScenarioDefaults() async throws {
        let result = await run(["simulate", "--typists", "20", "--strategies", "naive", "--json"])
        #expect(result.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let backend = try #require((object["scenario"] as? [String: Any])?["backend"] as? String)
        #expect(backend.contains("4 workers per 100 typists"))
        #expect(backend.contains("slow tail 0.0%"))
        #expect(backend.contains("median 8.0ms"))
        let tail = await run(["simulate", "--typists", "20", "--strategies", "naive", "--slow-tail", "0.01", "--json"])
        #expect(tail.out.contains("slow tail 1.0% ×20"))
        let bad = await run(["simulate", "--service", "50ms", "--service-p99", "20ms"])
        #expect(bad.code == 64)
        #expect(bad.err.contains("--service-p99"))
    }

    /// `simulate` types with the virtual runner's typists: its groups equal those of a
    /// `typestorm worker` run of the scenario that states the same population, strategies,
    /// backend defaults and seed.
    @Test func simulateTypesLikeTheVirtualRunner() async throws {
        let directory = URL(fileURLWithPath: try temporaryFile("unused", "")).deletingLastPathComponent().path
        let simulated = directory + "/simulate.json", worker = directory + "/worker.json"
        let simulate = await run(["simulate", "--typists", "30", "--seed", "11", "--strategies", "naive,split-state",
                                  "--language", "en,ko", "--device", "mobile", "--queries", "2", "--record", simulated])
        #expect(simulate.code == 0, "\(simulate.err)")
        let scenario = try temporaryFile("scenario.json", """
        {"name": "simulate", "seed": 11, "duration": "60s", "catalog": {"generate": {"items": 100}},
         "population": {"typists": 30, "session": {"queries": 2}, "queryLists": "\(Self.root)/Datasets/queries",
                        "mix": [{"device": "mobile", "language": "en", "share": 0.5}, {"device": "mobile", "language": "ko", "share": 0.5}]},
         "strategies": [{"preset": "naive"}, {"preset": "split-state"}], "runners": [{"kind": "virtual"}]}
        """)
        let ran = await run(["worker", scenario, "--out", worker])
        #expect(ran.code == 0, "\(ran.err)")
        func groups(_ path: String) throws -> [String: Any] {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
            let groups = try #require(object["groups"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: groups.map { ($0["name"] as? String ?? "", $0["metrics"] as Any) })
        }
        let fromSimulate = try groups(simulated), fromWorker = try groups(worker)
        #expect(fromSimulate.keys.sorted() == ["naive", "split-state"])
        for name in fromSimulate.keys {
            let a = try JSONSerialization.data(withJSONObject: fromSimulate[name]!, options: .sortedKeys)
            let b = try JSONSerialization.data(withJSONObject: fromWorker[name] as Any, options: .sortedKeys)
            #expect(a == b, "\(name): simulate and the virtual runner typed differently")
        }
        let english = await run(["simulate", "--typists", "30", "--seed", "11", "--strategies", "naive", "--json"])
        let korean = await run(["simulate", "--typists", "30", "--seed", "11", "--strategies", "naive", "--language", "ko", "--json"])
        #expect(english.code == 0 && korean.code == 0)
        #expect(english.out != korean.out)
        let badLanguage = await run(["simulate", "--language", "fr"])
        #expect(badLanguage.code == 64)
        #expect(badLanguage.err.contains("--language"))
        let noLists = await run(["simulate", "--typists", "5", "--query-lists", "/nonexistent/queries"])
        #expect(noLists.code == 66)
        #expect(noLists.err.contains("/nonexistent/queries"))
    }

    @Test func serveRejectsBadFlagsBeforeBinding() async {
        let both = await run(["serve", "--catalog", Self.catalog, "--synthetic", "10"])
        #expect(both.code == 64)
        #expect(both.err.contains("cannot be used together"))
        let host = await run(["serve", "--host", "localhost:80"])
        #expect(host.code == 64)
        #expect(host.err.contains("--host"))
    }

    @Test func unknownStrategyIsAUsageErrorWithASuggestion() async {
        let result = await run(["simulate", "--strategies", "split-stat"])
        #expect(result.code == 64)
        #expect(result.err.contains("split-state"))
    }

    /// The grid spread over worker processes (the real executable, started by the driver) gives
    /// exactly the numbers of the in-process grid.
    @Test func sweepOverWorkerProcessesEqualsTheInProcessGrid() async throws {
        let executable = Self.root + "/.build/debug/typestorm"
        try #require(FileManager.default.isExecutableFile(atPath: executable), "build the typestorm executable first (swift build)")
        let scenario = Self.root + "/Datasets/scenarios/default.json"
        let grid = ["sweep", scenario, "--debounce", "100:300:100", "--typists", "40", "--replicates", "2", "--queries", Self.root + "/Datasets/queries", "--json"]
        let inProcess = await run(grid + ["--workers", "1"])
        #expect(inProcess.code == 0)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = grid + ["--workers", "3"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: bytes, as: UTF8.self) == inProcess.out)
        #expect(inProcess.out.contains("\"debounceMs\" : 300"))
    }
}
