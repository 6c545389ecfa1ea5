import Foundation
import FuzzTargets
import Testing

/// Every stored fuzz input, the corpora and the crashes fuzzing found, runs through its target:
/// a crash that was fixed stays fixed, and the corpora keep covering the parsers in every
/// `swift test` (without the fuzzer).
@Suite("Fuzz corpora", .timeLimit(.minutes(5)))
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

/// The folding target's promises, checked in words rather than by a crash: every stored input,
/// among them the two fuzzing found (`finding-…`: a letter, a character folding drops, then a
/// combining mark, which used to fold to a text that a second fold composed).
@Suite("Fuzz findings", .timeLimit(.minutes(5)))
struct FuzzFindingTests {
    @Test func everyStoredFoldingInputFoldsIdempotentlyToUTF8() throws {
        let inputs = FuzzCorpusTests.inputs(.folding)
        #expect(inputs.contains { $0.lastPathComponent == "finding-nul-before-mark" })
        #expect(inputs.contains { $0.lastPathComponent == "finding-dot-above-before-mark" })
        for input in inputs {
            let bytes = Array(try Data(contentsOf: input))
            #expect(FuzzTarget.foldingViolation(bytes) == nil, "Tests/Fuzz/corpus/folding/\(input.lastPathComponent)")
        }
    }
}
