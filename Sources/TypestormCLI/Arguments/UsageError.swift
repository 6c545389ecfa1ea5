import Diagnostics

/// Everything that can be wrong with a command line, rendered in one place.
///
/// Usage errors exit with 64 (`EX_USAGE`) and are printed to standard error with a pointer to
/// the command's help.
package enum UsageError: Error, Equatable, Sendable {
    case unknownCommand(String, suggestion: String?)
    case unknownOption(String, suggestion: String?)
    case missingValue(option: String, valueName: String)
    case invalidValue(option: String, value: String, expected: String)
    case repeatedOption(String)
    case flagTakesNoValue(String)
    case missingArgument(String)
    case unexpectedArgument(String)
    case missingSubcommand(choices: [String])
    case conflictingOptions(String, String)
    case invalid(String)

    package var message: String {
        switch self {
        case let .unknownCommand(name, suggestion):
            return "unknown command '\(name)'" + Self.didYouMean(suggestion)
        case let .unknownOption(name, suggestion):
            return "unknown option '\(name)'" + Self.didYouMean(suggestion)
        case let .missingValue(option, valueName):
            return "option '--\(option)' needs a value (\(valueName))"
        case let .invalidValue(option, value, expected):
            let subject = option.hasPrefix("<") ? "argument \(option)" : "option '--\(option)'"
            return "invalid value '\(value)' for \(subject): expected \(expected)"
        case let .repeatedOption(name):
            return "option '--\(name)' given more than once"
        case let .flagTakesNoValue(name):
            return "flag '--\(name)' takes no value"
        case let .missingArgument(name):
            return "missing argument <\(name)>"
        case let .unexpectedArgument(value):
            return "unexpected argument '\(value)'"
        case let .missingSubcommand(choices):
            return "a subcommand is needed: one of \(choices.joined(separator: ", "))"
        case let .conflictingOptions(a, b):
            return "options '--\(a)' and '--\(b)' cannot be used together"
        case let .invalid(message):
            return message
        }
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }
}

/// An error that a user sees: what was wrong, where, and the exit code it maps to.
///
/// Modules throw their own error types; the CLI maps those it knows to this at the boundary, and
/// any other error is printed with its description and exit code 1.
package struct ToolError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var exitCode: Int32

    package init(_ message: String, exitCode: Int32 = ExitCode.failure) {
        self.message = message
        self.exitCode = exitCode
    }

    package var description: String { message }
}
