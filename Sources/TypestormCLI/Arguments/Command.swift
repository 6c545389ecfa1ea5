/// A named option of a command: `--name VALUE`, `--name=VALUE`, or a flag `--name`.
package struct Option: Sendable {
    package var name: String
    package var short: Character?
    /// The placeholder shown in help (`N`, `FILE`); `nil` makes the option a flag.
    package var valueName: String?
    package var help: String
    /// May be given more than once; every value is kept.
    package var repeatable: Bool
    /// Shown in help as `(default: …)`.
    package var defaultValue: String?

    package var isFlag: Bool { valueName == nil }

    package static func flag(_ name: String, short: Character? = nil, help: String) -> Option {
        Option(name: name, short: short, valueName: nil, help: help, repeatable: false, defaultValue: nil)
    }

    package static func value(
        _ name: String, _ valueName: String, short: Character? = nil, help: String,
        default defaultValue: String? = nil, repeatable: Bool = false
    ) -> Option {
        Option(name: name, short: short, valueName: valueName, help: help, repeatable: repeatable, defaultValue: defaultValue)
    }

    /// `--json`, which every command that prints results takes.
    package static let json = Option.flag("json", help: "Print results as JSON (stable keys, see README) instead of a table.")
}

/// A positional argument of a command.
package struct Positional: Sendable {
    package var name: String
    package var help: String
    package var isOptional: Bool
    /// Takes every remaining positional value.
    package var isVariadic: Bool

    package init(_ name: String, help: String, optional: Bool = false, variadic: Bool = false) {
        self.name = name
        self.help = help
        self.isOptional = optional
        self.isVariadic = variadic
    }
}

/// A command of the `typestorm` tool: its arguments, its subcommands and what it does.
///
/// Commands are values; the tree of them is declared in `RootCommand.swift`, and each command's
/// behaviour lives in a file of its own under `Commands/`.
package struct Command: Sendable {
    package typealias Run = @Sendable (Invocation) async throws -> Int32

    package var name: String
    package var abstract: String
    package var discussion: String
    package var options: [Option]
    package var positionals: [Positional]
    package var subcommands: [Command]
    package var run: Run?

    package init(
        name: String, abstract: String, discussion: String = "",
        options: [Option] = [], positionals: [Positional] = [],
        subcommands: [Command] = [], run: Run? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.positionals = positionals
        self.subcommands = subcommands
        self.run = run
    }

    func option(named name: String) -> Option? {
        options.first { $0.name == name }
    }

    func option(short: Character) -> Option? {
        options.first { $0.short == short }
    }

    func subcommand(named name: String) -> Command? {
        subcommands.first { $0.name == name }
    }
}

/// What a command's `run` receives: the parsed arguments and where to write.
package struct Invocation: Sendable {
    package var arguments: ParsedArguments
    package var console: Console
    /// The command path, e.g. `typestorm catalog generate`, for messages.
    package var commandPath: String
}
