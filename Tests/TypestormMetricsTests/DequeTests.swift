import Testing
@testable import TypestormMetrics

@Suite("Deque", .timeLimit(.minutes(5)))
struct DequeTests {
    @Test func emptyQueueHasNothingToGive() {
        var queue = Deque<Int>()
        #expect(queue.isEmpty)
        #expect(queue.count == 0)
        #expect(queue.first == nil)
        #expect(queue.popFirst() == nil)
        #expect(queue.removeFirst(where: { _ in true }) == nil)
        #expect(queue.removeAll().isEmpty)
    }

    @Test func givesElementsBackInArrivalOrder() {
        var queue = Deque<Int>()
        for value in 0..<100 { queue.append(value) }
        #expect(queue.count == 100)
        #expect(queue.first == 0)
        var out: [Int] = []
        while let value = queue.popFirst() { out.append(value) }
        #expect(out == Array(0..<100))
        #expect(queue.isEmpty)
    }

    @Test func wrapsAroundWithoutGrowing() {
        var queue = Deque<Int>(minimumCapacity: 8)
        #expect(queue.capacity == 8)
        var next = 0, expected = 0
        // Five in, three out, many times: the live range walks around the slots.
        for _ in 0..<50 {
            for _ in 0..<5 where queue.count < 8 {
                queue.append(next)
                next += 1
            }
            for _ in 0..<3 {
                #expect(queue.popFirst() == expected)
                expected += 1
            }
        }
        #expect(queue.capacity == 8)
        while let value = queue.popFirst() {
            #expect(value == expected)
            expected += 1
        }
        #expect(expected == next)
    }

    @Test func growsWhileWrappedAndKeepsTheOrder() {
        var queue = Deque<Int>(minimumCapacity: 4)
        for value in 0..<4 { queue.append(value) }
        #expect(queue.popFirst() == 0)
        #expect(queue.popFirst() == 1)
        // The back wraps to slots 0 and 1, then the queue is full and doubles.
        for value in 4..<7 { queue.append(value) }
        #expect(queue.capacity == 8)
        #expect(queue.removeAll() == [2, 3, 4, 5, 6])
        #expect(queue.isEmpty)
        queue.append(7)
        #expect(queue.popFirst() == 7)
    }

    @Test func removesOneElementFromTheMiddleOfAWrappedQueue() {
        var queue = Deque<Int>(minimumCapacity: 8)
        for value in 0..<6 { queue.append(value) }
        for _ in 0..<5 { _ = queue.popFirst() }
        for value in 6..<12 { queue.append(value) }
        // Slots now hold 5...11, wrapped; take 8 out, then the first even number.
        #expect(queue.removeFirst(where: { $0 == 8 }) == 8)
        #expect(queue.removeFirst(where: { $0 % 2 == 0 }) == 6)
        #expect(queue.removeFirst(where: { $0 == 99 }) == nil)
        #expect(queue.count == 5)
        #expect(queue.removeAll() == [5, 7, 9, 10, 11])
    }

    @Test func matchesAnArrayUnderRandomOperations() {
        var queue = Deque<UInt64>()
        var model: [UInt64] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for step in 0..<20_000 {
            switch random() % 10 {
            case 0..<5:
                queue.append(UInt64(step))
                model.append(UInt64(step))
            case 5..<9:
                #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            default:
                let target = model.isEmpty ? 0 : model[Int(random() % UInt64(model.count))]
                let removed = queue.removeFirst(where: { $0 == target })
                if let index = model.firstIndex(of: target) {
                    #expect(removed == model.remove(at: index))
                } else {
                    #expect(removed == nil)
                }
            }
            #expect(queue.count == model.count)
            #expect(queue.first == model.first)
        }
        #expect(queue.removeAll() == model)
    }

    @Test func letsGoOfWhatItHandsOut() {
        final class Job {}
        weak var popped: Job?
        weak var removed: Job?
        var queue = Deque<Job>()
        do {
            let first = Job(), second = Job()
            popped = first
            removed = second
            queue.append(first)
            queue.append(second)
            queue.append(Job())
        }
        _ = queue.popFirst()
        _ = queue.removeFirst(where: { $0 === removed })
        #expect(popped == nil)
        #expect(removed == nil)
        #expect(queue.count == 1)
    }
}
