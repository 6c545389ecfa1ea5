/// The decision at a glance: one dot per strategy, requests per search across, p95 time to
/// fresh results up, so down and to the left is better on both. A strategy that ended on wrong
/// screens is drawn as a ring crossed out, with its share in the legend; the recommendation has
/// a heavy ring; the dashed line is where the objective equals the recommendation's (a point
/// below it would have won).
struct TradeOffChart {
    struct Point {
        var name: String
        var style: Int
        var requests: Double
        var ttfrP95Nanos: Double
        /// Share of searches whose final screen was wrong.
        var staleShare: Double
        var recommended: Bool
    }

    var points: [Point]
    /// The request cost of the objective, when it is p95 + cost × requests (for the line).
    var requestCostNanos: Double?
    var width = 520.0
    var height = 300.0

    func svg() -> String {
        let maxNanos = max(points.map(\.ttfrP95Nanos).max() ?? 1e6, 1)
        let unit = ValueFormat.durationAxisUnit(maxNanos: maxNanos)
        let xScale = AxisScale.linear(0, max(points.map(\.requests).max() ?? 1, 0.5))
        let yScale = AxisScale.linear(0, maxNanos / unit.divisor)
        let legend = points.map { point in
            var label = point.name
            if point.staleShare > 0 { label += " ✗ \(ValueFormat.percent(point.staleShare)) wrong" }
            if point.recommended { label += " (ship)" }
            return LegendEntry(label: label, color: ChartPalette.color(point.style), swatch: .marker)
        }
        func makeFrame(height: Double) -> ChartFrame {
            ChartFrame(width: width, height: height, title: "Trade-off: requests against p95 time to fresh results", legend: legend,
                       xTitle: "requests per search", yTitle: "p95 time to fresh results (\(unit.symbol))",
                       yTickLabels: yScale.ticks.map(yScale.label))
        }
        var frame = makeFrame(height: height)
        // A long legend (many strategies) makes the chart taller, so the plot stays the larger part.
        let legendArea = Double(frame.legendRows.count) * 16 * (width - 24)
        if frame.plotWidth * frame.plotHeight < legendArea {
            frame = makeFrame(height: frame.height + (legendArea - frame.plotWidth * frame.plotHeight) / frame.plotWidth + 20)
        }
        let description = "p95 time to fresh results against requests per search, one dot per strategy: "
            + points.map { "\($0.name) \(ValueFormat.significant($0.requests)) requests, \(ValueFormat.duration(nanos: $0.ttfrP95Nanos))" }.joined(separator: "; ")
        var out = frame.header(description: description) + frame.plotMarker
        out += frame.yAxis(positions: yScale.ticks.map(yScale.position), labels: yScale.ticks.map(yScale.label))
        let xLabels = ChartFrame.thinned(xScale.ticks.map(xScale.label), spacing: frame.plotWidth / Double(max(1, xScale.ticks.count - 1)))
        out += frame.xAxis(positions: xScale.ticks.map(xScale.position), labels: xLabels, grid: true)
        guard !points.isEmpty else { return out + frame.note("no strategy has fresh results") + "</svg>" }
        if let cost = requestCostNanos, let chosen = points.first(where: \.recommended) {
            out += objectiveLine(through: chosen, cost: cost, frame: frame, xScale: xScale, yScale: yScale, divisor: unit.divisor)
        }
        for point in points {
            let px = frame.x(xScale.position(point.requests)), py = frame.y(yScale.position(point.ttfrP95Nanos / unit.divisor))
            let color = ChartPalette.color(point.style)
            if point.staleShare > 0 {
                out += Markup.empty("circle", [("cx", n(px)), ("cy", n(py)), ("r", "5"), ("fill", "none"), ("stroke", color), ("stroke-width", "2.5")])
                out += Markup.empty("path", [("d", "M\(n(px - 7)) \(n(py - 7)) L\(n(px + 7)) \(n(py + 7)) M\(n(px - 7)) \(n(py + 7)) L\(n(px + 7)) \(n(py - 7))"),
                                             ("stroke", color), ("stroke-width", "2")])
            } else {
                out += Markup.empty("circle", [("cx", n(px)), ("cy", n(py)), ("r", "5"), ("fill", color)])
            }
            if point.recommended {
                out += Markup.empty("circle", [("cx", n(px)), ("cy", n(py)), ("r", "10"), ("fill", "none"), ("stroke", "currentColor"), ("stroke-width", "2.5")])
            }
        }
        return out + "</svg>"
    }

    /// The points where p95 + cost × requests equals the recommendation's value, clipped to the plot.
    private func objectiveLine(through chosen: Point, cost: Double, frame: ChartFrame, xScale: AxisScale, yScale: AxisScale, divisor: Double) -> String {
        let value = chosen.ttfrP95Nanos + cost * chosen.requests
        let x0 = xScale.domain.lowerBound, x1 = xScale.domain.upperBound
        let y0 = yScale.domain.lowerBound * divisor, y1 = yScale.domain.upperBound * divisor
        // Along the line y = value − cost·x, clip x to where y stays within the y domain.
        let left = max(x0, (value - y1) / cost), right = min(x1, (value - y0) / cost)
        guard cost > 0, left < right else { return "" }
        func pixel(_ x: Double) -> String {
            n(frame.x(xScale.position(x))) + " " + n(frame.y(yScale.position((value - cost * x) / divisor)))
        }
        return Markup.empty("path", [("d", "M" + pixel(left) + " L" + pixel(right)), ("stroke", "currentColor"), ("stroke-opacity", "0.45"),
                                     ("stroke-width", "1.5"), ("stroke-dasharray", "5 4"), ("fill", "none"), ("class", "objective")])
    }
}
