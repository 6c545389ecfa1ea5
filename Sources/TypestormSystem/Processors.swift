import Foundation

/// The cores this process may use: the one reading of the core count (the engine's parallel
/// parts, the sweep's parallelism, the machine in a run record's metadata).
package enum Processors {
    /// Foundation's count of active processors, which honours the process's CPU affinity; at least 1.
    package static let active = max(1, ProcessInfo.processInfo.activeProcessorCount)
}
