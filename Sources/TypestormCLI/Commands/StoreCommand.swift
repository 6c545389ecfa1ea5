import Diagnostics
import Foundation
import RunHistory
import TypestormMetrics
import Reporting

/// `typestorm store add RUN_DIR`: puts a run's record into the results store.
enum StoreCommand {
    static let command = Command(
        name: "store",
        abstract: "Keep run records in a results store (SQLite or PostgreSQL) for 'typestorm history'.",
        discussion: """
        URL is sqlite:PATH (a file, created on first use; the default is sqlite:runs.db) or a
        PostgreSQL connection URL, postgres://USER@HOST:PORT/DATABASE. See docs/history.md.
        """,
        subcommands: [add]
    )

    static let storeOption = Option.value("store", "URL", help: "Results store: sqlite:PATH or postgres://….", default: StoreLocation.defaultURL)

    static let add = Command(
        name: "add",
        abstract: "Add run records to the store, each in one transaction; a record already stored is refused.",
        discussion: """
        Each RUN is a run directory, a record file, or a directory of runs. Stored: the scenario's
        name and hash, the seed, every metric of every group (the quantities 'compare' checks), the
        git commit, the machine, the time, the tags, and the record itself.
        Exit codes: 0 added; 65 a record already stored, partial, or unreadable; 66 no record or
        the store cannot be opened.
        """,
        options: [
            storeOption,
            .value("tag", "TAG", help: "A label kept with the run (repeatable), e.g. --tag nightly.", repeatable: true),
            .json,
        ],
        positionals: [Positional("run", help: "Run directory, record file, or directory of runs.", variadic: true)],
        run: { invocation in
            let arguments = invocation.arguments
            var paths: [String] = []
            var index = 0
            while let path = arguments.positional(index) {
                paths.append(path)
                index += 1
            }
            guard !paths.isEmpty else { throw UsageError.missingArgument("run") }
            let tags = try HistoryCLI.tags(arguments.values("tag"))
            var loaded: [RecordStore.Loaded] = []
            for path in paths { loaded += try ReportingCLI.loadMany(path) }
            let store = try HistoryCLI.open(arguments.value("store") ?? StoreLocation.defaultURL)
            var added: [(String, StoredRun)] = []
            for item in loaded {
                do {
                    added.append((item.runDirectory ?? item.path, try store.add(item.record, tags: tags)))
                } catch let error as HistoryError {
                    if !added.isEmpty { invocation.console.err("note: \(added.count) of \(loaded.count) runs were added before this one.\n") }
                    throw HistoryCLI.toolError(error, path: item.runDirectory ?? item.path)
                }
            }
            if arguments.flag("json") {
                let object: [[String: Any]] = added.map { path, run in
                    ["path": path, "id": run.id, "scenario": run.scenarioName, "commit": run.gitCommit as Any? ?? NSNull()]
                }
                let data = try JSONSerialization.data(withJSONObject: ["store": store.location.description, "added": object],
                                                      options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
                invocation.console.out(String(decoding: data, as: UTF8.self) + "\n")
            } else {
                for (path, run) in added {
                    invocation.console.out("added \(path) as run \(run.id) (\(run.scenarioName), commit \(run.shortCommit)) to \(store.location)\n")
                }
            }
            return ExitCode.success
        }
    )
}

/// Opening stores and reporting their errors, for `store`, `history` and `run --store`.
enum HistoryCLI {
    static func open(_ url: String) throws -> HistoryStore {
        try open(url, create: true)
    }

    static func open(_ url: String, create: Bool) throws -> HistoryStore {
        let location: StoreLocation
        do {
            location = try StoreLocation(url)
        } catch {
            throw toolError(error, path: nil)
        }
        do {
            return try HistoryStore(location, create: create)
        } catch {
            throw toolError(error, path: nil)
        }
    }

    static func toolError(_ error: HistoryError, path: String?) -> ToolError {
        let prefix = path.map { "\($0): " } ?? ""
        switch error {
        case .badLocation: return ToolError(error.description, exitCode: ExitCode.usage)
        case .unavailable: return ToolError(error.description, exitCode: ExitCode.noInput)
        case .duplicate, .unusable: return ToolError(prefix + error.description, exitCode: ExitCode.dataError)
        case .database: return ToolError(prefix + error.description, exitCode: ExitCode.software)
        }
    }

    /// `run --store`: adds the finished run (the run directory is already written, so a store
    /// failure loses nothing measured). A partial run is not stored, with a note.
    static func addAfterRun(_ record: RunRecord, runDirectory: String, to store: HistoryStore, console: Console) throws {
        guard !record.partial else {
            console.err("note: the run is partial, so it was not added to \(store.location); the run directory has what arrived\n")
            return
        }
        do {
            let run = try store.add(record)
            console.err("stored as run \(run.id) in \(store.location)\n")
        } catch {
            throw toolError(error, path: runDirectory)
        }
    }

    /// Tags are kept comma-separated: a tag may not hold a comma.
    static func tags(_ values: [String]) throws -> [String] {
        for value in values where value.isEmpty || value.contains(",") {
            throw UsageError.invalidValue(option: "tag", value: value, expected: "a non-empty label without commas")
        }
        return values
    }
}
