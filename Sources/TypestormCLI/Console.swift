import Foundation

/// Where a command writes: results to standard output, messages and progress to standard error.
///
/// Injectable, so commands run in tests without a process and their output is checked.
public struct Console: Sendable {
    public var writeOut: @Sendable (String) -> Void
    public var writeErr: @Sendable (String) -> Void
    /// Standard error is a terminal: progress may redraw lines in place.
    public var isInteractive: Bool

    public init(writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void, isInteractive: Bool) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.isInteractive = isInteractive
    }

    public func out(_ text: String) { writeOut(text) }
    public func err(_ text: String) { writeErr(text) }

    /// The process's standard output and error.
    public static let standard = Console(
        writeOut: { FileHandle.standardOutput.write(Data($0.utf8)) },
        writeErr: { FileHandle.standardError.write(Data($0.utf8)) },
        isInteractive: isatty(2) == 1
    )
}
