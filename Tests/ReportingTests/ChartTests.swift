import Foundation
import Testing
@testable import Reporting

@Suite("Charts", .timeLimit(.minutes(5)))
struct ChartTests {
    @Test func linearTicksAreNice() {
        let scale = AxisScale.linear(0, 97)
        #expect(scale.ticks == [0, 20, 40, 60, 80, 100])
        #expect(scale.domain == 0...100)
        #expect(scale.ticks.map(scale.label) == ["0", "20", "40", "60", "80", "100"])
        let small = AxisScale.linear(0.013, 0.048)
        #expect(small.ticks.count >= 3 && small.ticks.count <= 7)
        #expect(small.ticks.first! <= 0.013 && small.ticks.last! >= 0.048)
        #expect(small.ticks.map(small.label).allSatisfy { $0.hasPrefix("0.0") })
        let quarter = AxisScale.linear(0, 11)
        #expect(quarter.ticks.map(quarter.label) == ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5"])
    }

    @Test func flatSeriesGetsAWindow() {
        let scale = AxisScale.linear(5, 5)
        #expect(scale.domain.lowerBound < 5 && scale.domain.upperBound > 5)
        let zero = AxisScale.linear(0, 0)
        #expect(zero.domain == 0...1)
    }

    @Test func logTicksAtDecades() {
        let scale = AxisScale.log(3, 4_200)
        #expect(scale.ticks == [1, 10, 100, 1_000, 10_000])
        #expect(scale.ticks.map(scale.label) == ["1", "10", "100", "1000", "10k"])
        #expect(abs(scale.position(100) - 0.5) < 1e-12)
        let dense = AxisScale.log(20, 800)
        #expect(dense.ticks == [10, 20, 50, 100, 200, 500, 1_000])
    }

    @Test func valueFormatting() {
        #expect(ValueFormat.duration(nanos: 850) == "850 ns")
        #expect(ValueFormat.duration(nanos: 12_345) == "12.3 µs")
        #expect(ValueFormat.duration(nanos: 412_000_000) == "412 ms")
        #expect(ValueFormat.duration(nanos: 1_234_000_000) == "1.23 s")
        #expect(ValueFormat.percent(0.031) == "3.1 %")
        #expect(ValueFormat.percent(0.0025) == "0.25 %")
        #expect(ValueFormat.delta(-0.004, unit: .share) == "-0.40 pp")
        #expect(ValueFormat.timestamp(millis: 0) == "1970-01-01 00:00:00 UTC")
        #expect(ValueFormat.timestamp(millis: 1_709_251_199_000) == "2024-02-29 23:59:59 UTC")
        #expect(ValueFormat.bytes(34_359_738_368) == "32.0 GiB")
    }

    @Test func lineChartEscapesNamesAndIsWellFormed() {
        let chart = LineChart(title: "A < B & \"C\"", xTitle: "x (ms)", yTitle: "y", series: [
            .init(name: "naive <old>", points: [.init(x: 1, y: 10), .init(x: 2, y: 30), .init(x: 4, y: 20)]),
            .init(name: "검색 'switch'", points: [.init(x: 1, y: 5), .init(x: 3, y: 15)], style: .step),
            .init(name: "sweep", points: [.init(x: 1, y: 1), .init(x: 2, y: 2)], style: .lineWithMarkers, pointLabels: ["0", "25"]),
        ], callouts: [.init(point: .init(x: 2, y: 2), text: "25 ms")])
        let svg = chart.svg()
        let check = XMLCheck.check(svg, "line chart")
        #expect(check.counts["path"] == 3)
        #expect(check.counts["circle"] == 2 + 1 + 1, "two markers, one legend marker and one callout ring")
        #expect(svg.contains("A &lt; B &amp; \"C\""))
        #expect(svg.contains("검색 'switch'"))
        #expect(chart.svg() == svg)
    }

    @Test func emptyChartsSayNoData() {
        let line = LineChart(title: "t", xTitle: "x", yTitle: "y", series: [.init(name: "a", points: [])], xLog: true)
        #expect(line.svg().contains("no data"))
        XMLCheck.check(line.svg(), "empty line chart")
        let rows = RowChart(title: "t", axisTitle: "y", categories: ["p50"], sections: [.init(heading: nil, rows: [.init(label: "a", style: 0, values: [nil])])])
        #expect(rows.svg().contains("no data"))
        XMLCheck.check(rows.svg(), "empty row chart")
    }

    @Test func rowChartDrawsOneBarPerValueWithTooltipsAndNoLegend() {
        let chart = RowChart(title: "Latency", axisTitle: "ms", categories: ["p50", "p99"], sections: [
            .init(heading: "runner=http", rows: [.init(label: "naive", style: 0, values: [10, 80]), .init(label: "switch", style: 1, values: [8, nil])]),
            .init(heading: "runner=virtual", rows: [.init(label: "naive", style: 0, values: [12, 90])]),
        ])
        let svg = chart.svg()
        let check = XMLCheck.check(svg, "row chart")
        // Five data bars, three row swatches, two plot-area markers; no legend.
        #expect(check.counts["rect"] == 5 + 3 + 2)
        #expect(!svg.contains("class=\"legend\""))
        #expect(svg.contains("n/a"))
        #expect(svg.contains("naive, p99: 80"))
        #expect(svg.contains(">runner=virtual<"))
    }

    @Test func rowChartGrowsWithItsRowsInsteadOfSquashingThem() {
        func chart(_ count: Int) -> RowChart {
            RowChart(title: "t", axisTitle: "x", categories: ["a", "b", "c"], sections: [
                .init(heading: nil, rows: (0..<count).map { .init(label: "strategy-\($0)", style: $0, values: [1, 2, Double($0)]) }),
            ])
        }
        #expect(chart(1).height >= RowChart.plotTop + RowChart.minimumPlotHeight)
        #expect(chart(30).plotHeight >= 30 * RowChart.rowHeight)
        #expect(chart(30).height > chart(6).height)
    }

    @Test func smallMultiplesShareOneLegendOutsideThePanels() {
        let legend = (0..<30).map { LegendEntry(label: "strategy number \($0)", color: ChartPalette.color($0), swatch: .line(dash: ChartPalette.dash($0))) }
        let panels = (0..<3).map { panel in
            SmallMultiples.Panel(title: "runner=\(panel)", series: (0..<30).map { index in
                LineChart.Series(name: "strategy number \(index)", points: [.init(x: 1, y: Double(index)), .init(x: 10, y: Double(index + panel))], styleIndex: index)
            })
        }
        let chart = SmallMultiples(title: "t", xTitle: "x", yTitle: "y", panels: panels, legend: legend, xLog: true, yDomain: nil)
        let svg = chart.svg()
        let check = XMLCheck.check(svg, "small multiples")
        #expect(check.counts["path"] == 90)
        #expect(svg.components(separatedBy: "class=\"legend\"").count == 2, "one shared legend")
        #expect(svg.components(separatedBy: "class=\"plot\"").count == 4, "three panels")
        // A 30-entry legend makes the panels taller, never the plots smaller than the legend.
        #expect(chart.effectivePanelHeight >= 30 * SmallMultiples.legendEntryHeight)
    }

    @Test func seriesStylesAreDistinctForSeventyGroups() {
        let styles = (0..<ChartPalette.distinctStyles).map { ChartPalette.color($0) + "|" + ChartPalette.dash($0) }
        #expect(ChartPalette.distinctStyles >= 30)
        #expect(Set(styles).count == styles.count)
    }

    @Test func markupDropsCharactersXMLForbids() {
        #expect(Markup.text("a\u{0}b\u{1B}c\td") == "abc\td")
        #expect(Markup.attribute("x\"y'<z>&\n") == "x&quot;y&#39;&lt;z&gt;&amp;&#10;")
    }
}
