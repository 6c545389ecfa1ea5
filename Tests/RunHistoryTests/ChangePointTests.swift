import Reporting
import Testing
import Typists
@testable import RunHistory
import ChangePointSeries

@Suite("Change points", .timeLimit(.minutes(5)))
struct ChangePointTests {
    let detector = ChangePointDetector()

    @Test func aDeterministicStepIsFoundWhereItIs() {
        let points = detector.detect([10, 10, 10, 10, 14, 14, 14])
        #expect(points.map(\.index) == [4])
        #expect(points.first?.before == 10)
        #expect(points.first?.after == 14)
        #expect(points.first?.confidence == 1)
    }

    @Test func aStepAtTheNewestRunIsFound() {
        #expect(detector.detect([10, 10, 12]).map(\.index) == [2])
        #expect(detector.detect([10, 12]).isEmpty)
    }

    @Test func twoStepsAreBothFound() {
        #expect(detector.detect([5, 5, 5, 5, 9, 9, 9, 9, 2, 2, 2, 2]).map(\.index) == [4, 8])
    }

    @Test func aFlatSeriesHasNone() {
        #expect(detector.detect(Array(repeating: 3, count: 20)).isEmpty)
    }

    @Test func changesWithinTheToleranceAreIgnored() {
        let tolerance = Tolerances.Tolerance(relative: 0.05, absolute: 0)
        #expect(detector.detect([100, 100, 100, 103, 103, 103], tolerance: tolerance).isEmpty)
        #expect(detector.detect([100, 100, 100, 110, 110, 110], tolerance: tolerance).map(\.index) == [3])
    }

    @Test func anOutlierInNoiseIsNotAStep() {
        // One point 2 standard deviations out, in a noisy series: within the noise.
        let series: [Double] = [100, 101, 99, 100.5, 99.5, 100, 102, 100, 99, 101]
        #expect(detector.detect(series).isEmpty)
    }

    /// The figures in docs/history.md: false alarms stay near alpha (they are a family-wise
    /// rate over every split tried), and a step of 3 standard deviations is found.
    @Test func falseAlarmAndDetectionRatesOnSyntheticSeries() {
        var generator = SeededGenerator(seed: 14)
        let flat = ChangePointCalibration.measure(detector: detector, series: 400, length: 30, step: 3, using: &generator)
        #expect(flat.falseAlarmRate <= 0.08)
        #expect(flat.detectionRate >= 0.9)
        var small = SeededGenerator(seed: 15)
        let one = ChangePointCalibration.measure(detector: detector, series: 400, length: 30, step: 1, using: &small)
        #expect(one.falseAlarmRate <= 0.08)
        #expect(one.detectionRate < flat.detectionRate)
    }
}
