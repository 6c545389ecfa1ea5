/// The measurements of one strategy (or one strategy under one runner, population, or grid
/// point), identified by its name and labels.
public struct MetricGroup: Sendable, Equatable, Codable {
    /// The strategy (or other measured thing, such as `server` or `probe`) the group measures.
    public var name: String
    /// What distinguishes groups of the same name: runner, population, debounce, ...
    public var labels: [String: String]
    /// The group's counters, maxima and histograms, by ``MetricName``.
    public var metrics: MetricSet

    /// A group named `name` with `labels` (empty: none) holding `metrics`.
    public init(name: String, labels: [String: String] = [:], metrics: MetricSet = MetricSet()) {
        self.name = name
        self.labels = labels
        self.metrics = metrics
    }

    /// Groups merge when their names and labels are equal.
    public var key: String {
        ([name] + labels.keys.sorted().map { "\($0)=\(labels[$0]!)" }).joined(separator: "|")
    }
}
