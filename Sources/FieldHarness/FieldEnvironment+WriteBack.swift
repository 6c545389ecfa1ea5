import SearchField

extension FieldEnvironment {
    /// Tells Typestorm that the field's own code wrote `text` into the text field (seed 001's
    /// `query = cleaned` inside `onChange`) and returns what the text field holds afterwards:
    /// `text`, or, while an input method is composing (a Hangul syllable being built), the
    /// composition's text, which the input method puts straight back, so the binding changes
    /// again and a handler that cleans it runs again.
    ///
    /// Returns nil once 16 writes for one edit of the typist have been answered (the bound of
    /// the `+write-back` variant, where SwiftUI gives up on an `onChange` that "tried to update
    /// multiple times per frame"): the loop is stopped and the field keeps the text it holds.
    /// Each edit's writes are recorded as one write-back (`writeback_changes`, `_reentries`,
    /// `_runaways`, `composition_breaks`). Outside a virtual run it returns `text`.
    @MainActor public func setFieldText(_ text: String) -> String? {
        guard let waits = typistWaits else { return text }
        return waits.run.fieldTextSet(text, typist: waits.typist)
    }
}

/// One edit's write-backs into the text field so far.
struct WriteBackBook {
    var writes = 0
    var brokeComposition = false
    var stopped = false
}

extension VirtualFieldRun {
    /// The typist edited the field: the text field holds `text` (composing when `key` leaves an
    /// input-method composition open), and the previous edit's write-backs are recorded.
    func userEdited(_ typist: Int, text: String, key: String) {
        typists[typist].field.userEdit(text, composing: Composition.isComposing(key: key))
        recordWriteBacks(typist)
    }

    /// The field's code set the text field's text (``FieldEnvironment/setFieldText(_:)``).
    func fieldTextSet(_ text: String, typist: Int) -> String? {
        guard VirtualScheduler.shared.session === self else { return text }
        var state = typists[typist]
        defer { typists[typist] = state }
        guard !state.writeBack.stopped else { return nil }
        if state.field.composing { state.writeBack.brokeComposition = true }
        let shown = state.field.programmaticSet(text)
        state.writeBack.writes += 1
        if state.writeBack.writes >= SearchFieldConfiguration().writeBackBound { state.writeBack.stopped = true }
        return shown
    }

    /// Records typist `typist`'s write-backs since its last edit, if any, as one write-back.
    func recordWriteBacks(_ typist: Int) {
        let book = typists[typist].writeBack
        typists[typist].writeBack = WriteBackBook()
        guard book.writes > 0 else { return }
        recorder.record(.writeBack(reentries: book.writes, runaway: book.stopped, brokeComposition: book.brokeComposition),
                        typist: typist, at: world.now)
    }
}
