import Foundation
import LiveLoad
import Testing
import Typists

/// The count reader against Foundation's full parser: on valid JSON both must read the same count.
@Suite struct JSONCountPathTests {
    /// What a full parser says is at `path`: the number there if it is a whole number in
    /// 0...Int.max (not a Boolean), or the length of the array there for `#`.
    static func oracle(_ path: String, _ json: String) throws -> Int? {
        var value: Any = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
        let segments = path.split(separator: ".").map(String.init)
        for (position, segment) in segments.enumerated() {
            if segment == "#" {
                return position == segments.count - 1 ? (value as? [Any])?.count : nil
            }
            if let array = value as? [Any] {
                guard let index = Int(segment), index >= 0, index < array.count else { return nil }
                value = array[index]
            } else if let object = value as? [String: Any], let member = object[segment] {
                value = member
            } else {
                return nil
            }
        }
        guard let number = value as? NSNumber, type(of: number) != type(of: NSNumber(value: true)) else { return nil }
        guard let count = number as? Int, count >= 0 else { return nil }
        return count
    }

    // MARK: generated documents

    indirect enum Value {
        case number(String), string(String), bool(Bool), null
        case array([Value]), object([(String, Value)])
    }

    /// Keys drawn with replacement, so objects have duplicates; some need escapes, some are
    /// non-ASCII, two are the same string in different normal forms.
    static let keys = ["total", "count", "found", "hits", "value", "items", "response", "numFound",
                       "a", "0", "2", "é", "e\u{301}", "😀", "tab\tkey", "quote\"key", "back\\slash", "sl/ash", "dot.ted"]

    /// Number literals: whole numbers in several spellings, fractions, negatives, exponents,
    /// numbers past Int's range.
    static func number(_ rng: inout SeededGenerator) -> String {
        let small = Int.random(in: 0...1_000_000, using: &rng)
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return "\(small)"
        case 1: return "\(small).0"
        case 2: return "\(small)00e-2"
        case 3: return small == 0 ? "0e5" : "\(Double(small) / 1000)e3".replacingOccurrences(of: ".0e3", with: "e3")
        case 4: return "\(small).5"
        case 5: return "-\(small)"
        case 6: return "\(UInt64.random(in: 1_000_000_000_000_000...UInt64.max, using: &rng))"
        case 7: return "123456789012345678901234"
        case 8: return "\(small)E+\(Int.random(in: 0...12, using: &rng))"
        case 9: return "2.5e-\(Int.random(in: 1...3, using: &rng))"
        case 10: return "-0"
        default: return "\(Int.random(in: 0...9, using: &rng))"
        }
    }

    static func value(depth: Int, _ rng: inout SeededGenerator) -> Value {
        let leaf = depth >= 4 || Int.random(in: 0..<3, using: &rng) == 0
        if leaf {
            switch Int.random(in: 0..<8, using: &rng) {
            case 0: return .string(keys.randomElement(using: &rng)! + " ] } , : \" \\ \u{1} 鞋")
            case 1: return .bool(Bool.random(using: &rng))
            case 2: return .null
            default: return .number(number(&rng))
            }
        }
        let width = Int.random(in: 0...5, using: &rng)
        if Bool.random(using: &rng) {
            return .array((0..<width).map { _ in value(depth: depth + 1, &rng) })
        }
        return .object((0..<width).map { _ in (keys.randomElement(using: &rng)!, value(depth: depth + 1, &rng)) })
    }

    static func space(_ rng: inout SeededGenerator) -> String {
        ["", "", " ", "\n", "\t", "\r\n", "  \n    "].randomElement(using: &rng)!
    }

    /// A JSON string literal, with random characters written as `\u` escapes (surrogate pairs
    /// past the BMP) and `/` sometimes as `\/`.
    static func literal(_ text: String, _ rng: inout SeededGenerator) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            let escape = Int.random(in: 0..<4, using: &rng) == 0
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\t": out += escape ? "\\u0009" : "\\t"
            case "\n": out += "\\n"
            case "/" where escape: out += "\\/"
            case _ where scalar.value < 0x20 || escape:
                let hex = Bool.random(using: &rng) ? "%04x" : "%04X"
                if scalar.value > 0xFFFF {
                    let v = scalar.value - 0x10000
                    out += "\\u" + String(format: hex, 0xD800 + (v >> 10)) + "\\u" + String(format: hex, 0xDC00 + (v & 0x3FF))
                } else {
                    out += "\\u" + String(format: hex, scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func write(_ value: Value, _ rng: inout SeededGenerator) -> String {
        switch value {
        case .number(let text): return text
        case .string(let text): return literal(text, &rng)
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        case .array(let elements):
            return "[" + space(&rng) + elements.map { write($0, &rng) + space(&rng) }.joined(separator: "," + space(&rng)) + "]"
        case .object(let members):
            return "{" + space(&rng) + members.map { key, member in
                literal(key, &rng) + space(&rng) + ":" + space(&rng) + write(member, &rng) + space(&rng)
            }.joined(separator: "," + space(&rng)) + "}"
        }
    }

    /// Every path into `value` (keys with a dot cannot be spelled in a path), with `#` on arrays.
    static func paths(_ value: Value, prefix: String = "") -> [String] {
        let here = prefix.isEmpty ? [] : [prefix]
        func join(_ segment: String) -> String { prefix.isEmpty ? segment : prefix + "." + segment }
        switch value {
        case .array(let elements):
            return here + [join("#"), join("\(elements.count)")]
                + elements.enumerated().flatMap { paths($1, prefix: join("\($0)")) }
        case .object(let members):
            return here + [join("missing")]
                + members.filter { !$0.0.contains(".") }.flatMap { paths($1, prefix: join($0)) }
        default:
            return here
        }
    }

    @Test func agreesWithFoundationOnGeneratedDocuments() throws {
        var rng = SeededGenerator(seed: 23)
        var checked = 0, counts = 0, duplicateHits = 0
        for _ in 0..<1_500 {
            let root: Value = Bool.random(using: &rng)
                ? .object((0..<Int.random(in: 1...6, using: &rng)).map { _ in (Self.keys.randomElement(using: &rng)!, Self.value(depth: 1, &rng)) })
                : .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in Self.value(depth: 1, &rng) })
            let json = Self.space(&rng) + Self.write(root, &rng) + Self.space(&rng)
            for path in Set(Self.paths(root)) {
                let expected = try Self.oracle(path, json)
                let read = try JSONCountPath(path).extract(from: Array(json.utf8))
                #expect(read == expected, "path \(path) in \(json)")
                checked += 1
                if expected != nil { counts += 1 }
                if case .object(let members) = root, let first = path.split(separator: ".").first,
                   members.filter({ $0.0 == first }).count > 1, expected != nil { duplicateHits += 1 }
                if read != expected { return }
            }
        }
        // The generator reaches what it is meant to: many counts, and counts behind duplicate keys.
        #expect(checked > 10_000 && counts > 2_000 && duplicateHits > 50, "checked \(checked), counts \(counts), duplicates \(duplicateHits)")
    }

    @Test(arguments: [
        (#"{"query": "ab", "total": 385, "items": [{"id": 1}]}"#, "total", 385),
        (#"{ "total" : 1, "total" : 2 }"#, "total", 2),
        (#"{"tot\u0061l":7}"#, "total", 7),
        (#"{"t":9007199254740993.0}"#, "t", 9_007_199_254_740_993),
        (#"{"t":3.85e2}"#, "t", 385),
        (#"{"t":{"0":5}}"#, "t.0", 5),
        (#"{"\ud83d\ude00":4}"#, "😀", 4),
    ])
    func readsWhatAFullParserReads(json: String, path: String, expected: Int) throws {
        #expect(try Self.oracle(path, json) == expected)
        #expect(try JSONCountPath(path).extract(from: Array(json.utf8)) == expected)
    }

    @Test(arguments: [#"{"t":1.5}"#, #"{"t":-3}"#, #"{"t":true}"#, #"{"t":"385"}"#, #"{"t":12345678901234567890}"#, #"{"t":null}"#])
    func noCountWhereThereIsNoWholeNumber(json: String) throws {
        #expect(try Self.oracle("t", json) == nil)
        #expect(try JSONCountPath("t").extract(from: Array(json.utf8)) == nil)
    }

    // MARK: the engines' answers

    /// Answers as the engines document them, pretty-printed; each is also read compacted.
    static let engines: [(name: String, path: String, json: String, expected: Int)] = [
        ("elasticsearch", "hits.total.value", """
        {
          "took" : 5,
          "timed_out" : false,
          "_shards" : { "total" : 1, "successful" : 1, "skipped" : 0, "failed" : 0 },
          "hits" : {
            "total" : { "value" : 385, "relation" : "eq" },
            "max_score" : 1.3862942,
            "hits" : [
              { "_index" : "products", "_id" : "1", "_score" : 1.3862942,
                "_source" : { "title" : "Blue \\"running\\" shoe", "price" : 49.95 } }
            ]
          }
        }
        """, 385),
        ("opensearch", "hits.total.value", """
        {
          "took": 12, "timed_out": false,
          "_shards": {"total": 2, "successful": 2, "skipped": 0, "failed": 0},
          "hits": {"total": {"value": 10000, "relation": "gte"}, "max_score": null,
                   "hits": [{"_index": "products", "_id": "x9", "_score": null, "sort": [1.7e2, "b"]}]}
        }
        """, 10000),
        ("solr", "response.numFound", """
        {
          "responseHeader":{
            "status":0,
            "QTime":1,
            "params":{ "q":"title:ab", "wt":"json" }},
          "response":{"numFound":385,"start":0,"numFoundExact":true,"docs":[
              { "id":"1", "title":["Blue shoe"], "_version_":1700000000000000000 }]
          }}
        """, 385),
        ("meilisearch", "estimatedTotalHits", """
        {
          "hits": [
            { "id": 1, "title": "Blue shoe", "_formatted": { "title": "<em>Bl</em>ue shoe" } }
          ],
          "query": "bl",
          "processingTimeMs": 1,
          "limit": 20,
          "offset": 0,
          "estimatedTotalHits": 385
        }
        """, 385),
        ("algolia", "nbHits", """
        {
          "hits": [
            { "name": "Blue shoe", "objectID": "439784001",
              "_highlightResult": { "name": { "value": "<em>Bl</em>ue shoe", "matchLevel": "full", "matchedWords": ["bl"] } } }
          ],
          "nbHits": 385, "page": 0, "nbPages": 20, "hitsPerPage": 20,
          "exhaustiveNbHits": true, "query": "bl", "params": "query=bl&hitsPerPage=20", "processingTimeMS": 1
        }
        """, 385),
        ("typesense", "found", """
        {
          "facet_counts": [],
          "found": 385,
          "out_of": 200000,
          "page": 1,
          "request_params": { "collection_name": "products", "per_page": 10, "q": "bl" },
          "search_time_ms": 1,
          "hits": [
            { "document": { "id": "124", "title": "Blue shoe" },
              "highlights": [ { "field": "title", "snippet": "<mark>Bl</mark>ue shoe", "matched_tokens": ["Bl"] } ],
              "text_match": 578730123365187705 }
          ]
        }
        """, 385),
    ]

    /// The document with the whitespace outside strings removed.
    static func compact(_ json: String) -> String {
        var out = "", inString = false, escaped = false
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

    @Test(arguments: 0..<6)
    func readsEachEnginesAnswer(engine: Int) throws {
        let (name, path, json, expected) = Self.engines[engine]
        for document in [json, Self.compact(json)] {
            #expect(try Self.oracle(path, document) == expected, "\(name)")
            #expect(try JSONCountPath(path).extract(from: Array(document.utf8)) == expected, "\(name): \(document)")
        }
    }
}
