extension Recorder {
    /// Counts one failed request under its cause, next to the coarse class the runner recorded
    /// with `workStopped` (the cause only refines it, so the classes still add up).
    public mutating func recordError(_ cause: ErrorCause, typist: Int, at time: Int64) {
        if time > totals.runEnd { totals.runEnd = time }
        totals.errorCauses[cause.key, default: 0] += 1
    }
}
