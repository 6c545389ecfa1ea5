/// The labels of a sweep record's groups, one per grid point (population, replicate, setting):
/// `typestorm sweep` writes them, the sweep analysis reads them back.
public enum SweepLabel {
    /// The grid point's debounce interval, in milliseconds.
    public static let debounce = "debounceMs"
    /// The grid point's minimum query length.
    public static let minLength = "minLength"
    /// The population (`desktop-en`, `mobile-ko`, …).
    public static let population = "population"
    /// The population's share of the scenario's mix.
    public static let share = "share"
    /// The replicate, and the seed it ran on.
    public static let replicate = "replicate"
    /// The seed the replicate ran on.
    public static let seed = "seed"
}
