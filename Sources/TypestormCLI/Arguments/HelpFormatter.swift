/// Renders a command's help: usage line, description, arguments, options and subcommands.
enum HelpFormatter {
    static func render(_ command: Command, path: [String]) -> String {
        var lines: [String] = []
        lines.append("OVERVIEW: \(command.abstract)")
        if !command.discussion.isEmpty {
            lines.append("")
            lines.append(command.discussion)
        }
        lines.append("")
        lines.append("USAGE: \(usage(command, path: path))")

        if !command.positionals.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            lines += table(command.positionals.map { ("<\($0.name)>" + ($0.isVariadic ? " ..." : ""), $0.help) })
        }

        lines.append("")
        lines.append("OPTIONS:")
        var rows: [(String, String)] = command.options.map { option in
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--\(option.name)"
            if let valueName = option.valueName { left += " <\(valueName)>" }
            var help = option.help
            if let defaultValue = option.defaultValue { help += " (default: \(defaultValue))" }
            if option.repeatable { help += " (repeatable)" }
            return (left, help)
        }
        rows.append(("-h, --help", "Show help for this command."))
        lines += table(rows)

        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            lines += table(command.subcommands.map { ($0.name, $0.abstract) })
            lines.append("")
            lines.append("  See '\(path.joined(separator: " ")) help <subcommand>' for detailed help.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func usage(_ command: Command, path: [String]) -> String {
        var parts = [path.joined(separator: " ")]
        if !command.subcommands.isEmpty { parts.append(command.run == nil ? "<subcommand>" : "[<subcommand>]") }
        if !command.options.isEmpty { parts.append("[<options>]") }
        for positional in command.positionals {
            let name = "<\(positional.name)>" + (positional.isVariadic ? " ..." : "")
            parts.append(positional.isOptional ? "[\(name)]" : name)
        }
        return parts.joined(separator: " ")
    }

    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = min(30, rows.map(\.0.count).max() ?? 0)
        return rows.map { left, right in
            if left.count > width {
                return "  \(left)\n  \(String(repeating: " ", count: width))  \(right)"
            }
            return "  \(left.padding(toLength: width, withPad: " ", startingAt: 0))  \(right)"
        }
    }
}
