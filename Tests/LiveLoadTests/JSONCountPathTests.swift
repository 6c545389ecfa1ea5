import Foundation
import Testing
import Typists
@testable import LiveLoad

/// The count reader against Foundation's full JSON parser: on every document both must find the
/// same count at the same path (or both none).
@Suite("JSON count path against a full parser")
struct JSONCountPathDifferentialTests {
    /// What a full parse says is at `path`: a whole number in 0...Int.max, or nil.
    static func reference(_ json: String, _ path: String) -> Int? {
        guard var node = try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed]) else { return nil }
        let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (position, segment) in segments.enumerated() {
            if segment == "#", position == segments.count - 1 {
                return (node as? [Any])?.count
            } else if let object = node as? [String: Any] {
                guard let next = object[segment] else { return nil }
                node = next
            } else if let array = node as? [Any], let index = Int(segment), segment.allSatisfy(\.isASCII) {
                guard index < array.count else { return nil }
                node = array[index]
            } else {
                return nil
            }
        }
        // JSONSerialization makes booleans NSNumbers of type "c" and nothing else of that type.
        guard let number = node as? NSNumber, String(cString: number.objCType) != "c", let whole = node as? Int, whole >= 0 else { return nil }
        return whole
    }

    /// Seeded, so a failure names a reproducible document.
    typealias Random = SeededGenerator

    /// A JSON value as written, members in order (duplicates kept).
    indirect enum Node {
        case object([(String, Node)])
        case array([Node])
        case number(String)
        case string(String)
        case literal(String)
    }

    static let keys = ["total", "count", "hits", "value", "items", "0", "1", "é", "😀", "to\"tal", "a b", "\\", "nbHits", "x/y"]
    static let numbers = ["0", "42", "-3", "-0", "7.0", "1.5", "4.2e1", "42E0", "420e-1", "1e2", "-0.0", "0.5e1",
                          "9223372036854775807", "9223372036854775808", "12345678901234567890", "1e300", "123456789012345678901234",
                          "9007199254740993", "2.5E+3", "1E-2", "385"]
    static let texts = ["", "ab", "total", "q\"uote", "back\\slash", "tab\tline\nend", "ünï", "😀 grin", "\u{1F600}\u{1F389}", "a/b", "}]{[,:"]

    static func node(_ random: inout Random, depth: Int) -> Node {
        let roll = Int.random(in: 0..<10, using: &random)
        if depth < 4, roll < 3 {
            let members = (0..<Int.random(in: 0...5, using: &random)).map { _ in
                (keys.randomElement(using: &random)!, node(&random, depth: depth + 1))
            }
            return .object(members)
        }
        if depth < 4, roll < 5 {
            return .array((0..<Int.random(in: 0...4, using: &random)).map { _ in node(&random, depth: depth + 1) })
        }
        switch roll {
        case 5, 6, 7: return .number(numbers.randomElement(using: &random)!)
        case 8: return .string(texts.randomElement(using: &random)!)
        default: return .literal(["true", "false", "null"].randomElement(using: &random)!)
        }
    }

    static func space(_ random: inout Random) -> String {
        guard Bool.random(using: &random) else { return "" }
        return String((0..<Int.random(in: 1...3, using: &random)).map { _ in [" ", "\n", "\t", "\r"].randomElement(using: &random)! })
    }

    /// `text` as a JSON string, each character written plainly or escaped (`\n`, `\u00e9`, a
    /// surrogate pair).
    static func quoted(_ text: String, _ random: inout Random) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            let escape = Bool.random(using: &random)
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += escape ? "\\u005C" : "\\\\"
            case "\n": out += "\\n"
            case "\t": out += escape ? "\\u0009" : "\\t"
            case "/": out += escape ? "\\/" : "/"
            default:
                guard escape else { out.unicodeScalars.append(scalar); continue }
                for unit in String(scalar).utf16 { out += String(format: "\\u%04X", unit) }
            }
        }
        return out + "\""
    }

    static func write(_ node: Node, _ random: inout Random) -> String {
        switch node {
        case let .object(members):
            let body = members.map { key, value in
                space(&random) + quoted(key, &random) + space(&random) + ":" + space(&random) + write(value, &random) + space(&random)
            }
            return "{" + (body.isEmpty ? space(&random) : body.joined(separator: ",")) + "}"
        case let .array(elements):
            let body = elements.map { space(&random) + write($0, &random) + space(&random) }
            return "[" + (body.isEmpty ? space(&random) : body.joined(separator: ",")) + "]"
        case let .number(text), let .literal(text): return text
        case let .string(text): return quoted(text, &random)
        }
    }

    /// A path into `node`, following a random route; may end on any kind of value.
    static func path(into node: Node, _ random: inout Random) -> String {
        var segments: [String] = []
        var current = node
        while true {
            switch current {
            case let .object(members) where !members.isEmpty && Int.random(in: 0..<5, using: &random) > 0:
                let (key, value) = members.randomElement(using: &random)!
                segments.append(key)
                current = value
                continue
            case let .array(elements) where Bool.random(using: &random):
                segments.append("#")
            case let .array(elements) where !elements.isEmpty:
                let index = Int.random(in: 0..<elements.count, using: &random)
                segments.append(String(index))
                current = elements[index]
                continue
            default:
                break
            }
            break
        }
        if segments.isEmpty || Int.random(in: 0..<8, using: &random) == 0 { segments.append(keys.randomElement(using: &random)!) }
        return segments.joined(separator: ".")
    }

    @Test func agreesWithFoundationOnRandomDocuments() throws {
        var random = Random(seed: 20_260_601)
        var counted = 0
        for document in 0..<4000 {
            let root = Self.node(&random, depth: 0)
            let json = Self.space(&random) + Self.write(root, &random) + Self.space(&random)
            for _ in 0..<4 {
                let path = Self.path(into: root, &random)
                guard let countPath = try? JSONCountPath(path) else { continue }
                let expected = Self.reference(json, path)
                let got = countPath.extract(from: Array(json.utf8))
                if expected != nil { counted += 1 }
                #expect(got == expected, "document \(document), path \(path): \(json)")
                if got != expected { return }
            }
        }
        // The generator reaches counts often enough for the comparison to mean something.
        #expect(counted > 1000, "only \(counted) paths held a count")
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a", 2),
        (#"{"a":1,"a":"x"}"#, "a", nil),
        (#"{"\u0074otal": 7}"#, "total", 7),
        (#"{"t\u00e9":3}"#, "té", 3),
        (#"{"\ud83d\ude00":5}"#, "😀", 5),
        (#"{ "query" : "ab" , "total" : 385 , "items" : [ ] }"#, "total", 385),
        (#"{"a":true}"#, "a", nil),
        (#"{"a":-1}"#, "a", nil),
        (#"{"a":1.5}"#, "a", nil),
        (#"{"a":9223372036854775808}"#, "a", nil),
        (#"{"a":9223372036854775807}"#, "a", 9_223_372_036_854_775_807),
        (#"{"0":{"n":4}}"#, "0.n", 4),
        (#"[1,2,3]"#, "#", 3),
        (#"{"a":5,"b":[}"#, "a", nil),
        (#"{"a":5} x"#, "a", nil),
    ] as [(String, String, Int?)])
    func readsEdgeCasesAsAFullParserDoes(json: String, path: String, expected: Int?) throws {
        #expect(Self.reference(json, path) == expected, "reference disagrees with the test's expectation")
        #expect(try JSONCountPath(path).extract(from: Array(json.utf8)) == expected)
    }

    /// A search response of each preset's engine as its documentation shows one (pretty-printed),
    /// with the count at the preset's path.
    static let engines: [(engine: String, path: String, count: Int, json: String)] = [
        ("meilisearch", "estimatedTotalHits", 66, """
        {
          "hits": [
            {
              "id": 2770,
              "title": "American Pie 2",
              "poster": "https://image.tmdb.org/t/p/w1280/q4LNgUnRfltxzp3gf1MAGiK5LhV.jpg",
              "overview": "The whole gang are back and as close as ever. They decide to get even closer by spending the summer together at a beach house. They decide to hold the biggest…",
              "release_date": 997405200
            }
          ],
          "offset": 0,
          "limit": 20,
          "estimatedTotalHits": 66,
          "processingTimeMs": 12,
          "query": "american "
        }
        """),
        ("typesense", "found", 1, """
        {
          "facet_counts": [],
          "found": 1,
          "out_of": 1,
          "page": 1,
          "request_params": { "collection_name": "companies", "per_page": 10, "q": "stark" },
          "search_time_ms": 1,
          "hits": [
            {
              "highlights": [
                { "field": "company_name", "snippet": "<mark>Stark</mark> Industries", "matched_tokens": ["Stark"] }
              ],
              "document": { "id": "124", "company_name": "Stark Industries", "num_employees": 5215, "country": "USA" },
              "text_match": 130916
            }
          ]
        }
        """),
        ("elasticsearch", "hits.total.value", 20, """
        {
          "took" : 5,
          "timed_out" : false,
          "_shards" : {
            "total" : 1,
            "successful" : 1,
            "skipped" : 0,
            "failed" : 0
          },
          "hits" : {
            "total" : {
              "value" : 20,
              "relation" : "eq"
            },
            "max_score" : 1.3862942,
            "hits" : [
              {
                "_index" : "my-index-000001",
                "_id" : "0",
                "_score" : 1.3862942,
                "_source" : {
                  "@timestamp" : "2099-11-15T14:12:12",
                  "http" : { "request" : { "method" : "get" }, "response" : { "bytes" : 1070000, "status_code" : 200 }, "version" : "1.1" },
                  "message" : "GET /search HTTP/1.1 200 1070000",
                  "user" : { "id" : "kimchy" }
                }
              }
            ]
          }
        }
        """),
        ("opensearch", "hits.total.value", 2, """
        {
          "took": 8,
          "timed_out": false,
          "_shards": { "total": 1, "successful": 1, "skipped": 0, "failed": 0 },
          "hits": {
            "total": { "value": 2, "relation": "eq" },
            "max_score": 0.5753642,
            "hits": [
              { "_index": "movies", "_id": "1", "_score": 0.5753642, "_source": { "title": "The Wind Rises" } },
              { "_index": "movies", "_id": "2", "_score": 0.2876821, "_source": { "title": "Gone with the Wind" } }
            ]
          }
        }
        """),
        ("algolia", "nbHits", 12, """
        {
          "hits": [
            {
              "firstname": "Jimmie",
              "lastname": "Barninger",
              "objectID": "433",
              "_highlightResult": {
                "firstname": { "value": "<em>Jimmie</em>", "matchLevel": "partial" },
                "lastname": { "value": "Barninger", "matchLevel": "none" }
              }
            }
          ],
          "page": 0,
          "nbHits": 12,
          "nbPages": 12,
          "hitsPerPage": 1,
          "processingTimeMS": 1,
          "query": "jimmie paint",
          "params": "query=jimmie+paint&attributesToRetrieve=firstname,lastname&hitsPerPage=50"
        }
        """),
        ("solr", "response.numFound", 32, """
        {
          "responseHeader":{
            "status":0,
            "QTime":0,
            "params":{
              "q":"*:*",
              "fl":"id",
              "wt":"json"}},
          "response":{"numFound":32,"start":0,"numFoundExact":true,"docs":[
              {
                "id":"GB18030TEST"},
              {
                "id":"SP2514N"}]
          }}
        """),
    ]

    /// `json` with the whitespace between tokens removed.
    static func compact(_ json: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        for character in json {
            if inString {
                out.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
                out.append(character)
            } else if !character.isWhitespace {
                out.append(character)
            }
        }
        return out
    }

    @Test(arguments: engines.map(\.engine))
    func readsEachEnginesDocumentedAnswerPrettyAndCompact(_ engine: String) throws {
        let sample = try #require(Self.engines.first { $0.engine == engine })
        let path = try JSONCountPath(sample.path)
        for json in [sample.json, Self.compact(sample.json), sample.json.replacingOccurrences(of: "\n", with: "\r\n")] {
            #expect(Self.reference(json, sample.path) == sample.count, "\(engine): the sample is not valid JSON")
            #expect(path.extract(from: Array(json.utf8)) == sample.count, "\(engine): \(json)")
        }
    }
}
