/// A grouped bar chart: one group of bars per category, one bar per series.
public struct BarChart: Sendable {
    public struct Series: Sendable {
        public var name: String
        /// One value per category; `nil` draws "n/a".
        public var values: [Double?]
        public init(name: String, values: [Double?]) {
            self.name = name
            self.values = values
        }
    }

    public var title: String
    public var yTitle: String
    public var categories: [String]
    public var series: [Series]
    /// How a value is printed above its bar (in the chart's unit).
    public var valueLabel: @Sendable (Double) -> String
    public var width: Double
    public var height: Double

    public init(
        title: String, yTitle: String, categories: [String], series: [Series],
        valueLabel: @escaping @Sendable (Double) -> String = { ValueFormat.significant($0) },
        width: Double = 520, height: Double = 320
    ) {
        self.title = title
        self.yTitle = yTitle
        self.categories = categories
        self.series = series
        self.valueLabel = valueLabel
        self.width = width
        self.height = height
    }

    public func svg() -> String {
        let values = series.flatMap(\.values).compactMap { $0 }.filter(\.isFinite)
        let scale = AxisScale.linear(Swift.min(0, values.min() ?? 0), Swift.max(values.max() ?? 1, 0))
        let yLabels = scale.ticks.map(scale.label)
        let legend = series.enumerated().map { LegendEntry(label: $0.element.name, color: ChartPalette.color($0.offset), swatch: .box) }
        let frame = ChartFrame(width: width, height: height, title: title, legend: legend, xTitle: "", yTitle: yTitle, yTickLabels: yLabels)
        var out = frame.header(description: "\(title): \(yTitle) for \(categories.joined(separator: ", ")), per \(series.map(\.name).joined(separator: ", ")).")
        out += frame.yAxis(positions: scale.ticks.map(scale.position), labels: yLabels)
        let groupWidth = frame.plotWidth / Double(Swift.max(1, categories.count))
        let centres = categories.indices.map { (Double($0) + 0.5) / Double(Swift.max(1, categories.count)) }
        out += frame.xAxis(positions: [], labels: [], grid: false)
        for (index, category) in categories.enumerated() {
            out += Markup.element("text", [("x", n(frame.x(centres[index]))), ("y", n(frame.plotBottom + 16)), ("text-anchor", "middle"),
                                           ("fill", "currentColor")], text: category)
        }
        guard !values.isEmpty else { return out + frame.note("no data") + "</svg>" }
        let inner = groupWidth * 0.8
        let barWidth = inner / Double(Swift.max(1, series.count))
        let showValues = barWidth >= 16
        let zero = frame.y(scale.position(0))
        for (seriesIndex, series) in series.enumerated() {
            for (categoryIndex, value) in series.values.enumerated() where categoryIndex < categories.count {
                let left = frame.x(centres[categoryIndex]) - inner / 2 + Double(seriesIndex) * barWidth
                guard let value, value.isFinite else {
                    out += Markup.element("text", [("x", n(left + barWidth / 2)), ("y", n(zero - 4)), ("text-anchor", "middle"), ("font-size", "8"),
                                                   ("fill", "currentColor"), ("fill-opacity", "0.6")], text: "n/a")
                    continue
                }
                let top = frame.y(scale.position(value))
                let barHeight = Swift.max(abs(zero - top), value == 0 ? 0 : 0.8)
                out += Markup.open("rect", [("x", n(left + 1)), ("y", n(Swift.min(top, zero))), ("width", n(Swift.max(1, barWidth - 2))),
                                            ("height", n(barHeight)), ("fill", ChartPalette.color(seriesIndex))])
                out += Markup.element("title", text: "\(series.name), \(categories[categoryIndex]): \(valueLabel(value))") + "</rect>"
                if showValues {
                    out += Markup.element("text", [("x", n(left + barWidth / 2)), ("y", n(Swift.min(top, zero) - 3)), ("text-anchor", "middle"),
                                                   ("font-size", "8.5"), ("fill", "currentColor")], text: valueLabel(value))
                }
            }
        }
        return out + "</svg>"
    }
}
