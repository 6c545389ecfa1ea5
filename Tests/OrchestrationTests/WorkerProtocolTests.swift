import Foundation
import TypestormMetrics
import Testing
@testable import Orchestration

@Suite("Worker protocol", .timeLimit(.minutes(5)))
struct WorkerProtocolTests {
    static let group: MetricGroup = {
        var metrics = MetricSet()
        metrics.add("keystrokes", 12)
        metrics.record("ttfr", 1_500_000)
        return MetricGroup(name: "naive", labels: ["runner": "virtual"], metrics: metrics)
    }()

    @Test func workerMessagesRoundTripAsSingleLines() throws {
        let record = RunRecord(metadata: RunMetadata(toolVersion: "1", scenarioName: "s", scenarioHash: "h", seed: 3, runner: "virtual",
                                                     segments: [Segment(index: 1, count: 2)]), groups: [Self.group])
        let snapshot = WorkerProtocol.Snapshot(sequence: 4, phase: 0, typistsActive: 3, groups: [Self.group])
        let messages: [WorkerProtocol.WorkerMessage] = [
            .hello(.init(pid: 42, segment: Segment(index: 1, count: 2), scenarioHash: "h", toolVersion: "1")),
            .ready(typists: 7), .snapshot(snapshot), .phaseDone(phase: 0, snapshot: snapshot), .done(record), .error("boom\nagain"),
        ]
        for message in messages {
            let bytes = WorkerProtocol.encode(message)
            #expect(bytes.last == 10)
            #expect(bytes.dropLast().contains(10) == false)
            #expect(try WorkerProtocol.decodeWorkerMessage(Array(bytes.dropLast())) == message)
        }
    }

    @Test func driverMessagesRoundTrip() throws {
        for message: WorkerProtocol.DriverMessage in [.start(phase: 2, atWallClockNanos: 1_700_000_000_000_000_000), .stop(reason: "SIGINT")] {
            #expect(try WorkerProtocol.decodeDriverMessage(Array(WorkerProtocol.encode(message).dropLast())) == message)
        }
    }

    @Test func otherVersionsAreRefused() {
        // Version 1 (before histogram counts were packed) is another build's protocol.
        #expect(WorkerProtocol.version == 2)
        #expect(throws: WorkerProtocol.DecodeError.wrongVersion(1)) {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"v":1,"type":"ready","body":{"typists":1}}"#.utf8))
        }
        #expect(throws: WorkerProtocol.DecodeError.wrongVersion(nil)) {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"type":"ready","body":{"typists":1}}"#.utf8))
        }
    }

    @Test func garbageThatLooksLikeAMessageIsStillGarbage() {
        #expect(throws: WorkerProtocol.DecodeError.notJSON(#"log: sent {"type":"snapshot"} to the driver"#)) {
            try WorkerProtocol.decodeWorkerMessage(Array(#"log: sent {"type":"snapshot"} to the driver"#.utf8))
        }
        #expect(throws: WorkerProtocol.DecodeError.wrongVersion(3)) {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"body":{"typists":1},"type":"ready","v":3}"#.utf8))
        }
        #expect {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"body":"x","type":"snapshot","v":2}"#.utf8))
        } throws: { error in
            if case .malformed(type: "snapshot", reason: _) = error as? WorkerProtocol.DecodeError { return true }
            return false
        }
    }

    @Test func garbageAndUnknownTypesAreNamed() {
        #expect(throws: WorkerProtocol.DecodeError.notJSON("hello from a stray print")) {
            try WorkerProtocol.decodeWorkerMessage(Array("hello from a stray print".utf8))
        }
        #expect(throws: WorkerProtocol.DecodeError.unknownType("dance")) {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"v":2,"type":"dance","body":{}}"#.utf8))
        }
        #expect {
            try WorkerProtocol.decodeWorkerMessage(Array(#"{"v":2,"type":"ready","body":{"typists":"many"}}"#.utf8))
        } throws: { error in
            if case .malformed(type: "ready", reason: _) = error as? WorkerProtocol.DecodeError { return true }
            return false
        }
    }
}

@Suite("Segments", .timeLimit(.minutes(5)))
struct SegmentSourceTests {
    @Test func flagWins() throws {
        let (segment, origin) = try SegmentSource.resolve(flag: "2/5", countFlag: nil, environment: ["SLURM_PROCID": "1", "SLURM_NTASKS": "4"])
        #expect(segment == Segment(index: 2, count: 5))
        #expect(origin == "--segment")
    }

    @Test func slurmThenIndexedJobThenWhole() throws {
        #expect(try SegmentSource.resolve(flag: nil, countFlag: nil, environment: ["SLURM_PROCID": "3", "SLURM_NTASKS": "4"]).0 == Segment(index: 3, count: 4))
        #expect(try SegmentSource.resolve(flag: nil, countFlag: 8, environment: ["JOB_COMPLETION_INDEX": "5"]).0 == Segment(index: 5, count: 8))
        #expect(try SegmentSource.resolve(flag: nil, countFlag: nil, environment: ["JOB_COMPLETION_INDEX": "1", "TYPESTORM_SEGMENT_COUNT": "2"]).0 == Segment(index: 1, count: 2))
        #expect(try SegmentSource.resolve(flag: nil, countFlag: nil, environment: [:]).0 == Segment(index: 0, count: 1))
    }

    @Test(arguments: [
        ("4/4", "segment index 4 must be in 0..<4"),
        ("x/4", "expected INDEX/COUNT"),
        ("1/0", "segment count 0"),
    ])
    func badFlagsAreExplained(flag: String, fragment: String) {
        #expect {
            try SegmentSource.resolve(flag: flag, countFlag: nil, environment: [:])
        } throws: { error in
            (error as? SegmentSource.Failure)?.message.contains(fragment) == true
        }
    }

    @Test func indexedJobNeedsACount() {
        #expect {
            try SegmentSource.resolve(flag: nil, countFlag: nil, environment: ["JOB_COMPLETION_INDEX": "0"])
        } throws: { error in
            (error as? SegmentSource.Failure)?.message.contains("--segment-count") == true
        }
    }

    @Test func segmentsPartitionThePopulation() {
        let population = Population(typists: 103, mix: [.init(device: .desktop, language: .en, share: 1)])
        let all = (0..<4).flatMap { Array(population.typistIndices(segment: $0, of: 4)) }.sorted()
        #expect(all == Array(0..<103))
    }

    @Test func mixDoesNotDependOnTheSplit() {
        let population = Population(typists: 10, mix: [.init(device: .desktop, language: .en, share: 0.3), .init(device: .mobile, language: .ko, share: 0.7)])
        let devices = (0..<10).map { population.mixEntry(forTypist: $0).device }
        #expect(devices.filter { $0 == .desktop }.count == 3)
        // Interleaved, not laid out as ranges: the old contiguous rule gave 3 desktops, then 7 mobiles.
        #expect(devices != [.desktop, .desktop, .desktop] + Array(repeating: .mobile, count: 7))
        #expect(Population.mixStride(typists: 10) == 7)
    }

    /// Each entry gets exactly the typists the cumulative-share rule gives it (the rule applied
    /// to a permutation of the indices), and every quarter (half, eighth) of the index range —
    /// what a segment of the virtual runner holds — gets close to each share: within
    /// 3·(1 + log₂ n) typists, the discrepancy of a golden-ratio sequence growing like log n.
    @Test(arguments: [3, 10, 97, 1_000, 4_096, 40_000, 99_991])
    func mixIsInterleavedWithExactCounts(typists: Int) {
        let mixes: [[Population.MixEntry]] = [
            [.init(device: .desktop, language: .en, share: 0.7), .init(device: .mobile, language: .ko, share: 0.3)],
            [.init(device: .desktop, language: .en, share: 0.5), .init(device: .mobile, language: .ko, share: 0.3),
             .init(device: .mobile, language: .zh, share: 0.2)],
        ]
        for mix in mixes {
            let population = Population(typists: typists, mix: mix)
            let stride = Population.mixStride(typists: typists)
            let indices = (0..<typists).map { population.mixIndex(forTypist: $0, stride: stride) }
            #expect(indices == (0..<typists).map { typist in mix.firstIndex(of: population.mixEntry(forTypist: typist))! })
            // Exact counts: the contiguous rule over positions 0..<n.
            var expected = [Int](repeating: 0, count: mix.count)
            for position in 0..<typists {
                let point = (Double(position) + 0.5) / Double(typists)
                var cumulative = 0.0
                var entry = mix.count - 1
                for (index, candidate) in mix.enumerated() {
                    cumulative += candidate.share
                    if point < cumulative { entry = index; break }
                }
                expected[entry] += 1
            }
            #expect((0..<mix.count).map { entry in indices.filter { $0 == entry }.count } == expected)
            let tolerance = 3 * (1 + log2(Double(typists)))
            for parts in [2, 4, 8] where typists >= parts {
                for part in 0..<parts {
                    let range = (part * typists / parts)..<((part + 1) * typists / parts)
                    for (entry, candidate) in mix.enumerated() {
                        let count = indices[range].filter { $0 == entry }.count
                        let deviation = abs(Double(count) - candidate.share * Double(range.count))
                        #expect(deviation <= tolerance, "n \(typists), part \(part)/\(parts), entry \(entry): \(count) of \(range.count)")
                    }
                }
            }
        }
    }
}
