// The library's one module. `import Typestorm` brings the whole public face: typists and
// populations, the strategies and their presets, the field host and its recorder with the
// metric set, the virtual runner and the live runners with their backends, the catalog and the
// filter engine, scenario reading, run records and the report writer (docs/library.md).
@_exported import Typists
@_exported import SearchField
@_exported import TypestormMetrics
@_exported import FieldRuntime
@_exported import Simulation
@_exported import LiveLoad
@_exported import ProductCatalog
@_exported import Matching
@_exported import Orchestration
@_exported import Reporting
@_exported import FieldHarness

import Dispatch
import Foundation
import TypestormCLI

/// The whole `typestorm` command line, to run from an executable of your own.
///
/// The `typestorm` tool itself is `exit(await TypestormTool.main())`.
public enum TypestormTool {
    /// Runs the command line with `arguments` (without the program name) and returns the exit
    /// code (the table in the README: 0 success, 64 a wrong command line, and so on).
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst())) async -> Int32 {
        await CommandLineTool.main(arguments: arguments)
    }

    /// The whole command line with your own fields as strategies beside the presets:
    /// `simulate --strategies my-search,split-state`. Call it as the first statement of your
    /// executable's synchronous `main`: a command that runs your fields in virtual time
    /// installs the virtual executors before any task exists, which nothing later can.
    ///
    /// ```swift
    /// TypestormTool.main(fields: ["my-search": FieldDefinition(minimumLength: 2) { env in MySearchAdapter(env) }])
    /// ```
    public static func main(fields: [String: FieldDefinition], arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let virtual = needsVirtualExecutors(arguments)
        if virtual { installVirtualExecutors() }
        FieldRegistry.register(fields)
        if virtual {
            runVirtualMain { await CommandLineTool.main(arguments: arguments) }
        }
        Task {
            let code = await CommandLineTool.main(arguments: arguments)
            exit(code)
        }
        dispatchMain()
    }

    /// Whether the command may run user fields in virtual time (the commands that do).
    static func needsVirtualExecutors(_ arguments: [String]) -> Bool {
        arguments.first.map { ["simulate"].contains($0) } ?? false
    }
}
