/// The tree of commands. Each command's behaviour lives in `Commands/<Name>Command.swift`.
enum RootCommand {
    static let command = Command(
        name: "typestorm",
        abstract: "Benchmark and load-test search-as-you-type pipelines with synthetic typists.",
        discussion: """
        With no subcommand, runs the main job: the default scenario on the shipped catalog.
        """,
        options: [.flag("version", short: "V", help: "Print the version and exit (as 'typestorm version').")],
        subcommands: [
            VersionCommand.command,
            ReplayCommand.command,
            SimulateCommand.command,
            CatalogCommand.command,
            SearchCommand.command,
            TypistsCommand.command,
            ServeCommand.command,
            RunCommand.command,
            LoadCommand.command,
            WorkerCommand.command,
            MergeCommand.command,
            ReportCommand.command,
            CompareCommand.command,
            SweepCommand.command,
            CalibrateCommand.command,
            CrosscheckCommand.command,
            StoreCommand.command,
            HistoryCommand.command,
        ],
        run: MainJob.run
    )
}
