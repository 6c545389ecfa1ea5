import Reporting

/// A place in a series where the level moved: the runs from `index` on differ from those before.
public struct ChangePoint: Sendable, Equatable, Codable {
    /// Index of the first point of the new level.
    public var index: Int
    /// Means of the windows before and from the change.
    public var before: Double
    public var after: Double
    /// The test's two-sided p-value, before the correction for the number of places tried.
    public var p: Double
    /// 1 − the corrected p-value (p × places tried, at most 1): how sure the detector is.
    public var confidence: Double

    public var delta: Double { after - before }
    /// The change relative to the level before; `nil` when that level is 0.
    public var relative: Double? { before == 0 ? nil : (after - before) / abs(before) }
}

/// Change points by binary segmentation with a Welch test on windows at each side.
///
/// For a stretch of the series, every split k is tried: the `window` points before k against
/// the `window` points from k. With at least two points on each side the test is Welch's t-test;
/// with one point on one side (the newest run, typically) it is the prediction test of that
/// point against the other side's mean and spread (t = (x − mean) / (s·√(1 + 1/n)), n − 1
/// degrees of freedom). Splits whose change is within the tolerance (absolute and relative, as
/// in `compare`) are not candidates. The candidate with the smallest p is a change point when
/// p × (splits tried) < alpha (Bonferroni, so scanning many splits does not inflate false
/// alarms); then both sides are searched again. Deterministic series (no run-to-run spread)
/// give p = 0 for any change beyond the tolerance and p = 1 otherwise.
public struct ChangePointDetector: Sendable {
    public var alpha: Double
    /// Points on each side of a split that the test sees.
    public var window: Int

    public init(alpha: Double = 0.05, window: Int = 8) {
        self.alpha = alpha
        self.window = max(1, window)
    }

    /// One sentence for reports.
    public var method: String {
        "binary segmentation; at each split a Welch t-test of the \(window) runs on each side (a prediction test when one side has one run), Bonferroni-corrected over the splits tried, alpha \(ValueFormat.significant(alpha)); changes within the compare tolerance are ignored"
    }

    public func detect(_ values: [Double], tolerance: Thresholds.Tolerance = Thresholds.Tolerance(relative: 0, absolute: 0)) -> [ChangePoint] {
        var found: [ChangePoint] = []
        var stretches = [(0, values.count)]
        while let (low, high) = stretches.popLast() {
            guard let point = strongest(values, low, high, tolerance) else { continue }
            found.append(point)
            stretches.append((low, point.index))
            stretches.append((point.index, high))
        }
        return found.sorted { $0.index < $1.index }
    }

    /// The best split of `values[low..<high]` if it is significant after correction.
    private func strongest(_ values: [Double], _ low: Int, _ high: Int, _ tolerance: Thresholds.Tolerance) -> ChangePoint? {
        guard high - low >= 3 else { return nil }
        var tried = 0
        var best: (point: ChangePoint, strength: Double)?
        for split in (low + 1)..<high {
            let left = Array(values[max(low, split - window)..<split])
            let right = Array(values[split..<min(high, split + window)])
            guard let p = Self.pValue(left, right) else { continue }
            tried += 1
            let before = mean(left), after = mean(right)
            let delta = abs(after - before)
            guard delta > tolerance.absolute, delta > tolerance.relative * abs(before) else { continue }
            // Among equal p-values (0 for deterministic steps) the larger, better-supported step wins.
            let strength = delta * (Double(left.count * right.count) / Double(left.count + right.count)).squareRoot()
            let point = ChangePoint(index: split, before: before, after: after, p: p, confidence: 0)
            if let current = best, current.point.p < p || (current.point.p == p && current.strength >= strength) { continue }
            best = (point, strength)
        }
        guard var chosen = best?.point else { return nil }
        let corrected = min(1, chosen.p * Double(tried))
        guard corrected < alpha else { return nil }
        chosen.confidence = 1 - corrected
        return chosen
    }

    /// Welch's test with two or more points a side; the prediction test with one on a side.
    static func pValue(_ left: [Double], _ right: [Double]) -> Double? {
        if left.count >= 2 && right.count >= 2 { return WelchTest(right, left)?.p }
        let (single, others): (Double, [Double])
        if left.count == 1 && right.count >= 2 {
            (single, others) = (left[0], right)
        } else if right.count == 1 && left.count >= 2 {
            (single, others) = (right[0], left)
        } else {
            return nil
        }
        let n = Double(others.count)
        let m = mean(others)
        let variance = others.reduce(0) { $0 + ($1 - m) * ($1 - m) } / (n - 1)
        if variance == 0 { return single == m ? 1 : 0 }
        let t = (single - m) / (variance * (1 + 1 / n)).squareRoot()
        return WelchTest.twoSidedP(t: t, degreesOfFreedom: n - 1)
    }
}

private func mean(_ values: [Double]) -> Double {
    values.reduce(0, +) / Double(values.count)
}
