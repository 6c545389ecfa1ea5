import SearchField
import TypestormMetrics

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
    /// `_runaways`, `composition_breaks`), in virtual time and live alike. Outside a run of
    /// Typestorm's it returns `text`.
    @MainActor public func setFieldText(_ text: String) -> String? {
        guard let facts else { return text }
        return facts.fieldTextSet(text)
    }
}

/// One edit's write-backs into the text field so far.
package struct WriteBackBook: Sendable {
    var writes = 0
    var brokeComposition = false
    var stopped = false
}

extension FieldLedger {
    /// The field's code set the text field's text (``FieldEnvironment/setFieldText(_:)``): what
    /// the text field holds afterwards, or nil once this edit's writes reached the bound.
    package mutating func fieldTextSet(_ text: String) -> String? {
        guard !writeBack.stopped else { return nil }
        if textField.composing { writeBack.brokeComposition = true }
        let shown = textField.programmaticSet(text)
        writeBack.writes += 1
        if writeBack.writes >= SearchFieldConfiguration().writeBackBound { writeBack.stopped = true }
        return shown
    }

    /// Records the write-backs since the typist's last edit, if any, as one write-back (at the
    /// next edit, and at the end of the run).
    package mutating func recordWriteBacks(typist: Int, at time: Int64, recorder: inout Recorder) {
        let book = writeBack
        writeBack = WriteBackBook()
        guard book.writes > 0 else { return }
        recorder.record(.writeBack(reentries: book.writes, runaway: book.stopped, brokeComposition: book.brokeComposition),
                        typist: typist, at: time)
    }

    /// A sleep on the field's `timerClock` fired `lateness` after its deadline.
    package mutating func timerFired(lateness: Int64, typist: Int, at time: Int64, recorder: inout Recorder) {
        recorder.record(.timerLateness(lateness), typist: typist, at: time)
    }
}
