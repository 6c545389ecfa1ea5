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
        // Category labels wider than their group wrap onto two lines.
        let roughGroupWidth = (width - 100) / Double(Swift.max(1, categories.count))
        let categoryLines = categories.map { Self.wrap($0, width: roughGroupWidth - 6) }
        let wrapped = categoryLines.contains { $0.count > 1 }
        let frame = ChartFrame(width: width, height: height, title: title, legend: legend, xTitle: "", yTitle: yTitle, yTickLabels: yLabels,
                               extraBottom: wrapped ? 12 : 0)
        var out = frame.header(description: "\(title): \(yTitle) for \(categories.joined(separator: ", ")), per \(series.map(\.name).joined(separator: ", ")).")
        out += frame.yAxis(positions: scale.ticks.map(scale.position), labels: yLabels)
        let groupWidth = frame.plotWidth / Double(Swift.max(1, categories.count))
        let centres = categories.indices.map { (Double($0) + 0.5) / Double(Swift.max(1, categories.count)) }
        out += frame.xAxis(positions: [], labels: [], grid: false)
        for (index, lines) in categoryLines.enumerated() {
            for (lineIndex, line) in lines.enumerated() {
                out += Markup.element("text", [("x", n(frame.x(centres[index]))), ("y", n(frame.plotBottom + 16 + Double(lineIndex) * 12)),
                                               ("text-anchor", "middle"), ("fill", "currentColor")], text: line)
            }
        }
        guard !values.isEmpty else { return out + frame.note("no data") + "</svg>" }
        let inner = groupWidth * 0.8
        let barWidth = inner / Double(Swift.max(1, series.count))
        let valueFontSize = 8.5
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
                let label = valueLabel(value)
                if ChartFrame.textWidth(label, size: valueFontSize) <= barWidth + 1 {
                    out += Markup.element("text", [("x", n(left + barWidth / 2)), ("y", n(Swift.min(top, zero) - 3)), ("text-anchor", "middle"),
                                                   ("font-size", n(valueFontSize)), ("fill", "currentColor")], text: label)
                }
            }
        }
        return out + "</svg>"
    }

    /// Splits `text` at the space that best balances two lines when it is wider than `width`.
    static func wrap(_ text: String, width: Double) -> [String] {
        guard ChartFrame.textWidth(text, size: ChartFrame.fontSize) > width else { return [text] }
        let words = text.split(separator: " ").map(String.init)
        guard words.count > 1 else { return [text] }
        var best = [text], bestWidth = Double.infinity
        for cut in 1..<words.count {
            let lines = [words[..<cut].joined(separator: " "), words[cut...].joined(separator: " ")]
            let widest = lines.map { ChartFrame.textWidth($0, size: ChartFrame.fontSize) }.max()!
            if widest < bestWidth {
                best = lines
                bestWidth = widest
            }
        }
        return best
    }
}
