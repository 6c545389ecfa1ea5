import Foundation
import TypestormSystem
import TypestormMetrics

/// The machine a run happened on, for the record's metadata.
enum HostInfo {
    static func current() -> RunMetadata.Host {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, name.count - 1)
        var system = utsname()
        uname(&system)
        let sysname = withUnsafeBytes(of: &system.sysname) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let machine = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return RunMetadata.Host(
            hostname: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
            cores: Processors.active,
            memoryBytes: Int64(sysconf(Int32(_SC_PHYS_PAGES))) * Int64(sysconf(Int32(_SC_PAGESIZE))),
            os: "\(sysname) \(release) \(machine)")
    }

    /// The commit of the git checkout at or above `directory`, read from `.git` directly (no
    /// `git` process): `HEAD`, a loose ref, or `packed-refs`; worktrees (`.git` file) too.
    static func gitCommit(near directory: String) -> String? {
        var url = URL(fileURLWithPath: directory).standardizedFileURL
        let fm = FileManager.default
        for _ in 0..<12 {
            let dotGit = url.appendingPathComponent(".git")
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) {
                var gitDir = dotGit
                if !isDirectory.boolValue {
                    guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else { return nil }
                    let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
                    gitDir = path.hasPrefix("/") ? URL(fileURLWithPath: path) : url.appendingPathComponent(path)
                }
                return resolveHead(gitDir)
            }
            let parent = url.deletingLastPathComponent()
            if parent.path == url.path { break }
            url = parent
        }
        return nil
    }

    private static func resolveHead(_ gitDir: URL) -> String? {
        guard let head = try? String(contentsOf: gitDir.appendingPathComponent("HEAD"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        guard head.hasPrefix("ref: ") else { return head.count == 40 ? head : nil }
        let ref = String(head.dropFirst(5))
        // A worktree's refs live in the common directory.
        var directories = [gitDir]
        if let common = try? String(contentsOf: gitDir.appendingPathComponent("commondir"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines) {
            directories.append(common.hasPrefix("/") ? URL(fileURLWithPath: common) : gitDir.appendingPathComponent(common))
        }
        for directory in directories {
            if let loose = try? String(contentsOf: directory.appendingPathComponent(ref), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines), loose.count == 40 {
                return loose
            }
            if let packed = try? String(contentsOf: directory.appendingPathComponent("packed-refs"), encoding: .utf8) {
                for line in packed.split(separator: "\n") where line.hasSuffix(" " + ref) {
                    return String(line.prefix(40))
                }
            }
        }
        return nil
    }
}
