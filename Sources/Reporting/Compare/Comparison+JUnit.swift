extension Comparison {
    /// JUnit XML: one test case per group and metric, failed when it regressed; metrics present
    /// on one side only are skipped.
    package func junit() -> JUnitXML {
        let cases = rows.map { row -> JUnitXML.TestCase in
            let unit = row.quantity.unit
            var numbers = "baseline " + (row.baselineMean.map { ValueFormat.format($0, unit: unit) } ?? "–")
            numbers += ", candidate " + (row.candidateMean.map { ValueFormat.format($0, unit: unit) } ?? "–")
            if let relative = row.relative { numbers += " (" + ValueFormat.relativeChange(relative) + ")" }
            if let welch = row.welch { numbers += ", Welch p=" + ValueFormat.significant(welch.p) }
            let outcome: JUnitXML.TestCase.Outcome
            switch row.status {
            case .regression: outcome = .failed("\(row.quantity.label) regressed: \(numbers)")
            case .onlyBaseline: outcome = .skipped("only in the baseline")
            case .onlyCandidate: outcome = .skipped("only in the candidate")
            case .tooFewSamples: outcome = .skipped("too few samples beyond the percentile to judge")
            case .unchanged, .noise, .improvement: outcome = .passed
            }
            return JUnitXML.TestCase(className: "typestorm.compare." + row.group, name: row.quantity.id, outcome: outcome,
                                     output: "\(row.status.word): \(numbers)")
        }
        return JUnitXML(suite: "typestorm compare", cases: cases)
    }
}
