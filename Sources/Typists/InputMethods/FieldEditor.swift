/// The search field as the typist's input method edits it, kept as UTF-8 bytes.
///
/// `committed` is text the input method has handed over; the preedit (a Hangul syllable being
/// composed, or Latin pinyin) follows it. The field's text is the two together, except that
/// pinyin can be kept out of the field until the pick (`pinyinInField == false`).
struct FieldEditor {
    private(set) var committed: [UInt8] = []
    private var hangul = HangulComposer()
    private var pinyin: [UInt8] = []
    /// Positions in `pinyin` after which an apostrophe separates syllables.
    private var pinyinBreaks: UInt64 = 0
    /// The pinyin as the field shows it (`ka'pai`), kept up to date key by key so rendering
    /// is one copy.
    private var pinyinShown: [UInt8] = []
    /// Latin mode of a Korean keyboard after the 한/영 toggle.
    private(set) var latinMode = false
    let pinyinInField: Bool

    /// Lowest committed length and pinyin length since `startTracking()`: text below them is
    /// known to be unchanged, which makes comparing `Mark`s exact without copying bytes.
    private(set) var committedLowWater = 0
    private(set) var pinyinLowWater = 0

    init(pinyinInField: Bool) {
        self.pinyinInField = pinyinInField
    }

    /// Gives the committed text room for `count` bytes.
    mutating func reserveCapacity(_ count: Int) {
        committed.reserveCapacity(count)
    }

    /// Swaps the editor's buffers with these (the session's spare buffers; see
    /// `SessionBuffers`): a session takes empty ones before it types, and gives its own up
    /// when it is over.
    mutating func exchangeBuffers(committed: inout [UInt8], pinyin: inout [UInt8], pinyinShown: inout [UInt8]) {
        swap(&self.committed, &committed)
        swap(&self.pinyin, &pinyin)
        swap(&self.pinyinShown, &pinyinShown)
    }

    /// Identifies the editor's state relative to a tracking start.
    struct Mark: Hashable {
        var committedCount: Int32
        var pinyinCount: Int32
        var preedit: UInt64
        var latinMode: Bool
    }

    var mark: Mark {
        Mark(committedCount: Int32(committed.count), pinyinCount: Int32(pinyin.count), preedit: hangul.signature, latinMode: latinMode)
    }

    /// Whether the field is now exactly in the state `mark` recorded (taken at or before the
    /// last `startTracking()`). The Hangul/Latin mode is not compared: it is not in the text.
    func matches(_ mark: Mark) -> Bool {
        Int(mark.committedCount) == committed.count && committed.count <= committedLowWater
            && Int(mark.pinyinCount) == pinyin.count && pinyin.count <= pinyinLowWater
            && mark.preedit == hangul.signature
    }

    /// A human switches the keyboard back when retyping; it changes no text.
    mutating func setLatinMode(_ latin: Bool) {
        latinMode = latin
    }

    mutating func startTracking() {
        committedLowWater = committed.count
        pinyinLowWater = pinyin.count
    }

    var hasPreedit: Bool { !hangul.isEmpty || !pinyin.isEmpty }

    /// Replace everything with `text` (paste, suggestion, clearing).
    mutating func reset<C: Collection<UInt8>>(to text: C) {
        committed.removeAll(keepingCapacity: true)
        committed.append(contentsOf: text)
        hangul = HangulComposer()
        pinyin.removeAll(keepingCapacity: true)
        pinyinShown.removeAll(keepingCapacity: true)
        pinyinBreaks = 0
        latinMode = false
        committedLowWater = min(committedLowWater, 0)
        pinyinLowWater = 0
    }

    /// Commit any preedit (Return, focus change).
    mutating func flush() {
        hangul.flush(into: &committed)
        commitPinyinAsTyped()
    }

    /// Apply one key; returns whether the field's text changed.
    /// `target` holds the bytes a pick commits.
    @inline(__always)
    mutating func apply(_ key: PlanKey, target: UnsafeBufferPointer<UInt8>) -> Bool {
        switch key.kind {
        case .character:
            hangul.flush(into: &committed)
            commitPinyinAsTyped()
            UTF8Bytes.append(key.value, to: &committed)
            return true
        case .jamo:
            if latinMode {
                hangul.flush(into: &committed)
                committed.append(KeyboardLayout.characters[Int(key.physical)])
            } else {
                hangul.input(UInt8(key.value), committed: &committed)
            }
            return true
        case .pinyinLetter:
            if pinyin.count < 63 {
                if !pinyin.isEmpty && pinyinBreaks & (1 << UInt64(pinyin.count - 1)) != 0 {
                    pinyinShown.append(UInt8(ascii: "'"))
                }
                if key.flags & PlanKey.syllableEnd != 0 { pinyinBreaks |= 1 << UInt64(pinyin.count) }
                pinyin.append(UInt8(key.value))
                pinyinShown.append(UInt8(key.value))
            }
            return pinyinInField
        case .pick:
            let offset = Int(key.value >> 12), count = Int(key.value & 0xFFF)
            committed.append(contentsOf: UnsafeBufferPointer(rebasing: target[offset..<(offset + count)]))
            let hadVisiblePinyin = pinyinInField && !pinyin.isEmpty
            pinyin.removeAll(keepingCapacity: true)
            pinyinShown.removeAll(keepingCapacity: true)
            pinyinBreaks = 0
            pinyinLowWater = 0
            return count > 0 || hadVisiblePinyin
        case .toggle:
            hangul.flush(into: &committed)
            latinMode.toggle()
            return false
        }
    }

    /// One backspace: the last jamo of the syllable being composed, the last pinyin letter, or
    /// the last character. Returns whether the field's text changed.
    mutating func backspace() -> Bool {
        if hangul.backspace() { return true }
        if !pinyin.isEmpty {
            pinyin.removeLast()
            pinyinShown.removeLast()
            if pinyinShown.last == UInt8(ascii: "'") { pinyinShown.removeLast() }
            pinyinBreaks &= ~(1 << UInt64(pinyin.count))
            pinyinLowWater = min(pinyinLowWater, pinyin.count)
            return pinyinInField
        }
        let changed = UTF8Bytes.removeLastScalar(&committed)
        committedLowWater = min(committedLowWater, committed.count)
        return changed
    }

    /// Length in UTF-8 bytes of the field's text (what `render(into:)` writes).
    @inline(__always)
    var renderedCount: Int {
        committed.count + (hangul.isEmpty ? 0 : HangulComposer.preeditByteCount) + (pinyinInField ? pinyinShown.count : 0)
    }

    /// Writes the field's text as UTF-8 at `bytes`, which has room for `renderedCount` bytes.
    @inline(__always)
    func render(into bytes: UnsafeMutablePointer<UInt8>) {
        var next = bytes
        committed.withUnsafeBufferPointer {
            guard let base = $0.baseAddress else { return }
            next.update(from: base, count: $0.count)
            next += $0.count
        }
        if !hangul.isEmpty {
            hangul.writePreedit(to: next)
            next += HangulComposer.preeditByteCount
        }
        guard pinyinInField else { return }
        pinyinShown.withUnsafeBufferPointer {
            guard let base = $0.baseAddress else { return }
            next.update(from: base, count: $0.count)
        }
    }

    /// Writes the field's text as UTF-8 into `bytes` from `start`, which must leave room for
    /// `renderedCount` bytes.
    @inline(__always)
    func render(into bytes: inout [UInt8], at start: Int) {
        bytes.withUnsafeMutableBufferPointer { render(into: $0.baseAddress! + start) }
    }

    /// The field's text as UTF-8, appended to `bytes`.
    func render(appendingTo bytes: inout [UInt8]) {
        let start = bytes.count
        bytes += [UInt8](repeating: 0, count: renderedCount)
        render(into: &bytes, at: start)
    }

    /// Pinyin left unpicked when something else commits goes in as Latin letters, as IMEs do
    /// on Return.
    @inline(__always)
    private mutating func commitPinyinAsTyped() {
        guard !pinyin.isEmpty else { return }
        committed.append(contentsOf: pinyin)
        pinyin.removeAll(keepingCapacity: true)
        pinyinShown.removeAll(keepingCapacity: true)
        pinyinBreaks = 0
        pinyinLowWater = 0
    }
}
