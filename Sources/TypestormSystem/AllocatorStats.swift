#if !TYPESTORM_NO_JEMALLOC
import CJemalloc
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which allocator serves this process's `malloc`.
package enum AllocatorKind: String, Sendable, Codable {
    case jemalloc
    case system
}

/// jemalloc's view of this process's heap (docs/metrics.md, "Requests and load"), read with `mallctl`.
///
/// - `allocated`: bytes the program holds in live allocations;
/// - `active`: bytes in pages holding live allocations (allocated plus fragmentation);
/// - `resident`: bytes jemalloc keeps physically resident, metadata and cached pages included.
package struct AllocatorStats: Sendable, Equatable, Codable {
    package var allocator: AllocatorKind
    package var allocatedBytes: UInt64
    package var activeBytes: UInt64
    package var residentBytes: UInt64

    /// The current stats, or `nil` when jemalloc does not serve `malloc` (system allocator run):
    /// its counters would then describe only jemalloc's own idle arena, not the program.
    package static func current() -> AllocatorStats? {
        guard Allocator.current == .jemalloc else { return nil }
        #if TYPESTORM_NO_JEMALLOC
        return nil
        #else
        func read(_ name: String) -> UInt64? {
            var value = 0
            return CJemalloc_read_size(name, &value) == 0 ? UInt64(value) : nil
        }
        guard let allocated = read("stats.allocated"), let active = read("stats.active"),
              let resident = read("stats.resident") else { return nil }
        return AllocatorStats(allocator: .jemalloc, allocatedBytes: allocated, activeBytes: active, residentBytes: resident)
        #endif
    }
}

/// The allocator switch: jemalloc is linked into every executable; `TYPESTORM_ALLOCATOR=system`
/// runs the same binary on glibc's malloc for comparison.
///
/// The executable lists libjemalloc before libc, so the dynamic linker binds `malloc` to
/// jemalloc. Preloading libc (`LD_PRELOAD=libc.so.6`) moves glibc to the front of the lookup
/// order and every `malloc`/`free` binds there instead, with no second build. The variable must
/// be set before the process starts, so `applySelectionFromEnvironment` re-executes the process
/// once with it; `mallctl` still resolves to jemalloc, which then reports itself inactive.
package enum Allocator {
    /// The environment variable that selects the allocator: `jemalloc` (default) or `system`.
    package static let environmentVariable = "TYPESTORM_ALLOCATOR"
    static let reexecMarker = "TYPESTORM_ALLOCATOR_REEXEC"

    /// The allocator that actually serves `malloc` in this process (probed once).
    /// A build without jemalloc (`TYPESTORM_JEMALLOC=0`) always runs on the system allocator.
    package static let current: AllocatorKind = {
        #if TYPESTORM_NO_JEMALLOC
        return .system
        #else
        return CJemalloc_serves_malloc() != 0 ? .jemalloc : .system
        #endif
    }()

    /// An error in the allocator selection, e.g. an unknown value of `TYPESTORM_ALLOCATOR`.
    package struct SelectionError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The allocator the environment asks for; throws for an unknown value.
    package static func requested(environment: [String: String]) throws(SelectionError) -> AllocatorKind {
        guard let raw = environment[environmentVariable], !raw.isEmpty else { return .jemalloc }
        guard let kind = AllocatorKind(rawValue: raw.lowercased()) else {
            throw SelectionError(description: "\(environmentVariable)=\(raw) is not an allocator; use 'jemalloc' or 'system'")
        }
        return kind
    }

    /// Call first thing in `main`, before any thread starts: if the system allocator is requested
    /// and jemalloc is serving `malloc`, re-executes this program with libc preloaded. Returns
    /// normally when nothing needs to change; throws if the selection is invalid or the re-exec
    /// failed (the process then still runs on jemalloc).
    package static func applySelectionFromEnvironment() throws {
        let environment = currentEnvironment()
        let wanted = try requested(environment: environment)
        guard wanted == .system, current == .jemalloc else { return }
        if environment[reexecMarker] != nil {
            throw SelectionError(description: "\(environmentVariable)=system: preloading libc.so.6 did not replace jemalloc")
        }
        let preload = ["libc.so.6", environment["LD_PRELOAD"]].compactMap { $0 }.filter { !$0.isEmpty }
        setenv("LD_PRELOAD", preload.joined(separator: " "), 1)
        setenv(reexecMarker, "1", 1)
        let arguments = CommandLine.arguments
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv("/proc/self/exe", &argv)
        let code = errno
        for pointer in argv { free(pointer) }
        throw SystemError(call: "execv(/proc/self/exe)", errno: code)
    }

    static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            cursor += 1
        }
        return result
    }
}
