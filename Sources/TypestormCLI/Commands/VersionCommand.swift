import TypestormMetrics
import Diagnostics

enum VersionCommand {
    static let version = ToolVersion.current

    static let command = Command(
        name: "version",
        abstract: "Print Typestorm's version.",
        options: [.json],
        run: { invocation in
            print(json: invocation.arguments.flag("json"), console: invocation.console)
        }
    )

    /// Prints the version (`typestorm version`, `typestorm --version`, `-V`).
    static func print(json: Bool, console: Console) -> Int32 {
        console.out(json ? "{\"version\":\"\(version)\"}\n" : "typestorm \(version)\n")
        return ExitCode.success
    }
}
