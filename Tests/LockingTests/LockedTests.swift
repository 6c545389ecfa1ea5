import Dispatch
import Locking
import Testing

@Suite("Locked", .timeLimit(.minutes(5)))
struct LockedTests {
    /// Eight threads each add 1 a hundred thousand times: with mutual exclusion no increment is
    /// lost; without it (a read-modify-write outside the lock) increments are lost in practice.
    @Test func incrementsFromManyThreadsAreNotLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<100_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 800_000)
    }

    @Test func withLockReturnsWhatTheBodyReturnsAndKeepsItsChanges() {
        let names = Locked<[String]>([])
        let count = names.withLock { names in
            names.append("a")
            names.append("b")
            return names.count
        }
        #expect(count == 2)
        #expect(names.withLock { $0 } == ["a", "b"])
    }

    struct Refused: Error, Equatable {}

    @Test func anErrorThrownInsideReleasesTheLock() {
        let value = Locked(1)
        #expect(throws: Refused.self) {
            try value.withLock { (v: inout Int) throws(Refused) -> Void in
                v = 2
                throw Refused()
            }
        }
        // The lock was released: this would deadlock otherwise. The change made before the
        // throw stays, as with `Mutex`.
        #expect(value.withLock { $0 } == 2)
    }

    @Test func withLockIfAvailableGivesUpWhileAnotherThreadHoldsTheLock() {
        let value = Locked(0)
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            value.withLock { _ in
                held.signal()
                release.wait()
            }
            done.signal()
        }
        held.wait()
        #expect(value.withLockIfAvailable { $0 } == nil)
        release.signal()
        done.wait()
        #expect(value.withLockIfAvailable { v in v += 1; return v } == 1)
    }

    /// A value that is not `Copyable` can be kept and moved out, as with `Mutex`.
    @Test func holdsANoncopyableValue() {
        struct Token: ~Copyable { let id: Int }
        let slot = Locked<Token?>(Token(id: 7))
        let taken = slot.withLock { $0.take() }
        let id: Int? = switch consume taken {
        case let .some(token): token.id
        case .none: nil
        }
        #expect(id == 7)
        #expect(slot.withLock { $0 == nil })
    }
}
