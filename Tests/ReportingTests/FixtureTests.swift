import Foundation
import TypestormMetrics
import Testing
@testable import Reporting

@Suite("Fixtures", .timeLimit(.minutes(5)))
struct FixtureTests {
    /// The stored fixtures are what the factory makes (so a reader can see how they were made),
    /// and they decode as current run records.
    @Test(arguments: Fixtures.made.map(\.name))
    func fixtureIsReproducible(name: String) throws {
        let make = try #require(Fixtures.made.first { $0.name == name }).make
        let expected = try Fixtures.encode(make())
        if ProcessInfo.processInfo.environment["TYPESTORM_WRITE_FIXTURES"] == "1" {
            try expected.write(to: Fixtures.url(name))
        }
        let stored = try Data(contentsOf: Fixtures.url(name))
        #expect(stored == expected, "\(name) differs from SyntheticRecords; rerun with TYPESTORM_WRITE_FIXTURES=1")
        #expect(try RunRecord.decode(stored) == make())
    }
}
