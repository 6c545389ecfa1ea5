/// The version of Typestorm, as `typestorm version` prints it and every run record carries it.
public enum ToolVersion {
    /// The version of this build.
    public static let current = "0.1.0"
}
