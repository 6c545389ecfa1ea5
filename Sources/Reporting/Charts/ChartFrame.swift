import Foundation

/// Colours and dash patterns for chart series.
///
/// The Okabe–Ito palette (distinguishable with the common colour-vision deficiencies, and readable
/// on light and dark backgrounds); lines also differ by dash pattern so a grey-scale print keeps
/// them apart. Axes and text use `currentColor`, so they follow the page's light or dark scheme.
public enum ChartPalette {
    public static let colors = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#8C8C8C", "#B8860B"]
    public static let dashes = ["", "7 3", "2 3", "9 3 2 3", "4 4", "1 3", "12 4", "5 2 1 2"]

    public static func color(_ index: Int) -> String { colors[index % colors.count] }
    public static func dash(_ index: Int) -> String { dashes[index % dashes.count] }
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
    var height: Double
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

    init(width: Double, height: Double, title: String, legend: [LegendEntry], xTitle: String, yTitle: String, yTickLabels: [String], extraBottom: Double = 0) {
        self.width = width
        self.height = height
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
        plotTop = 28 + Double(rows.count) * 16 + 8
        plotBottom = height - (xTitle.isEmpty ? 26 : 42) - extraBottom
    }

    /// A rough width of `text` at `size`: wide (CJK) characters count double.
    static func textWidth(_ text: String, size: Double) -> Double {
        let units = text.unicodeScalars.reduce(0.0) { $0 + ($1.value >= 0x1100 ? 1.0 : 0.58) }
        return units * size
    }

    var plotWidth: Double { plotRight - plotLeft }
    var plotHeight: Double { plotBottom - plotTop }

    func x(_ position: Double) -> Double { plotLeft + position * plotWidth }
    func y(_ position: Double) -> Double { plotBottom - position * plotHeight }

    /// The opening of the root element, title, and legend.
    func header(description: String) -> String {
        var out = Markup.open("svg", [
            ("xmlns", "http://www.w3.org/2000/svg"), ("class", "chart"),
            ("viewBox", "0 0 \(n(width)) \(n(height))"), ("width", n(width)), ("height", n(height)),
            ("role", "img"), ("font-family", "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"),
            ("font-size", n(Self.fontSize)),
        ])
        out += Markup.element("title", text: title)
        out += Markup.element("desc", text: description)
        out += Markup.element("text", [("x", "12"), ("y", "19"), ("font-size", n(Self.titleSize)), ("font-weight", "600"), ("fill", "currentColor")], text: title)
        for (rowIndex, row) in legendRows.enumerated() {
            let baseline = 28 + Double(rowIndex) * 16 + 11
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
        return out
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
                out += Markup.element("text", [("x", n(px)), ("y", n(plotBottom + 16)), ("text-anchor", "middle"), ("fill", "currentColor")], text: label)
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
