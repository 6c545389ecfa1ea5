import Foundation
import TypestormSystem

/// The hidden `.NAME.partial-PID` directories a run builds its run directory in: a driver
/// killed with SIGKILL cannot remove its own, so the next run in the same place does.
extension RunSession {
    /// A partial run directory left by a driver.
    package struct PartialDirectory: Sendable, Equatable {
        package var path: String
        /// The driver's process id, from the name.
        package var pid: Int32
    }

    /// The file in a partial run directory naming the host of its driver: on a file system
    /// shared by several machines, a process id means something only on its own host.
    static let driverHostFile = ".driver-host"

    static func markDriverHost(in directory: String) throws {
        try Data(HostInfo.current().hostname.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(driverHostFile))
    }

    /// The name of the directory a driver with `pid` builds `finalName` in.
    static func partialName(for finalName: String, pid: Int32) -> String {
        ".\(finalName).partial-\(pid)"
    }

    /// The partial run directories in `directory` whose driver process is gone.
    ///
    /// A directory whose process id is alive is left alone, even if that id was reused by an
    /// unrelated process: keeping a stale directory is harmless, removing a running one is not.
    /// So is one made by a driver on another host (its process cannot be checked from here).
    package static func stalePartialDirectories(in directory: String) -> [PartialDirectory] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let host = HostInfo.current().hostname
        return entries.sorted().compactMap { entry -> PartialDirectory? in
            guard entry.hasPrefix("."), let range = entry.range(of: ".partial-", options: .backwards),
                  let pid = Int32(entry[range.upperBound...]), pid > 0, pid != getpid() else { return nil }
            let path = URL(fileURLWithPath: directory).appendingPathComponent(entry).path
            if let data = FileManager.default.contents(atPath: path + "/" + driverHostFile),
               String(decoding: data, as: UTF8.self) != host { return nil }
            guard kill(pid, 0) != 0, errno == ESRCH else { return nil }
            return PartialDirectory(path: path, pid: pid)
        }
    }

    /// Removes the stale partial run directories in `directory`; returns one sentence per
    /// directory, removed or not, for the user.
    static func removeStalePartialDirectories(in directory: String) -> [String] {
        stalePartialDirectories(in: directory).map { stale in
            do {
                try FileManager.default.removeItem(atPath: stale.path)
                return "removed \(stale.path), left by a run (pid \(stale.pid)) that was killed before it finished"
            } catch {
                return "found \(stale.path), left by a run (pid \(stale.pid)) that was killed before it finished; it could not be removed (\(ErrorText.describe(error))), remove it by hand"
            }
        }
    }
}
