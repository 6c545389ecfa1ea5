/// Horizontal bars with one row per group and one panel per category (p50, p90, …), each panel
/// on its own scale.
///
/// A row is labelled with its own name, so the chart needs no legend and grows downwards with
/// the number of groups: 30 strategies are 30 readable rows, where grouped vertical bars would be
/// 30 slivers under a legend larger than the plot. Sections (one per runner) put a heading above
/// their rows.
struct RowChart {
    struct Row {
        var label: String
        /// The `ChartPalette` index of the group (its colour in every chart of the report).
        var style: Int
        /// One value per category; `nil` draws "n/a".
        var values: [Double?]
    }

    struct Section {
        /// A heading above the rows (the runner), or `nil` when there is only one section.
        var heading: String?
        var rows: [Row]
    }

    var title: String
    /// What the values are, with their unit: written under the panels.
    var axisTitle: String
    var categories: [String]
    var sections: [Section]
    var valueLabel: @Sendable (Double) -> String = { ValueFormat.significant($0) }
    var width: Double = 1120

    static let rowHeight = 18.0
    static let headingHeight = 22.0
    static let panelGap = 22.0
    static let plotTop = 54.0
    /// Extra room on a page of few rows, so a one-group chart is still a chart.
    static let minimumPlotHeight = 72.0

    private var rows: [Row] { sections.flatMap(\.rows) }

    var plotHeight: Double {
        let content = sections.reduce(0.0) { $0 + ($1.heading == nil ? 0 : Self.headingHeight) + Double($1.rows.count) * Self.rowHeight }
        return Swift.max(Self.minimumPlotHeight, content + 6)
    }

    var height: Double { Self.plotTop + plotHeight + 44 }

    /// The label column: as wide as the longest row label or heading, at most 30 % of the chart.
    var labelWidth: Double {
        let labels = rows.map { ChartFrame.textWidth($0.label, size: ChartFrame.fontSize) + 18 }
            + sections.compactMap { $0.heading.map { ChartFrame.textWidth($0, size: ChartFrame.fontSize) * 1.1 } }
        return Swift.min(width * 0.3, (labels.max() ?? 40) + 8)
    }

    func svg() -> String {
        let labelLeft = 12.0
        let panelsLeft = labelLeft + labelWidth + 10
        let count = Swift.max(1, categories.count)
        let panelWidth = (width - 12 - panelsLeft - Double(count - 1) * Self.panelGap) / Double(count)
        let plotBottom = Self.plotTop + plotHeight
        let description = "\(title): \(axisTitle) for \(categories.joined(separator: ", ")), one row each for \(rows.map(\.label).joined(separator: ", "))."
        var out = ChartFrame.root(width: width, height: height, title: title, description: description)
        out += Markup.element("text", [("x", "12"), ("y", "19"), ("font-size", n(ChartFrame.titleSize)), ("font-weight", "600"), ("fill", "currentColor")], text: title)

        // Row positions: headings take a band of their own above their rows.
        var rowTops: [Double] = []
        var y = Self.plotTop + 3
        out += "<g class=\"labels\">"
        for section in sections {
            if let heading = section.heading {
                out += Markup.element("text", [("x", n(labelLeft)), ("y", n(y + 15)), ("font-weight", "600"), ("fill", "currentColor")],
                                      text: ChartFrame.truncated(heading, width: labelWidth / 1.1))
                out += Markup.empty("line", [("x1", n(labelLeft)), ("y1", n(y + 20)), ("x2", n(width - 12)), ("y2", n(y + 20)),
                                             ("stroke", "currentColor"), ("stroke-opacity", "0.25")])
                y += Self.headingHeight
            }
            for row in section.rows {
                rowTops.append(y)
                out += Markup.empty("rect", [("x", n(labelLeft)), ("y", n(y + 5)), ("width", "9"), ("height", "9"), ("fill", ChartPalette.color(row.style))])
                let label = ChartFrame.truncated(row.label, width: labelWidth - 18)
                out += Markup.open("text", [("x", n(labelLeft + 14)), ("y", n(y + 13)), ("fill", "currentColor")]) + Markup.text(label)
                if label != row.label { out += Markup.element("title", text: row.label) }
                out += "</text>"
                y += Self.rowHeight
            }
        }
        out += "</g>"

        let rows = rows
        for (category, name) in categories.enumerated() {
            let left = panelsLeft + Double(category) * (panelWidth + Self.panelGap)
            let values = rows.compactMap { category < $0.values.count ? $0.values[category] : nil }.filter(\.isFinite)
            let labels = values.map(valueLabel)
            // Room right of the longest bar for its value label.
            let reserve = Swift.min(panelWidth * 0.4, (labels.map { ChartFrame.textWidth($0, size: ChartFrame.fontSize) }.max() ?? 0) + 6)
            let barRight = left + panelWidth - reserve
            let scale = AxisScale.linear(Swift.min(0, values.min() ?? 0), Swift.max(values.max() ?? 1, 0), targetTicks: 4)
            func x(_ value: Double) -> Double { left + scale.position(value) * (barRight - left) }
            out += Markup.element("text", [("x", n(left + panelWidth / 2)), ("y", n(Self.plotTop - 8)), ("text-anchor", "middle"),
                                           ("font-weight", "600"), ("fill", "currentColor")],
                                  text: ChartFrame.truncated(name, width: panelWidth))
            out += Markup.empty("rect", [("class", "plot"), ("x", n(left)), ("y", n(Self.plotTop)), ("width", n(panelWidth)),
                                         ("height", n(plotHeight)), ("fill", "none"), ("pointer-events", "none")])
            var tickLabels = ChartFrame.thinned(scale.ticks.map(scale.label), spacing: (barRight - left) / Double(Swift.max(1, scale.ticks.count - 1)))
            // The last label may not reach past the panel into the next one.
            if let last = scale.ticks.last, x(last) + ChartFrame.textWidth(tickLabels[tickLabels.count - 1], size: ChartFrame.fontSize) / 2 > left + panelWidth + Self.panelGap / 2 - 2 {
                tickLabels[tickLabels.count - 1] = ""
            }
            for (tick, label) in zip(scale.ticks, tickLabels) {
                out += Markup.empty("line", [("x1", n(x(tick))), ("y1", n(Self.plotTop)), ("x2", n(x(tick))), ("y2", n(plotBottom)),
                                             ("stroke", "currentColor"), ("stroke-opacity", tick == 0 ? "0.6" : "0.12")])
                if !label.isEmpty {
                    out += Markup.element("text", [("x", n(x(tick))), ("y", n(plotBottom + 14)), ("text-anchor", "middle"), ("fill", "currentColor")], text: label)
                }
            }
            guard !values.isEmpty else {
                out += Markup.element("text", [("x", n(left + panelWidth / 2)), ("y", n(Self.plotTop + plotHeight / 2)), ("text-anchor", "middle"),
                                               ("fill", "currentColor"), ("fill-opacity", "0.7")], text: "no data")
                continue
            }
            let zero = x(0)
            for (row, top) in zip(rows, rowTops) {
                let value = category < row.values.count ? row.values[category] : nil
                guard let value, value.isFinite else {
                    out += Markup.element("text", [("x", n(zero + 4)), ("y", n(top + 13)), ("font-size", "9"), ("fill", "currentColor"), ("fill-opacity", "0.6")], text: "n/a")
                    continue
                }
                let end = x(value)
                let label = valueLabel(value)
                out += Markup.open("rect", [("x", n(Swift.min(zero, end))), ("y", n(top + 3)), ("width", n(Swift.max(abs(end - zero), value == 0 ? 0 : 1))),
                                            ("height", n(Self.rowHeight - 6)), ("fill", ChartPalette.color(row.style))])
                out += Markup.element("title", text: "\(row.label), \(name): \(label)") + "</rect>"
                out += Markup.element("text", [("x", n(Swift.max(zero, end) + 4)), ("y", n(top + 13)), ("fill", "currentColor")], text: label)
            }
        }
        out += Markup.element("text", [("x", n((panelsLeft + width - 12) / 2)), ("y", n(plotBottom + 34)), ("text-anchor", "middle"), ("fill", "currentColor")],
                              text: axisTitle)
        return out + "</svg>"
    }
}
