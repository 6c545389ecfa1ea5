import Foundation
import Testing
@testable import Orchestration

@Suite("Main job plan", .timeLimit(.minutes(5)))
struct MainJobPlanTests {
    let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func findsTheDefaultScenarioFromAnExecutableInsideThePackage() {
        let executable = package.appendingPathComponent(".build/release/typestorm").path
        let found = MainJobPlan.defaultScenarioPath(executable: executable, environment: [:])
        #expect(found.map { URL(fileURLWithPath: $0).standardizedFileURL.path } == package.appendingPathComponent("Datasets/scenarios/default.json").standardizedFileURL.path)
    }

    @Test func typestormHomeComesFirst() {
        let found = MainJobPlan.defaultScenarioPath(executable: "/nonexistent/bin/typestorm", environment: ["TYPESTORM_HOME": package.path])
        #expect(found == package.appendingPathComponent("Datasets/scenarios/default.json").path)
    }
}
