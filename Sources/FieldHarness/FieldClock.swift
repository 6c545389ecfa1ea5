import SearchField

/// The clock of a field's environment (`FieldEnvironment.clock`): the run's clock (virtual time
/// in a virtual run, real time in a live one), or the clock an environment of your own was made
/// with.
///
/// Its `sleep(for:)` and `sleep(until:)` run on the caller's actor (`nonisolated(nonsending)`):
/// a `@MainActor` model that sleeps on it stays on the main actor, with no hop to the global
/// executor and back. It is a `Clock`, so it can be passed wherever an `any Clock<Duration>` or
/// a generic clock is taken (there its sleeps are the protocol's, which do hop).
public struct FieldClock: Clock {
    /// A point in the clock's time.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// Time since the clock's origin: a run's start, or when a wrapped clock was wrapped.
        public var offset: Duration

        /// The instant `offset` after the clock's origin.
        public init(offset: Duration) { self.offset = offset }
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
        public var description: String { "\(offset)" }
    }

    /// The run's virtual clock, when the clock is one.
    let virtual: VirtualClock?
    /// A live run's clock, when the clock is one.
    let live: (any LiveSleeper)?
    /// Any other clock, wrapped.
    let wrapped: WrappedClock?

    /// `clock` as a field's clock: a `VirtualClock` sleeps in the run's virtual time, any other
    /// clock (`ContinuousClock` in a unit test or a preview) is used as it is.
    public init(_ clock: any Clock<Duration>) {
        if let field = clock as? FieldClock {
            self = field
        } else if let virtual = clock as? VirtualClock {
            self.virtual = virtual
            live = nil
            wrapped = nil
        } else {
            virtual = nil
            live = nil
            wrapped = WrappedClock(clock)
        }
    }

    init(virtual: VirtualClock) {
        self.virtual = virtual
        live = nil
        wrapped = nil
    }

    /// A live run's clock: its sleeps, like the virtual clock's, run on the caller's actor.
    package init(live: any LiveSleeper) {
        virtual = nil
        self.live = live
        wrapped = nil
    }

    public var now: Instant {
        if let virtual { return Instant(offset: .nanoseconds(virtual.now.nanoseconds)) }
        if let live { return Instant(offset: live.now) }
        return Instant(offset: wrapped!.now())
    }

    public var minimumResolution: Duration { virtual?.minimumResolution ?? live?.minimumResolution ?? wrapped!.minimumResolution }

    /// Sleeps until `deadline`; throws `CancellationError` at once when the task is cancelled.
    public nonisolated(nonsending) func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        if let virtual {
            try await virtual.sleep(untilNanoseconds: deadline.offset.wholeNanoseconds)
        } else if let live {
            try await live.sleep(until: deadline.offset)
        } else {
            try await wrapped!.sleepUntil(deadline.offset, tolerance)
        }
    }

    /// Sleeps for `duration`; throws `CancellationError` at once when the task is cancelled.
    public nonisolated(nonsending) func sleep(for duration: Duration, tolerance: Duration? = nil) async throws {
        if let virtual {
            try await virtual.sleep(untilNanoseconds: (VirtualScheduler.shared.session?.now ?? 0) + duration.wholeNanoseconds)
        } else if let live {
            try await live.sleep(until: live.now + duration)
        } else {
            try await wrapped!.sleepFor(duration, tolerance)
        }
    }
}

/// A live run's real-time clock behind a `FieldClock`: its sleeps run on the caller's actor, so
/// the end of a `@MainActor` field's sleep resumes it on the main actor directly, as a virtual
/// run's does (a wrapped clock's sleep hops to the global executor and back).
package protocol LiveSleeper: Sendable {
    /// Time since the run started.
    var now: Duration { get }
    var minimumResolution: Duration { get }
    /// Sleeps until `deadline` (time since the run started); throws `CancellationError` at once
    /// when the task is cancelled.
    nonisolated(nonsending) func sleep(until deadline: Duration) async throws
}

/// A clock other than the virtual one behind a `FieldClock`, its instants as durations since
/// it was wrapped.
final class WrappedClock: Sendable {
    let now: @Sendable () -> Duration
    let minimumResolution: Duration
    let sleepUntil: @Sendable (Duration, Duration?) async throws -> Void
    let sleepFor: @Sendable (Duration, Duration?) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        now = { origin.duration(to: clock.now) }
        minimumResolution = clock.minimumResolution
        sleepUntil = { offset, tolerance in try await clock.sleep(until: origin.advanced(by: offset), tolerance: tolerance) }
        sleepFor = { duration, tolerance in try await clock.sleep(for: duration, tolerance: tolerance) }
    }
}
