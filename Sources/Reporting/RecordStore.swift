import Foundation
import TypestormMetrics

/// Finds and reads run records on disk: a record file, a run directory holding one, or (for
/// `compare` with repeated runs) a directory of such runs.
package enum RecordStore {
    /// File names a run directory's record may have, in the order they are tried.
    package static let recordFileNames = ["record.json", "run-record.json", "result.json"]
    /// File names of the scenario copy a run directory may hold (shown in the report).
    package static let scenarioFileNames = ["scenario.json"]
    /// The report's file name inside a run directory.
    package static let reportFileName = "report.html"

    package struct Loaded: Sendable {
        package var record: RunRecord
        /// The record file.
        package var path: String
        /// The run directory, when the record was found in one.
        package var runDirectory: String?
    }

    package enum LoadError: Error, CustomStringConvertible, Equatable {
        /// Nothing readable at the path (maps to exit 66).
        case notFound(String)
        /// A file that is not a valid run record (maps to exit 65).
        case invalid(path: String, reason: String)

        package var description: String {
            switch self {
            case let .notFound(message): return message
            case let .invalid(path, reason): return "\(path): not a usable run record: \(reason)"
            }
        }
    }

    /// One record from a record file or a run directory.
    package static func load(_ path: String) throws(LoadError) -> Loaded {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound("\(path): no such file or directory")
        }
        if !isDirectory.boolValue { return try read(path, runDirectory: nil) }
        if let file = recordFile(in: path) { return try read(file, runDirectory: path) }
        throw .notFound("\(path): a run directory must hold one of \(recordFileNames.joined(separator: ", "))")
    }

    /// Several records: a record file or run directory gives one; any other directory gives
    /// every record file and run directory directly inside it, sorted by name.
    package static func loadMany(_ path: String) throws(LoadError) -> [Loaded] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound("\(path): no such file or directory")
        }
        if !isDirectory.boolValue || recordFile(in: path) != nil { return [try load(path)] }
        let entries = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
        var loaded: [Loaded] = []
        for entry in entries where !entry.hasPrefix(".") {
            let child = (path as NSString).appendingPathComponent(entry)
            var childIsDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: child, isDirectory: &childIsDirectory) else { continue }
            if childIsDirectory.boolValue {
                if let file = recordFile(in: child) { loaded.append(try read(file, runDirectory: child)) }
            } else if entry.hasSuffix(".json") {
                loaded.append(try read(child, runDirectory: nil))
            }
        }
        guard !loaded.isEmpty else {
            throw .notFound("\(path): no run records inside (looked for *.json files and run directories holding \(recordFileNames[0]))")
        }
        return loaded
    }

    /// The scenario text kept next to a record, if any.
    package static func scenarioText(runDirectory: String) -> String? {
        for name in scenarioFileNames {
            let file = (runDirectory as NSString).appendingPathComponent(name)
            if let data = FileManager.default.contents(atPath: file) { return String(decoding: data, as: UTF8.self) }
        }
        return nil
    }

    static func recordFile(in directory: String) -> String? {
        recordFileNames.map { (directory as NSString).appendingPathComponent($0) }.first { FileManager.default.fileExists(atPath: $0) }
    }

    private static func read(_ file: String, runDirectory: String?) throws(LoadError) -> Loaded {
        guard let data = FileManager.default.contents(atPath: file) else { throw .notFound("\(file): cannot be read") }
        do {
            return Loaded(record: try RunRecord.decode(data), path: file, runDirectory: runDirectory)
        } catch let error as DecodingError {
            throw .invalid(path: file, reason: describe(error))
        } catch {
            throw .invalid(path: file, reason: String(describing: error))
        }
    }

    /// A Swift type as a JSON reader would name it: "a number", not "Int64".
    static func expected(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is Int.Type, is Int64.Type, is Int32.Type, is UInt64.Type, is UInt32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        default:
            let name = String(describing: type)
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a \(name) value"
        }
    }

    /// A decoding error as "field a.b.c: reason".
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.isEmpty ? "top level" : keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty { return "not valid JSON" }
            return "\(path(context.codingPath)): \(context.underlyingError == nil ? context.debugDescription : "not a valid value")"
        case let .keyNotFound(key, context):
            return "\(path(context.codingPath + [key])): missing"
        case let .typeMismatch(type, context):
            return "\(path(context.codingPath)): expected \(expected(type))"
        case let .valueNotFound(type, context):
            return "\(path(context.codingPath)): expected \(expected(type)), found null"
        @unknown default:
            return String(describing: error)
        }
    }
}
