import Foundation

/// Escaping and a tiny writer for HTML/SVG text that is also well-formed XML.
///
/// The report is written as polyglot markup (every element closed, attributes quoted, no named
/// entities other than the five XML ones) so that an XML parser can check it and browsers read
/// it as HTML.
package enum Markup {
    /// Text content: escapes `&`, `<`, `>` and drops characters XML does not allow.
    package static func text(_ value: String) -> String {
        escape(value, inAttribute: false)
    }

    /// A cell of a GitHub-flavoured markdown table: `|` escaped, so it does not end the cell.
    package static func markdownCell(_ value: String) -> String {
        value.replacingOccurrences(of: "|", with: "\\|")
    }

    /// An attribute value (to be put between double quotes).
    package static func attribute(_ value: String) -> String {
        escape(value, inAttribute: true)
    }

    /// Escapes `&`, `<`, `>`, drops characters XML does not allow and, in an attribute value, also
    /// escapes quotes, apostrophes, newlines and tabs (which attribute normalisation would change).
    private static func escape(_ value: String, inAttribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "'" where inAttribute: out += "&#39;"
            case "\n" where inAttribute: out += "&#10;"
            case "\t" where inAttribute: out += "&#9;"
            default:
                if isAllowed(scalar) { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// XML 1.0 `Char`: tab, newline, carriage return and everything from U+0020 except
    /// surrogates (never in a Swift scalar) and U+FFFE/U+FFFF.
    static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// `<name a="1" b="2">`, attributes in the given order (so output is deterministic).
    package static func open(_ name: String, _ attributes: [(String, String)] = []) -> String {
        "<" + name + attributeList(attributes) + ">"
    }

    /// `<name a="1"/>`.
    package static func empty(_ name: String, _ attributes: [(String, String)] = []) -> String {
        "<" + name + attributeList(attributes) + "/>"
    }

    /// `<name …>escaped text</name>`.
    package static func element(_ name: String, _ attributes: [(String, String)] = [], text value: String) -> String {
        open(name, attributes) + text(value) + "</" + name + ">"
    }

    private static func attributeList(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(attribute($0.1))\"" }.joined()
    }
}
