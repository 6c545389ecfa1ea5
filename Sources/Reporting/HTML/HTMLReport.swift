import TypestormMetrics

/// One strategy's live run against virtual time, as the report shows it.
public struct AgreementRow: Sendable, Equatable {
    /// The strategy's group name.
    public var strategy: String
    /// The live runner compared with virtual time (``RunnerSpec/kind``).
    public var runner: String
    /// Whether the live run agreed with virtual time within the crosscheck's tolerances.
    public var agrees: Bool
    /// What differs (metric, virtual → live), and why when the load generator was behind.
    public var note: String

    /// A row for `strategy` under `runner`.
    public init(strategy: String, runner: String, agrees: Bool, note: String) {
        self.strategy = strategy
        self.runner = runner
        self.agrees = agrees
        self.note = note
    }
}

/// The timeline of the first search of one flaw kind in one group, in `typestorm replay`'s
/// format, for the report to link its flaw sentence to.
public struct FlawTimeline: Sendable, Equatable {
    /// The group's key (`MetricGroup.key`: its name and labels).
    public var group: String
    /// The flaw the search shows.
    public var kind: FlawKind
    /// A heading: which strategy, typist and time.
    public var title: String
    /// The timeline's lines, as `typestorm replay` prints them.
    public var text: String

    /// A timeline from its parts.
    public init(group: String, kind: FlawKind, title: String, text: String) {
        self.group = group
        self.kind = kind
        self.title = title
        self.text = text
    }

    /// The element id the flaw sentence links to.
    var anchor: String {
        "timeline-" + String((group + "-" + kind.rawValue).map { $0.isLetter || $0.isNumber ? $0 : "-" })
    }
}

/// Writes `report.html`: one self-contained page (inline CSS and SVG, no scripts, no network)
/// comparing the strategies of one run record.
///
/// Output depends only on the record (and the optional scenario text): no clock, no locale, no
/// dictionary order, so regenerating a report from a stored record gives the same bytes.
public struct HTMLReport: Sendable {
    /// The record the report shows.
    public var record: RunRecord
    /// The scenario's source text, shown verbatim when the run directory has it.
    public var scenarioText: String?
    /// Virtual time beside the model-driven live runs, per strategy (the run's summary computes
    /// it with the crosscheck's tolerances); shown after the verdicts when there is any.
    public var agreement: [AgreementRow] = []
    /// The timelines of the first flawed searches (the run computes them by typing those typists
    /// again); each flaw sentence with one links to it.
    public var timelines: [FlawTimeline] = []
    /// The typists' populations as the decision section names them, one per mix entry
    /// ("mobile ko, 10 %, on lte (…)"); empty when the scenario is not known.
    public var populations: [String] = []

    /// A report of `record`, with the scenario's source text when it is known (`nil`: not shown).
    public init(record: RunRecord, scenarioText: String? = nil) {
        self.record = record
        self.scenarioText = scenarioText
    }

    /// The strategy groups in display order, their titles, panels and styles.
    var layout: ReportLayout { ReportLayout(ReportLayout.strategyGroups(record).strategies) }

    /// The page.
    public func render() -> String {
        let layout = layout
        let columns = layout.columns
        let meta = record.metadata
        var html = ReportStylesheet.pageStart(title: "Typestorm report: \(meta.scenarioName)", viewport: true)

        html += "<header>\n" + Markup.element("h1", text: "Typestorm report: \(meta.scenarioName)") + "\n"
        var subtitle = "\(meta.runner) runner · seed \(meta.seed) · \(columns.count) \(columns.count == 1 ? "group" : "groups")"
        if let host = meta.host { subtitle += " · \(host.hostname)" }
        if let start = meta.startedAtMillis { subtitle += " · " + ValueFormat.timestamp(millis: start) }
        html += Markup.element("p", [("class", "sub")], text: subtitle) + "\n</header>\n"

        if record.partial || !record.coversAllSegments {
            var message = "Partial run: these numbers cover only the data that arrived."
            if !record.coversAllSegments { message += " Segments present: " + segmentList + "." }
            html += Markup.open("div", [("class", "warning")]) + Markup.element("strong", text: message)
            if !record.problems.isEmpty {
                html += "<ul>" + record.problems.map { Markup.element("li", text: $0) }.joined() + "</ul>"
            }
            html += "</div>\n"
        }

        let decision = decision(layout)
        if let decision { html += decisionSection(decision) }
        html += verdictSection(layout, decision: decision)
        html += agreementSection()
        html += chartSection(layout)
        html += numbersSection(layout)
        html += timelineSection()
        html += runSection()
        html += Markup.element("footer", text: "Generated by \(meta.tool) \(meta.toolVersion) from a run record (schema \(record.schemaVersion)). No scripts; every chart is inline SVG.") + "\n"
        html += ReportStylesheet.pageEnd
        return html
    }

    /// Every chart of the report, as standalone SVG documents in page order (for tests and
    /// for writing them next to the report).
    public func charts() -> [(name: String, svg: String)] {
        let layout = layout
        let tradeOff = decision(layout).map { [(name: "trade-off", svg: tradeOffChart($0))] } ?? []
        return tradeOff + ReportCharts(layout: layout).all.map { ($0.name, $0.svg) }
    }

    private var segmentList: String {
        let segments = record.metadata.segments
        return segments.isEmpty ? "none" : segments.map { "\($0.index)/\($0.count)" }.joined(separator: ", ")
    }

    /// The decision of this run (`Decision`), with the report's strategy styles.
    func decision(_ layout: ReportLayout) -> Decision? {
        var styles: [String: Int] = [:]
        for column in layout.columns where styles[column.summary.name] == nil { styles[column.summary.name] = column.style }
        return Decision(record: record, styles: styles)
    }

    /// What to ship, first: the decision in a few lines, the table of the primary runner's
    /// strategies (best value per column marked) and the trade-off picture beside it.
    private func decisionSection(_ decision: Decision) -> String {
        var html = "<section id=\"decision\">\n" + Markup.element("h2", text: "What to ship") + "\n<div class=\"decision-grid\">\n<div class=\"decision\">\n"
        for (index, line) in decision.lines.enumerated() {
            html += Markup.element("p", index == 0 ? [("class", "ship")] : [], text: line) + "\n"
        }
        html += "</div>\n<figure>\n" + tradeOffChart(decision) + "\n" + Markup.element("figcaption", text: "Down and to the left is better. Crossed rings ended on wrong final screens; the heavy ring is the recommendation; along the dashed line the objective equals its value.") + "\n</figure>\n</div>\n"
        html += "<div class=\"scroll\"><table class=\"decision-table\">\n<thead><tr>"
        let table = decision.table
        html += table.headers.map { Markup.element("th", text: $0) }.joined() + "</tr></thead>\n<tbody>\n"
        for (row, cells) in table.rows.enumerated() {
            html += row == decision.chosen ? Markup.open("tr", [("class", "chosen")]) : "<tr>"
            html += "<td>" + Markup.open("span", [("class", "swatch"), ("style", "background: \(ChartPalette.color(decision.rows[row].style))")]) + "</span>"
                + Markup.text(cells[0]) + (row == decision.chosen ? Markup.element("span", [("class", "badge")], text: "ship") : "") + "</td>"
            // Each cell names its column, so a phone can show a row as a card of labelled values.
            for (column, cell) in cells.dropFirst().enumerated() {
                var attributes = [("data-label", table.headers[column + 1])]
                if table.best[row][column] { attributes.insert(("class", "best"), at: 0) }
                html += Markup.open("td", attributes) + Markup.text(cell) + "</td>"
            }
            html += "</tr>\n"
        }
        var note = "Green marks the best value in a column; the objective is \(decision.objective.statement)"
        if let runner = decision.primaryRunner { note += ", decided on the \(runner) runner" }
        note += decision.otherRunners.isEmpty ? "." : ", with the same objective on the other runners in the last columns."
        html += "</tbody></table>" + Markup.element("p", [("class", "sub")], text: note) + "</div>\n"
        if !populations.isEmpty {
            html += Markup.element("p", [("class", "sub world")], text: "Typists: " + populations.joined(separator: "; ") + ".") + "\n"
        }
        return html + "</section>\n"
    }

    func tradeOffChart(_ decision: Decision) -> String {
        let points = decision.rows.indices.compactMap { index -> TradeOffChart.Point? in
            let row = decision.rows[index]
            guard let requests = row.summary.fanOutMean, let p95 = row.summary.ttfr?.percentile(95) else { return nil }
            return TradeOffChart.Point(name: row.title, style: row.style, requests: requests, ttfrP95Nanos: Double(p95),
                                       staleShare: row.summary.staleShare ?? 0, recommended: index == decision.chosen)
        }
        var cost: Double?
        if case let .requestCost(nanos) = decision.objective.goal { cost = nanos }
        return TradeOffChart(points: points, requestCostNanos: cost).svg()
    }

    /// Per strategy, only what the decision table does not say: its flaws, on the primary
    /// runner and, where they differ, on the others.
    private func verdictSection(_ layout: ReportLayout, decision: Decision?) -> String {
        var html = "<section id=\"verdict\">\n" + Markup.element("h2", text: "Per strategy") + "\n<ul class=\"verdicts\">\n"
        var names: [String] = []
        for column in layout.columns where !names.contains(column.summary.name) { names.append(column.summary.name) }
        let primary = decision?.primaryRunner
        for name in names {
            let columns = layout.columns.filter { $0.summary.name == name }
            let first = columns.first { $0.summary.labels[Decision.runnerLabel] == primary } ?? columns[0]
            let key = MetricGroup(name: first.summary.name, labels: first.summary.labels).key
            var sentences = Verdict.flawEvidence(for: first.summary, title: name).map { sentence -> String in
                var text = Markup.text(sentence.text)
                if let kind = sentence.example, let timeline = timelines.first(where: { $0.group == key && $0.kind == kind }) {
                    text += " " + Markup.element("a", [("href", "#" + timeline.anchor)], text: "See the timeline.")
                }
                return text
            }
            for column in columns where column.title != first.title && Verdict.flawKinds(column.summary) != Verdict.flawKinds(first.summary) {
                let runner = column.summary.labels[Decision.runnerLabel] ?? column.title
                sentences += Verdict.flaws(for: column.summary, title: name).map { Markup.text("On \(runner): " + $0) }
            }
            html += Markup.open("li", [("style", "--swatch: \(ChartPalette.color(first.style))")])
            html += Markup.element("strong", text: columns.count == 1 ? first.title : name)
            html += "<span>" + sentences.joined(separator: " ") + "</span>"
            html += "</li>\n"
        }
        return html + "</ul>\n</section>\n"
    }

    /// The timelines the flaw sentences link to.
    private func timelineSection() -> String {
        guard !timelines.isEmpty else { return "" }
        var html = "<section id=\"timelines\">\n" + Markup.element("h2", text: "Timelines of the first flawed searches") + "\n"
        html += Markup.element("p", [("class", "sub")], text: "Each typist typed again in virtual time, the same keystrokes and backend draws as in the run (typestorm replay's format: ⌨ a key, → what the strategy did, ⇠ what reached it, ▣ the screen, · the modelled server).") + "\n"
        for timeline in timelines {
            html += Markup.element("h3", [("id", timeline.anchor)], text: timeline.title) + "\n"
            html += Markup.element("pre", [("class", "timeline")], text: timeline.text) + "\n"
        }
        return html + "</section>\n"
    }

    private func agreementSection() -> String {
        guard !agreement.isEmpty else { return "" }
        var html = "<section id=\"agreement\">\n" + Markup.element("h2", text: "Virtual time against live") + "\n"
        html += Markup.element("p", [("class", "sub")], text: "Each strategy's live run served through the same backend model as virtual time, judged by the crosscheck's stated tolerances (docs/crosscheck.md).") + "\n"
        html += "<div class=\"scroll\"><table>\n<thead><tr>" + ["strategy", "live runner", "verdict", "what differs"].map { Markup.element("th", text: $0) }.joined() + "</tr></thead>\n<tbody>\n"
        for row in agreement {
            html += "<tr>" + Markup.element("td", text: row.strategy) + Markup.element("td", text: row.runner)
            html += Markup.element("td", text: row.agrees ? "agrees" : "differs") + Markup.element("td", text: row.note.isEmpty ? "–" : row.note) + "</tr>\n"
        }
        return html + "</tbody></table></div>\n</section>\n"
    }

    private func chartSection(_ layout: ReportLayout) -> String {
        var html = "<section id=\"charts\">\n" + Markup.element("h2", text: "Charts") + "\n<div class=\"charts\">\n"
        for chart in ReportCharts(layout: layout).all {
            html += (chart.wide ? "<figure class=\"wide\">\n" : "<figure>\n") + chart.svg + "\n" + Markup.element("figcaption", text: chart.caption) + "\n</figure>\n"
        }
        return html + "</div>\n</section>\n"
    }

    /// One table per panel (runner), so a report of 19 groups is three tables of six columns
    /// rather than one table too wide for the page; then the embedded server's own counters.
    private func numbersSection(_ layout: ReportLayout) -> String {
        var html = "<section id=\"numbers\">\n" + Markup.element("h2", text: "All numbers") + "\n"
        for panel in layout.panels {
            if let title = panel.title { html += Markup.element("h3", text: title) + "\n" }
            html += numbersTable(panel.members.map { layout.columns[$0] })
        }
        html += Markup.element("p", [("class", "sub")], text: "Green marks the best value in a row. Percentiles come from log-linear histograms at 3 significant digits; searches that never showed fresh results are counted apart and not in the time-to-fresh-results percentiles.") + "\n"
        let servers = ReportLayout.strategyGroups(record).servers
        if !servers.isEmpty {
            html += Markup.element("h3", text: "Embedded server") + "\n"
            let titles = Verdict.titles(servers.map(StrategySummary.init))
            let names = Set(servers.flatMap { $0.metrics.counters.keys }).sorted()
            html += "<div class=\"scroll\"><table>\n<thead><tr>" + Markup.element("th", text: "counter")
            html += titles.map { Markup.element("th", text: $0) }.joined() + "</tr></thead>\n<tbody>\n"
            for name in names {
                html += "<tr>" + Markup.element("td", text: name)
                html += servers.map { Markup.element("td", text: $0.metrics.counters[name].map(String.init) ?? "–") }.joined() + "</tr>\n"
            }
            html += "</tbody>\n</table></div>\n"
        }
        return html + "</section>\n"
    }

    private func numbersTable(_ columns: [ReportLayout.Column]) -> String {
        var html = "<div class=\"scroll\"><table>\n<thead><tr>"
        html += Markup.element("th", text: "metric")
        for column in columns {
            html += "<th>" + Markup.open("span", [("class", "swatch"), ("style", "background: \(ChartPalette.color(column.style))")]) + "</span>"
                + Markup.text(column.seriesName) + "</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        func row(_ label: String, _ cells: [String], classes: [String]? = nil) {
            html += "<tr>" + Markup.element("td", text: label)
            for (index, cell) in cells.enumerated() {
                let cls = classes?[index] ?? ""
                html += (cls.isEmpty ? "<td>" : Markup.open("td", [("class", cls)])) + Markup.text(cell) + "</td>"
            }
            html += "</tr>\n"
        }
        row("searches (settles)", columns.map { String($0.summary.settles) })
        row("keystrokes", columns.map { String($0.summary.keystrokes) })
        row("requests started", columns.map { String($0.summary.requestsStarted) })
        row("requests completed", columns.map { String($0.summary.requestsCompleted) })
        for quantity in Quantity.all {
            let values = columns.map { quantity.value($0.summary) }
            guard values.contains(where: { $0 != nil }) else { continue }
            let present = values.compactMap { $0 }
            var classes = [String](repeating: "", count: values.count)
            if present.count > 1, let best = quantity.better == .lower ? present.min() : present.max(), Set(present).count > 1 {
                for (index, value) in values.enumerated() where value == best { classes[index] = "best" }
            }
            if quantity.id == "stale.outOfOrder" {
                for (index, value) in values.enumerated() where (value ?? 0) > 0 { classes[index] = "bad" }
            }
            row(quantity.label, values.map { $0.map { ValueFormat.format($0, unit: quantity.unit) } ?? "–" }, classes: classes)
        }
        let reasons = Set(columns.flatMap { $0.summary.errors.map(\.reason) }).sorted()
        for reason in reasons {
            row("failed: \(reason)", columns.map { column in String(column.summary.errors.first { $0.reason == reason }?.count ?? 0) })
        }
        if columns.contains(where: { $0.summary.inFlightMax != nil }) {
            row("most requests in flight", columns.map { $0.summary.inFlightMax.map(String.init) ?? "–" })
        }
        return html + "</tbody>\n</table></div>\n"
    }

    private func runSection() -> String {
        let meta = record.metadata
        var facts: [(String, String)] = [
            ("scenario", meta.scenarioName), ("scenario hash", meta.scenarioHash), ("seed", String(meta.seed)),
            ("runner", meta.runner), ("segments", segmentList),
            ("tool", "\(meta.tool) \(meta.toolVersion)" + (meta.gitCommit.map { " (\($0))" } ?? "")),
        ]
        if let start = meta.startedAtMillis { facts.append(("started", ValueFormat.timestamp(millis: start))) }
        if let end = meta.endedAtMillis { facts.append(("ended", ValueFormat.timestamp(millis: end))) }
        if let start = meta.startedAtMillis, let end = meta.endedAtMillis {
            facts.append(("wall time", ValueFormat.duration(nanos: Double(end - start) * 1e6)))
        }
        if let host = meta.host {
            facts += [("host", host.hostname), ("cores", String(host.cores)), ("memory", ValueFormat.bytes(host.memoryBytes)), ("OS", host.os)]
        } else {
            facts.append(("machine", "not recorded (virtual-time runs leave it out so the same seed gives the same bytes)"))
        }
        var html = "<section id=\"run\">\n" + Markup.element("h2", text: "Scenario and machine") + "\n<dl class=\"facts\">\n"
        for (term, value) in facts {
            html += Markup.element("dt", text: term) + Markup.element("dd", text: value) + "\n"
        }
        html += "</dl>\n"
        if let scenarioText {
            html += Markup.element("pre", text: scenarioText) + "\n"
        }
        return html + "</section>\n"
    }
}
