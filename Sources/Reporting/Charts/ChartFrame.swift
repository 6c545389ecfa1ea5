import Foundation

/// Colours and dash patterns for chart series.
///
/// The Okabe–Ito palette (distinguishable with the common colour-vision deficiencies, and readable
/// on light and dark backgrounds) plus a purple and a crimson; lines also differ by dash pattern
/// so a grey-scale print keeps them apart. Ten colours and seven dashes: the counts share no
/// factor, so series 0 to 69 each get a pair of colour and dash no other series has (a report
/// of 30 groups never repeats a style). Axes and text use `currentColor`, so they follow the
/// page's light or dark scheme.
package enum ChartPalette {
    package static let colors = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C8C8C", "#B8860B", "#8E6CCF", "#B3264A"]
    package static let dashes = ["", "7 3", "2 3", "9 3 2 3", "4 4", "12 4", "5 2 1 2"]
    /// How many series get a style of their own.
    package static let distinctStyles = colors.count * dashes.count

    package static func color(_ index: Int) -> String { colors[index % colors.count] }
    package static func dash(_ index: Int) -> String { dashes[index % dashes.count] }
}

/// An entry of a chart legend.
struct LegendEntry {
    enum Swatch { case line(dash: String), box, marker }
    var label: String
    var color: String
    var swatch: Swatch
}

/// The shared layout of every chart: title, legend, plot area, axes, and the SVG around them.
///
/// Sizes are in SVG user units; the root has a `viewBox`, so the page scales the chart.
struct ChartFrame {
    static let fontSize = 11.0
    static let titleSize = 13.0

    var width: Double
    /// The height asked for, grown when the legend needs room (see `minimumPlotHeight`).
    let height: Double
    var title: String
    var legend: [LegendEntry]
    var xTitle: String
    var yTitle: String

    /// Legend rows as (entry index, x offset) lists, laid out left to right and wrapped.
    let legendRows: [[(Int, Double)]]
    let plotLeft: Double
    let plotRight: Double
    let plotTop: Double
    let plotBottom: Double

    /// The smallest plot height: a long legend makes the chart taller instead of the plot flatter.
    static let minimumPlotHeight = 160.0

    init(width: Double, height: Double, title: String, legend: [LegendEntry], xTitle: String, yTitle: String, yTickLabels: [String], extraBottom: Double = 0) {
        self.width = width
        self.title = title
        self.legend = legend
        self.xTitle = xTitle
        self.yTitle = yTitle
        var rows: [[(Int, Double)]] = []
        var row: [(Int, Double)] = []
        var x = 0.0
        let available = width - 24
        for (index, entry) in legend.enumerated() {
            let itemWidth = 22 + Self.textWidth(entry.label, size: Self.fontSize) + 14
            if x + itemWidth > available && !row.isEmpty {
                rows.append(row)
                row = []
                x = 0
            }
            row.append((index, x))
            x += itemWidth
        }
        if !row.isEmpty { rows.append(row) }
        legendRows = rows
        let tickWidth = yTickLabels.map { Self.textWidth($0, size: Self.fontSize) }.max() ?? 20
        plotLeft = 12 + (yTitle.isEmpty ? 0 : 16) + tickWidth + 8
        plotRight = width - 16
        plotTop = (title.isEmpty ? 8 : 28) + Double(rows.count) * 16 + 8
        let bottomMargin = (xTitle.isEmpty ? 26 : 42) + extraBottom
        self.height = Swift.max(height, plotTop + Self.minimumPlotHeight + bottomMargin)
        plotBottom = self.height - bottomMargin
    }

    /// A rough width of `text` at `size`: wide (CJK) characters count double.
    static func textWidth(_ text: String, size: Double) -> Double {
        let units = text.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x1100 ? 1.0 : 0.58) }
        return units * size
    }

    /// `text` cut to fit `width` (by `textWidth`), ending in an ellipsis when cut.
    static func truncated(_ text: String, width: Double, size: Double = fontSize) -> String {
        guard textWidth(text, size: size) > width else { return text }
        var kept = ""
        for character in text {
            if textWidth(kept + String(character) + "…", size: size) > width { break }
            kept.append(character)
        }
        return kept + "…"
    }

    /// Drops tick labels that would overlap their neighbours `spacing` units apart.
    static func thinned(_ labels: [String], spacing: Double) -> [String] {
        guard labels.count > 1 else { return labels }
        let widest = labels.map { textWidth($0, size: fontSize) }.max() ?? 0
        let every = Swift.max(1, Int((widest + 6) / Swift.max(spacing, 1)) + 1)
        return labels.enumerated().map { $0.offset % every == 0 ? $0.element : "" }
    }

    var plotWidth: Double { plotRight - plotLeft }
    var plotHeight: Double { plotBottom - plotTop }

    func x(_ position: Double) -> Double { plotLeft + position * plotWidth }
    func y(_ position: Double) -> Double { plotBottom - position * plotHeight }

    /// The opening of the root element, title, and legend.
    func header(description: String) -> String {
        Self.root(width: width, height: height, title: title, description: description) + heading()
    }

    /// The opening `<svg>` of a chart with its accessible title and description.
    static func root(width: Double, height: Double, title: String, description: String) -> String {
        var out = Markup.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart"),
            ("viewBox", "0 0 \(n(width)) \(n(height))"), ("width", n(width)), ("height", n(height)),
            ("role", "img"), ("font-family", "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"),
            ("font-size", n(fontSize)),
        ])
        out += Markup.element("title", text: title)
        out += Markup.element("desc", text: description)
        return out
    }

    /// The visible title and the legend (above the plot, never inside it).
    func heading() -> String {
        var out = ""
        if !title.isEmpty {
            out += Markup.element("text", [("x", "12"), ("y", "19"), ("font-size", n(Self.titleSize)), ("font-weight", "600"), ("fill", "currentColor")], text: title)
        }
        if !legendRows.isEmpty { out += "<g class=\"legend\">" }
        for (rowIndex, row) in legendRows.enumerated() {
            let baseline = (title.isEmpty ? 8 : 28) + Double(rowIndex) * 16 + 11
            for (index, offset) in row {
                let entry = legend[index]
                let left = 12 + offset
                switch entry.swatch {
                case let .line(dash):
                    var attributes = [("x1", n(left)), ("y1", n(baseline - 4)), ("x2", n(left + 18)), ("y2", n(baseline - 4)),
                                      ("stroke", entry.color), ("stroke-width", "2.5")]
                    if !dash.isEmpty { attributes.append(("stroke-dasharray", dash)) }
                    out += Markup.empty("line", attributes)
                case .box:
                    out += Markup.empty("rect", [("x", n(left + 3)), ("y", n(baseline - 10)), ("width", "12"), ("height", "11"), ("fill", entry.color)])
                case .marker:
                    out += Markup.empty("circle", [("cx", n(left + 9)), ("cy", n(baseline - 4)), ("r", "4"), ("fill", entry.color)])
                }
                out += Markup.element("text", [("x", n(left + 22)), ("y", n(baseline)), ("fill", "currentColor")], text: entry.label)
            }
        }
        if !legendRows.isEmpty { out += "</g>" }
        return out
    }

    /// An invisible rectangle over the plot area, so a browser check can measure it.
    var plotMarker: String {
        Markup.empty("rect", [("class", "plot"), ("x", n(plotLeft)), ("y", n(plotTop)), ("width", n(plotWidth)), ("height", n(plotHeight)),
                              ("fill", "none"), ("pointer-events", "none")])
    }

    /// Horizontal grid lines and y tick labels at `positions` (0...1) labelled `labels`.
    func yAxis(positions: [Double], labels: [String]) -> String {
        var out = ""
        for (position, label) in zip(positions, labels) {
            let py = y(position)
            out += Markup.empty("line", [("x1", n(plotLeft)), ("y1", n(py)), ("x2", n(plotRight)), ("y2", n(py)),
                                         ("stroke", "currentColor"), ("stroke-opacity", "0.15")])
            out += Markup.element("text", [("x", n(plotLeft - 6)), ("y", n(py + 4)), ("text-anchor", "end"), ("fill", "currentColor")], text: label)
        }
        if !yTitle.isEmpty {
            let cx = 14.0, cy = (plotTop + plotBottom) / 2
            out += Markup.element("text", [("x", n(cx)), ("y", n(cy)), ("text-anchor", "middle"), ("fill", "currentColor"),
                                           ("transform", "rotate(-90 \(n(cx)) \(n(cy)))")], text: yTitle)
        }
        return out
    }

    /// Vertical tick marks and x tick labels; `labels` may skip some ticks (empty string).
    func xAxis(positions: [Double], labels: [String], grid: Bool) -> String {
        var out = Markup.empty("line", [("x1", n(plotLeft)), ("y1", n(plotBottom)), ("x2", n(plotRight)), ("y2", n(plotBottom)),
                                        ("stroke", "currentColor"), ("stroke-opacity", "0.6")])
        out += Markup.empty("line", [("x1", n(plotLeft)), ("y1", n(plotTop)), ("x2", n(plotLeft)), ("y2", n(plotBottom)),
                                     ("stroke", "currentColor"), ("stroke-opacity", "0.6")])
        for (position, label) in zip(positions, labels) {
            let px = x(position)
            if grid {
                out += Markup.empty("line", [("x1", n(px)), ("y1", n(plotTop)), ("x2", n(px)), ("y2", n(plotBottom)),
                                             ("stroke", "currentColor"), ("stroke-opacity", "0.08")])
            }
            out += Markup.empty("line", [("x1", n(px)), ("y1", n(plotBottom)), ("x2", n(px)), ("y2", n(plotBottom + 4)),
                                         ("stroke", "currentColor"), ("stroke-opacity", "0.6")])
            if !label.isEmpty {
                out += Markup.element("text", [("x", n(px)), ("y", n(plotBottom + 19)), ("text-anchor", "middle"), ("fill", "currentColor")], text: label)
            }
        }
        if !xTitle.isEmpty {
            out += Markup.element("text", [("x", n((plotLeft + plotRight) / 2)), ("y", n(height - 8)), ("text-anchor", "middle"), ("fill", "currentColor")], text: xTitle)
        }
        return out
    }

    /// A centred note in the plot area, for charts without data.
    func note(_ message: String) -> String {
        Markup.element("text", [("x", n((plotLeft + plotRight) / 2)), ("y", n((plotTop + plotBottom) / 2)),
                                ("text-anchor", "middle"), ("fill", "currentColor"), ("fill-opacity", "0.7")], text: message)
    }
}

/// A coordinate with at most one decimal, without a trailing `.0`: short, stable SVG numbers.
func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let rounded = (value * 10).rounded() / 10
    if rounded == rounded.rounded() { return String(Int64(rounded)) }
    return ValueFormat.fixed(rounded, 1)
}
