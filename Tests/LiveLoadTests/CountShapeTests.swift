import Testing
@testable import LiveLoad

@Suite("Where the count is, found from the first answers", .timeLimit(.minutes(5)))
struct CountShapeTests {
    func detect(_ bodies: String...) -> String? {
        CountShape.detect(in: bodies.map { Array($0.utf8) })?.description
    }

    @Test func theCommonShapesAreFound() {
        #expect(detect(#"{"query": "ab", "total": 385, "items": []}"#, "{\n  \"total\": 0\n}") == "total")
        #expect(detect(#"{"count": 3, "results": []}"#) == "count")
        #expect(detect(#"{"facet_counts": [], "found": 12, "hits": []}"#) == "found")
        #expect(detect(#"{"hits": [], "nbHits": 40, "page": 0}"#) == "nbHits")
        #expect(detect(#"{"hits": [], "estimatedTotalHits": 7, "query": "a"}"#) == "estimatedTotalHits")
        #expect(detect(#"{"took": 2, "hits": {"total": {"value": 10000, "relation": "gte"}, "hits": []}}"#) == "hits.total.value")
        #expect(detect(#"{"responseHeader": {"status": 0}, "response": {"numFound": 5, "start": 0, "docs": []}}"#) == "response.numFound")
        #expect(detect("[\n  {\"id\": 1},\n  {\"id\": 2}\n]") == "#")
    }

    @Test func aShapeMustFitEveryAnswerAndNoneIsNoCount() {
        // `total` in only one answer: not the shape; `count` is in both.
        #expect(detect(#"{"total": 1, "count": 1}"#, #"{"count": 0}"#) == "count")
        #expect(detect(#"{"items": [{"id": 1}]}"#) == nil)
        #expect(detect(#"{"total": "many"}"#) == nil)
        #expect(CountShape.detect(in: []) == nil)
    }

    @Test func theSummarySaysWhatWasUsedOrWhyNothingIs() {
        let found = CountShape.Probe(path: try! JSONCountPath("nbHits"), answers: 3, failures: [:])
        #expect(found.summary.contains("read at 'nbHits'") && found.summary.contains("first 3 answers"))
        let none = CountShape.Probe(path: nil, answers: 3, failures: [:])
        #expect(none.summary.contains("false empties will not be measured"))
        let failed = CountShape.Probe(path: nil, answers: 0, failures: [.httpStatus(401): 3])
        #expect(failed.summary.contains("no answer") && failed.summary.contains("401"))
    }
}
