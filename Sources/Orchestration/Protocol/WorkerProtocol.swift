import Foundation
import Measurement

/// The messages between `typestorm run` and its `typestorm worker` processes: one JSON object
/// per line, `{"v": 1, "type": "...", ...}`, worker → driver on the worker's standard output,
/// driver → worker on its standard input.
///
/// Every message carries the protocol version, and a reader refuses any other version, so a
/// driver and a worker from different builds fail loudly instead of misreading each other.
public enum WorkerProtocol {
    public static let version = 1

    /// Worker → driver.
    public enum WorkerMessage: Sendable, Equatable {
        /// First message: who the worker is and which scenario it read.
        case hello(Hello)
        /// Typists built, catalog loaded: the worker waits for `start`.
        case ready(typists: Int)
        /// Cumulative measurements so far (also the heartbeat: one every snapshot interval).
        case snapshot(Snapshot)
        /// A phase ended; `snapshot` holds everything measured up to its end.
        case phaseDone(phase: Int, snapshot: Snapshot)
        /// The worker's result; it exits after this.
        case done(RunRecord)
        /// The worker cannot go on; it exits after this.
        case error(String)
    }

    public struct Hello: Sendable, Equatable, Codable {
        public var pid: Int32
        public var segment: Segment
        public var scenarioHash: String
        public var toolVersion: String

        public init(pid: Int32, segment: Segment, scenarioHash: String, toolVersion: String) {
            self.pid = pid
            self.segment = segment
            self.scenarioHash = scenarioHash
            self.toolVersion = toolVersion
        }
    }

    public struct Snapshot: Sendable, Equatable, Codable {
        public var sequence: Int
        /// The phase running (-1 before the first start).
        public var phase: Int
        /// Typists that arrived and have not left.
        public var typistsActive: Int
        /// Everything measured so far, all phases: cumulative, so the last one that arrived from
        /// a worker that then died is still a consistent (partial) result.
        public var groups: [MetricGroup]

        public init(sequence: Int, phase: Int, typistsActive: Int, groups: [MetricGroup]) {
            self.sequence = sequence
            self.phase = phase
            self.typistsActive = typistsActive
            self.groups = groups
        }
    }

    /// Driver → worker.
    public enum DriverMessage: Sendable, Equatable {
        /// Start phase `phase` at this wall-clock instant (nanoseconds since 1970).
        case start(phase: Int, atWallClockNanos: Int64)
        /// Stop generating load, finish what is in flight, send `done`.
        case stop(reason: String)
    }

    public enum DecodeError: Error, Equatable, CustomStringConvertible {
        case notJSON(String)
        case wrongVersion(Int?)
        case unknownType(String?)
        case malformed(type: String, reason: String)

        public var description: String {
            switch self {
            case let .notJSON(excerpt): return "not a protocol message: \"\(excerpt)\""
            case let .wrongVersion(version): return "protocol version \(version.map(String.init) ?? "missing"), expected \(WorkerProtocol.version)"
            case let .unknownType(type): return "unknown message type \(type.map { "\"\($0)\"" } ?? "(missing)")"
            case let .malformed(type, reason): return "malformed \"\(type)\" message: \(reason)"
            }
        }
    }

    private struct Header: Decodable {
        var v: Int?
        var type: String?
    }

    private struct Envelope<Body: Encodable>: Encodable {
        var v = WorkerProtocol.version
        var type: String
        var body: Body
    }

    private struct Body<Value: Decodable>: Decodable {
        var body: Value
    }

    private struct Ready: Codable { var typists: Int }
    private struct PhaseDone: Codable { var phase: Int; var snapshot: Snapshot }
    private struct Failure: Codable { var message: String }
    private struct Start: Codable { var phase: Int; var at: Int64 }
    private struct Stop: Codable { var reason: String }

    private static func line<Value: Encodable>(_ type: String, _ body: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own value types cannot fail; a failure here is a programming error.
        let data = try! encoder.encode(Envelope(type: type, body: body))
        return Array(data) + [10]
    }

    public static func encode(_ message: WorkerMessage) -> [UInt8] {
        switch message {
        case let .hello(hello): return line("hello", hello)
        case let .ready(typists): return line("ready", Ready(typists: typists))
        case let .snapshot(snapshot): return line("snapshot", snapshot)
        case let .phaseDone(phase, snapshot): return line("phaseDone", PhaseDone(phase: phase, snapshot: snapshot))
        case let .done(record): return line("done", record)
        case let .error(message): return line("error", Failure(message: message))
        }
    }

    public static func encode(_ message: DriverMessage) -> [UInt8] {
        switch message {
        case let .start(phase, at): return line("start", Start(phase: phase, at: at))
        case let .stop(reason): return line("stop", Stop(reason: reason))
        }
    }

    private static func header(_ bytes: [UInt8]) throws(DecodeError) -> (Data, String) {
        let data = Data(bytes)
        guard let header = try? JSONDecoder().decode(Header.self, from: data) else {
            let text = String(decoding: bytes.prefix(60), as: UTF8.self)
            throw .notJSON(text + (bytes.count > 60 ? "…" : ""))
        }
        guard header.v == version else { throw .wrongVersion(header.v) }
        guard let type = header.type else { throw .unknownType(nil) }
        return (data, type)
    }

    private static func body<Value: Decodable>(_ type: String, _ data: Data, as: Value.Type) throws(DecodeError) -> Value {
        do {
            return try JSONDecoder().decode(Body<Value>.self, from: data).body
        } catch {
            throw .malformed(type: type, reason: "\(error)")
        }
    }

    public static func decodeWorkerMessage(_ bytes: [UInt8]) throws(DecodeError) -> WorkerMessage {
        let (data, type) = try header(bytes)
        switch type {
        case "hello": return .hello(try body(type, data, as: Hello.self))
        case "ready": return .ready(typists: try body(type, data, as: Ready.self).typists)
        case "snapshot": return .snapshot(try body(type, data, as: Snapshot.self))
        case "phaseDone":
            let done = try body(type, data, as: PhaseDone.self)
            return .phaseDone(phase: done.phase, snapshot: done.snapshot)
        case "done":
            let record = try body(type, data, as: RunRecord.self)
            guard record.schemaVersion == RunRecord.currentSchemaVersion else {
                throw .malformed(type: type, reason: "run record schema \(record.schemaVersion), expected \(RunRecord.currentSchemaVersion)")
            }
            return .done(record)
        case "error": return .error(try body(type, data, as: Failure.self).message)
        default: throw .unknownType(type)
        }
    }

    public static func decodeDriverMessage(_ bytes: [UInt8]) throws(DecodeError) -> DriverMessage {
        let (data, type) = try header(bytes)
        switch type {
        case "start":
            let start = try body(type, data, as: Start.self)
            return .start(phase: start.phase, atWallClockNanos: start.at)
        case "stop": return .stop(reason: try body(type, data, as: Stop.self).reason)
        default: throw .unknownType(type)
        }
    }
}
