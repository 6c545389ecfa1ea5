import Foundation
import RunHistory
import Typists

/// The detector's error rates on synthetic series: how often it flags a change where there is
/// none (false alarms), and how often it finds a known step, and where.
///
/// Series are independent normal noise (mean 100, standard deviation 1) of `length` points; the
/// stepped ones jump by `step` standard deviations at the middle. The tolerance is zero, so the
/// figures are those of the statistical test alone.
package struct ChangePointCalibration: Sendable, Equatable {
    package var series: Int
    package var length: Int
    package var step: Double
    /// Share of step-free series with at least one change point.
    package var falseAlarmRate: Double
    /// Share of stepped series with a change point within `slack` points of the step.
    package var detectionRate: Double
    /// Mean distance between the step and the nearest change point, over detected steps.
    package var meanLocationError: Double
    package static let slack = 2

    package static func measure(
        detector: ChangePointDetector, series: Int, length: Int, step: Double,
        using generator: inout SeededGenerator
    ) -> ChangePointCalibration {
        var falseAlarms = 0, detected = 0, locationError = 0
        let at = length / 2
        for _ in 0..<series {
            let flat = (0..<length).map { _ in 100 + generator.nextStandardNormalZiggurat() }
            if !detector.detect(flat).isEmpty { falseAlarms += 1 }
            let stepped = (0..<length).map { 100 + generator.nextStandardNormalZiggurat() + ($0 >= at ? step : 0) }
            let points = detector.detect(stepped)
            if let nearest = points.map({ abs($0.index - at) }).min(), nearest <= slack {
                detected += 1
                locationError += nearest
            }
        }
        return ChangePointCalibration(
            series: series, length: length, step: step,
            falseAlarmRate: Double(falseAlarms) / Double(series), detectionRate: Double(detected) / Double(series),
            meanLocationError: detected == 0 ? 0 : Double(locationError) / Double(detected))
    }
}
