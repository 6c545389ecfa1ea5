import Foundation
import TypestormMetrics
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Stored run-record fixtures (Tests/ReportingTests/Fixtures), found next to this source file.
enum Fixtures {
    static let directory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// Fixtures are stored compact (sorted keys, no indentation) to keep the repository small.
    static func encode(_ record: RunRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(record)
    }

    static func record(_ name: String) throws -> RunRecord {
        try RunRecord.decode(try Data(contentsOf: url(name)))
    }

    /// Every fixture and how it is made; `TYPESTORM_WRITE_FIXTURES=1 swift test --filter
    /// ReportingTests` rewrites them after the factory changes.
    static let made: [(name: String, make: @Sendable () -> RunRecord)] = [
        ("run-strategies.json", { SyntheticRecords.strategiesRecord() }),
        ("run-virtual-partial.json", { SyntheticRecords.virtualRecord() }),
        ("sweep.json", { SyntheticRecords.sweepRecord() }),
    ]
}

/// Checks that text is well-formed XML, and counts elements by name.
final class XMLCheck: NSObject, XMLParserDelegate {
    private(set) var counts: [String: Int] = [:]
    private(set) var texts: [String] = []

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        counts[elementName, default: 0] += 1
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        texts.append(string)
    }

    /// Parses `text`; records an issue (with the parser's line and reason) when it is not
    /// well-formed, and returns the element counts.
    @discardableResult
    static func check(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) -> XMLCheck {
        // The HTML5 doctype has no system identifier, which XML allows; strip it anyway so the
        // check does not depend on the parser's DTD handling.
        let body = text.hasPrefix("<!DOCTYPE html>") ? String(text.dropFirst("<!DOCTYPE html>".count)) : text
        let parser = XMLParser(data: Data(body.utf8))
        let delegate = XMLCheck()
        parser.delegate = delegate
        if !parser.parse() {
            let line = parser.lineNumber
            let lines = body.split(separator: "\n", omittingEmptySubsequences: false)
            let context = line > 0 && line <= lines.count ? String(lines[line - 1].prefix(200)) : ""
            Issue.record("\(what) is not well-formed XML at line \(line): \(parser.parserError.map { String(describing: $0) } ?? "unknown") — \(context)", sourceLocation: sourceLocation)
        }
        return delegate
    }
}
