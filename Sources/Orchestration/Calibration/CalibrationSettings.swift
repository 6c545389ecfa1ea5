import Foundation
import LiveLoad
import Typists

/// What `typestorm calibrate` probes and how hard: the API, the queries, the concurrency steps
/// and how long each lasts.
package struct CalibrationSettings: Sendable {
    /// The search API (a URL template with `{query}`, as an `http-url` runner's).
    package var target: HTTPSearchTarget
    /// `Name: value` header lines sent with every request.
    package var headers: [String]
    /// PEM bundle of the certificate authorities to trust (`nil`: the system's).
    package var caFile: String?
    /// Which HTTP client sends the requests.
    package var client: HTTPClientChoice = .auto
    /// Query texts as typists send them while typing (prefixes of real phrases), used in turn.
    package var queries: [String]
    /// The highest number of requests in flight at once; the steps double from 1 up to it.
    package var maxConcurrency: Int
    /// How long each concurrency step sends requests.
    package var stepNanos: Int64
    /// Per-request timeout.
    package var timeoutNanos: Int64
    /// Aborted and completed bursts each, for the cancellation probe.
    package var cancellationTrials: Int

    package init(target: HTTPSearchTarget, headers: [String] = [], caFile: String? = nil, queries: [String], maxConcurrency: Int = 16,
                stepNanos: Int64 = 5_000_000_000, timeoutNanos: Int64 = 5_000_000_000, cancellationTrials: Int = 5) {
        self.target = target
        self.headers = headers
        self.caFile = caFile
        self.queries = queries
        self.maxConcurrency = maxConcurrency
        self.stepNanos = stepNanos
        self.timeoutNanos = timeoutNanos
        self.cancellationTrials = cancellationTrials
    }

    /// 1, 2, 4, … below `maxConcurrency`, then `maxConcurrency` itself.
    package var concurrencySteps: [Int] {
        var steps: [Int] = []
        var level = 1
        while level < maxConcurrency {
            steps.append(level)
            level *= 2
        }
        steps.append(maxConcurrency)
        return steps
    }
}

/// Realistic query texts for probing an API: what a search field sends while someone types a
/// phrase, i.e. prefixes of real phrases (every length, as search-as-you-type sends them).
package enum CalibrationQueries {
    /// `count` prefixes of `phrases`, chosen with the seed: a phrase uniformly, then a prefix
    /// length uniformly from 1 character to the whole phrase (trailing spaces dropped).
    package static func prefixes(of phrases: [String], count: Int, seed: UInt64) -> [String] {
        let usable = phrases.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !usable.isEmpty else { return [] }
        var rng = SeededGenerator(seed: seed)
        var result: [String] = []
        result.reserveCapacity(count)
        while result.count < count {
            let phrase = Array(usable[rng.nextInt(below: usable.count)])
            let length = 1 + rng.nextInt(below: phrase.count)
            let prefix = String(phrase[0..<length]).trimmingCharacters(in: .whitespaces)
            if !prefix.isEmpty { result.append(prefix) }
        }
        return result
    }
}
