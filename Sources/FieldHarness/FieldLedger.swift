import FieldRuntime
import SearchField
import TypestormMetrics
import Typists

/// What a field of yours did for one typist, and what each of its acts means for the recorder:
/// the one mapping from a field's keystrokes, searches, sleeps and screens to records, for the
/// virtual run and the live one alike (so both measure the same things the same way).
package struct FieldLedger: Sendable {
    /// The field's input as the typist left it.
    package var input = FieldInput()
    package var nextRequest: RequestID = 0
    package var nextWait: UInt64 = 0
    /// Requests started and not yet ended, with their queries and when they were started.
    package var open: [(id: RequestID, key: QueryIdentity, startedAt: Int64)] = []
    /// Per query, the last request whose outcome reached the field, and whether a screen
    /// applied it: the screen that shows the query next is that request's answer. A cancelled
    /// one (`onlyAt`) only at the moment it arrived: a screen drawn later, that already showed
    /// the query, shows an earlier answer.
    package var delivered: [(key: QueryIdentity, id: RequestID, applied: Bool, onlyAt: Int64?)] = []
    package var shows = 0
    package var answersDelivered = 0
    /// What the field showed last, and whether a search failed or was cancelled since the field
    /// last turned a spinner on (a spinner left on after a failure is the field's flaw,
    /// measured; one left on after answers came is a wait that never ends).
    package var screen: FieldScreen = .idle
    package var failedSinceSpinner = false
    /// The text field as the typist's edits and the field's own writes leave it, and the current
    /// edit's write-backs (``FieldEnvironment/setFieldText(_:)``).
    package var textField = TextFieldModel()
    package var writeBack = WriteBackBook()
    /// What happened, step by step, in the `replay` command's terms; nil when not recorded
    /// (one typist's, on request: it costs an entry per step).
    package var timeline: [(time: Int64, entry: TimelineEntry)]?

    package init(recordsTimeline: Bool = false) {
        timeline = recordsTimeline ? [] : nil
    }

    private mutating func note(_ entry: TimelineEntry, at time: Int64) {
        if timeline != nil { timeline!.append((time, entry)) }
    }

    /// The typist acted on the field (before the field hears of it).
    package mutating func typed(_ action: TypingEvent.Action, expected: QueryNormalizer, typist: Int, at time: Int64,
                                recorder: inout Recorder) {
        if case let .edit(key, text) = action {
            // A new edit: the text field holds the typist's text, and the last edit's writes
            // back into it are over.
            let string = text.string
            textField.userEdit(string, composing: Composition.isComposing(key: key))
            recordWriteBacks(typist: typist, at: time, recorder: &recorder)
            input.text = string
        }
        note(.typing(action), at: time)
        switch action {
        case .edit: break
        case let .scope(scope): input.scope = scope
        case let .tokens(tokens): input.tokens = tokens
        case .submit:
            recorder.record(.submit, typist: typist, at: time)
            return
        case .end:
            recorder.record(.sessionEnd, typist: typist, at: time)
            return
        }
        let query = expected.identity(text: input.text, scope: input.scope, tokens: input.tokens).map { $0.trimmed(alreadyTrimmed: true) }
        recorder.keystroke(query, typist: typist, at: time)
    }

    /// The field starts a search for `query`; returns its request number.
    package mutating func searchStarted(_ query: QueryIdentity, lag: Int64? = nil, typist: Int, at time: Int64,
                                        recorder: inout Recorder) -> RequestID {
        nextRequest += 1
        let key = query.trimmed()
        recorder.commit(key, cached: false, typist: typist, at: time)
        recorder.requestStarted(id: nextRequest, query: key, lag: lag, typist: typist, at: time)
        open.append((nextRequest, key, time))
        note(.effect(.sendRequest(nextRequest, query)), at: time)
        return nextRequest
    }

    /// The task awaiting request `id` was cancelled; false when the request had already ended.
    package mutating func cancelRequested(_ id: RequestID, typist: Int, at time: Int64, recorder: inout Recorder) -> Bool {
        guard open.contains(where: { $0.id == id }) else { return false }
        recorder.cancelRequested(id: id, wait: false, typist: typist, at: time)
        note(.effect(.cancelRequest(id)), at: time)
        return true
    }

    /// Request `id` ended as the client sees it; false when it was not open.
    package mutating func finished(_ id: RequestID, _ result: RequestResult, scheduleLag: Int64 = 0, typist: Int, at time: Int64,
                                   recorder: inout Recorder) -> Bool {
        guard let index = open.firstIndex(where: { $0.id == id }) else { return false }
        let key = open.remove(at: index).key
        recorder.record(.scheduleLag(scheduleLag), typist: typist, at: time)
        if let known = delivered.firstIndex(where: { $0.key == key }) { delivered.remove(at: known) }
        delivered.append((key, id, false, result == .failed(.cancelled) ? time : nil))
        answersDelivered += 1
        switch result {
        case let .results(count):
            recorder.record(.workStopped(id: id, reason: .completed), typist: typist, at: time)
            if count == nil { recorder.record(.countUnknown(id: id), typist: typist, at: time) }
            note(.event(.responseArrived(id, ResultSummary(count: count))), at: time)
        case let .failed(reason):
            failedSinceSpinner = true
            recorder.record(.workStopped(id: id, reason: StopReason(reason)), typist: typist, at: time)
            note(.event(.requestFailed(id, reason)), at: time)
        }
        return true
    }

    /// A sleep of `delay` on the field's clock starts: a debounce wait for the query the field
    /// asks for now (none below the minimum length); returns its number, or nil when not recorded.
    package mutating func waitStarted(delay: Int64, expected: QueryNormalizer, typist: Int, at time: Int64,
                                      recorder: inout Recorder) -> UInt64? {
        guard let query = expected.identity(text: input.text, scope: input.scope, tokens: input.tokens) else { return nil }
        nextWait += 1
        recorder.waitStarted(id: nextWait, query: query.trimmed(alreadyTrimmed: true), typist: typist, at: time)
        note(.effect(.scheduleTimer(nextWait, delay: delay, purpose: .debounce(query))), at: time)
        return nextWait
    }

    /// Wait `id` ended: it fired `lateness` after its deadline, or (nil) its task was cancelled.
    package mutating func waitEnded(_ id: UInt64, lateness: Int64?, typist: Int, at time: Int64, recorder: inout Recorder) {
        if let lateness {
            recorder.waitFired(id: id, lateness: lateness, typist: typist, at: time)
            note(.event(.timerFired(id)), at: time)
        } else {
            recorder.cancelRequested(id: id, wait: true, typist: typist, at: time)
            note(.effect(.cancelTimer(id)), at: time)
        }
    }

    /// The field shows `screen`: a query's screen applies the last answer delivered for it.
    package mutating func show(_ screen: FieldScreen, typist: Int, at time: Int64, recorder: inout Recorder) {
        shows += 1
        if screen.isSpinner, !self.screen.isSpinner { failedSinceSpinner = false }
        self.screen = screen
        var shownRequest: RequestID = 0
        func answer(_ query: QueryIdentity, _ kind: DisplayKind) -> QueryIdentity {
            let key = query.trimmed()
            if let index = delivered.firstIndex(where: { $0.key == key }) {
                shownRequest = delivered[index].id
                if !delivered[index].applied, delivered[index].onlyAt.map({ $0 == time }) ?? true {
                    delivered[index].applied = true
                    recorder.apply(id: delivered[index].id, query: key, kind: kind, typist: typist, at: time)
                }
            }
            return key
        }
        defer {
            if timeline != nil {
                let state: DisplayState = switch screen {
                case .idle: .idle
                case .loading: .loading
                case .stalled: .stalled
                case let .results(query, count): count == 0 ? .empty(query) : .results(query, request: shownRequest)
                case let .empty(query): .empty(query)
                case let .error(query): .error(query)
                }
                note(.effect(.display(state)), at: time)
            }
        }
        switch screen {
        case .idle: recorder.display(.idle, query: nil, typist: typist, at: time)
        case .loading: recorder.display(.loading, query: nil, typist: typist, at: time)
        case .stalled: recorder.display(.stalled, query: nil, typist: typist, at: time)
        case let .results(query, count):
            let kind: DisplayKind = count == 0 ? .empty : .results
            recorder.display(kind, query: answer(query, kind), typist: typist, at: time)
        case let .empty(query):
            recorder.display(.empty, query: answer(query, .empty), typist: typist, at: time)
        case let .error(query):
            recorder.display(.error, query: answer(query, .error), typist: typist, at: time)
        }
    }

    /// Still showing a spinner with nothing of ours in flight and no failure since it came on: it
    /// waits for something that is never resumed.
    package var waitsForever: Bool { open.isEmpty && !failedSinceSpinner && screen.isSpinner }

    /// The field answered `query` from its own cache, with no search: a cached commit, as a
    /// preset's cache hit records it. An answer for `query` that reached the field earlier and
    /// was never shown is not applied by the screen that shows the cached results.
    package mutating func answeredFromCache(_ query: QueryIdentity, typist: Int, at time: Int64, recorder: inout Recorder) {
        let key = query.trimmed()
        recorder.commit(key, cached: true, typist: typist, at: time)
        if let index = delivered.firstIndex(where: { $0.key == key }) { delivered[index].applied = true }
    }

    /// Got answers but never said what it shows.
    package var neverShowed: Bool { answersDelivered > 0 && shows == 0 }
}

extension FieldScreen {
    /// A spinner or the stalled indicator: the field waits for an answer.
    var isSpinner: Bool {
        switch self {
        case .loading, .stalled: true
        default: false
        }
    }
}

/// The problems of a finished run of a field that make its numbers meaningless, in one message
/// that names the field and the typists (`indices`: the typists' global numbers); nil when none.
package func fieldProblems(_ ledgers: [FieldLedger], indices: [Int], name: String) -> String? {
    func names(_ typists: [Int]) -> String {
        let shown = typists.prefix(8).map { "typist \(indices[$0])" }.joined(separator: ", ")
        return typists.count > 8 ? shown + ", …" : shown
    }
    var problems: [String] = []
    let silent = ledgers.indices.filter { ledgers[$0].neverShowed }
    if !silent.isEmpty {
        problems.append("""
        the field never reported what it shows for \(silent.count) of \(ledgers.count) typists (\(names(silent))): \
        they got answers, but the field never called env.show(…), so nothing can be measured
        """)
    }
    let waiting = ledgers.indices.filter { ledgers[$0].waitsForever }
    if !waiting.isEmpty {
        problems.append("""
        the field still shows a spinner at the end of the run for \(waiting.count) of \(ledgers.count) typists \
        (\(names(waiting))) with no search of theirs in flight: it awaits something that is never resumed (a \
        continuation it never resumes, or a result it never gets), so those searches never end
        """)
    }
    return problems.isEmpty ? nil : "field '\(name)': " + problems.joined(separator: "; ")
}
