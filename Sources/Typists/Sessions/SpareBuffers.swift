import Foundation

/// The per-query buffers of a generated session, handed from a finished session to the next
/// one that the same thread starts, so that typing a session allocates none in the common case
/// (one session after another, as a runner's worker thread types them).
///
/// Each thread keeps at most `limit` sets, with their capacity (see `keep(_:)`); what a session
/// holds on to after it ends (the query's target and base text) is not among them. Buffers
/// hold no state between sessions, so which set a session gets changes nothing it types.
///
/// The thread also keeps the memory blocks that finished sessions' states were in (see
/// `SessionStorage`), up to `limit` of them.
struct SessionBuffers {
    var keys = RawBuffer<PlanKey>()
    var words = RawBuffer<SessionState.PlannedWord>()
    var marks = RawBuffer<FieldEditor.Mark>()
    var out = RawBuffer<RawTypingEvent>()
    var arena = FieldBytes.empty
    var scratch = RawBuffer<UInt8>()
    var sideActions: [TypingEvent.Action] = []
    var committed = RawBuffer<UInt8>()
    var pinyin = RawBuffer<UInt8>()
    var pinyinShown = RawBuffer<UInt8>()

    /// Frees the raw buffers (see `RawBuffer`).
    mutating func free() {
        keys.free()
        words.free()
        marks.free()
        out.free()
        scratch.free()
        committed.free()
        pinyin.free()
        pinyinShown.free()
    }

    /// Sets kept per thread: enough for a thread that interleaves many sessions (the virtual
    /// runner types a server cell's hundred typists at once, then the next cell's).
    static let limit = 128

    /// Swaps a set a finished session on this thread left into `exchange` (which swaps it
    /// with the session's own, still empty, buffers); `false` if the thread has none spare.
    @inline(__always)
    static func takeSpare(_ exchange: (inout SessionBuffers) -> Void) -> Bool {
        guard let store = ThreadStore.current(creating: false), store.pointee.count > 0 else { return false }
        store.pointee.count -= 1
        exchange(&store.pointee.sets[store.pointee.count])
        return true
    }

    /// Keeps a finished session's buffers for the next session this thread starts: `exchange`
    /// swaps them with an empty set. `false`, and nothing swapped, if the thread already keeps
    /// `limit` sets.
    ///
    /// Only what a session reads before writing is emptied here (the committed text, the
    /// pinyin, the side actions): the plan's keys and words, the marks and the scratch bytes
    /// are emptied where each query starts, the events too, and the arena is written only
    /// once no text of it is kept (a session checks before its first query).
    @inline(__always)
    static func keep(_ exchange: (inout SessionBuffers) -> Void) -> Bool {
        guard let store = ThreadStore.current(creating: true), store.pointee.count < limit else { return false }
        let slot = store.pointee.count
        exchange(&store.pointee.sets[slot])
        store.pointee.sets[slot].emptyWhatIsReadFirst()
        store.pointee.count += 1
        return true
    }

    /// A block of `SessionStorage.blockSize` bytes that a session on this thread gave back
    /// (its state deinitialized), or `nil` if the thread keeps none.
    @inline(__always)
    static func takeBlock() -> UnsafeMutableRawPointer? {
        guard let store = ThreadStore.current(creating: false), store.pointee.blockCount > 0 else { return nil }
        store.pointee.blockCount -= 1
        return store.pointee.blocks[store.pointee.blockCount]
    }

    /// Keeps a session's block (its state deinitialized) for the next session this thread
    /// makes, or frees it if the thread already keeps `limit` blocks.
    @inline(__always)
    static func keepBlock(_ block: UnsafeMutableRawPointer) {
        guard let store = ThreadStore.current(creating: true), store.pointee.blockCount < limit else {
            block.deallocate()
            return
        }
        store.pointee.blocks[store.pointee.blockCount] = block
        store.pointee.blockCount += 1
    }

    private mutating func emptyWhatIsReadFirst() {
        committed.removeAll()
        pinyin.removeAll()
        pinyinShown.removeAll()
        if !sideActions.isEmpty { sideActions.removeAll(keepingCapacity: true) }
    }

    /// A thread's spare sets: `sets[0..<count]` hold buffers, the rest hold empty arrays;
    /// and its spare session blocks, `blocks[0..<blockCount]`.
    struct Store {
        var sets = [SessionBuffers](repeating: SessionBuffers(), count: SessionBuffers.limit)
        var count = 0
        let blocks = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: SessionBuffers.limit)
        var blockCount = 0
    }

    /// The thread's spare sets, behind a pthread key (freed when the thread exits).
    private enum ThreadStore {
        typealias Store = SessionBuffers.Store

        static let key: pthread_key_t = {
            var key = pthread_key_t()
            let status = pthread_key_create(&key) { raw in
                guard let store = raw?.assumingMemoryBound(to: Store.self) else { return }
                for slot in store.pointee.sets.indices { store.pointee.sets[slot].free() }
                for slot in 0..<store.pointee.blockCount { store.pointee.blocks[slot].deallocate() }
                store.pointee.blocks.deallocate()
                store.deinitialize(count: 1)
                store.deallocate()
            }
            precondition(status == 0, "pthread_key_create failed (\(status)): no thread-local slot for spare session buffers")
            return key
        }()

        static func current(creating: Bool) -> UnsafeMutablePointer<Store>? {
            if let raw = pthread_getspecific(key) { return raw.assumingMemoryBound(to: Store.self) }
            guard creating else { return nil }
            let store = UnsafeMutablePointer<Store>.allocate(capacity: 1)
            store.initialize(to: Store())
            pthread_setspecific(key, store)
            return store
        }
    }
}
