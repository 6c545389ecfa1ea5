import Foundation
import LiveLoad
import TypestormMetrics
import SearchField
import Testing
@testable import Orchestration

/// The backend the `http-url` runner of a scenario builds from the runner's JSON members
/// (`"url": …, "preset": …`), through the same path a live phase takes.
func httpURLBackend(_ runnerMembers: String, baseDirectory: String = "/") throws -> any LiveSearchBackend {
    let scenario = try ScenarioReader.read(json: """
    {
      "name": "http-url-backend", "seed": 1, "duration": "1s",
      "catalog": { "generate": { "items": 10 } },
      "population": { "typists": 1 },
      "strategies": [ { "preset": "naive" } ],
      "runners": [ { "kind": "http-url", \(runnerMembers) } ]
    }
    """)
    guard case let .httpURL(template, request) = scenario.runners[0] else { throw CocoaError(.featureUnsupported) }
    let context = PhaseContext(scenario: scenario, baseDirectory: baseDirectory, segment: Segment(index: 0, count: 1), typists: [0],
                               runner: scenario.runners[0], phase: 0, startWallClockNanos: 0, progress: ProgressSink())
    return try LiveWorkload(target: .url(template, request)).makeBackend(context, engine: nil, globalTypists: [0])
}

/// Sends one search for "a" through `backend` and returns how it ended.
func searchOnce(_ backend: any LiveSearchBackend) async -> LiveSearchOutcome {
    let (stream, continuation) = AsyncStream<LiveSearchOutcome>.makeStream()
    _ = backend.start(LiveSearchRequest(typist: 0, id: 1, query: QueryIdentity(text: "a"), local: false, intendedNanos: 0)) {
        continuation.yield($0)
    }
    for await outcome in stream { return outcome }
    fatalError("no outcome")
}
