import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("Compare", .timeLimit(.minutes(5)))
struct CompareTests {
    /// A record with one strategy whose every search took exactly `ttfrMs` to show fresh results
    /// and sent `fanOut` requests; `samples` equal histogram values, so every percentile equals
    /// it (and enough lie beyond p99 for it to be judged).
    static func record(ttfrMs: Double, fanOut: Int64 = 3, stale: Int64 = 0, settles: Int64 = 100, name: String = "switch-latest",
                       samples: Int64 = 1_000, outOfOrder: Int64? = nil, ttfrHistogram: Histogram? = nil, falseEmpties: Int64 = 0) -> RunRecord {
        var m = MetricSet()
        m.add(MetricName.falseEmpties, falseEmpties)
        if let outOfOrder { m.add(MetricName.outOfOrderApplies, outOfOrder) }
        m.add(MetricName.settles, settles)
        m.add(MetricName.requestsStarted, fanOut * settles)
        m.add(MetricName.staleSettles, stale)
        var ttfr = Histogram(.latency)
        ttfr.record(Int64(ttfrMs * 1e6), count: samples)
        m.histograms[MetricName.timeToFresh] = ttfrHistogram ?? ttfr
        var fanOutHistogram = Histogram(.counts)
        fanOutHistogram.record(fanOut, count: samples)
        m.histograms[MetricName.fanOutPerSettle] = fanOutHistogram
        let metadata = RunMetadata(toolVersion: "0", scenarioName: "s", scenarioHash: "h", seed: 1, runner: "virtual", segments: [.init(index: 0, count: 1)])
        return RunRecord(metadata: metadata, groups: [MetricGroup(name: name, metrics: m)])
    }

    func row(_ comparison: Comparison, _ metric: String) throws -> Comparison.Row {
        try #require(comparison.rows.first { $0.quantity.id == metric })
    }

    @Test func nothingMovedExitsZero() {
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 100.5)])
        #expect(comparison.exitCode == 0)
        #expect(comparison.overall == .unchanged)
        #expect(comparison.rows.allSatisfy { $0.status == .unchanged })
    }

    @Test func slowerIsARegressionExitTwo() throws {
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 130)])
        #expect(comparison.exitCode == 2)
        let p50 = try row(comparison, "ttfr.p50")
        #expect(p50.status == .regression)
        #expect(abs(p50.delta! - 30e6) < 0.2e6)
        #expect(p50.welch == nil, "one run per side: no test")
    }

    @Test func fasterOnlyIsAnImprovementExitFour() throws {
        // One run a side: the latency tolerance is widened to 25 %, so 30 % faster is needed.
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100, fanOut: 4)], candidate: [Self.record(ttfrMs: 70, fanOut: 4)])
        #expect(comparison.exitCode == 4)
        #expect(try row(comparison, "ttfr.p95").status == .improvement)
        #expect(try row(comparison, "fanout.mean").status == .unchanged)
    }

    @Test func anyRegressionWinsOverImprovements() {
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100, fanOut: 3)], candidate: [Self.record(ttfrMs: 70, fanOut: 5)])
        #expect(comparison.regressions.map(\.quantity.id).contains("fanout.mean"))
        #expect(!comparison.improvements.isEmpty)
        #expect(comparison.exitCode == 2)
    }

    @Test func staleShareFromZeroIsARegressionWithinAbsoluteTolerance() throws {
        // 0 → 0.1 %: below the 0.2 pp default, so not a change; 0 → 1 % is.
        let small = Comparison(baseline: [Self.record(ttfrMs: 100, settles: 1000)], candidate: [Self.record(ttfrMs: 100, stale: 1, settles: 1000)])
        #expect(try row(small, "stale.share").status == .unchanged)
        let large = Comparison(baseline: [Self.record(ttfrMs: 100, settles: 1000)], candidate: [Self.record(ttfrMs: 100, stale: 10, settles: 1000)])
        #expect(try row(large, "stale.share").status == .regression)
    }

    @Test func welchStatisticsMatchHandComputation() throws {
        // a = 10, 12, 14 (mean 12, s² 4); b = 15, 17, 19, 21, 23 (mean 19, s² 10).
        // t = (12 − 19) / √(4/3 + 10/5) = −7 / √(10/3) = −3.834058
        // df = (10/3)² / ((4/3)²/2 + 2²/4) = (100/9) / (17/9) = 100/17 = 5.882353
        let test = try #require(WelchTest([10, 12, 14], [15, 17, 19, 21, 23]))
        #expect(abs(test.t - (-7 / (10.0 / 3).squareRoot())) < 1e-12)
        #expect(abs(test.degreesOfFreedom - 100.0 / 17) < 1e-12)
        // Two-sided p for |t| = 3.834058 at 5.882353 df, by Simpson integration of the t density
        // (1e5 intervals; independent of the incomplete-beta code): 0.0089503055.
        #expect(abs(test.p - 0.0089503055) < 1e-8)
        #expect(WelchTest([1], [1, 2]) == nil)
        #expect(WelchTest([5, 5], [5, 5])?.p == 1)
        #expect(WelchTest([5, 5], [6, 6])?.p == 0)
    }

    @Test func tDistributionTailKnownValues() {
        // Textbook critical values: t(0.975; 10) = 2.228139, t(0.995; 1) = 63.65674.
        #expect(abs(WelchTest.twoSidedP(t: 2.228139, degreesOfFreedom: 10) - 0.05) < 1e-6)
        #expect(abs(WelchTest.twoSidedP(t: 63.65674, degreesOfFreedom: 1) - 0.01) < 1e-6)
        #expect(WelchTest.twoSidedP(t: 0, degreesOfFreedom: 4) == 1)
    }

    @Test func noisyRepeatedRunsAreNotARegression() throws {
        // Candidate mean 110 ms vs baseline 100 ms: +10 %, beyond the 5 % tolerance, but the runs
        // scatter widely: Welch t = 1.4907, df = 6.68, p = 0.1817 ≥ 0.05, so it is noise.
        let baseline = [90.0, 110, 100, 95, 105].map { Self.record(ttfrMs: $0) }
        let candidate = [95.0, 125, 100, 110, 120].map { Self.record(ttfrMs: $0) }
        let comparison = Comparison(baseline: baseline, candidate: candidate)
        let p50 = try row(comparison, "ttfr.p50")
        let welch = try #require(p50.welch)
        #expect(abs(welch.t - 1.4907119850) < 2e-3, "histogram precision moves t a little")
        #expect(abs(welch.degreesOfFreedom - 6.680412) < 0.05)
        #expect(abs(welch.p - 0.18167) < 2e-3)
        #expect(p50.status == .noise)
        #expect(comparison.exitCode == 0)
    }

    @Test func consistentRepeatedRunsAreARegression() throws {
        let baseline = [99.0, 100, 101].map { Self.record(ttfrMs: $0) }
        let candidate = [109.0, 110, 111].map { Self.record(ttfrMs: $0) }
        let comparison = Comparison(baseline: baseline, candidate: candidate)
        let p50 = try row(comparison, "ttfr.p50")
        #expect(p50.status == .regression)
        #expect(try #require(p50.welch).p < 0.001)
        #expect(comparison.exitCode == 2)
    }

    @Test func singleRunsSayNoiseCannotBeJudgedAndUseWideTolerances() throws {
        // +20 %: a regression with repeated runs that agree, not with one run a side.
        let single = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 120)])
        #expect(single.isSingleRun)
        #expect(try row(single, "ttfr.p50").status == .unchanged)
        #expect(try row(single, "ttfr.p50").tolerance == .init(relative: 0.25, absolute: 4_000_000))
        #expect(single.terminalTable().contains("One run per side: run-to-run noise cannot be judged"))
        #expect(single.markdown().contains("> One run per side"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(try single.json().utf8)) as? [String: Any])
        #expect((object["note"] as? String)?.hasPrefix("One run per side") == true)
        let repeated = Comparison(baseline: [99.0, 100, 101].map { Self.record(ttfrMs: $0) }, candidate: [119.0, 120, 121].map { Self.record(ttfrMs: $0) })
        #expect(!repeated.isSingleRun)
        #expect(try row(repeated, "ttfr.p50").status == .regression)
        #expect(repeated.singleRunNote == nil)
        let repeatedObject = try #require(try JSONSerialization.jsonObject(with: Data(try repeated.json().utf8)) as? [String: Any])
        #expect(repeatedObject["note"] is NSNull)
    }

    @Test func aCountThatWasZeroMustStayZeroEvenInSingleRuns() throws {
        let baseline = Self.record(ttfrMs: 100, outOfOrder: 0)
        let candidate = Self.record(ttfrMs: 100, outOfOrder: 1)
        #expect(try row(Comparison(baseline: [baseline], candidate: [candidate]), "stale.outOfOrder").status == .regression)
    }

    @Test func aPercentileWithFewSamplesBeyondItIsNotJudged() throws {
        // p99.9 of 1,000 searches has one sample beyond it; p50 has 500.
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 200)])
        #expect(try row(comparison, "ttfr.p99.9").status == .tooFewSamples)
        #expect(try row(comparison, "ttfr.p50").status == .regression)
        #expect(comparison.summaryLine.contains("not judged (fewer than 10 samples beyond the percentile)"))
    }

    @Test func singleRunPercentilesWithinEachOthersSamplingNoiseAreNoise() throws {
        // 40 searches a side, spread 50–250 ms: the medians differ by 30 % but their 95 %
        // confidence intervals overlap, so one run cannot tell.
        func spread(_ shift: Double) -> RunRecord {
            var histogram = Histogram(.latency)
            for index in 0..<40 { histogram.record(Int64((50 + Double(index) * 5 + shift) * 1e6)) }
            return Self.record(ttfrMs: 100, ttfrHistogram: histogram)
        }
        let comparison = Comparison(baseline: [spread(0)], candidate: [spread(45)])
        let p50 = try row(comparison, "ttfr.p50")
        #expect(try #require(p50.relative) > 0.25)
        #expect(p50.status == .noise)
        let far = Comparison(baseline: [spread(0)], candidate: [spread(400)])
        #expect(try row(far, "ttfr.p50").status == .regression)
    }

    @Test func singleRunSharesWithinAProportionsSamplingNoiseAreNoise() throws {
        // 0 of 40 → 2 of 40 wrong final screens: beyond the tolerance, not beyond chance (z ≈ 1.4).
        let few = Comparison(baseline: [Self.record(ttfrMs: 100, settles: 40)], candidate: [Self.record(ttfrMs: 100, stale: 2, settles: 40)])
        #expect(try row(few, "stale.share").status == .noise)
    }

    @Test func singleRunRatesWithinTheirCountsSamplingNoiseAreNoise() throws {
        // 14 → 8 false empties over 26 searches (0.54 → 0.31 per search): beyond the widened
        // tolerance, within the noise of the counts (z ≈ 1.28); 40 → 8 is not (z ≈ 4.6).
        func falseEmpties(_ count: Int64) -> RunRecord { Self.record(ttfrMs: 100, settles: 26, falseEmpties: count) }
        let few = Comparison(baseline: [falseEmpties(14)], candidate: [falseEmpties(8)])
        let row = try row(few, "flicker.falseEmptiesPerSettle")
        #expect(try #require(row.relative) < -0.25)
        #expect(row.status == .noise)
        #expect(few.exitCode == 0)
        let many = Comparison(baseline: [falseEmpties(40)], candidate: [falseEmpties(8)])
        #expect(try self.row(many, "flicker.falseEmptiesPerSettle").status == .improvement)
    }

    @Test func groupsOnOneSideOnlyDoNotChangeTheExitCode() {
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100, name: "old")], candidate: [Self.record(ttfrMs: 100, name: "new")])
        #expect(comparison.rows.contains { $0.status == .onlyBaseline && $0.group == "old" })
        #expect(comparison.rows.contains { $0.status == .onlyCandidate && $0.group == "new" })
        #expect(comparison.exitCode == 0)
        #expect(!comparison.hasCommonMetrics, "the CLI refuses this with exit 65")
        #expect(comparison.groupsOnlyInBaseline == ["old"])
        #expect(comparison.groupsOnlyInCandidate == ["new"])
        #expect(comparison.terminalTable().contains("Only in the baseline: old."))
    }

    @Test func thresholdsFileOverridesAndNamesBadFields() throws {
        let text = """
        {"alpha": 0.01,
         "defaults": {"nanoseconds": {"absolute": "50ms"}},
         "metrics": {"ttfr.p95": {"relative": 0.5}, "switch-latest/ttfr.p50": {"absolute": 0}, "cancel.*": {"relative": 1}}}
        """
        let thresholds = try Tolerances.parse(Data(text.utf8), file: "t.json")
        #expect(thresholds.alpha == 0.01)
        let p95 = try #require(Quantity.named("ttfr.p95")), p50 = try #require(Quantity.named("ttfr.p50"))
        #expect(thresholds.tolerance(for: p95, group: "naive") == .init(relative: 0.5, absolute: 50e6))
        #expect(thresholds.tolerance(for: p50, group: "switch-latest") == .init(relative: 0.05, absolute: 0))
        #expect(thresholds.tolerance(for: p50, group: "naive") == .init(relative: 0.05, absolute: 50e6))
        #expect(thresholds.tolerance(for: try #require(Quantity.named("cancel.signal.p99")), group: "x").relative == 0.10, "built-in p99 beats a family pattern")
        #expect(thresholds.tolerance(for: try #require(Quantity.named("cancel.signal.p50")), group: "x").relative == 1)
        // 30 ms slower is within the 50 ms absolute tolerance now.
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 130)], thresholds: thresholds)
        #expect(try row(comparison, "ttfr.p95").status == .unchanged)

        #expect(throws: ThresholdsError(description: "t.json: metrics.\"ttfr.p59\": unknown metric (did you mean 'ttfr.p50'?)")) {
            try Tolerances.parse(Data(#"{"metrics": {"ttfr.p59": {"relative": 1}}}"#.utf8), file: "t.json")
        }
        #expect(throws: ThresholdsError(description: "t.json: defaults.share.absolute: expected a non-negative number in the metric's unit")) {
            try Tolerances.parse(Data(#"{"defaults": {"share": {"absolute": "2ms"}}}"#.utf8), file: "t.json")
        }
        #expect(throws: ThresholdsError(description: "t.json: alpah: unknown field (expected alpha, defaults, metrics)")) {
            try Tolerances.parse(Data(#"{"alpah": 0.1}"#.utf8), file: "t.json")
        }
    }

    @Test func renderingsAgreeWithTheDecision() throws {
        let comparison = Comparison(baseline: [Self.record(ttfrMs: 100)], candidate: [Self.record(ttfrMs: 130)])
        let table = comparison.terminalTable()
        #expect(table.hasPrefix("Regression: "))
        #expect(table.contains("REGRESSION"))
        let markdown = comparison.markdown()
        #expect(markdown.contains("### Typestorm compare: regression"))
        #expect(markdown.contains("| switch-latest | `ttfr.p50` |"))
        let json = try comparison.json()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["exitCode"] as? Int == 2)
        #expect(object["status"] as? String == "regression")
        let rows = try #require(object["rows"] as? [[String: Any]])
        // Stable shape: every key present, null where it does not apply.
        #expect(rows.allSatisfy { Set($0.keys) == ["group", "metric", "label", "unit", "better", "baseline", "candidate", "baselineMean", "candidateMean", "delta", "relative", "tolerance", "welch", "status"] })
        #expect(rows.contains { $0["metric"] as? String == "ttfr.p50" && $0["status"] as? String == "regression" })
    }
}
