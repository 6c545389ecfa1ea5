import FieldRuntime
import Foundation
import TypestormMetrics
import SearchField
import Testing
import Typists
@testable import Simulation

private func ms(_ value: Int64) -> Int64 { value * 1_000_000 }

private func edits(_ word: String, from start: Int64 = 0, every: Int64 = 100, prefix: String = "") -> [TypingEvent] {
    var text = prefix
    return word.enumerated().map { index, character in
        text.append(character)
        return TypingEvent(at: ms(start + Int64(index) * every), action: .edit(key: String(character), text: text))
    }
}

@Suite("Virtual-time simulator", .timeLimit(.minutes(5)))
struct SimulationTests {
    static let scenario = SimulationPlan(
        typists: 20, seed: 7,
        strategies: Preset.allCases.map { StrategySpec(preset: $0) } + [StrategySpec.parse("split-state-seed+write-back")!],
        backend: BackendModel(typistsPerServer: 5)
    )

    /// The Typists module's typists (desktop and mobile, English, two queries each) over a few
    /// product phrases, seeded like `scenario`: what the virtual runner types, without the
    /// shipped query lists.
    static func typists(seed: UInt64) throws -> TypistPopulation {
        var config = TypistConfig()
        config.maxQueriesPerSession = 2
        let phrases = ["red wool sweater", "rain jacket", "trail shoes", "backpack", "wool socks", "sun hat"].map { QueryPool.Entry($0) }
        return try TypistPopulation(config: config, queries: QueryPool(phrases: [.en: phrases]), seed: seed)
    }

    /// `Simulation.run` over `typists(seed:)`.
    static func run(_ scenario: SimulationPlan, segment: Segment = Segment(index: 0, count: 1)) throws -> RunRecord {
        let population = try typists(seed: scenario.seed)
        return Simulation.run(scenario, segment: segment, toolVersion: "test", sessions: { $0.map(population.session(forTypist:)) })
    }

    @Test("the same scenario and seed give byte-identical run records")
    func deterministic() throws {
        let first = try Self.run(Self.scenario).encoded()
        let second = try Self.run(Self.scenario).encoded()
        #expect(first == second)
        var other = Self.scenario
        other.seed = 8
        #expect(try Self.run(other).encoded() != first)
    }

    @Test("segments i/N merged equal the unsharded run", arguments: [2, 3, 4])
    func shards(count: Int) throws {
        let whole = try Self.run(Self.scenario)
        var merged: RunRecord?
        for index in 0..<count {
            let part = try Self.run(Self.scenario, segment: Segment(index: index, count: count))
            if merged == nil { merged = part } else { try merged!.merge(part) }
        }
        let result = try #require(merged)
        #expect(result.coversAllSegments)
        #expect(result.groups == whole.groups)
        #expect(result.groups.count == Self.scenario.strategies.count)
    }

    @Test("segments are whole server cells")
    func segmentRanges() {
        #expect(Simulation.typistRange(of: Segment(index: 0, count: 3), typists: 40, typistsPerServer: 10) == 0..<10)
        #expect(Simulation.typistRange(of: Segment(index: 1, count: 3), typists: 40, typistsPerServer: 10) == 10..<20)
        #expect(Simulation.typistRange(of: Segment(index: 2, count: 3), typists: 40, typistsPerServer: 10) == 20..<40)
        #expect(Simulation.typistRange(of: Segment(index: 1, count: 2), typists: 35, typistsPerServer: 10) == 20..<35)
    }

    @Test("overload shows as queueing, rising latency and more stale screens for fan-out strategies")
    func overload() throws {
        func run(workers: Int, _ preset: Preset) throws -> MetricSet {
            var scenario = Self.scenario
            scenario.typists = 50
            scenario.strategies = [StrategySpec(preset: preset)]
            scenario.backend = BackendModel(
                roundTrip: .constant(ms(20)), workers: workers, typistsPerServer: 50,
                service: .distribution(.logNormal(median: ms(25), sigma: 0.2)), slowTailProbability: 0, errorRate: 0)
            return try Self.run(scenario).groups[0].metrics
        }
        let ample = try run(workers: 64, .naive), starved = try run(workers: 2, .naive)
        let queueAmple = try #require(ample.histograms[MetricName.queueTime]?.mean)
        let queueStarved = try #require(starved.histograms[MetricName.queueTime]?.mean)
        #expect(queueStarved > 10 * max(queueAmple, 1_000))
        let latencyAmple = try #require(ample.histograms[MetricName.requestLatency]?.percentile(90))
        let latencyStarved = try #require(starved.histograms[MetricName.requestLatency]?.percentile(90))
        #expect(latencyStarved > 2 * latencyAmple)
        // More stale results: the screen shows answers to an older query for far longer, and
        // fresh results come much later. (Stale *settles* need a queue longer than the settle
        // interval, which 50 typists reach only by chance; they must at least not fall.)
        #expect(starved.counter(MetricName.mismatchNs) > 10 * ample.counter(MetricName.mismatchNs))
        let freshAmple = try #require(ample.histograms[MetricName.timeToFresh]?.percentile(90))
        let freshStarved = try #require(starved.histograms[MetricName.timeToFresh]?.percentile(90))
        #expect(freshStarved > 5 * freshAmple)
        #expect(starved.counter(MetricName.staleSettles) >= ample.counter(MetricName.staleSettles))
        // The debounced strategy offers less load for the same typing: naive sends a request
        // per keystroke; split-state only when the typist pauses longer than its debounce, which
        // human typists (intervals spread log-normally around 240–330 ms, hesitations, looks at
        // the suggestions) still do between about half of their keys. At least a third fewer.
        let split = try run(workers: 2, .splitState)
        #expect(split.counter(MetricName.requestsStarted) * 3 < starved.counter(MetricName.requestsStarted) * 2)
        #expect(split.counter(MetricName.keystrokes) == starved.counter(MetricName.keystrokes))
    }

    @Test("replaying the \"sw\" trace through naive reproduces the out-of-order overwrite")
    func replayNaive() {
        var timeline: [String] = []
        let recorder = Simulation.replay(
            edits("sweater") + [TypingEvent(at: ms(3000), action: .end)], strategy: NaiveField(),
            backend: .scripted(["sw": ms(900)], default: ms(100)), seed: 1
        ) { time, entry in
            if case let .effect(.display(state)) = entry { timeline.append("\(time / 1_000_000) \(state)") }
        }
        let metrics = recorder.metrics()
        #expect(metrics.counter(MetricName.outOfOrderApplies) == 1)
        #expect(metrics.counter(MetricName.staleSettles) == 1)
        #expect(metrics.counter(MetricName.requestsStarted) == 7)
        #expect(timeline.last == "1000 results(\"sw\" #2)")
    }

    @Test("cancellation modes: honoured flashes split-state-seed's false empty; ignored wastes the backend")
    func cancellationModes() {
        let trace = edits("swe") + edits("ater", from: 700, prefix: "swe") + [TypingEvent(at: ms(4000), action: .end)]
        let honoured = Simulation.replay(trace, strategy: SplitStateSeedField(),
                                         backend: .scripted([:], default: ms(300), cancellation: .honoured(delay: ms(20))), seed: 1).metrics()
        #expect(honoured.counter(MetricName.falseEmpties) == 1)
        #expect(honoured.counter(MetricName.cancelsObserved) == 1)
        #expect(honoured.histograms[MetricName.stopLatencyBackend]?.max == ms(20))
        #expect(honoured.counter(MetricName.wastedServiceNs) == ms(200) + ms(20))
        let clientOnly = Simulation.replay(trace, strategy: SplitStateSeedField(),
                                           backend: .scripted([:], default: ms(300), cancellation: .clientOnly), seed: 1).metrics()
        #expect(clientOnly.counter(MetricName.wastedServiceNs) == ms(300))
        #expect(clientOnly.histograms[MetricName.stopLatencyBackend]?.max == ms(100))
    }

    @Test("local-filter blocks the UI thread: keystrokes wait behind the filter")
    func localFilterBlocks() {
        var backend = BackendModel.scripted([:], default: 0)
        backend.scriptedNanos = [:]
        backend.scriptedDefaultNanos = nil
        backend.localCatalogItems = 1_000_000
        backend.localNanosPerItem = 300
        let trace = edits("ab", every: 50) + [TypingEvent(at: ms(3000), action: .end)]
        var keystrokeTimes: [Int64] = []
        let metrics = Simulation.replay(trace, strategy: LocalFilterField(), backend: backend, seed: 1) { time, entry in
            if case .typing = entry { keystrokeTimes.append(time / 1_000_000) }
        }.metrics()
        #expect(keystrokeTimes == [0, 300, 3000])
        #expect(metrics.histograms[MetricName.inputLag]?.max == ms(250))
        #expect(metrics.counter(MetricName.serviceNs) == ms(600))
    }

    @Test("typists from any TypistSession plug in: the run uses exactly their keystrokes")
    func customSessions() throws {
        var scenario = Self.scenario
        scenario.strategies = [StrategySpec(preset: .naive)]
        let record = Simulation.run(scenario, toolVersion: "test", sessions: { range in
            range.map { index in TraceSession(events: edits(index % 2 == 0 ? "ab" : "abc") + [TypingEvent(at: ms(5000), action: .end)]) }
        })
        let metrics = try #require(record.groups.first?.metrics)
        #expect(metrics.counter(MetricName.keystrokes) == 10 * 2 + 10 * 3)
        #expect(metrics.counter(MetricName.requestsStarted) == 50)
        #expect(metrics.counter(MetricName.settles) == 20)
    }

    @Test("the cost model turns items scanned at a calibrated rate into service time")
    func costModel() {
        var model = CostModel(catalogItems: 1_000_000, nanosPerItem: 1, fixedNanos: 0, jitter: 0)
        model.fitThroughput(itemsPerSecond: 2e8)
        #expect(model.nanosPerItem == 5)
        #expect(model.itemsScanned(queryLength: 2) == 1_000_000)
        #expect(model.itemsScanned(queryLength: 4) == 250_000)
        #expect(model.itemsScanned(queryLength: 30) == 10_000)
        let backend = BackendModel(service: .cost(model), slowTailProbability: 0)
        var rng = SeededGenerator(seed: 1)
        let (ns, items) = backend.serviceTime(queryLength: 4, &rng)
        #expect(items == 250_000)
        #expect(ns == 1_250_000)
    }

    @Test("a strategy passed as an existential runs exactly like its spec", arguments: ["split-state", "naive+write-back"])
    func existentialStrategy(name: String) throws {
        let spec = try #require(StrategySpec.parse(name))
        let population = try Self.typists(seed: Self.scenario.seed)
        let sessions = { (range: Range<Int>) in range.map(population.session(forTypist:)) }
        let viaExistential = Simulation.runStrategy(spec.preset.make(spec.configuration), scenario: Self.scenario, typists: 0..<10,
                                                    sessions: sessions)
        let viaSpec = Simulation.runStrategyCounting(spec, scenario: Self.scenario, typists: 0..<10, sessions: sessions).recorder
        #expect(viaExistential.metrics() == viaSpec.metrics())
        #expect(viaSpec.metrics().counter(MetricName.keystrokes) > 0)
    }

    /// A session the Simulation module does not know: it forces the generic entry points.
    struct Forwarding<Base: TypistSession>: TypistSession {
        var base: Base
        mutating func next() -> TypingEvent? { base.next() }
    }

    @Test("the population's sessions run the same through the specialised entry points as through the generic ones")
    func specialisedEntryPoints() throws {
        let population = try Self.typists(seed: Self.scenario.seed)
        let limit = ms(4_000)
        let cut = { (range: Range<Int>) in range.map { DeadlineSession(base: population.session(forTypist: $0), limit: limit) } }
        let forwarded = { (range: Range<Int>) in cut(range).map { Forwarding(base: $0) } }
        let uncut = { (range: Range<Int>) in range.map { Forwarding(base: population.session(forTypist: $0)) } }
        for spec in Self.scenario.strategies {
            let fast = Simulation.runStrategyCounting(spec, scenario: Self.scenario, typists: 0..<10, sessions: cut)
            let generic = Simulation.runStrategyCounting(spec, scenario: Self.scenario, typists: 0..<10, sessions: forwarded)
            #expect(fast.recorder.metrics() == generic.recorder.metrics(), "\(spec.name)")
            #expect(fast.events == generic.events, "\(spec.name)")
            let whole = Simulation.runStrategyCounting(spec, scenario: Self.scenario, typists: 0..<10, sessions: uncut).recorder
            #expect(fast.recorder.metrics().counter(MetricName.keystrokes) < whole.metrics().counter(MetricName.keystrokes), "\(spec.name): the limit cuts")
        }
        let fastRecord = Simulation.run(Self.scenario, toolVersion: "test", sessions: cut)
        let genericRecord = Simulation.run(Self.scenario, toolVersion: "test", sessions: forwarded)
        #expect(fastRecord == genericRecord)
    }

    @Test("the event queue orders by time, then by insertion")
    func eventQueue() {
        let queue = EventQueue()
        let times: [Int64] = [5, 3, 9, 3, 1, 5, 5, 0]
        for (index, time) in times.enumerated() { queue.push(time, .timer, typist: Int32(index)) }
        var order: [Int32] = []
        while let event = queue.pop() { order.append(event.typist) }
        #expect(order == [7, 4, 1, 3, 0, 5, 6, 2])
    }

    @Test("the timing wheel pops exactly the heap's order, across its horizon and after emptying")
    func eventQueueMatchesHeap() {
        var rng = SeededGenerator(seed: 11)
        // One queue for every round, as the runner keeps one for all its cells.
        let queue = EventQueue()
        var sequence: UInt64 = 0
        for round in 0..<6 {
            var heap = EventHeap()
            var now: Int64 = 0
            var popped = 0
            // Each round starts from time 0 again, like the runner's next cell: turned back to
            // it as the runner does, or (odd rounds) left where the last round ended.
            if round % 2 == 0 { queue.restart(at: 0) }
            for step in 0..<20_000 {
                if rng.next() % 100 < 55 {
                    // Mostly near events (same slot, next slots), some far beyond the horizon,
                    // some at exactly `now`; rounds 3 to 5 also push into the past.
                    let delay: Int64 = switch rng.next() % 10 {
                    case 0: 0
                    case 1...5: Int64(rng.next() % 2_000_000)
                    case 6...8: Int64(rng.next() % 400_000_000)
                    default: Int64(rng.next() % 20_000_000_000)
                    }
                    let time = round >= 3 && step % 7 == 0 ? max(0, now - 1_000_000) : now + delay
                    queue.push(time, .timer, typist: Int32(step))
                    heap.push(ScheduledEvent(time: time, sequence: sequence, typist: Int32(step), kind: .timer, payload: 0))
                    sequence += 1
                } else {
                    let a = queue.pop(), b = heap.pop()
                    #expect(a?.order == b?.order)
                    #expect(a?.typist == b?.typist)
                    if let a { now = max(now, a.time) }
                    popped += 1
                }
                #expect(queue.count == heap.count)
            }
            while let b = heap.pop() {
                let a = queue.pop()
                #expect(a?.order == b.order)
                #expect(a?.typist == b.typist)
            }
            #expect(queue.pop() == nil)
            #expect(queue.isEmpty)
            #expect(popped > 1_000)
        }
    }

    @Test("an event taken off the queue leaves the others in the heap's order, wherever it waited")
    func eventQueueRemoves() {
        var rng = SeededGenerator(seed: 23)
        let queue = EventQueue()
        var expected: [ScheduledEvent] = []
        var sequence: UInt64 = 0
        var removed = 0
        var now: Int64 = 0
        for step in 0..<20_000 {
            switch rng.next() % 10 {
            case 0...4:
                // Due in the slot being consumed, in the next slots, or beyond the wheel's horizon.
                let delay: Int64 = switch rng.next() % 4 {
                case 0: Int64(rng.next() % 3_000_000)
                case 1, 2: Int64(rng.next() % 500_000_000)
                default: Int64(rng.next() % 30_000_000_000)
                }
                queue.push(now + delay, .timer, typist: Int32(step % 50), payload: UInt64(step))
                expected.append(ScheduledEvent(time: now + delay, sequence: sequence, typist: Int32(step % 50), kind: .timer, payload: UInt64(step)))
                sequence += 1
            case 5, 6:
                guard !expected.isEmpty else { continue }
                let victim = expected[Int(rng.next() % UInt64(expected.count))]
                if queue.remove(victim.time, .timer, typist: victim.typist, payload: victim.payload) {
                    expected.removeAll { $0.sequence == victim.sequence }
                    removed += 1
                } else {
                    // Only an event beyond the horizon stays; it still pops in its turn.
                    #expect(EventQueue.slot(time: victim.time) - EventQueue.slot(time: now) >= UInt64(EventQueue.wheelSlots) - 1)
                }
            default:
                let popped = queue.pop()
                expected.sort { $0.precedes($1) }
                let next = expected.isEmpty ? nil : expected.removeFirst()
                #expect(popped?.order == next?.order)
                if let popped { now = popped.time }
            }
            #expect(queue.count == expected.count)
        }
        #expect(removed > 1_000)
        // Not in the queue (popped or never pushed): nothing is taken.
        let taken = queue.remove(now, .timer, typist: 999, payload: 1)
        #expect(!taken)
    }

    @Test("a copy of a runner runs on its own, and a runner run again gives the same record")
    func runnerCopies() throws {
        try checkCopies(SplitStateField())
        // Its UI thread's busy time is kept per typist in the world: a world shared between the
        // copies would make the second run's keystrokes wait for the first run's filters.
        try checkCopies(LocalFilterField())
    }

    private func checkCopies<Strategy: SearchFieldStrategy>(_ strategy: Strategy) throws {
        let population = try Self.typists(seed: 7)
        let sessions = (0..<20).map(population.session(forTypist:))
        var runner = try VirtualRunner(strategy: strategy, sessions: sessions,
                                       backend: BackendModel(typistsPerServer: 5), seed: 7)
        var copy = runner
        let first = runner.run().metrics()
        let second = copy.run().metrics()
        let again = runner.run().metrics()
        #expect(first.counter(MetricName.keystrokes) > 100)
        #expect(first.counter(MetricName.requestsStarted) > 0)
        #expect(first == second, "the copy, made before the run, shares nothing with it")
        #expect(first == again, "a second run records afresh")
    }

    @Test("strategy specs parse presets and variants")
    func specs() {
        #expect(StrategySpec.parse("split-state")?.preset == .splitState)
        #expect(StrategySpec.parse("split-state+cache")?.configuration.cacheCapacity == 32)
        #expect(StrategySpec.parse("naive+write-back+text-keyed")?.configuration.writeBack == true)
        #expect(StrategySpec.parse("split-sate") == nil)
        #expect(StrategySpec.parse("naive+fast") == nil)
    }
}
