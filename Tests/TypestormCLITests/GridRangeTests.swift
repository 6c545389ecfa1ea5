import Testing
@testable import TypestormCLI

@Suite("Sweep grid ranges on the command line", .timeLimit(.minutes(1)))
struct GridRangeTests {
    @Test func gridRanges() throws {
        #expect(try GridRange.parse("0:600:25").values.count == 25)
        #expect(try GridRange.parse("0:600:25").values.last == 600)
        #expect(try GridRange.parse("1:3").values == [1, 2, 3])
        #expect(try GridRange.parse("300").values == [300])
        #expect(try GridRange.parse("250,100,250").values == [100, 250])
        #expect(throws: GridRangeError(text: "5:1", reason: "the end (1) is below the start (5)")) { try GridRange.parse("5:1") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("0:10:0") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("a:b") }
        #expect(throws: GridRangeError.self) { try GridRange.parse("0:100000:1") }
    }
}
