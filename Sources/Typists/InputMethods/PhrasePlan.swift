/// The keys that type a whole English or Korean phrase from an empty field, planned once when
/// the query pool is built; a query takes the slice for its words.
struct PhrasePlan: Sendable {
    var keys: [PlanKey] = []
    var words: [SessionState.PlannedWord] = []
    /// Whether a Korean keyboard is in Latin mode after each word (before the next space).
    var latinAfterWord: [Bool] = []

    static let empty = PhrasePlan()

    /// Plan `bytes` (valid UTF-8) for `language` (`.en` or `.ko`).
    ///
    /// English: one key per character. Korean: one to five jamo keys per syllable; a 한/영
    /// toggle before a run of Latin letters and before Hangul that follows one (digits, spaces
    /// and punctuation type the same in both modes).
    init(bytes: [UInt8], language: TypingLanguage) {
        var latin = false
        var atWordStart = true
        var wordFirstKey = -1
        var scratch: [UInt8] = []
        var offset = 0
        func closeWord(_ plan: inout PhrasePlan, at byteOffset: Int) {
            guard wordFirstKey >= 0 else { return }
            plan.words.append(.init(firstKey: wordFirstKey, endKey: plan.keys.count, byteEnd: byteOffset))
            plan.latinAfterWord.append(latin)
            wordFirstKey = -1
        }
        func beginKey(_ plan: PhrasePlan) -> Bool {
            let starts = atWordStart
            if starts { wordFirstKey = plan.keys.count }
            atWordStart = false
            return starts
        }
        while offset < bytes.count {
            let (value, width) = UTF8Bytes.decode(bytes, at: offset)
            if value == 0x20 {
                closeWord(&self, at: offset)
                keys.append(.character(0x20, wordStart: false))
                atWordStart = true
            } else if language == .ko && value >= 128 {
                if latin {
                    keys.append(.toggle)
                    latin = false
                }
                scratch.removeAll(keepingCapacity: true)
                _ = Hangul.appendKeys(for: value, to: &scratch)
                var first = beginKey(self)
                for jamo in scratch {
                    keys.append(.jamo(jamo, wordStart: first))
                    first = false
                }
            } else {
                let lower = value | 0x20
                let isLetter = lower >= 0x61 && lower <= 0x7A
                if language == .ko && isLetter && !latin {
                    keys.append(.toggle)
                    latin = true
                }
                keys.append(.character(value, wordStart: beginKey(self)))
            }
            offset += width
        }
        closeWord(&self, at: bytes.count)
    }

    private init() {}
}
