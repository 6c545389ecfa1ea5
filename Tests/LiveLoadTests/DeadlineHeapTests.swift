import Testing
@testable import LiveLoad

/// An entry due at `deadline`, `sequence` its place among equal deadlines.
private struct Timed: DeadlineFiled, Equatable {
    var deadline: Int64
    var sequence: UInt64
    func precedes(_ other: Timed) -> Bool {
        deadline != other.deadline ? deadline < other.deadline : sequence < other.sequence
    }
}

/// A xorshift generator: the same draws on every run.
private struct Draws {
    var state: UInt64
    mutating func next(_ bound: UInt64) -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state % bound
    }
}

@Suite("Deadline heap")
struct DeadlineHeapTests {
    /// Pushes and pops interleaved at random, many equal deadlines among them: every pop is the
    /// earliest entry still held, ties in the order they were pushed.
    @Test func popsInDeadlineThenPushOrder() {
        var heap = DeadlineHeap<Timed>()
        var held: [Timed] = []
        var draws = Draws(state: 0x9E37_79B9_7F4A_7C15)
        func random(_ bound: UInt64) -> UInt64 { draws.next(bound) }
        var sequence: UInt64 = 0
        var popped = 0
        for _ in 0..<20_000 {
            if held.isEmpty || random(3) != 0 {
                sequence += 1
                let entry = Timed(deadline: Int64(random(500)), sequence: sequence)
                heap.push(entry)
                held.append(entry)
            } else {
                let expected = held.min { $0.precedes($1) }!
                #expect(heap.first == expected)
                #expect(heap.popFirst() == expected)
                held.removeAll { $0 == expected }
                popped += 1
            }
            #expect(heap.count == held.count)
        }
        for expected in held.sorted(by: { $0.precedes($1) }) {
            #expect(heap.popFirst() == expected)
        }
        #expect(heap.isEmpty)
        #expect(popped > 1_000)
    }
}

@Suite("Deadline wheel")
struct DeadlineWheelTests {
    /// Deadlines in the past, in the current bucket, across the wheel and beyond it (the far
    /// heap), pushed while time moves on: what is due comes out in order, nothing early.
    @Test func takesDueEntriesInOrder() {
        var wheel = DeadlineWheel<Timed>()
        var held: [Timed] = []
        var draws = Draws(state: 0x2545_F491_4F6C_DD1D)
        func random(_ bound: UInt64) -> UInt64 { draws.next(bound) }
        var sequence: UInt64 = 0
        var now: Int64 = 5_000_000
        var taken = 0
        for _ in 0..<8_000 {
            switch random(10) {
            case 0..<5:
                sequence += 1
                // Up to 2 ms ago, or up to 12 s ahead (past the wheel's ~4.3 s), many equal.
                let offset = random(4) == 0 ? Int64(random(12_000)) * 1_000_000 : Int64(random(6_000)) * 1_000 - 2_000_000
                let entry = Timed(deadline: now + offset, sequence: sequence)
                wheel.push(entry)
                held.append(entry)
            case 5..<9:
                let expected = held.filter { $0.deadline <= now }.min { $0.precedes($1) }
                #expect(wheel.popDue(now) == expected)
                if let expected {
                    held.removeAll { $0 == expected }
                    taken += 1
                }
            default:
                now += Int64(random(3)) == 0 ? Int64(random(8_000)) * 1_000_000 : Int64(random(3_000)) * 1_000
            }
            #expect(wheel.first() == held.min { $0.precedes($1) })
            #expect(wheel.count == held.count)
        }
        for expected in held.sorted(by: { $0.precedes($1) }) {
            #expect(wheel.popDue(.max) == expected)
        }
        #expect(wheel.isEmpty)
        #expect(wheel.popDue(.max) == nil)
        #expect(taken > 500)
    }
}
