import Testing
@testable import Measurement

/// The recorder's metrics are only as right as the interner: equal keys must get equal refs and
/// different keys different refs, whichever typist asks and however large the table grows.
@Suite("Query interner")
struct QueryInternerTests {
    /// Keys that differ only in scope, tokens, or where a token boundary falls.
    static let nearMisses: [QueryKey] = [
        QueryKey(text: "ab"), QueryKey(text: "ab", scope: "shoes"), QueryKey(text: "ab", scope: ""),
        QueryKey(text: "ab", tokens: ["c"]), QueryKey(text: "ab", tokens: ["c", "d"]), QueryKey(text: "ab", tokens: ["cd"]),
        QueryKey(text: "abc"), QueryKey(text: "ab", scope: "c"), QueryKey(text: "ab ", scope: nil),
        QueryKey(text: "가나"), QueryKey(text: "sneakers, well past fifteen bytes"),
    ]

    @Test func equalKeysShareARefAndDifferentKeysDoNot() {
        var interner = QueryInterner(typists: 3)
        var refs: [QueryRef] = []
        for (index, key) in Self.nearMisses.enumerated() {
            refs.append(interner.ref(key, typist: index % 3))
        }
        #expect(Set(refs).count == Self.nearMisses.count)
        for (index, key) in Self.nearMisses.enumerated().reversed() {
            #expect(interner.ref(key, typist: (index + 1) % 3) == refs[index])
            #expect(interner.ref(key, typist: (index + 1) % 3) == refs[index])
        }
        #expect(interner.ref(nil, typist: 0) == nil)
    }

    @Test func refsSurviveTheTableGrowing() {
        var interner = QueryInterner(typists: 2)
        let keys = (0..<5_000).map { QueryKey(text: "q\($0)", scope: $0 % 3 == 0 ? "bags" : nil) }
        let refs = keys.enumerated().map { interner.ref($1, typist: $0 % 2) }
        #expect(Set(refs).count == keys.count)
        for (index, key) in keys.enumerated() {
            #expect(interner.ref(key, typist: 1 - index % 2) == refs[index])
        }
    }
}
