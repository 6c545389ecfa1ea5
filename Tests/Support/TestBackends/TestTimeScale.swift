import Foundation

/// How much slower than an ordinary build this test run is: `TYPESTORM_TEST_TIME_SCALE`
/// (scripts/sanitize sets it for the sanitizers' 5–15× slowdown), else 1. Tests that queue much
/// work behind a timeout stretch the timeout by it; tests of timing accuracy widen their
/// tolerance when it is above 1, since a sanitizer run checks memory and races, not timing.
package let testTimeScale: Double = {
    guard let text = ProcessInfo.processInfo.environment["TYPESTORM_TEST_TIME_SCALE"], let scale = Double(text), scale >= 1 else { return 1 }
    return scale
}()
