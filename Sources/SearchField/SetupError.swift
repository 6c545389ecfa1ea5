/// A runner, recorder or option asked for with settings that cannot be (a negative duration, a
/// negative number of typists, one global index too few): what is wrong, in words, naming the
/// parameter. The library throws it instead of stopping the process.
public struct SetupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the parameter: `settleInterval: expected a duration of 0 or more,
    /// found -1.0 seconds`.
    public var description: String

    /// An error saying `description`.
    public init(description: String) { self.description = description }

    /// Throws when `duration` is negative, naming `parameter`.
    package static func checkNotNegative(_ duration: Duration, _ parameter: String) throws(SetupError) {
        if duration < .zero { throw SetupError(description: "\(parameter): expected a duration of 0 or more, found \(duration)") }
    }
}
