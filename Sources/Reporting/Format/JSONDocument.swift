import TypestormMetrics

/// The JSON that reports and commands print: `RunRecord.encoder`'s sorted keys, indentation and
/// unescaped slashes, so equal values give equal bytes.
package enum JSONDocument {
    /// `value` as a JSON document, ending in a newline.
    package static func text(_ value: some Encodable) throws -> String {
        String(decoding: try RunRecord.encoder.encode(value), as: UTF8.self) + "\n"
    }
}
