import SearchField

/// Virtual time, as the fields of a virtual run see it: `now` is the run's time, and a sleep is a
/// wake-up in the run's agenda, resumed when every earlier event and runnable job is done.
/// Cancelling the sleeping task resumes it at once with `CancellationError`, as
/// `ContinuousClock` does.
public struct VirtualClock: Clock {
    /// A point in the run's virtual time.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Nanoseconds since the run started.
        public var nanoseconds: Int64

        /// The instant `nanoseconds` after the run started.
        public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
        public func advanced(by duration: Duration) -> Instant { Instant(nanoseconds: nanoseconds + duration.wholeNanoseconds) }
        public func duration(to other: Instant) -> Duration { .nanoseconds(other.nanoseconds - nanoseconds) }
        public static func < (a: Instant, b: Instant) -> Bool { a.nanoseconds < b.nanoseconds }
        public var description: String { "\(nanoseconds / 1_000_000) ms" }
    }

    /// Records this clock's sleeps as a typist's waits (nil: not recorded).
    let waits: (any WaitObserver)?

    /// The run's clock, its sleeps not recorded as waits.
    public init() { waits = nil }

    init(waits: any WaitObserver) { self.waits = waits }

    public var now: Instant { Instant(nanoseconds: VirtualScheduler.shared.session?.now ?? 0) }
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await sleep(untilNanoseconds: deadline.nanoseconds)
    }

    /// The sleep itself, on the caller's actor `isolation` (what `FieldClock` calls without a
    /// hop; the operation captures `isolation`, so it runs there too, and so does the resumption).
    func sleep(untilNanoseconds deadline: Int64, isolation: isolated (any Actor)? = #isolation) async throws {
        let sleeper = Sleeper(observer: waits)
        try await withTaskCancellationHandler {
            _ = isolation
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                VirtualScheduler.shared.sleep(sleeper, continuation, until: deadline)
            }
        } onCancel: {
            VirtualScheduler.shared.cancel(sleeper)
        }
    }
}
