import Diagnostics

/// The `typestorm` command line: parse, validate, run, and map errors to exit codes.
package enum CommandLineTool {
    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    package static func main(arguments: [String], console: Console = .standard) async -> Int32 {
        let parser = ArgumentParser(root: RootCommand.command)
        let outcome: ArgumentParser.Outcome
        do {
            outcome = try parser.parse(arguments)
        } catch {
            let (_, path) = parser.commandPath(for: arguments)
            let name = path.joined(separator: " ")
            console.err("error: \(error.message)\n")
            console.err("Usage: \(HelpFormatter.usage(parser.commandPath(for: arguments).0, path: path))\n")
            console.err("  See '\(name) --help' for more.\n")
            return ExitCode.usage
        }

        switch outcome {
        case let .help(command, path):
            console.out(HelpFormatter.render(command, path: path))
            return ExitCode.success
        case let .run(command, path, arguments):
            guard let run = command.run else {
                console.out(HelpFormatter.render(command, path: path))
                return ExitCode.success
            }
            let invocation = Invocation(arguments: arguments, console: console, commandPath: path.joined(separator: " "))
            do {
                return try await run(invocation)
            } catch let error as UsageError {
                console.err("error: \(error.message)\n")
                console.err("  See '\(invocation.commandPath) --help' for more.\n")
                return ExitCode.usage
            } catch let error as ToolError {
                console.err("error: \(error.message)\n")
                return error.exitCode
            } catch {
                console.err("error: \(describe(error))\n")
                return ExitCode.failure
            }
        }
    }

    /// A message for any error: its own description where it has one.
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
