/// JUnit XML, the test-report format CI systems (GitHub Actions reporters, GitLab, Jenkins)
/// display without custom parsing: one `<testsuite>` of `<testcase>`s, each passed, failed or
/// skipped.
package struct JUnitXML: Sendable {
    package struct TestCase: Sendable {
        package enum Outcome: Sendable, Equatable {
            case passed
            case failed(String)
            case skipped(String)
        }

        package var className: String
        package var name: String
        package var outcome: Outcome
        /// Shown by CI next to the case (the numbers behind it).
        package var output: String

        package init(className: String, name: String, outcome: Outcome, output: String = "") {
            self.className = className
            self.name = name
            self.outcome = outcome
            self.output = output
        }
    }

    package var suite: String
    package var cases: [TestCase]

    package init(suite: String, cases: [TestCase]) {
        self.suite = suite
        self.cases = cases
    }

    package func render() -> String {
        let failures = cases.filter { if case .failed = $0.outcome { return true } else { return false } }.count
        let skipped = cases.filter { if case .skipped = $0.outcome { return true } else { return false } }.count
        let counts: [(String, String)] = [("tests", "\(cases.count)"), ("failures", "\(failures)"), ("errors", "0"), ("skipped", "\(skipped)")]
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += Markup.open("testsuites", [("name", suite)] + counts) + "\n"
        xml += "  " + Markup.open("testsuite", [("name", suite)] + counts) + "\n"
        for testCase in cases {
            xml += "    " + Markup.open("testcase", [("classname", testCase.className), ("name", testCase.name), ("time", "0")])
            switch testCase.outcome {
            case .passed: break
            case let .failed(message): xml += Markup.element("failure", [("message", message), ("type", "regression")], text: message)
            case let .skipped(message): xml += Markup.empty("skipped", [("message", message)])
            }
            if !testCase.output.isEmpty { xml += Markup.element("system-out", text: testCase.output) }
            xml += "</testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }
}
