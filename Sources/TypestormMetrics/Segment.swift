/// Which part of the typist population a record covers: segment `index` of `count`.
public struct Segment: Sendable, Hashable, Codable, Comparable {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    public static func < (a: Segment, b: Segment) -> Bool {
        (a.count, a.index) < (b.count, b.index)
    }
}
