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
}
