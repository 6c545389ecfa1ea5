/// Which part of the typist population a record covers: segment `index` of `count`.
public struct Segment: Sendable, Hashable, Codable, Comparable {
    /// Which segment this is, `0..<count`.
    public var index: Int
    /// How many segments the population was split into; records merge only with equal counts.
    public var count: Int

    /// Segment `index` of `count`.
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public static func < (a: Segment, b: Segment) -> Bool {
        (a.count, a.index) < (b.count, b.index)
    }
}
