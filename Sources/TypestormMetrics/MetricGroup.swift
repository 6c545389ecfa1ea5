/// The measurements of one strategy (or one strategy under one runner, population, or grid
/// point), identified by its name and labels.
public struct MetricGroup: Sendable, Equatable, Codable {
    public var name: String
    /// What distinguishes groups of the same name: runner, population, debounce, ...
    public var labels: [String: String]
    public var metrics: MetricSet

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
