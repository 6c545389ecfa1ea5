/// The main job: what `typestorm` with no arguments runs (the README's first command).
enum MainJob {
    static let run: Command.Run = { invocation in
        invocation.console.err("typestorm: the main job is not built yet; see 'typestorm --help'.\n")
        invocation.console.out(HelpFormatter.render(RootCommand.command, path: ["typestorm"]))
        return ExitCode.failure
    }
}
