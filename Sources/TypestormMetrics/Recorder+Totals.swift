/// The recorder's running totals, as typed fields: the hot path adds to these, and
/// `metricSet()` names them once at the end.
struct Totals: Sendable {
    var timeline = Timeline()
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
    var fanOutPerSettle = Histogram(.counts)
    var displayChangesPerSettle = Histogram(.counts)
    var blinksPerSettle = Histogram(.counts)
    var timeToFresh = Histogram(.latency)
    var signalLatency = Histogram(.latency)
    var stopLatencyClient = Histogram(.latency)
    var stopLatencyBackend = Histogram(.latency)
    var requestLatency = Histogram(.latency)
    var queueTime = Histogram(.latency)
    var serviceTime = Histogram(.latency)
    var inFlight = Histogram(.counts)
    var scheduleLag = Histogram(.latency)
    var timerLateness = Histogram(.latency)
    var inputLag = Histogram(.latency)
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
            N.fanOutPerSettle: fanOutPerSettle, N.displayChangesPerSettle: displayChangesPerSettle,
            N.blinksPerSettle: blinksPerSettle, N.timeToFresh: timeToFresh, N.signalLatency: signalLatency,
            N.stopLatencyClient: stopLatencyClient, N.stopLatencyBackend: stopLatencyBackend,
            N.requestLatency: requestLatency, N.queueTime: queueTime, N.serviceTime: serviceTime,
            N.inFlight: inFlight, N.scheduleLag: scheduleLag, N.timerLateness: timerLateness, N.inputLag: inputLag,
        ]
        return MetricSet(counters: counters, maxima: maxima, histograms: histograms)
    }
}
