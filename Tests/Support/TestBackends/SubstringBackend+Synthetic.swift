import SearchServer

extension SubstringBackend {
    /// `count` deterministic product-like names over a small vocabulary, with scopes `a`…`h`, for
    /// tests and benchmarks that need a large catalog without a file.
    package static func synthetic(count: Int, seed: UInt64 = 1) -> SubstringBackend {
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
