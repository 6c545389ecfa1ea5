import Foundation
import Testing

/// Every public declaration under Sources/ has a `///` doc comment, so the library's face stays
/// documented as it grows: a declaration is documented when the line above it (above its
/// attributes) is a `///` line. Conformance members whose meaning the protocol documents
/// (`init(from:)`, `encode(to:)`, `description`, `==`, `<`, `hash(into:)`, `id`, iterator, index
/// and clock members, `errorDescription`) need none.
@Suite("Public declarations are documented", .timeLimit(.minutes(1)))
struct PublicDocumentationTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// A line that declares something `public` or `open`, after any attributes on the same line.
    static let declaration = try! NSRegularExpression(pattern: #"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*(public|open)\s"#)
    /// Protocol-conformance members, documented by their protocol.
    static let conformance = try! NSRegularExpression(pattern: #"\b(init\(from decoder|func encode\(to encoder|var description: String|var debugDescription|static func (<|==)|func hash\(into|var id:|func makeIterator|func next\(\)|var startIndex|var endIndex|func index\(after|subscript\(position|func sleep\(until|var now:|var minimumResolution|func advanced\(by|func duration\(to|var errorDescription)"#)

    static func matches(_ pattern: NSRegularExpression, _ line: String) -> Bool {
        pattern.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
    }

    /// The 1-based line numbers and text of the public declarations of `text` without a `///`
    /// comment above them (or above their attribute lines).
    static func undocumented(in text: String) -> [(line: Int, text: String)] {
        let lines = text.components(separatedBy: "\n")
        var found: [(line: Int, text: String)] = []
        for (index, line) in lines.enumerated() where matches(declaration, line) {
            var above = index - 1
            while above >= 0, lines[above].trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("@") { above -= 1 }
            if above >= 0, lines[above].trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("///") { continue }
            if matches(conformance, line) { continue }
            found.append((index + 1, line.trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return found
    }

    @Test func theScannerFindsWhatIsUndocumented() {
        let sample = """
        /// Documented.
        public struct A {
            public var bare: Int
            /// Documented through its attributes.
            @inlinable
            @discardableResult
            public func attributed() -> Int { 1 }
            @usableFromInline public var afterAttribute = 0
            public var description: String { "" }
            // A plain comment is not a doc comment.
            public init() {}
            var internalOne = 0
        }
        open class B {}
        """
        let found = Self.undocumented(in: sample)
        #expect(found.map(\.line) == [3, 8, 11, 14])
        #expect(found.first?.text == "public var bare: Int")
    }

    @Test func everyPublicDeclarationInSourcesHasADocComment() throws {
        let enumerator = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var files: [URL] = []
        for case let url as URL in enumerator where url.pathExtension == "swift" { files.append(url) }
        files.sort { $0.path < $1.path }
        #expect(files.count > 100, "Sources/ found at \(Self.sources.path)")

        var missing: [String] = []
        var declarations = 0
        for file in files {
            let text = try String(contentsOf: file, encoding: .utf8)
            declarations += text.components(separatedBy: "\n").filter { Self.matches(Self.declaration, $0) }.count
            let relative = String(file.path.dropFirst(Self.sources.deletingLastPathComponent().path.count + 1))
            missing += Self.undocumented(in: text).map { "\(relative):\($0.line): \($0.text)" }
        }
        #expect(declarations > 500, "public declarations scanned")
        #expect(missing.isEmpty, "public declarations without a /// doc comment (say what each is for):\n\(missing.joined(separator: "\n"))")
    }
}
