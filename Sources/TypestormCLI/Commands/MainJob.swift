/// The main job: what `typestorm` with no arguments runs (the README's first command).
///
/// The default scenario (`Datasets/scenarios/default.json`) on the shipped catalog: the
/// strategies compared in virtual time, in-process and over HTTP against the embedded server,
/// across several worker processes, ending with the summary and the report's path.
enum MainJob {
    static let run: Command.Run = { invocation in
        if invocation.arguments.flag("version") { return VersionCommand.print(json: false, console: invocation.console) }
        return try await RunCommand.mainJob(invocation.console)
    }
}
