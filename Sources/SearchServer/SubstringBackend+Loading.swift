import Foundation

/// A catalog file the test double cannot read.
public struct CatalogFileError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension SubstringBackend {
    /// Reads a name list: one item per line, optionally `name<TAB>scope`; blank lines are skipped.
    /// A stand-in for the real catalog loaders until the engine is wired in.
    public static func load(path: String) throws -> SubstringBackend {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CatalogFileError(description: "\(path): cannot read the catalog file (missing or not readable)")
        }
        var items: [Item] = []
        var lineNumber = 0
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            var bytes = line
            if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
            if bytes.isEmpty { continue }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw CatalogFileError(description: "\(path):\(lineNumber): the line is not valid UTF-8")
            }
            let fields = text.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(fields[0])
            if name.isEmpty {
                throw CatalogFileError(description: "\(path):\(lineNumber): the item name (first field) is empty")
            }
            items.append(Item(name: name, scope: fields.count > 1 && !fields[1].isEmpty ? String(fields[1]) : nil))
        }
        if items.isEmpty {
            throw CatalogFileError(description: "\(path): the catalog has no items (one name per line, optionally name<TAB>scope)")
        }
        return SubstringBackend(items: items)
    }

    /// `count` deterministic product-like names over a small vocabulary, with scopes `a`…`h`, for
    /// tests and benchmarks that need a large catalog without a file.
    public static func synthetic(count: Int, seed: UInt64 = 1) -> SubstringBackend {
        let adjectives = ["red", "blue", "green", "silver", "wooden", "smart", "compact", "vintage", "organic", "wireless",
                          "leather", "steel", "portable", "classic", "ultra", "mini"]
        let nouns = ["lamp", "chair", "kettle", "speaker", "backpack", "jacket", "monitor", "keyboard", "bottle", "blender",
                     "camera", "watch", "sofa", "drill", "tent", "mug", "router", "scarf", "helmet", "pillow"]
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let scopes = ["a", "b", "c", "d", "e", "f", "g", "h"]
        var items: [Item] = []
        items.reserveCapacity(count)
        for index in 0..<count {
            let r = next()
            let name = "\(adjectives[Int(r % 16)]) \(nouns[Int((r >> 8) % 20)]) \(index)"
            items.append(Item(name: name, scope: scopes[Int((r >> 16) % 8)]))
        }
        return SubstringBackend(items: items)
    }
}
