import Foundation
import FuzzTargets
import Testing

/// Every stored fuzz input, the corpora and the crashes fuzzing found, runs through its target:
/// a crash that was fixed stays fixed, and the corpora keep covering the parsers in every
/// `swift test` (without the fuzzer).
@Suite("Fuzz corpora")
struct FuzzCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    static func inputs(_ target: FuzzTarget) -> [URL] {
        let directory = root.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func storedInputsRunWithoutACrash(target: FuzzTarget) throws {
        let inputs = Self.inputs(target)
        #expect(inputs.count >= 3, "Tests/Fuzz/corpus/\(target.rawValue) holds \(inputs.count) seeds")
        for input in inputs {
            target.run(Array(try Data(contentsOf: input)))
        }
    }
}
