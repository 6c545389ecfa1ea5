import Foundation
import TypestormSystem
import Testing

@Suite("Child processes", .timeLimit(.minutes(5)))
struct ChildProcessTests {
    @Test func capturesOutputAndExitStatus() throws {
        let child = try ChildProcess.spawn(SpawnOptions(executable: "/bin/sh", arguments: ["-c", "printf 'a\\nb'; exit 3"], standardOutput: .pipe))
        var buffer = LineBuffer()
        var lines: [String] = []
        while true {
            let bytes = try PipeIO.readAvailable(child.standardOutput!)
            if bytes.isEmpty { break }
            lines += try buffer.append(bytes).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(lines == ["a"])
        #expect(String(decoding: buffer.remainder, as: UTF8.self) == "b")
        #expect(child.waitForExit(timeoutNanos: 5_000_000_000) == .exited(3))
    }

    @Test func terminateEscalatesToSIGKILL() throws {
        // The child ignores SIGTERM, so only SIGKILL ends it; it tells us when the trap is set.
        let child = try ChildProcess.spawn(SpawnOptions(
            executable: "/bin/sh", arguments: ["-c", "trap '' TERM; echo armed; while :; do :; done"], standardOutput: .pipe))
        _ = try PipeIO.readAvailable(child.standardOutput!)
        #expect(child.terminate(graceNanos: 100_000_000) == .signaled(SIGKILL))
        #expect(kill(child.pid, 0) == -1)
    }

    @Test func missingExecutableIsAnError() {
        #expect(throws: ProcessError.self) {
            try ChildProcess.spawn(SpawnOptions(executable: "/nonexistent/typestorm"))
        }
    }

    @Test func newProcessGroupIsLedByTheChild() throws {
        let child = try ChildProcess.spawn(SpawnOptions(executable: "/bin/sh", arguments: ["-c", "ps -o pgid= -p $$"], standardOutput: .pipe, processGroup: .new))
        var text = ""
        while true {
            let bytes = try PipeIO.readAvailable(child.standardOutput!)
            if bytes.isEmpty { break }
            text += String(decoding: bytes, as: UTF8.self)
        }
        #expect(child.waitForExit(timeoutNanos: 5_000_000_000) == .exited(0))
        #expect(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == child.pid)
    }
}
