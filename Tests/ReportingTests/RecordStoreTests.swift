import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("Record store", .timeLimit(.minutes(5)))
struct RecordStoreTests {
    /// A fresh directory under the system's temporary directory, removed by the caller.
    func temporaryDirectory() throws -> String {
        let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("typestorm-reporting-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func write(_ record: RunRecord, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try record.encoded().write(to: URL(fileURLWithPath: path))
    }

    @Test func loadsRecordFilesRunDirectoriesAndDirectoriesOfRuns() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let a = CompareTests.record(ttfrMs: 100), b = CompareTests.record(ttfrMs: 110)
        try write(a, to: "\(root)/runs/run1/record.json")
        try write(b, to: "\(root)/runs/run2/record.json")
        try write(a, to: "\(root)/runs/extra.json")
        try Data("{\"scenario\": 1}".utf8).write(to: URL(fileURLWithPath: "\(root)/runs/run1/scenario.json"))

        let one = try RecordStore.load("\(root)/runs/run1")
        #expect(one.record == a)
        #expect(one.runDirectory == "\(root)/runs/run1")
        #expect(RecordStore.scenarioText(runDirectory: "\(root)/runs/run1") == "{\"scenario\": 1}")
        #expect(try RecordStore.load("\(root)/runs/run2/record.json").record == b)

        let many = try RecordStore.loadMany("\(root)/runs")
        #expect(many.map(\.path) == ["\(root)/runs/extra.json", "\(root)/runs/run1/record.json", "\(root)/runs/run2/record.json"])
        #expect(try RecordStore.loadMany("\(root)/runs/run1").count == 1)
    }

    @Test func errorsNameThePathAndTheField() throws {
        let root = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root) }
        #expect(throws: RecordStore.LoadError.notFound("\(root)/missing: no such file or directory")) {
            try RecordStore.load("\(root)/missing")
        }
        #expect(throws: RecordStore.LoadError.notFound("\(root): a run directory must hold one of record.json, run-record.json, result.json")) {
            try RecordStore.load(root)
        }
        try Data("{\"schemaVersion\": 1}".utf8).write(to: URL(fileURLWithPath: "\(root)/bad.json"))
        #expect(throws: RecordStore.LoadError.invalid(path: "\(root)/bad.json", reason: "metadata: missing")) {
            try RecordStore.load("\(root)/bad.json")
        }
        try Data("not json".utf8).write(to: URL(fileURLWithPath: "\(root)/garbage.json"))
        #expect(throws: RecordStore.LoadError.invalid(path: "\(root)/garbage.json", reason: "not valid JSON")) {
            try RecordStore.load("\(root)/garbage.json")
        }
    }
}
