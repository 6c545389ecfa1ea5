import TypestormMetrics

/// How the report arranges its groups: in panels (one per runner or other distinguishing label),
/// each strategy with one style (colour and dash) everywhere on the page.
///
/// The main job has 3 runners × 6 strategies; drawn as 18 series on one plot nothing is legible.
/// Split by runner, a panel holds 6 strategies and the legend lists 6 names. When the labels do
/// not split the groups into a few panels of distinct strategies, there is one panel and every
/// group is a series of its own.
struct ReportLayout {
    struct Column {
        var summary: StrategySummary
        /// The full title (name and distinguishing labels), unique in the report.
        var title: String
        /// The name inside its panel: the strategy when panels split by label, else the title.
        var seriesName: String
        /// The `ChartPalette` index: the same strategy has the same style in every panel.
        var style: Int
    }

    struct Panel {
        /// The distinguishing labels (`runner=virtual`), or `nil` for the single panel.
        var title: String?
        /// Indices into `columns`.
        var members: [Int]
    }

    /// At most this many panels: more would make each too small to read.
    static let maximumPanels = 6

    let columns: [Column]
    let panels: [Panel]
    /// Distinct series in style order: (name, style).
    let legend: [(name: String, style: Int)]

    init(_ summaries: [StrategySummary]) {
        let titles = Verdict.titles(summaries)
        let keys = Set(summaries.flatMap(\.labels.keys)).sorted()
        let distinguishing = keys.filter { key in Set(summaries.map { $0.labels[key] ?? "" }).count > 1 }
        let panelKeys = summaries.map { summary in
            distinguishing.compactMap { key in summary.labels[key].map { "\(key)=\($0)" } }.joined(separator: ", ")
        }
        var panelOrder: [String] = []
        for key in panelKeys where !panelOrder.contains(key) { panelOrder.append(key) }
        let splits = panelOrder.count > 1 && panelOrder.count <= Self.maximumPanels && panelOrder.allSatisfy { key in
            let names = zip(summaries, panelKeys).filter { $0.1 == key }.map(\.0.name)
            return Set(names).count == names.count
        }
        if splits {
            var names: [String] = []
            for summary in summaries where !names.contains(summary.name) { names.append(summary.name) }
            columns = zip(summaries, titles).map { summary, title in
                Column(summary: summary, title: title, seriesName: summary.name, style: names.firstIndex(of: summary.name)!)
            }
            panels = panelOrder.map { key in Panel(title: key.isEmpty ? "no labels" : key, members: panelKeys.indices.filter { panelKeys[$0] == key }) }
            legend = names.enumerated().map { (name: $0.element, style: $0.offset) }
        } else {
            columns = zip(summaries, titles).enumerated().map { index, pair in
                Column(summary: pair.0, title: pair.1, seriesName: pair.1, style: index)
            }
            panels = [Panel(title: nil, members: Array(summaries.indices))]
            legend = columns.map { (name: $0.title, style: $0.style) }
        }
    }

    /// The groups a report compares: every group but the embedded server's own counters (a group
    /// with `server_*` counters and no keystrokes measures the server, not a search-field strategy).
    static func strategyGroups(_ record: RunRecord) -> (strategies: [StrategySummary], servers: [MetricGroup]) {
        var strategies: [StrategySummary] = [], servers: [MetricGroup] = []
        for group in record.groups {
            let m = group.metrics
            if m.counters[MetricName.keystrokes] == nil && m.counters.keys.contains(where: { $0.hasPrefix(MetricName.serverPrefix) }) {
                servers.append(group)
            } else {
                strategies.append(StrategySummary(group))
            }
        }
        return (strategies, servers)
    }
}
