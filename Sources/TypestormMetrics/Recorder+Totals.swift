/// The recorder's running totals, as typed fields: the hot path adds to these, and
/// `metricSet()` names them once at the end.
struct Totals: Sendable {
    var timeline = TimelineRecording()
    var examples = FlawExampleBuffer()
    var keystrokes: Int64 = 0
    var submits: Int64 = 0
    var settles: Int64 = 0
    var commits: Int64 = 0
    var cachedCommits: Int64 = 0
    var distinctCommits: Int64 = 0
    var requestsStarted: Int64 = 0
    var requestsCompleted: Int64 = 0
    var requestsCancelled: Int64 = 0
    var cancelsObserved: Int64 = 0
    var serverErrors: Int64 = 0
    var timeouts: Int64 = 0
    var transportErrors: Int64 = 0
    var unfinishedRequests: Int64 = 0
    var discards: Int64 = 0
    var waits: Int64 = 0
    var taskChurn: Int64 = 0
    var cancelsWhileCurrent: Int64 = 0
    var applies: Int64 = 0
    var outOfOrderApplies: Int64 = 0
    var staleSettles: Int64 = 0
    var neverFresh: Int64 = 0
    var alreadyFreshSettles: Int64 = 0
    var mismatchNs: Int64 = 0
    var sessionStartSum: Int64 = 0
    var sessionEndSum: Int64 = 0
    var serviceNanos: Int64 = 0
    var wastedServiceNs: Int64 = 0
    var clientNs: Int64 = 0
    var wastedClientNs: Int64 = 0
    var itemsScanned: Int64 = 0
    var wastedItems: Int64 = 0
    var wastedRequests: Int64 = 0
    var displayChanges: Int64 = 0
    var blinks: Int64 = 0
    var falseEmpties: Int64 = 0
    var answersWithoutCount: Int64 = 0
    var writeBackChanges: Int64 = 0
    var writeBackReentries: Int64 = 0
    var writeBackRunaways: Int64 = 0
    var compositionBreaks: Int64 = 0
    /// The process figures: `nil` until a live runner records them (`recordProcess`).
    var cpuNanos: Int64?
    var allocatedBytes: Int64?
    var runEnd: Int64 = 0
    var maxInFlight: Int64 = 0
    var peakRSS: Int64?
    var fanOutPerSettle = CountingHistogram(.counts)
    var displayChangesPerSettle = CountingHistogram(.counts)
    var blinksPerSettle = CountingHistogram(.counts)
    var timeToFresh = CountingHistogram(.latency)
    var signalLatency = CountingHistogram(.latency)
    var stopLatencyClient = CountingHistogram(.latency)
    var stopLatencyBackend = CountingHistogram(.latency)
    var requestLatency = CountingHistogram(.latency)
    var queueTime = CountingHistogram(.latency)
    var serviceTime = CountingHistogram(.latency)
    var inFlight = CountingHistogram(.counts)
    var scheduleLag = CountingHistogram(.latency)
    var timerLateness = CountingHistogram(.latency)
    var inputLag = CountingHistogram(.latency)
    /// Failed requests by cause (`ErrorCause.key`), for the breakdown in reports.
    var errorCauses: [String: Int64] = [:]

    func metricSet() -> MetricSet {
        typealias N = MetricName
        var counters: [String: Int64] = [
            N.keystrokes: keystrokes, N.submits: submits, N.settles: settles, N.commits: commits,
            N.cachedCommits: cachedCommits, N.distinctCommits: distinctCommits,
            N.requestsStarted: requestsStarted, N.requestsCompleted: requestsCompleted,
            N.requestsCancelled: requestsCancelled, N.cancelsObserved: cancelsObserved,
            N.serverErrors: serverErrors, N.timeouts: timeouts,
            N.transportErrors: transportErrors, N.unfinishedRequests: unfinishedRequests, N.discards: discards,
            N.debounceWaits: waits, N.taskChurn: taskChurn, N.cancelsWhileCurrent: cancelsWhileCurrent,
            N.applies: applies, N.outOfOrderApplies: outOfOrderApplies, N.staleSettles: staleSettles,
            N.neverFresh: neverFresh, N.alreadyFreshSettles: alreadyFreshSettles, N.mismatchNs: mismatchNs, N.sessionNs: sessionEndSum - sessionStartSum,
            N.serviceNs: serviceNanos, N.wastedServiceNs: wastedServiceNs, N.clientNs: clientNs,
            N.wastedClientNs: wastedClientNs, N.itemsScanned: itemsScanned, N.wastedItems: wastedItems,
            N.wastedRequests: wastedRequests, N.displayChanges: displayChanges, N.blinks: blinks,
            N.falseEmpties: falseEmpties, N.writeBackChanges: writeBackChanges,
            N.writeBackReentries: writeBackReentries, N.writeBackRunaways: writeBackRunaways,
            N.compositionBreaks: compositionBreaks,
        ]
        if let cpuNanos { counters[N.cpuNs] = cpuNanos }
        if let allocatedBytes { counters[N.allocatedBytes] = allocatedBytes }
        for (key, count) in errorCauses { counters[N.errorCausePrefix + key] = count }
        if answersWithoutCount > 0 {
            counters[N.answersWithoutCount] = answersWithoutCount
            counters[N.falseEmpties] = nil
        }
        var maxima: [String: Int64] = [N.runEndNs: runEnd, N.maxInFlight: maxInFlight]
        if let peakRSS { maxima[N.peakRSS] = peakRSS }
        timeline.write(into: &counters, maxima: &maxima)
        let histograms: [String: Histogram] = [
            N.fanOutPerSettle: fanOutPerSettle.histogram, N.displayChangesPerSettle: displayChangesPerSettle.histogram,
            N.blinksPerSettle: blinksPerSettle.histogram, N.timeToFresh: timeToFresh.histogram,
            N.signalLatency: signalLatency.histogram, N.stopLatencyClient: stopLatencyClient.histogram,
            N.stopLatencyBackend: stopLatencyBackend.histogram, N.requestLatency: requestLatency.histogram,
            N.queueTime: queueTime.histogram, N.serviceTime: serviceTime.histogram, N.inFlight: inFlight.histogram,
            N.scheduleLag: scheduleLag.histogram, N.timerLateness: timerLateness.histogram, N.inputLag: inputLag.histogram,
        ]
        return MetricSet(counters: counters, maxima: maxima, histograms: histograms)
    }
}

/// A histogram the recorder records into, with its smallest values counted apart: values of 0
/// or less (which a histogram records as 0), and 1 to 7, each in a counter of its own.
///
/// In virtual time most lags and latencies are exactly 0 (no input lag, no timer lateness, no
/// schedule lag, no queue), most searches blink 0 times and fan out to one or two requests, and a
/// typist has a request or two in flight: counting one is an add, where `Histogram.record` finds
/// a slot and updates four figures. `histogram` adds the counters with
/// `Histogram.record(_:count:)`, which gives exactly the histogram of recording them one by one.
///
/// - Complexity: `record` O(1); `histogram` O(1) plus a copy of the histogram.
struct CountingHistogram: Sendable {
    private var others: Histogram
    private var zeros: Int64 = 0
    /// The counts of the values 1 to 7, at their value's index (index 0 unused), in place.
    private var small: (Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64) = (0, 0, 0, 0, 0, 0, 0, 0)

    init(_ configuration: Histogram.Configuration) {
        others = Histogram(configuration)
    }

    @inline(__always)
    mutating func record(_ value: Int64) {
        if value <= 0 {
            zeros &+= 1
        } else if value < 8 {
            withUnsafeMutableBytes(of: &small) { counts in
                let offset = Int(truncatingIfNeeded: value) &* 8
                counts.storeBytes(of: counts.load(fromByteOffset: offset, as: Int64.self) &+ 1, toByteOffset: offset, as: Int64.self)
            }
        } else {
            others.record(value)
        }
    }

    /// Everything recorded, as one histogram.
    var histogram: Histogram {
        var all = others
        all.record(0, count: zeros)
        withUnsafeBytes(of: small) { counts in
            for value in 1..<8 {
                all.record(Int64(value), count: counts.load(fromByteOffset: value * 8, as: Int64.self))
            }
        }
        return all
    }
}
