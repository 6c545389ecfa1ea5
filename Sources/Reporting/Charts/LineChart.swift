/// A line chart (also CDFs and trade-off curves): series of points over two axes.
package struct LineChart: Sendable {
    package struct Point: Sendable, Equatable {
        package var x: Double
        package var y: Double
        package init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }
    }

    package enum Style: Sendable {
        /// Straight segments between points.
        case line
        /// A step function (CDFs): horizontal, then vertical.
        case step
        /// Segments with a dot at each point (sweep curves).
        case lineWithMarkers
    }

    package struct Series: Sendable {
        package var name: String
        package var points: [Point]
        package var style: Style
        /// Text next to each point (e.g. the debounce interval), or empty.
        package var pointLabels: [String]
        /// The colour and dash (`ChartPalette`) index; `nil` uses the series' position. Small
        /// multiples set it so one strategy keeps its style in every panel.
        package var styleIndex: Int?

        package init(name: String, points: [Point], style: Style = .line, pointLabels: [String] = [], styleIndex: Int? = nil) {
            self.name = name
            self.points = points
            self.style = style
            self.pointLabels = pointLabels
            self.styleIndex = styleIndex
        }
    }

    /// A highlighted point with a caption (the recommended interval).
    package struct Callout: Sendable {
        package var point: Point
        package var text: String
        package init(point: Point, text: String) {
            self.point = point
            self.text = text
        }
    }

    /// A shaded area between two curves over the same x values (a confidence band), drawn in
    /// the colour of series `series`.
    package struct Band: Sendable {
        package var series: Int
        package var lower: [Point]
        package var upper: [Point]
    }

    package var title: String
    package var xTitle: String
    package var yTitle: String
    package var series: [Series]
    package var xScale: AxisScale
    package var yScale: AxisScale
    package var callouts: [Callout]
    package var bands: [Band]
    /// x ranges shaded across the whole plot (a good range).
    package var xShades: [ClosedRange<Double>]
    /// What to say when there is nothing to draw.
    package var emptyNote: String
    package var width: Double
    package var height: Double

    /// A chart whose axes fit the data: linear or log on x, linear from `yFloor` on y (pass
    /// `yDomain` to fix it, e.g. 0...100 for a CDF in percent).
    package init(
        title: String, xTitle: String, yTitle: String, series: [Series],
        xLog: Bool = false, yDomain: ClosedRange<Double>? = nil, yFloor: Double? = 0,
        callouts: [Callout] = [], bands: [Band] = [], xShades: [ClosedRange<Double>] = [],
        emptyNote: String = "no data", width: Double = 520, height: Double = 320
    ) {
        self.bands = bands
        self.xShades = xShades
        self.title = title
        self.xTitle = xTitle
        self.yTitle = yTitle
        self.series = series
        self.callouts = callouts
        self.emptyNote = emptyNote
        self.width = width
        self.height = height
        let points = (series.flatMap(\.points) + bands.flatMap { $0.lower + $0.upper }).filter { $0.x.isFinite && $0.y.isFinite }
        let xs = points.map(\.x), ys = points.map(\.y)
        if xLog {
            let positive = xs.filter { $0 > 0 }
            xScale = .log(positive.min() ?? 1, positive.max() ?? 10)
        } else {
            xScale = .linear(xs.min() ?? 0, xs.max() ?? 1)
        }
        if let yDomain {
            yScale = .linear(yDomain.lowerBound, yDomain.upperBound)
        } else {
            let low = yFloor.map { Swift.min($0, ys.min() ?? $0) } ?? (ys.min() ?? 0)
            yScale = .linear(low, ys.max() ?? 1)
        }
    }

    package var isEmpty: Bool { series.allSatisfy { $0.points.isEmpty } }

    /// The legend entries, one per series.
    var legend: [LegendEntry] {
        series.enumerated().map { index, series in
            let style = series.styleIndex ?? index
            return LegendEntry(label: series.name, color: ChartPalette.color(style),
                               swatch: series.style == .lineWithMarkers ? .marker : .line(dash: ChartPalette.dash(style)))
        }
    }

    /// The chart as an SVG element, with its legend above the plot.
    package func svg() -> String {
        let frame = frame(title: title, legend: legend)
        return frame.header(description: description) + plot(in: frame) + "</svg>"
    }

    /// The layout of this chart's plot under `title` and `legend` (empty for a panel of small
    /// multiples, whose legend is shared).
    func frame(title: String, legend: [LegendEntry]) -> ChartFrame {
        ChartFrame(width: width, height: height, title: title, legend: legend, xTitle: xTitle, yTitle: yTitle,
                   yTickLabels: yScale.ticks.map(yScale.label))
    }

    /// Axes, curves and callouts inside `frame`.
    func plot(in frame: ChartFrame) -> String {
        let yLabels = yScale.ticks.map(yScale.label)
        var out = frame.plotMarker
        out += frame.yAxis(positions: yScale.ticks.map(yScale.position), labels: yLabels)
        let xLabels = ChartFrame.thinned(xScale.ticks.map(xScale.label), spacing: frame.plotWidth / Double(Swift.max(1, xScale.ticks.count - 1)))
        out += frame.xAxis(positions: xScale.ticks.map(xScale.position), labels: xLabels, grid: xScale.kind == .log)
        if isEmpty {
            return out + frame.note(emptyNote)
        }
        for shade in xShades {
            let left = frame.x(xScale.position(shade.lowerBound)), right = frame.x(xScale.position(shade.upperBound))
            out += Markup.empty("rect", [("x", n(left - 3)), ("y", n(frame.plotTop)), ("width", n(right - left + 6)),
                                         ("height", n(frame.plotBottom - frame.plotTop)), ("fill", "currentColor"), ("fill-opacity", "0.08")])
        }
        for band in bands where !band.lower.isEmpty {
            let outline = (band.upper + band.lower.reversed()).filter { $0.x.isFinite && $0.y.isFinite }.map {
                n(frame.x(xScale.position($0.x))) + " " + n(frame.y(yScale.position($0.y)))
            }
            out += Markup.empty("path", [("d", "M" + outline.joined(separator: " L") + " Z"), ("fill", ChartPalette.color(band.series)),
                                         ("fill-opacity", "0.18"), ("stroke", "none")])
        }
        for (index, series) in series.enumerated() {
            out += path(series, index: series.styleIndex ?? index, frame: frame)
        }
        for callout in callouts {
            let px = frame.x(xScale.position(callout.point.x)), py = frame.y(yScale.position(callout.point.y))
            out += Markup.empty("circle", [("cx", n(px)), ("cy", n(py)), ("r", "7"), ("fill", "none"), ("stroke", "currentColor"), ("stroke-width", "2")])
            let right = px < (frame.plotLeft + frame.plotRight) / 2
            let ty = py - 12 < frame.plotTop + 10 ? py + 20 : py - 12
            out += Markup.element("text", [("x", n(right ? px + 10 : px - 10)), ("y", n(ty)), ("text-anchor", right ? "start" : "end"),
                                           ("font-weight", "600"), ("fill", "currentColor")], text: callout.text)
        }
        return out
    }

    private var description: String {
        let names = series.map(\.name).joined(separator: ", ")
        return "\(title): \(yTitle) against \(xTitle) for \(names)."
    }

    private func path(_ series: Series, index: Int, frame: ChartFrame) -> String {
        var pixels: [(Double, Double)] = []
        for point in series.points where point.x.isFinite && point.y.isFinite {
            if xScale.kind == .log && point.x <= 0 { continue }
            let px = frame.x(xScale.position(point.x)), py = frame.y(yScale.position(point.y))
            // A CDF of thousands of buckets: within one pixel column only the last value shows.
            if series.style == .step, pixels.count > 1, let last = pixels.last, abs(px - pixels[pixels.count - 2].0) < 1 {
                pixels[pixels.count - 1] = (last.0, py)
                continue
            }
            pixels.append((px, py))
        }
        var stepped: [(Double, Double)] = []
        for pixel in pixels {
            if series.style == .step, let last = stepped.last { stepped.append((pixel.0, last.1)) }
            stepped.append(pixel)
        }
        var commands: [String] = []
        var previous = ""
        for (px, py) in stepped {
            let pair = n(px) + " " + n(py)
            if pair == previous { continue }
            commands.append((commands.isEmpty ? "M" : "L") + pair)
            previous = pair
        }
        let color = ChartPalette.color(index)
        var out = ""
        if commands.count > 1 {
            var attributes = [("d", commands.joined(separator: " ")), ("fill", "none"), ("stroke", color), ("stroke-width", "2"),
                              ("stroke-linejoin", "round")]
            let dash = ChartPalette.dash(index)
            if !dash.isEmpty && series.style != .lineWithMarkers { attributes.append(("stroke-dasharray", dash)) }
            out += Markup.empty("path", attributes)
        }
        if series.style == .lineWithMarkers || commands.count == 1 {
            for (offset, point) in series.points.enumerated() where point.x.isFinite && point.y.isFinite {
                let px = frame.x(xScale.position(point.x)), py = frame.y(yScale.position(point.y))
                out += Markup.empty("circle", [("cx", n(px)), ("cy", n(py)), ("r", "3"), ("fill", color)])
                if offset < series.pointLabels.count, !series.pointLabels[offset].isEmpty {
                    out += Markup.element("text", [("x", n(px + 5)), ("y", n(py - 5)), ("font-size", "9"), ("fill", "currentColor"),
                                                   ("fill-opacity", "0.8")], text: series.pointLabels[offset])
                }
            }
        }
        return out
    }
}
