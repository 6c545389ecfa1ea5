import Foundation

/// Where a command writes: results to standard output, messages and progress to standard error.
///
/// Injectable, so commands run in tests without a process and their output is checked.
package struct Console: Sendable {
    package var writeOut: @Sendable (String) -> Void
    package var writeErr: @Sendable (String) -> Void
    /// Standard error is a terminal: progress may redraw lines in place.
    package var isInteractive: Bool

    package func out(_ text: String) { writeOut(text) }
    package func err(_ text: String) { writeErr(text) }

    /// The process's standard output and error.
    package static let standard = Console(
        writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeErr: { FileHandle.standardError.write(Data($0.utf8)) },
        isInteractive: isatty(2) == 1
    )
}
