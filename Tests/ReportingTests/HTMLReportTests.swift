import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("HTML report", .timeLimit(.minutes(5)))
struct HTMLReportTests {
    @Test func reportFromStoredRecordIsWellFormedWithEveryChart() throws {
        let record = try Fixtures.record("run-strategies.json")
        let report = HTMLReport(record: record, scenarioText: "{\"name\": \"default-en-desktop\", \"note\": \"a < b && c > d\"}")
        let html = report.render()
        let check = XMLCheck.check(html, "report.html")
        let charts = report.charts()
        // Nine per-run charts plus throughput and in-flight, because this record has a time series.
        #expect(charts.count == 11)
        #expect(check.counts["svg"] == charts.count)
        #expect(check.counts["figure"] == charts.count)
        for chart in charts {
            let svgCheck = XMLCheck.check(chart.svg, "chart \(chart.name)")
            #expect(svgCheck.counts["svg"] == 1)
            #expect(svgCheck.counts["title"] ?? 0 >= 1, "chart \(chart.name) has no title")
        }
        // One verdict card per strategy, one column per strategy in the numbers table.
        #expect(check.counts["li"] == record.groups.count)
        #expect(html.contains("<th>metric</th>"))
    }

    @Test func selfContainedNoScriptsNoNetwork() throws {
        let html = HTMLReport(record: try Fixtures.record("run-strategies.json")).render()
        #expect(!html.lowercased().contains("<script"))
        #expect(!html.contains(" src="))
        #expect(!html.contains("<link"))
        // The only URLs are XML namespace names, which browsers never fetch.
        let urls = html.components(separatedBy: "http").dropFirst().map { "http" + $0.prefix(40) }
        #expect(urls.allSatisfy { $0.hasPrefix("http://www.w3.org/") }, "unexpected URL in report: \(urls)")
        #expect(html.contains("@media (prefers-color-scheme: dark)"))
        #expect(html.contains("@media print"))
    }

    @Test func verdictStatesTheStaleShareFromTheCounters() throws {
        let record = try Fixtures.record("run-strategies.json")
        let naive = try #require(record.summaries.first { $0.name == "naive" })
        let share = Double(naive.staleSettles) / Double(naive.settles)
        #expect(naive.staleSettles > 0)
        let expected = "naive showed the wrong final results in \(ValueFormat.fixed(share * 100, 1)) % of searches (\(naive.staleSettles) of \(naive.settles))"
        #expect(Verdict.sentences(for: naive).first?.hasPrefix(expected) == true, "\(Verdict.sentences(for: naive))")
        #expect(HTMLReport(record: record).render().contains(expected))
        let guarded = try #require(record.summaries.first { $0.name == "sequence-guarded" })
        #expect(Verdict.sentences(for: guarded).first == "sequence-guarded ended on the right results in all \(guarded.settles) searches.")
    }

    @Test func sameRecordGivesSameBytesAfterARoundTrip() throws {
        let record = try Fixtures.record("run-strategies.json")
        let again = try RunRecord.decode(try record.encoded())
        #expect(HTMLReport(record: record).render() == HTMLReport(record: again).render())
    }

    @Test func partialVirtualRunIsMarkedAndEscaped() throws {
        let record = try Fixtures.record("run-virtual-partial.json")
        let html = HTMLReport(record: record).render()
        XMLCheck.check(html, "partial report")
        #expect(html.contains("Partial run"))
        #expect(html.contains("worker 2 exited with signal 9 after 3.2 s"))
        #expect(html.contains("Segments present: 0/3, 2/3"), "segments are numbered as on the command line")
        #expect(html.contains("korean &lt;mobile&gt; &amp; \"quoted\""))
        #expect(html.contains("not recorded"))
        // No time series in this record: no throughput or in-flight charts.
        #expect(HTMLReport(record: record).charts().map(\.name) == ["ttfr-cdf", "request-latency", "fan-out", "stale-final", "mismatch", "wasted-work", "cancel-signal", "cancel-stop", "flicker"])
    }

    @Test func groupsWithoutDataStillRender() throws {
        let metadata = RunMetadata(toolVersion: "0", scenarioName: "empty", scenarioHash: "0", seed: 1, runner: "virtual", segments: [])
        let record = RunRecord(metadata: metadata, groups: [MetricGroup(name: "a<b"), MetricGroup(name: "c&d", labels: ["x": "\"y\""])])
        let report = HTMLReport(record: record)
        let html = report.render()
        XMLCheck.check(html, "empty report")
        for chart in report.charts() { XMLCheck.check(chart.svg, chart.name) }
        #expect(html.contains("recorded no finished searches"))
        #expect(html.contains("a&lt;b"))
    }

    /// The main job's shape: three runners × six strategies plus the embedded server's counters.
    static func mainJobRecord() throws -> RunRecord {
        let strategies = try Fixtures.record("run-strategies.json").groups
        var groups: [MetricGroup] = []
        for runner in ["virtual", "in-process", "http-embedded"] {
            for (index, name) in ["naive", "manual-cancel", "split-state-seed", "split-state", "sequence-guard", "debounce-switch"].enumerated() {
                groups.append(MetricGroup(name: name, labels: ["runner": runner], metrics: strategies[index % strategies.count].metrics))
            }
        }
        groups.append(MetricGroup(name: "server", labels: ["runner": "http-embedded"],
                                  metrics: MetricSet(counters: ["server_requests": 1234, "server_overload_rejections": 0, "workers_cpu_ns": 5_000_000])))
        let metadata = RunMetadata(toolVersion: "0", scenarioName: "default", scenarioHash: "0", seed: 1, runner: "mixed", segments: [Segment(index: 0, count: 1)])
        return RunRecord(metadata: metadata, groups: groups)
    }

    @Test func mainJobReportHasPanelsPerRunnerAndNoServerSeries() throws {
        let report = HTMLReport(record: try Self.mainJobRecord())
        let html = report.render()
        let check = XMLCheck.check(html, "main-job report")
        // 18 strategy cards; the server's counters are a table of their own, not a strategy.
        #expect(check.counts["li"] == 18)
        #expect(html.contains("<h3>Embedded server</h3>"))
        #expect(html.contains("server_requests"))
        let charts = report.charts()
        let ttfr = try #require(charts.first { $0.name == "ttfr-cdf" })
        // One panel per runner, one legend entry per strategy (not per group), no "server".
        #expect(ttfr.svg.components(separatedBy: "class=\"panel\"").count == 4)
        let legend = try #require(ttfr.svg.components(separatedBy: "<g class=\"legend\">").last)
        #expect(legend.components(separatedBy: "<text").count - 1 == 6, "\(legend)")
        #expect(!legend.contains("server"))
        for chart in charts {
            #expect(!chart.svg.contains(">server<"), "\(chart.name) shows the server as a strategy")
        }
        // A strategy has the same colour in every runner's panel and in its verdict card.
        let naiveColor = ChartPalette.color(0), cancelColor = ChartPalette.color(1)
        #expect(html.components(separatedBy: "--swatch: \(naiveColor)").count - 1 == 3)
        #expect(html.components(separatedBy: "--swatch: \(cancelColor)").count - 1 == 3)
        // One numbers table per runner, plus the server's.
        #expect(check.counts["table"] == 4)
    }

    @Test func thirtyGroupsWithoutSplittingLabelsGetThirtyStyles() throws {
        let strategies = try Fixtures.record("run-strategies.json").groups
        let groups = (0..<30).map { MetricGroup(name: "strategy-\($0)", metrics: strategies[$0 % strategies.count].metrics) }
        let metadata = RunMetadata(toolVersion: "0", scenarioName: "wide", scenarioHash: "0", seed: 1, runner: "virtual", segments: [])
        let layout = HTMLReport(record: RunRecord(metadata: metadata, groups: groups)).layout
        #expect(layout.panels.count == 1)
        #expect(Set(layout.columns.map { ChartPalette.color($0.style) + ChartPalette.dash($0.style) }).count == 30)
    }

    @Test func terminalSummaryTableLinesUp() throws {
        let record = try Fixtures.record("run-strategies.json")
        let lines = SummaryTable.render(record).split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("metric"))
        #expect(lines[0].hasSuffix("switch-latest"))
        #expect(lines.contains { $0.hasPrefix("wrong final screen") && $0.contains("2.7 %") })
        // Right-aligned numbers: every data row ends at the same column as the header.
        let width = lines[0].count
        #expect(lines.dropFirst(2).allSatisfy { $0.count == width }, "\(lines)")
    }

    @Test func columnTitlesKeepOnlyLabelsThatDiffer() {
        let groups = [
            MetricGroup(name: "naive", labels: ["runner": "http", "population": "mobile"]),
            MetricGroup(name: "naive", labels: ["runner": "in-process", "population": "mobile"]),
            MetricGroup(name: "switch-latest", labels: ["runner": "http", "population": "mobile"]),
        ]
        #expect(Verdict.titles(groups.map(StrategySummary.init)) == ["naive (runner=http)", "naive (runner=in-process)", "switch-latest (runner=http)"])
        #expect(Verdict.titles([StrategySummary(MetricGroup(name: "a", labels: ["x": "1"]))]) == ["a"])
    }

    @Test func timelineIsReadFromCountersAndMergesByAddition() throws {
        var a = MetricSet(), b = MetricSet()
        for set in [0, 1] {
            var m = MetricSet()
            m.raiseMaximum(MetricName.timelineBucket, to: 500_000_000)
            m.add("timeline_completed.0", 10)
            m.add("timeline_completed.3", 4)
            m.add("timeline_in_flight_ns.1", 1_000_000_000)
            if set == 0 { a = m } else { b = m }
        }
        try a.merge(b)
        let timeline = try #require(Timeline(a))
        #expect(timeline.count == 4)
        #expect(timeline.throughputPerSecond == [40, 0, 0, 16])
        #expect(timeline.meanInFlight == [0, 4, 0, 0])
        #expect(timeline.bucketStartsSeconds == [0, 0.5, 1, 1.5])
        #expect(Timeline(MetricSet()) == nil)
    }
}

/// A run directory written by `typestorm run` (virtual runner, the default scenario with 120
/// typists, 2 workers; see Fixtures/README.md): the report must read the Recorder's real metric
/// names, so a rename on either side shows up here.
@Suite("Recorded run", .timeLimit(.minutes(5)))
struct RecordedRunTests {
    static let directory = Fixtures.url("recorded-virtual-run").path

    @Test func everyMetricTheReportReadsIsInTheRecordersOutput() throws {
        let loaded = try RecordStore.load(Self.directory)
        #expect(loaded.record.groups.count == 6)
        for summary in loaded.record.summaries {
            #expect(summary.settles > 0, "\(summary.name): \(MetricName.settles)")
            #expect(summary.keystrokes > 0, "\(summary.name): \(MetricName.keystrokes)")
            #expect(summary.requestsStarted > 0, "\(summary.name): \(MetricName.requestsStarted)")
            #expect(summary.committedQueries > 0, "\(summary.name): \(MetricName.distinctCommits)")
            #expect(summary.backendServiceNanos > 0, "\(summary.name): \(MetricName.serviceNs)")
            #expect(summary.clientServiceNanos > 0, "\(summary.name): \(MetricName.clientNs)")
            #expect(summary.sessionNanos > 0, "\(summary.name): \(MetricName.sessionNs)")
            #expect(summary.displayChanges > 0, "\(summary.name): \(MetricName.displayChanges)")
            #expect(summary.runEndNanos != nil, "\(summary.name): \(MetricName.runEndNs)")
            #expect(summary.inFlightMax != nil, "\(summary.name): \(MetricName.maxInFlight)")
            #expect(summary.ttfr != nil, "\(summary.name): \(MetricName.timeToFresh)")
            #expect(summary.fanOut != nil, "\(summary.name): \(MetricName.fanOutPerSettle)")
            #expect(summary.requestLatency != nil, "\(summary.name): \(MetricName.requestLatency)")
            #expect(summary.failedRequests != nil, "\(summary.name): errors_server, errors_timeout, errors_transport")
        }
        // Strategies that cancel record cancellation latencies; the naive field never cancels.
        let summaries = Dictionary(uniqueKeysWithValues: loaded.record.summaries.map { ($0.name, $0) })
        #expect(summaries["manual-cancel"]?.cancelStopClient != nil)
        #expect(summaries["manual-cancel"]?.cancelStopBackend != nil)
        #expect(summaries["debounce-switch"]?.cancelSignal != nil, "cancelled debounce waits have a signal latency")
        #expect(summaries["naive"]?.cancelSignal == nil)
        #expect((summaries["naive"]?.outOfOrderApplies ?? 0) > 0, "the naive field applies stale responses")
        #expect(summaries["split-state"]?.outOfOrderApplies == 0)
    }

    /// A real run of the main job's shape (Fixtures/README.md): 3 runners × 6 strategies and the
    /// embedded server's counters.
    @Test func mainJobRunSplitsByRunnerAndKeepsTheServerApart() throws {
        let loaded = try RecordStore.load(Fixtures.url("main-job-run").path)
        #expect(loaded.record.groups.count == 19)
        let layout = HTMLReport(record: loaded.record).layout
        #expect(layout.panels.map(\.title) == ["runner=http-embedded", "runner=in-process", "runner=virtual"])
        #expect(layout.columns.count == 18)
        #expect(layout.legend.map(\.name) == ["debounce-switch", "manual-cancel", "naive", "sequence-guard", "split-state-seed", "split-state"])
        XMLCheck.check(HTMLReport(record: loaded.record).render(), "main-job report")
    }

    @Test func reportOfTheRecordedRunIsWellFormed() throws {
        let loaded = try RecordStore.load(Self.directory)
        let scenario = try #require(RecordStore.scenarioText(runDirectory: Self.directory))
        let report = HTMLReport(record: loaded.record, scenarioText: scenario)
        let html = report.render()
        let check = XMLCheck.check(html, "recorded report")
        #expect(check.counts["svg"] == 9, "no time series in this record: no throughput or in-flight charts")
        for chart in report.charts() { XMLCheck.check(chart.svg, chart.name) }
        #expect(html.contains("\"typistsPerServer\""), "the scenario text is shown")
        #expect(!html.contains("Partial run"))
    }
}

@Suite("Report: virtual time against live", .timeLimit(.minutes(5)))
struct AgreementSectionTests {
    @Test("the table appears with its rows when the run has model-driven live groups, and not otherwise")
    func agreementSection() throws {
        let record = RunRecord(metadata: RunMetadata(toolVersion: "test", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual", segments: [Segment(index: 0, count: 1)]))
        var report = HTMLReport(record: record)
        #expect(!report.render().contains("id=\"agreement\""))
        report.agreement = [
            AgreementRow(strategy: "naive", runner: "in-process", agrees: true, note: ""),
            AgreementRow(strategy: "split-state", runner: "in-process", agrees: false, note: "stale_share 0.0% → 24.8%"),
        ]
        let html = report.render()
        #expect(html.contains("id=\"agreement\""))
        #expect(html.contains("<td>split-state</td><td>in-process</td><td>differs</td><td>stale_share 0.0% → 24.8%</td>"))
        #expect(html.contains("<td>naive</td><td>in-process</td><td>agrees</td><td>–</td>"))
    }
}
