import Foundation

/// The per-query buffers of a generated session, handed from a finished session to the next
/// one that the same thread starts, so that typing a session allocates none in the common case
/// (one session after another, as a runner's worker thread types them).
///
/// Each thread keeps at most `limit` sets, with their capacity (see `keep(_:)`); what a session
/// holds on to after it ends (the query's target and base text) is not among them. Buffers
/// hold no state between sessions, so which set a session gets changes nothing it types.
struct SessionBuffers {
    var keys: [PlanKey] = []
    var words: [GeneratedSession.PlannedWord] = []
    var marks: [FieldEditor.Mark] = []
    var out: [RawTypingEvent] = []
    var arena: [UInt8] = []
    var scratch: [UInt8] = []
    var sideActions: [TypingEvent.Action] = []
    var committed: [UInt8] = []
    var pinyin: [UInt8] = []
    var pinyinShown: [UInt8] = []

    /// Sets kept per thread: enough for a thread that interleaves a few sessions.
    static let limit = 4

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
    /// are emptied where each query starts, and the arena and the events are written by
    /// position (the arena's texts may still be read by whoever kept them: writing then copies
    /// it first).
    @inline(__always)
    static func keep(_ exchange: (inout SessionBuffers) -> Void) -> Bool {
        guard let store = ThreadStore.current(creating: true), store.pointee.count < limit else { return false }
        let slot = store.pointee.count
        exchange(&store.pointee.sets[slot])
        store.pointee.sets[slot].emptyWhatIsReadFirst()
        store.pointee.count += 1
        return true
    }

    private mutating func emptyWhatIsReadFirst() {
        if !committed.isEmpty { committed.removeAll(keepingCapacity: true) }
        if !pinyin.isEmpty { pinyin.removeAll(keepingCapacity: true) }
        if !pinyinShown.isEmpty { pinyinShown.removeAll(keepingCapacity: true) }
        if !sideActions.isEmpty { sideActions.removeAll(keepingCapacity: true) }
    }

    /// A thread's spare sets: `sets[0..<count]` hold buffers, the rest hold empty arrays.
    struct Store {
        var sets = [SessionBuffers](repeating: SessionBuffers(), count: SessionBuffers.limit)
        var count = 0
    }

    /// The thread's spare sets, behind a pthread key (freed when the thread exits).
    private enum ThreadStore {
        typealias Store = SessionBuffers.Store

        static let key: pthread_key_t = {
            var key = pthread_key_t()
            let status = pthread_key_create(&key) { raw in
                guard let store = raw?.assumingMemoryBound(to: Store.self) else { return }
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
