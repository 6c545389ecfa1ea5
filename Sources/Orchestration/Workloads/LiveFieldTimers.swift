import Dispatch
import Foundation
import Locking
import TypestormSystem

/// The sleeps of a live run's fields (on `env.clock` and `env.timerClock`), ended from one thread.
///
/// A sleep is filed by its deadline in a wheel and suspends its task on the caller's actor; the
/// thread wakes when the earliest sleep is due (at most every coalescing interval) and resumes
/// the tasks whose sleeps are over. Cancelling the task takes its sleep out of the wheel, and the
/// thread resumes it with `CancellationError` when it next wakes (at most the coalescing
/// interval later; `ContinuousClock` resumes it at once). `ContinuousClock` would cost a
/// Dispatch timer per sleep and two hops through the cooperative pool (to sleep there, and back
/// to the field's actor); a field that restarts its sleep on every key makes tens of thousands
/// of them a second.
final class LiveFieldTimers: Sendable {
    /// One sleep. Its mutable fields are read and written only under the timers' lock.
    final class Sleep: @unchecked Sendable {
        /// Run-time nanoseconds.
        let deadline: Int64
        var phase = Phase.starting
        var continuation: UnsafeContinuation<Void, any Error>?
        /// Where the wheel filed it (``SleepWheel``).
        var bucket: Int64 = 0
        var index = 0

        init(deadline: Int64) { self.deadline = deadline }
    }

    enum Phase {
        /// Made, its task not yet suspended.
        case starting
        /// Filed in the wheel, its task suspended on `continuation`.
        case waiting
        /// Its task was cancelled before it suspended: it resumes with `CancellationError` as it does.
        case cancelled
        /// Resumed.
        case ended
    }

    private struct State {
        var wheel = SleepWheel()
        /// When the thread wakes next (`.max`: when told); a sleep due earlier wakes it.
        var wakeAt: Int64 = .max
        /// The run is over: a sleep that starts now ends at once, cancelled, and the thread ends
        /// once the last sleep filed has ended.
        var closing = false
        /// Sleeps cancelled since the thread last woke, to resume with `CancellationError`.
        var cancelled: [UnsafeContinuation<Void, any Error>] = []
    }

    private let state = Locked(State())
    private let wake = DispatchSemaphore(value: 0)
    private let startNanos: UInt64
    private let coalescingNanos: Int64

    /// Timers on the run's clock (nanoseconds on the monotonic clock since `startNanos`), whose
    /// thread sleeps at least `coalescingNanos` between wake-ups (the sleeps due meanwhile end
    /// together, at most that late).
    init(startNanos: UInt64, coalescingNanos: Int64) {
        self.startNanos = startNanos
        self.coalescingNanos = max(0, coalescingNanos)
        let thread = Thread { [self] in loop() }
        thread.name = "typestorm-field-timers"
        thread.start()
    }

    /// Sleeps until `deadline` (run-time nanoseconds) on the caller's actor `isolation`, which the
    /// task resumes on; throws `CancellationError` at once when the task is cancelled.
    func sleep(until deadline: Int64, isolation: isolated (any Actor)? = #isolation) async throws {
        let sleep = Sleep(deadline: deadline)
        try await withTaskCancellationHandler {
            _ = isolation
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                start(sleep, continuation)
            }
        } onCancel: {
            cancel(sleep)
        }
    }

    private func now() -> Int64 { Int64(bitPattern: MonotonicClock.now() &- startNanos) }

    private func start(_ sleep: Sleep, _ continuation: UnsafeContinuation<Void, any Error>) {
        enum Next { case wait, signal, cancelled, due }
        let next = state.withLock { state -> Next in
            guard sleep.phase == .starting, !state.closing else {
                sleep.phase = .ended
                return .cancelled
            }
            if sleep.deadline <= now() {
                sleep.phase = .ended
                return .due
            }
            sleep.phase = .waiting
            sleep.continuation = continuation
            state.wheel.file(sleep)
            guard sleep.deadline < state.wakeAt else { return .wait }
            state.wakeAt = sleep.deadline
            return .signal
        }
        switch next {
        case .wait: break
        case .signal: wake.signal()
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .due: continuation.resume()
        }
    }

    /// Takes `sleep` out of the wheel; the thread resumes its task with `CancellationError` when
    /// it next wakes (at most the coalescing interval later), so the task that cancels (the
    /// main actor, typing) does not wake a pool thread for each sleep it cancels.
    private func cancel(_ sleep: Sleep) {
        let signal = state.withLock { state -> Bool in
            switch sleep.phase {
            case .starting:
                sleep.phase = .cancelled
                return false
            case .waiting:
                state.wheel.remove(sleep)
                sleep.phase = .ended
                state.cancelled.append(sleep.continuation!)
                sleep.continuation = nil
                let soon = now() + coalescingNanos
                guard state.wakeAt > soon else { return false }
                state.wakeAt = soon
                return true
            case .cancelled, .ended:
                return false
            }
        }
        if signal { wake.signal() }
    }

    /// The run is over: a sleep that starts from now on ends at once, cancelled, and the thread
    /// ends once the sleeps still filed have ended (at their deadlines, or cancelled).
    func close() {
        state.withLock { $0.closing = true }
        wake.signal()
    }

    private func loop() {
        var due: [UnsafeContinuation<Void, any Error>] = []
        var cancelled: [UnsafeContinuation<Void, any Error>] = []
        while true {
            let time = now()
            let (wakeAt, over) = state.withLock { state -> (Int64, Bool) in
                swap(&cancelled, &state.cancelled)
                state.wheel.takeDue(time) { sleep in
                    sleep.phase = .ended
                    due.append(sleep.continuation!)
                    sleep.continuation = nil
                }
                guard let next = state.wheel.earliest() else {
                    state.wakeAt = .max
                    return (.max, state.closing)
                }
                state.wakeAt = max(next, time + coalescingNanos)
                return (state.wakeAt, false)
            }
            for continuation in cancelled { continuation.resume(throwing: CancellationError()) }
            cancelled.removeAll(keepingCapacity: true)
            for continuation in due { continuation.resume() }
            due.removeAll(keepingCapacity: true)
            if over { return }
            if wakeAt == .max {
                wake.wait()
            } else {
                _ = wake.wait(timeout: .now() + .nanoseconds(Int(max(0, wakeAt - now()))))
            }
        }
    }
}

/// The filed sleeps by deadline: buckets of 2^18 ns (about 262 µs) over the next 4.3 s, and the
/// later ones in one unordered list brought into the wheel as their time nears.
///
/// A sleep knows its place (bucket and index), so a cancelled one leaves at once: a field that
/// restarts a 300 ms sleep on every key keeps only its live sleeps filed.
///
/// - Complexity: O(1) to file and to remove; taking what is due visits the entries of the
///   buckets that came due.
struct SleepWheel {
    private static var shift: Int64 { 18 }
    private static var bucketCount: Int64 { 16_384 }
    /// The bucket of a sleep in the far list, which is brought in when its earliest sleep is
    /// within half the wheel's span (so each of its sleeps is visited about twice before it is
    /// filed).
    private static var farBucket: Int64 { .min }

    private var buckets: [[LiveFieldTimers.Sleep]] = Array(repeating: [], count: Int(bucketCount))
    /// Every bucket before this one is empty.
    private var current: Int64?
    private var filed = 0
    private var far: [LiveFieldTimers.Sleep] = []
    private var farEarliest: Int64 = .max

    var isEmpty: Bool { filed == 0 && far.isEmpty }

    mutating func file(_ sleep: LiveFieldTimers.Sleep) {
        let bucket = sleep.deadline >> Self.shift
        let current = current ?? bucket
        self.current = current
        if bucket - current >= Self.bucketCount {
            sleep.bucket = Self.farBucket
            sleep.index = far.count
            far.append(sleep)
            farEarliest = min(farEarliest, sleep.deadline)
            return
        }
        let filedBucket = max(bucket, current)
        let slot = Int(filedBucket & (Self.bucketCount - 1))
        sleep.bucket = filedBucket
        sleep.index = buckets[slot].count
        buckets[slot].append(sleep)
        filed += 1
    }

    mutating func remove(_ sleep: LiveFieldTimers.Sleep) {
        if sleep.bucket == Self.farBucket {
            Self.remove(sleep, from: &far)
            if far.isEmpty { farEarliest = .max }
            return
        }
        Self.remove(sleep, from: &buckets[Int(sleep.bucket & (Self.bucketCount - 1))])
        filed -= 1
    }

    private static func remove(_ sleep: LiveFieldTimers.Sleep, from list: inout [LiveFieldTimers.Sleep]) {
        let last = list.removeLast()
        if last !== sleep {
            last.index = sleep.index
            list[sleep.index] = last
        }
    }

    /// Takes every sleep due at `now` out of the wheel, in no particular order, and gives it to
    /// `body`.
    mutating func takeDue(_ now: Int64, _ body: (LiveFieldTimers.Sleep) -> Void) {
        let nowBucket = now >> Self.shift
        if farEarliest <= now + (Self.bucketCount << Self.shift) / 2 { bringInFar(now) }
        guard var bucket = current else { return }
        if filed == 0 {
            current = max(bucket, nowBucket)
            return
        }
        while bucket <= nowBucket, filed > 0 {
            let slot = Int(bucket & (Self.bucketCount - 1))
            if buckets[slot].isEmpty {
                if bucket == nowBucket { break }
                bucket += 1
            } else if bucket < nowBucket {
                // Wholly past: all of it is due.
                let entries = buckets[slot]
                buckets[slot].removeAll(keepingCapacity: true)
                filed -= entries.count
                for sleep in entries { body(sleep) }
                bucket += 1
            } else {
                // The bucket `now` is in: what is due leaves, the rest stays.
                var index = 0
                while index < buckets[slot].count {
                    let sleep = buckets[slot][index]
                    if sleep.deadline <= now {
                        Self.remove(sleep, from: &buckets[slot])
                        filed -= 1
                        body(sleep)
                    } else {
                        index += 1
                    }
                }
                break
            }
        }
        current = max(bucket, filed == 0 ? nowBucket : bucket)
    }

    /// The earliest deadline filed, nil when none.
    func earliest() -> Int64? {
        guard let current, filed > 0 else { return farEarliest == .max ? nil : farEarliest }
        var bucket = current
        while bucket - current < Self.bucketCount {
            let entries = buckets[Int(bucket & (Self.bucketCount - 1))]
            if !entries.isEmpty {
                var earliest = Int64.max
                for sleep in entries { earliest = min(earliest, sleep.deadline) }
                return min(earliest, farEarliest)
            }
            bucket += 1
        }
        return farEarliest == .max ? nil : farEarliest
    }

    /// Files the far sleeps that the wheel now spans.
    private mutating func bringInFar(_ now: Int64) {
        let sleeps = far
        far = []
        farEarliest = .max
        if filed == 0 { current = now >> Self.shift }
        for sleep in sleeps { file(sleep) }
    }
}
