import Foundation
import Typists

/// How cancellation reaches the backend (docs/strategies.md).
public enum CancellationMode: Hashable, Sendable, CustomStringConvertible {
    /// The client's awaited call throws at once; the server stops after the request's one-way
    /// trip plus `delay` (its cancellation check interval).
    case honoured(delay: Int64)
    /// The client's call throws at once, but the server never hears of it and finishes the work
    /// (a server that ignores disconnects).
    case clientOnly
    /// Nobody notices: the call completes normally and the strategy gets the response.
    case ignored

    public var description: String {
        switch self {
        case let .honoured(delay): "honoured after \(Double(delay) / 1e6)ms"
        case .clientOnly: "client-only"
        case .ignored: "ignored"
        }
    }
}

/// Service time from the work a query costs: items scanned at a calibrated rate.
///
/// `fitThroughput(itemsPerSecond:)` takes a rate measured on the real filter engine for the
/// catalog at hand, so virtual runs cost what real ones would.
public struct CostModel: Hashable, Sendable {
    /// Items each search scans (the catalog's size).
    public var catalogItems: Int64
    /// Nanoseconds of service time per item scanned.
    public var nanosPerItem: Double
    /// Per-request overhead (parsing, serialization).
    public var fixedNanos: Int64
    /// Spread around the computed cost (σ of a log-normal factor).
    public var jitter: Double

    /// A cost of `fixedNanos + catalogItems × nanosPerItem` per request (nanoseconds), spread by a
    /// log-normal factor of σ `jitter`.
    public init(catalogItems: Int64, nanosPerItem: Double, fixedNanos: Int64 = 200_000, jitter: Double = 0.15) {
        self.catalogItems = catalogItems
        self.nanosPerItem = nanosPerItem
        self.fixedNanos = fixedNanos
        self.jitter = jitter
    }

    /// Sets the scan rate from a measurement.
    public mutating func fitThroughput(itemsPerSecond: Double) {
        precondition(itemsPerSecond > 0)
        nanosPerItem = 1e9 / itemsPerSecond
    }

    /// Items a query scans: the whole catalog for short queries; a trigram-indexed engine
    /// narrows longer ones to candidates (halving per extra character, at least 1%).
    public func itemsScanned(queryLength: Int) -> Int64 {
        guard queryLength >= 3 else { return catalogItems }
        let shift = min(queryLength - 2, 7)
        return max(catalogItems >> Int64(shift), catalogItems / 100)
    }
}

/// Where the service time of a request comes from.
public enum ServiceModel: Hashable, Sendable {
    case distribution(Distribution)
    case cost(CostModel)
}

/// The modelled network and server, shared by the typists of one server cell.
///
/// Typists are grouped into cells of `typistsPerServer`; each cell has its own server with
/// `workers` workers and a FIFO queue. Cells never share anything, which is what lets a run be
/// split into segments on cell boundaries and merged back exactly.
public struct BackendModel: Hashable, Sendable {
    /// Round trip; each direction takes half.
    public var roundTrip: Distribution
    /// Requests one server serves at once; more wait in its FIFO queue.
    public var workers: Int
    /// Typists sharing one server cell (grouped by global typist index).
    public var typistsPerServer: Int
    /// How long a worker spends on a request: drawn from a distribution, or computed by a
    /// ``CostModel``.
    public var service: ServiceModel
    /// The slow tail: with this probability a request's service time is multiplied by `factor`.
    public var slowTailProbability: Double
    /// The factor a slow-tail request's service time is multiplied by.
    public var slowTailFactor: Double
    /// Share of requests the server answers with an error.
    public var errorRate: Double
    /// Share of requests lost in transport (the client sees a transport error after the round
    /// trip).
    public var transportErrorRate: Double
    /// The client gives up after this long (`nil`: never).
    public var timeoutNanos: Int64?
    /// What happens when the client cancels: the server stops, only the client gives up, or nobody
    /// notices.
    public var cancellation: CancellationMode
    /// Catalog size and per-item cost of `local-filter`'s in-memory filter on the UI thread.
    public var localCatalogItems: Int64
    /// Nanoseconds of UI-thread time per item `local-filter` filters.
    public var localNanosPerItem: Double
    /// Fixed response times by query text (`replay --latency "sw=900ms,*=100ms"`): when set for a
    /// text, that request takes exactly this long end to end, with no network or queue.
    public var scriptedNanos: [String: Int64]
    /// Scripted time for texts not in ``scriptedNanos`` (`*=`), else the model applies.
    public var scriptedDefaultNanos: Int64?
    /// The typists' access networks (Wi-Fi, LTE, 3G): each adds its round trip and
    /// retransmissions to `roundTrip` for the typists on it; `nil`: `roundTrip` alone.
    public var clientNetworks: ClientNetworks? = nil

    /// A model from its parts; times are nanoseconds. The defaults are the simulator's own (a 40 ms
    /// round trip, 8 workers, 20 ms median service); scenarios set theirs from ``ScenarioBackend``.
    public init(
        roundTrip: Distribution = .logNormal(median: 40_000_000, sigma: 0.3), workers: Int = 8,
        typistsPerServer: Int = 100, service: ServiceModel = .distribution(.logNormal(median: 20_000_000, sigma: 0.5)),
        slowTailProbability: Double = 0.01, slowTailFactor: Double = 20, errorRate: Double = 0.002,
        transportErrorRate: Double = 0, timeoutNanos: Int64? = 10_000_000_000,
        cancellation: CancellationMode = .honoured(delay: 5_000_000),
        localCatalogItems: Int64 = 10_000, localNanosPerItem: Double = 150,
        scriptedNanos: [String: Int64] = [:], scriptedDefaultNanos: Int64? = nil
    ) {
        self.roundTrip = roundTrip
        self.workers = workers
        self.typistsPerServer = typistsPerServer
        self.service = service
        self.slowTailProbability = slowTailProbability
        self.slowTailFactor = slowTailFactor
        self.errorRate = errorRate
        self.transportErrorRate = transportErrorRate
        self.timeoutNanos = timeoutNanos
        self.cancellation = cancellation
        self.localCatalogItems = localCatalogItems
        self.localNanosPerItem = localNanosPerItem
        self.scriptedNanos = scriptedNanos
        self.scriptedDefaultNanos = scriptedDefaultNanos
    }

    /// A backend that answers every request after exactly the scripted time, never fails and
    /// never queues: for replaying a trace against known latencies.
    public static func scripted(_ times: [String: Int64], default defaultTime: Int64, cancellation: CancellationMode = .honoured(delay: 0)) -> BackendModel {
        BackendModel(roundTrip: .constant(0), workers: 1 << 20, service: .distribution(.constant(defaultTime)),
                     slowTailProbability: 0, errorRate: 0, timeoutNanos: nil, cancellation: cancellation,
                     scriptedNanos: times, scriptedDefaultNanos: defaultTime)
    }

    /// The scripted end-to-end time for `text`, if any.
    package func scriptedTime(for text: String) -> Int64? {
        if scriptedNanos.isEmpty { return scriptedDefaultNanos }
        return scriptedNanos[text] ?? scriptedDefaultNanos
    }

    /// Everything random about one remote request, drawn at once from the request's own stream
    /// (seed, global typist index, request id): the virtual runner and the live modelled backend
    /// both call this, so they see the same latencies and failures for the same request.
    ///
    /// The draws come in a fixed order (round trip, transport loss, server error, service time
    /// with its slow tail, then the typist's access network if it has one, so a model without
    /// `clientNetworks` draws exactly what it drew before they existed); a request that never
    /// reaches service simply leaves the service time unused.
    public func draw(seed: UInt64, typist globalIndex: UInt64, request id: UInt64, queryLength: Int) -> RequestDraw {
        var rng = SeededGenerator(seed: mix(seed, globalIndex, id))
        var oneWay = roundTrip.sample(&rng) / 2
        var failure: RequestDraw.Failure?
        if rng.chance(transportErrorRate) {
            failure = .transport
        } else if rng.chance(errorRate) {
            failure = .serverError
        }
        let (serviceNanos, items) = serviceTime(queryLength: queryLength, &rng)
        if let network = clientNetworks?.profile(forTypist: globalIndex) {
            oneWay += network.sample(&rng) / 2
        }
        return RequestDraw(oneWayNanos: oneWay, failure: failure, serviceNanos: serviceNanos, items: items)
    }

    /// Whether a request's draws depend on its query's length (`draw(queryLength:)`): only a
    /// ``CostModel`` service reads it, so a runner may pass 0 otherwise without counting.
    package var serviceDependsOnQueryLength: Bool {
        if case .cost = service { return true }
        return false
    }

    /// Service time and items scanned for one request.
    @inline(__always)
    package func serviceTime(queryLength: Int, _ rng: inout SeededGenerator) -> (ns: Int64, items: Int64) {
        var ns: Int64
        var items: Int64 = 0
        switch service {
        case let .distribution(distribution):
            ns = distribution.sample(&rng)
        case let .cost(model):
            items = model.itemsScanned(queryLength: queryLength)
            let base = Double(model.fixedNanos) + Double(items) * model.nanosPerItem
            ns = Int64(base * (model.jitter > 0 ? exp(model.jitter * rng.nextStandardNormalZiggurat()) : 1))
        }
        if rng.chance(slowTailProbability) {
            ns = Int64(Double(ns) * slowTailFactor)
        }
        return (max(ns, 0), items)
    }

    /// How many results the catalog has for a query: deterministic in the text, fewer for longer
    /// queries, and none for about one long query in twenty (a genuine "no results").
    /// How long a `local-filter` request's in-memory filter takes on the typist's UI thread.
    package var localServiceNanos: Int64 {
        Int64(Double(localCatalogItems) * localNanosPerItem)
    }

    package static func resultCount(text: String, catalogItems: Int64) -> Int {
        resultCount(utf8Length: text.utf8.count, hash: stableHash(text), catalogItems: catalogItems)
    }

    package static func resultCount(utf8Length length: Int, hash: UInt64, catalogItems: Int64) -> Int {
        if length >= 4, hash % 20 == 0 { return 0 }
        let shift = min(length * 2, 40)
        return Int(max(catalogItems >> Int64(shift), Int64(1 + hash % 7)))
    }
}

/// One request's draws from the backend model (`BackendModel.draw`).
public struct RequestDraw: Hashable, Sendable {
    /// How the model fails the request, if it does.
    public enum Failure: Hashable, Sendable {
        /// Lost in transport: the client sees the failure after a round trip; the server never
        /// works on it.
        case transport
        /// The server works on it and answers with an error.
        case serverError
    }

    /// Each direction of the round trip.
    public var oneWayNanos: Int64
    /// How the request fails; `nil` when it succeeds.
    public var failure: Failure?
    /// Service time once a worker takes the request, slow tail included.
    public var serviceNanos: Int64
    /// Items scanned (cost model only; 0 otherwise).
    public var items: Int64
}
