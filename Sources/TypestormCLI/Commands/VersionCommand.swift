import Diagnostics

enum VersionCommand {
    static let version = "0.1.0"

    static let command = Command(
        name: "version",
        abstract: "Print Typestorm's version.",
        options: [.json],
        run: { invocation in
            if invocation.arguments.flag("json") {
                invocation.console.out("{\"version\":\"\(version)\"}\n")
            } else {
                invocation.console.out("typestorm \(version)\n")
            }
            return ExitCode.success
        }
    )
}
