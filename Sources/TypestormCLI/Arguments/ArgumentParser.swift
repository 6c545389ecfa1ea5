import Diagnostics

/// Splits a command line into tokens, finds the command, and checks the arguments against it.
///
/// Parsing is separate from running, so tests parse argv without starting a process.
package struct ArgumentParser: Sendable {
    package let root: Command

    /// The outcome of parsing: a command to run with its arguments, or help to print.
    package enum Outcome: Sendable {
        case run(command: Command, path: [String], arguments: ParsedArguments)
        case help(command: Command, path: [String])
    }

    /// The command and the path to it that argv names, before any error in the rest of argv;
    /// used to point an error message at the right help.
    package func commandPath(for argv: [String]) -> (Command, [String]) {
        var command = root
        var path = [root.name]
        for word in argv {
            guard !word.hasPrefix("-"), let sub = command.subcommand(named: word) else { break }
            command = sub
            path.append(word)
        }
        return (command, path)
    }

    package func parse(_ argv: [String]) throws(UsageError) -> Outcome {
        var command = root
        var path = [root.name]
        var index = 0

        while index < argv.count, !argv[index].hasPrefix("-") || argv[index] == "-" {
            let word = argv[index]
            if let sub = command.subcommand(named: word) {
                command = sub
                path.append(word)
                index += 1
                continue
            }
            if word == "help" {
                let rest = Array(argv[(index + 1)...])
                let (target, targetPath) = ArgumentParser(root: command).commandPath(for: rest)
                // `help X` for an X that is no command is a mistake, not a request for other help.
                if let unknown = rest.dropFirst(targetPath.count - 1).first, !unknown.hasPrefix("-") {
                    throw .unknownCommand(unknown, suggestion: Suggestion.closest(to: unknown, among: target.subcommands.map(\.name)))
                }
                return .help(command: target, path: path + targetPath.dropFirst())
            }
            if !command.subcommands.isEmpty && command.positionals.isEmpty {
                throw .unknownCommand(word, suggestion: Suggestion.closest(to: word, among: command.subcommands.map(\.name) + ["help"]))
            }
            break
        }

        var options: [String: [String]] = [:]
        var positionals: [String] = []
        var onlyPositionals = false

        while index < argv.count {
            let token = argv[index]
            index += 1
            if onlyPositionals || token == "-" || !token.hasPrefix("-") {
                positionals.append(token)
                continue
            }
            if token == "--" {
                onlyPositionals = true
                continue
            }
            if token == "--help" || token == "-h" {
                return .help(command: command, path: path)
            }

            let option: Option
            var inlineValue: String?
            if token.hasPrefix("--") {
                let body = token.dropFirst(2)
                let name: Substring
                if let equals = body.firstIndex(of: "=") {
                    name = body[..<equals]
                    inlineValue = String(body[body.index(after: equals)...])
                } else {
                    name = body
                }
                guard let found = command.option(named: String(name)) else {
                    let names = command.options.map { "--" + $0.name } + ["--help"]
                    throw .unknownOption("--" + name, suggestion: Suggestion.closest(to: "--" + name, among: names))
                }
                option = found
            } else {
                let shortName = token.dropFirst()
                guard shortName.count == 1, let found = command.option(short: shortName.first!) else {
                    if token.count > 2, Double(token) != nil {
                        positionals.append(token)
                        continue
                    }
                    let names = command.options.map { "--" + $0.name }
                    throw .unknownOption(token, suggestion: Suggestion.closest(to: "-" + token, among: names))
                }
                option = found
            }

            if option.isFlag {
                if inlineValue != nil { throw .flagTakesNoValue(option.name) }
                options[option.name] = [""]
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < argv.count, !Self.looksLikeOption(argv[index]) {
                value = argv[index]
                index += 1
            } else {
                throw .missingValue(option: option.name, valueName: option.valueName ?? "VALUE")
            }
            if options[option.name] != nil, !option.repeatable {
                throw .repeatedOption(option.name)
            }
            options[option.name, default: []].append(value)
        }

        if command.run == nil {
            if !command.subcommands.isEmpty {
                if positionals.isEmpty && options.isEmpty { return .help(command: command, path: path) }
                throw .missingSubcommand(choices: command.subcommands.map(\.name))
            }
        }

        try Self.checkPositionals(positionals, against: command.positionals)
        return .run(command: command, path: path, arguments: ParsedArguments(options: options, positionals: positionals))
    }

    /// A token that starts an option rather than being a value: `-5` and `-0.5` are values.
    static func looksLikeOption(_ token: String) -> Bool {
        token.hasPrefix("-") && token != "-" && Double(token) == nil
    }

    static func checkPositionals(_ values: [String], against declared: [Positional]) throws(UsageError) {
        let variadic = declared.last?.isVariadic == true
        let required = declared.filter { !$0.isOptional }
        if values.count < required.count {
            throw .missingArgument(required[values.count].name)
        }
        if !variadic, values.count > declared.count {
            throw .unexpectedArgument(values[declared.count])
        }
    }
}
