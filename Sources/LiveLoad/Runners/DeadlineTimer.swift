import Dispatch
import Foundation
import TypestormMetrics
import TypestormSystem
import Locking

/// One thread that runs actions at monotonic-clock deadlines, from a min-heap.
///
/// A modelled backend needs several timed steps per request (arrival, end of service, answer,
/// timeout); a task sleeping per step would put thousands of sleepers on the cooperative pool that
/// also runs the typists, and each would wake as late as the pool allowed. One thread waiting for
/// the earliest deadline wakes once per due batch and keeps its own lateness: how long after its
/// deadline each action actually ran.
///
/// Actions run on the timer's thread in deadline order (ties in scheduling order) and must be
/// short: they change state and hand work elsewhere.
final class DeadlineTimer: Sendable {
    private struct Entry: DeadlineOrdered {
        var deadline: UInt64
        var sequence: UInt64
        var action: @Sendable () -> Void

        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
        }
    }

    private struct State {
        var heap = DeadlineHeap<Entry>()
        var sequence: UInt64 = 0
        var stopping = false
        var lateness = Histogram(.latency)
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)

    init(name: String) {
        let thread = Thread { [self] in self.loop() }
        thread.name = name
        thread.start()
    }

    /// Runs `action` on the timer's thread at `deadline` (monotonic ns), or at once if it passed.
    func schedule(at deadline: UInt64, _ action: @escaping @Sendable () -> Void) {
        let earliest = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            state.sequence += 1
            state.heap.push(Entry(deadline: deadline, sequence: state.sequence, action: action))
            return state.heap.first?.sequence == state.sequence
        }
        if earliest { wake.signal() }
    }

    /// How late the actions ran so far (ns after their deadlines).
    var lateness: Histogram {
        state.withLock { $0.lateness }
    }

    /// Stops the thread; actions not yet due never run. Waits for the thread to exit.
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        wake.signal()
        exited.wait()
    }

    private func loop() {
        var due: [(Entry, UInt64)] = []
        while true {
            let now = MonotonicClock.now()
            let (next, stopping) = state.withLock { state -> (UInt64?, Bool) in
                if state.stopping {
                    state.heap.removeAll()
                    return (nil, true)
                }
                while let top = state.heap.first, top.deadline <= now {
                    due.append((state.heap.popFirst(), now))
                }
                return (state.heap.first?.deadline, false)
            }
            if stopping { break }
            if !due.isEmpty {
                var late: [Int64] = []
                late.reserveCapacity(due.count)
                for (entry, _) in due {
                    late.append(Int64(MonotonicClock.now() &- entry.deadline))
                    entry.action()
                }
                due.removeAll(keepingCapacity: true)
                state.withLock { state in
                    for value in late { state.lateness.record(max(0, value)) }
                }
                continue
            }
            if let next {
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(min(next &- now, UInt64(Int.max)))))
            } else {
                wake.wait()
            }
        }
        exited.signal()
    }
}
