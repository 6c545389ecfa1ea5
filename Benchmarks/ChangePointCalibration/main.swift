import RunHistory
import ChangePointSeries
import Typists

// The change-point detector's error rates on synthetic series (docs/history.md): for each
// series length and step size, the share of step-free series with a false alarm and the share
// of stepped series whose step is found (within 2 runs), with the default detector and a fixed
// seed. Rates, not speed: any build mode gives the same numbers.
let detector = ChangePointDetector()
let seriesPerCell = 2000
print("Change points: \(detector.method).")
print("\(seriesPerCell) series per row; noise N(100, 1); step in standard deviations at the middle; tolerance 0.\n")
print("length  step   false alarms   detected   mean location error")
var seed: UInt64 = 1
for length in [6, 10, 30, 60] {
    for step in [1.0, 2.0, 3.0, 5.0] {
        var generator = SeededGenerator(seed: seed)
        seed += 1
        let c = ChangePointCalibration.measure(detector: detector, series: seriesPerCell, length: length, step: step, using: &generator)
        func fixed2(_ x: Double) -> String {
            let hundredths = Int((x * 100).rounded())
            return "\(hundredths / 100)." + (hundredths % 100 < 10 ? "0" : "") + "\(hundredths % 100)"
        }
        func percent(_ x: Double) -> String {
            let tenths = Int((x * 1000).rounded())
            return "\(tenths / 10).\(tenths % 10) %"
        }
        let padded = [String(length), "\(Int(step)) σ", percent(c.falseAlarmRate), percent(c.detectionRate),
                      fixed2(c.meanLocationError) + " runs"]
        print(padded[0].padding(toLength: 8, withPad: " ", startingAt: 0) + padded[1].padding(toLength: 7, withPad: " ", startingAt: 0)
              + padded[2].padding(toLength: 15, withPad: " ", startingAt: 0) + padded[3].padding(toLength: 11, withPad: " ", startingAt: 0) + padded[4])
    }
}
