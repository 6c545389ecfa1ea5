import Testing
@testable import SearchField

/// `QueryIdentity` is what every "is this still current?" check compares: equal exactly when the
/// text, the scope and the tokens are, whatever way each identity was made.
@Suite("Query identity", .timeLimit(.minutes(1)))
struct QueryIdentityTests {
    @Test("equal exactly when text, scope and tokens are equal")
    func equalityFollowsTheParts() {
        let plain = QueryIdentity(text: "running shoes")
        #expect(plain == QueryIdentity(text: "running " + "shoes"))
        #expect(plain != QueryIdentity(text: "running shoe"))
        #expect(plain != QueryIdentity(text: "running shoes", scope: "all"))
        #expect(plain != QueryIdentity(text: "running shoes", tokens: ["red"]))
        #expect(plain == QueryIdentity(text: "running shoes", scope: nil, tokens: []))

        let scoped = QueryIdentity(text: "ab", scope: "shoes", tokens: ["red", "42"])
        #expect(scoped == QueryIdentity(text: "ab", scope: "shoes", tokens: ["red", "42"]))
        #expect(scoped != QueryIdentity(text: "ab", scope: "shoes", tokens: ["42", "red"]))
        #expect(scoped != QueryIdentity(text: "ab", scope: "boots", tokens: ["red", "42"]))
        #expect(scoped != QueryIdentity(text: "ab", scope: nil, tokens: ["red", "42"]))
        // An empty scope is a scope, not "all scopes".
        #expect(QueryIdentity(text: "ab", scope: "") != QueryIdentity(text: "ab"))
    }

    @Test("the parts read back as given, and setting one keeps the others")
    func partsReadBackAndSet() {
        var identity = QueryIdentity(text: "한글", scope: "k", tokens: ["t"])
        #expect(identity.text == "한글")
        #expect(identity.scope == "k")
        #expect(identity.tokens == ["t"])
        identity.text = "漢字"
        #expect(identity == QueryIdentity(text: "漢字", scope: "k", tokens: ["t"]))
        identity.scope = nil
        #expect(identity == QueryIdentity(text: "漢字", tokens: ["t"]))
        identity.tokens = []
        #expect(identity == QueryIdentity(text: "漢字"))
        #expect(identity.scope == nil)
        #expect(identity.tokens.isEmpty)
        identity.tokens = ["a", "b"]
        #expect(identity.tokens == ["a", "b"])
        #expect(identity.description == "\"漢字\" [a,b]")
    }

    @Test("equal identities hash equally and are one key in a set")
    func hashingAgreesWithEquality() {
        let made = [
            QueryIdentity(text: "a long query text over fifteen bytes"),
            QueryIdentity(text: "a long query text over " + "fifteen bytes"),
            QueryIdentity(text: "ab", scope: "s"),
            QueryIdentity(text: "ab", scope: "s", tokens: []),
            QueryIdentity(text: "ab", tokens: ["s"]),
        ]
        #expect(Set(made).count == 3)
        #expect(made[0].hashValue == made[1].hashValue)
        #expect(made[2].hashValue == made[3].hashValue)
    }

    @Test("the same value is equal; equal texts in two strings are equal but need not be the same value")
    func sameValueIsEnoughForEquality() {
        let long = QueryIdentity(text: String(repeating: "x", count: 40))
        let copy = long
        #expect(long.isSameValue(as: copy))
        let rebuilt = QueryIdentity(text: String(repeating: "x", count: 20) + String(repeating: "x", count: 20))
        #expect(long == rebuilt)
        #expect(!long.isSameValue(as: QueryIdentity(text: "y")))
        #expect(!QueryIdentity(text: "ab").isSameValue(as: QueryIdentity(text: "ab", scope: "s")))
    }

    @Test("identities made on many threads at once agree")
    func concurrentIdentitiesAgree() async {
        let results = await withTaskGroup(of: [QueryIdentity].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    (0..<200).map { index in
                        QueryIdentity(text: "q", scope: "scope \((index + worker) % 7)", tokens: index % 2 == 0 ? ["t"] : [])
                    }
                }
            }
            var all: [[QueryIdentity]] = []
            for await made in group { all.append(made) }
            return all
        }
        for made in results {
            for identity in made {
                let scope = identity.scope
                #expect(scope != nil)
                #expect(identity == QueryIdentity(text: "q", scope: scope, tokens: identity.tokens))
            }
        }
    }
}
