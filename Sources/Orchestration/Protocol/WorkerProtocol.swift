import Foundation
import TypestormMetrics

/// The messages between `typestorm run` and its `typestorm worker` processes: one JSON object
/// per line, `{"v": 2, "type": "...", ...}`, worker → driver on the worker's standard output,
/// driver → worker on its standard input.
///
/// Every message carries the protocol version, and a reader refuses any other version, so a
/// driver and a worker from different builds fail loudly instead of misreading each other.
package enum WorkerProtocol {
    /// 2: histogram counts travel packed (`Histogram.packedCountsKey`), which a version-1 reader
    /// cannot read.
    package static let version = 2

    /// Worker → driver.
    package enum WorkerMessage: Sendable, Equatable {
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

    package struct Hello: Sendable, Equatable, Codable {
        package var pid: Int32
        package var segment: Segment
        package var scenarioHash: String
        package var toolVersion: String
    }

    package struct Snapshot: Sendable, Equatable, Codable {
        package var sequence: Int
        /// The phase running (-1 before the first start).
        package var phase: Int
        /// Typists that arrived and have not left.
        package var typistsActive: Int
        /// Everything measured so far, all phases: cumulative, so the last one that arrived from
        /// a worker that then died is still a consistent (partial) result.
        package var groups: [MetricGroup]
    }

    /// Driver → worker.
    package enum DriverMessage: Sendable, Equatable {
        /// Start phase `phase` at this wall-clock instant (nanoseconds since 1970).
        case start(phase: Int, atWallClockNanos: Int64)
        /// Stop generating load, finish what is in flight, send `done`.
        case stop(reason: String)
    }

    package enum DecodeError: Error, Equatable, CustomStringConvertible {
        case notJSON(String)
        case wrongVersion(Int?)
        case unknownType(String?)
        case malformed(type: String, reason: String)

        package var description: String {
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

    /// The whole message in one decode (one parse of the line, which matters for snapshots).
    private struct Full<Value: Decodable>: Decodable {
        var v: Int?
        var type: String?
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
        // Histogram counts in their packed form: a fraction of the bytes, and one string to
        // decode instead of thousands of numbers (the driver decodes every snapshot).
        encoder.userInfo[Histogram.packedCountsKey] = true
        // Encoding our own value types cannot fail; a failure here is a programming error.
        let data = try! encoder.encode(Envelope(type: type, body: body))
        return Array(data) + [10]
    }

    package static func encode(_ message: WorkerMessage) -> [UInt8] {
        switch message {
        case let .hello(hello): return line("hello", hello)
        case let .ready(typists): return line("ready", Ready(typists: typists))
        case let .snapshot(snapshot): return line("snapshot", snapshot)
        case let .phaseDone(phase, snapshot): return line("phaseDone", PhaseDone(phase: phase, snapshot: snapshot))
        case let .done(record): return line("done", record)
        case let .error(message): return line("error", Failure(message: message))
        }
    }

    package static func encode(_ message: DriverMessage) -> [UInt8] {
        switch message {
        case let .start(phase, at): return line("start", Start(phase: phase, at: at))
        case let .stop(reason): return line("stop", Stop(reason: reason))
        }
    }

    /// The message type, read from the bytes without parsing the line (`"type":"…"`), so the
    /// body is decoded in a single pass; `nil` when it is not there (then `header` explains).
    private static func typeHint(_ bytes: [UInt8]) -> String? {
        let marker = Array(#""type":""#.utf8)
        guard bytes.count > marker.count else { return nil }
        var index = bytes.count - marker.count
        while index >= 0 {
            if bytes[index] == marker[0], bytes[index..<index + marker.count].elementsEqual(marker) {
                let start = index + marker.count
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return String(decoding: bytes[start..<end], as: UTF8.self)
            }
            index -= 1
        }
        return nil
    }

    /// Why a line is not a message of this protocol, from a full look at its header.
    private static func headerError(_ bytes: [UInt8]) -> DecodeError {
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(bytes)) else {
            let text = String(decoding: bytes.prefix(60), as: UTF8.self)
            return .notJSON(text + (bytes.count > 60 ? "…" : ""))
        }
        guard header.v == version else { return .wrongVersion(header.v) }
        return .unknownType(header.type)
    }

    private static func header(_ bytes: [UInt8]) throws(DecodeError) -> String {
        guard let type = typeHint(bytes) else { throw headerError(bytes) }
        return type
    }

    private static func body<Value: Decodable>(_ type: String, _ bytes: [UInt8], as: Value.Type) throws(DecodeError) -> Value {
        let full: Full<Value>
        do {
            full = try JSONDecoder().decode(Full<Value>.self, from: Data(bytes))
        } catch {
            // Not even a header: garbage, another version, or a genuinely malformed body.
            let headerProblem = headerError(bytes)
            if case .unknownType = headerProblem { throw .malformed(type: type, reason: "\(error)") }
            throw headerProblem
        }
        guard full.v == version else { throw .wrongVersion(full.v) }
        guard full.type == type else { throw .unknownType(full.type) }
        return full.body
    }

    private static func unknownOrHeader(_ bytes: [UInt8], _ type: String) -> DecodeError {
        let problem = headerError(bytes)
        if case .unknownType = problem { return .unknownType(type) }
        return problem
    }

    package static func decodeWorkerMessage(_ bytes: [UInt8]) throws(DecodeError) -> WorkerMessage {
        let type = try header(bytes)
        switch type {
        case "hello": return .hello(try body(type, bytes, as: Hello.self))
        case "ready": return .ready(typists: try body(type, bytes, as: Ready.self).typists)
        case "snapshot": return .snapshot(try body(type, bytes, as: Snapshot.self))
        case "phaseDone":
            let done = try body(type, bytes, as: PhaseDone.self)
            return .phaseDone(phase: done.phase, snapshot: done.snapshot)
        case "done":
            let record = try body(type, bytes, as: RunRecord.self)
            guard record.schemaVersion == RunRecord.currentSchemaVersion else {
                throw .malformed(type: type, reason: "run record schema \(record.schemaVersion), expected \(RunRecord.currentSchemaVersion)")
            }
            return .done(record)
        case "error": return .error(try body(type, bytes, as: Failure.self).message)
        default: throw unknownOrHeader(bytes, type)
        }
    }

    package static func decodeDriverMessage(_ bytes: [UInt8]) throws(DecodeError) -> DriverMessage {
        let type = try header(bytes)
        switch type {
        case "start":
            let start = try body(type, bytes, as: Start.self)
            return .start(phase: start.phase, atWallClockNanos: start.at)
        case "stop": return .stop(reason: try body(type, bytes, as: Stop.self).reason)
        default: throw unknownOrHeader(bytes, type)
        }
    }
}
