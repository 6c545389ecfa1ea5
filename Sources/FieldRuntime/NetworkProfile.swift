import Foundation
import Typists

/// A typist's access network (Wi-Fi, LTE, 3G): a round trip drawn per request on top of the
/// backend model's own, plus the retransmissions its packet loss causes.
///
/// A request's exchange is `segments` data segments (the request and the response, each fitting
/// one segment); each is lost with probability `lossRate`, and a lost segment arrives
/// `retransmitNanos` later (TCP's retransmission timeout). The delay is split evenly over the two
/// directions, as the backend model's round trip is. Where the figures come from is in
/// docs/strategies.md ("Network profiles").
public struct NetworkProfile: Hashable, Sendable, CustomStringConvertible {
    /// The profile's name in scenarios (`"network": "lte"`).
    public var name: String
    /// The access network's round trip, added to the backend model's.
    public var roundTrip: Distribution
    /// Probability that one data segment is lost.
    public var lossRate: Double
    /// Data segments per request and response.
    public var segments: Int
    /// What a lost segment adds: the retransmission timeout, in nanoseconds.
    public var retransmitNanos: Int64

    /// A profile from its parts; times in nanoseconds.
    public init(name: String, roundTrip: Distribution, lossRate: Double, segments: Int = 2, retransmitNanos: Int64) {
        self.name = name
        self.roundTrip = roundTrip
        self.lossRate = lossRate
        self.segments = segments
        self.retransmitNanos = retransmitNanos
    }

    /// A home broadband line behind Wi-Fi: WebPageTest's "Cable" profile (28 ms round trip,
    /// no loss); the spread is the backend model's default σ 0.3 (no source gives one).
    public static let wifi = NetworkProfile(name: "wifi", roundTrip: .logNormal(median: 28_000_000, sigma: 0.3), lossRate: 0,
                                            retransmitNanos: 200_000_000)
    /// LTE: WebPageTest's "LTE" profile (70 ms round trip); jitter (5 ms in, 15 ms out) and loss
    /// (0.2 %) of Loadero's "4G" network condition; retransmission after Linux's minimum
    /// timeout, 200 ms.
    public static let lte = NetworkProfile(name: "lte", roundTrip: .logNormal(median: 70_000_000, sigma: spread(median: 70, jitter: [5, 15])),
                                           lossRate: 0.002, retransmitNanos: retransmissionTimeout(median: 70, jitter: [5, 15]))
    /// 3G: WebPageTest's "3G" profile (300 ms round trip); jitter (50 ms each way) and loss
    /// (0.5 %) of Loadero's "3G" network condition; retransmission after RFC 6298's timeout.
    public static let threeG = NetworkProfile(name: "3g", roundTrip: .logNormal(median: 300_000_000, sigma: spread(median: 300, jitter: [50, 50])),
                                              lossRate: 0.005, retransmitNanos: retransmissionTimeout(median: 300, jitter: [50, 50]))

    /// Every profile, by name: what `"network"` accepts.
    public static let all: [NetworkProfile] = [wifi, lte, threeG]

    /// The profile called `name`, if any.
    public static func named(_ name: String) -> NetworkProfile? {
        all.first { $0.name == name }
    }

    /// σ of the log-normal round trip whose standard deviation is the two directions' jitters
    /// combined (√(a² + b²)) around `median` (milliseconds): σ solves
    /// sd² = median² · e^σ² · (e^σ² − 1).
    static func spread(median: Double, jitter: [Double]) -> Double {
        let sd = sqrt(jitter.reduce(0) { $0 + $1 * $1 })
        let ratio = sd / median
        // e^σ² (e^σ² − 1) = r²  ⇒  e^σ² = (1 + √(1 + 4 r²)) / 2.
        let x = (1 + sqrt(1 + 4 * ratio * ratio)) / 2
        return (sqrt(log(x)) * 1000).rounded() / 1000
    }

    /// RFC 6298's retransmission timeout, SRTT + 4 · RTTVAR (the median and the combined jitter),
    /// with Linux's floor of 200 ms, in nanoseconds.
    static func retransmissionTimeout(median: Double, jitter: [Double]) -> Int64 {
        let sd = sqrt(jitter.reduce(0) { $0 + $1 * $1 })
        return Int64(max(200, (median + 4 * sd).rounded()) * 1_000_000)
    }

    /// One request's added round trip: the access network's round trip plus a retransmission
    /// timeout per lost segment, from the request's own stream.
    package func sample(_ rng: inout SeededGenerator) -> Int64 {
        var total = roundTrip.sample(&rng)
        for _ in 0..<segments where rng.chance(lossRate) { total += retransmitNanos }
        return total
    }

    /// "lte (round trip lognormal(median 70.0ms, σ 0.22), loss 0.2 % per segment, retransmit 200 ms)".
    public var description: String {
        "\(name) (round trip \(roundTrip), loss \(lossRate * 100) % per segment, retransmit \(Double(retransmitNanos) / 1e6)ms)"
    }
}

/// Which access network each typist is on: what `BackendModel.clientNetworks` holds.
public struct ClientNetworks: Hashable, Sendable {
    /// The profiles in use.
    public var profiles: [NetworkProfile]
    /// Per global typist index, the index of its profile in `profiles`, or −1 for none (the
    /// backend's round trip alone). Empty: every typist is on `profiles[0]`. Indices wrap
    /// around (typist `i` is typist `i mod count`, as the population's mix is).
    public var byTypist: [Int8]

    /// Typists on networks by index (see `byTypist`).
    public init(profiles: [NetworkProfile], byTypist: [Int8]) {
        self.profiles = profiles
        self.byTypist = byTypist
    }

    /// Every typist on `profile`.
    public static func all(_ profile: NetworkProfile) -> ClientNetworks {
        ClientNetworks(profiles: [profile], byTypist: [])
    }

    /// The profile of the typist with global index `typist`, or `nil`.
    public func profile(forTypist typist: UInt64) -> NetworkProfile? {
        guard !profiles.isEmpty else { return nil }
        guard !byTypist.isEmpty else { return profiles[0] }
        let index = byTypist[Int(typist % UInt64(byTypist.count))]
        return index >= 0 ? profiles[Int(index)] : nil
    }
}
