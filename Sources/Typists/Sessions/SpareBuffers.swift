import Foundation

/// The per-query buffers of a generated session, handed from a finished session to the next
/// one that the same thread starts, so that typing a session allocates none in the common case
/// (one session after another, as a runner's worker thread types them).
///
/// Each thread keeps at most `limit` sets, emptied but with their capacity; what a session
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

    /// A set of buffers a finished session on this thread left, or `nil`.
    static func takeSpare() -> SessionBuffers? {
        guard let store = ThreadStore.current(creating: false), !store.pointee.isEmpty else { return nil }
        return store.pointee.removeLast()
    }

    /// Keeps `buffers` (emptied here) for the next session this thread starts, unless the
    /// thread already keeps `limit` sets.
    static func keep(_ buffers: inout SessionBuffers) {
        guard let store = ThreadStore.current(creating: true), store.pointee.count < limit else { return }
        buffers.keys.removeAll(keepingCapacity: true)
        buffers.words.removeAll(keepingCapacity: true)
        buffers.marks.removeAll(keepingCapacity: true)
        buffers.scratch.removeAll(keepingCapacity: true)
        if !buffers.sideActions.isEmpty { buffers.sideActions.removeAll(keepingCapacity: true) }
        buffers.committed.removeAll(keepingCapacity: true)
        buffers.pinyin.removeAll(keepingCapacity: true)
        buffers.pinyinShown.removeAll(keepingCapacity: true)
        // The arena and the events are written by position, never cleared (the arena's texts
        // may still be read by whoever kept them: then writing copies it first).
        var kept = SessionBuffers()
        swap(&kept, &buffers)
        store.pointee.append(kept)
    }

    /// The thread's spare sets, behind a pthread key (freed when the thread exits).
    private enum ThreadStore {
        typealias Store = [SessionBuffers]

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
            store.initialize(to: [])
            store.pointee.reserveCapacity(SessionBuffers.limit)
            pthread_setspecific(key, store)
            return store
        }
    }
}
