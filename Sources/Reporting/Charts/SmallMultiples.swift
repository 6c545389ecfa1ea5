/// Line charts side by side on shared axes, one panel per runner (or other label), with one legend
/// to the right of all panels.
///
/// Nineteen curves on one plot are a tangle and their legend eats the plot; split by runner, each
/// panel holds only the strategies, each strategy keeps one colour and dash in every panel, and
/// the legend lists each strategy once, outside the plots, however many there are.
struct SmallMultiples {
    struct Panel {
        /// Shown above the panel's plot; `nil` for a lone panel (the chart's title says it all).
        var title: String?
        var series: [LineChart.Series]
    }

    var title: String
    var xTitle: String
    var yTitle: String
    var panels: [Panel]
    /// One entry per distinct series style, in legend order.
    var legend: [LegendEntry]
    var xLog: Bool
    var yDomain: ClosedRange<Double>?
    var width: Double = 1120
    var panelHeight: Double = 260
    /// At most this many panels side by side; more wrap onto further rows.
    var columns: Int = 3

    static let legendEntryHeight = 18.0
    static let headerHeight = 30.0

    var legendWidth: Double {
        let widest = legend.map { ChartFrame.textWidth($0.label, size: ChartFrame.fontSize) }.max() ?? 0
        return Swift.min(280, widest + 22 + 24)
    }

    var rowCount: Int { (panels.count + columns - 1) / Swift.max(1, columns) }

    /// Panels grow with a long legend so the plots are never shorter than the legend beside them.
    var effectivePanelHeight: Double {
        let legendHeight = Double(legend.count) * Self.legendEntryHeight + 8
        return Swift.max(panelHeight, legendHeight / Double(Swift.max(1, rowCount)))
    }

    var height: Double { Self.headerHeight + Double(rowCount) * effectivePanelHeight + 4 }

    func svg() -> String {
        let panelHeight = effectivePanelHeight
        let perRow = Swift.max(1, Swift.min(columns, panels.count))
        let areaWidth = width - legendWidth
        let panelWidth = areaWidth / Double(perRow)
        // Shared axes, so panels compare by eye: one chart over every panel's points.
        let everything = LineChart(title: title, xTitle: xTitle, yTitle: yTitle, series: panels.flatMap(\.series),
                                   xLog: xLog, yDomain: yDomain, width: panelWidth, height: panelHeight)
        let names = legend.map(\.label).joined(separator: ", ")
        let panelNames = panels.compactMap(\.title)
        var description = "\(title): \(yTitle) against \(xTitle) for \(names)"
        if !panelNames.isEmpty { description += ", one panel each for \(panelNames.joined(separator: ", "))" }
        var out = ChartFrame.root(width: width, height: height, title: title, description: description + ".")
        out += Markup.element("text", [("x", "12"), ("y", "19"), ("font-size", n(ChartFrame.titleSize)), ("font-weight", "600"), ("fill", "currentColor")], text: title)
        for (index, panel) in panels.enumerated() {
            var chart = everything
            chart.series = panel.series
            let left = Double(index % perRow) * panelWidth
            let top = Self.headerHeight + Double(index / perRow) * panelHeight
            let frame = chart.frame(title: panel.title.map { ChartFrame.truncated($0, width: panelWidth - 24) } ?? "", legend: [])
            out += Markup.open("g", [("class", "panel"), ("transform", "translate(\(n(left)) \(n(top)))")])
            out += frame.heading() + chart.plot(in: frame) + "</g>"
        }
        out += "<g class=\"legend\">"
        let legendLeft = areaWidth + 12
        for (index, entry) in legend.enumerated() {
            let baseline = Self.headerHeight + 14 + Double(index) * Self.legendEntryHeight
            if case let .line(dash) = entry.swatch {
                var attributes = [("x1", n(legendLeft)), ("y1", n(baseline - 4)), ("x2", n(legendLeft + 18)), ("y2", n(baseline - 4)),
                                  ("stroke", entry.color), ("stroke-width", "2.5")]
                if !dash.isEmpty { attributes.append(("stroke-dasharray", dash)) }
                out += Markup.empty("line", attributes)
            }
            let label = ChartFrame.truncated(entry.label, width: legendWidth - 22 - 14)
            out += Markup.open("text", [("x", n(legendLeft + 22)), ("y", n(baseline)), ("fill", "currentColor")]) + Markup.text(label)
            if label != entry.label { out += Markup.element("title", text: entry.label) }
            out += "</text>"
        }
        return out + "</g></svg>"
    }
}
