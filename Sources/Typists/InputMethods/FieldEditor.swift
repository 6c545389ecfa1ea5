/// The search field as the typist's input method edits it, kept as UTF-8 bytes.
///
/// `committed` is text the input method has handed over; the preedit (a Hangul syllable being
/// composed, or Latin pinyin) follows it. The field's text is the two together, except that
/// pinyin can be kept out of the field until the pick (`pinyinInField == false`).
struct FieldEditor {
    private(set) var committed = RawBuffer<UInt8>()
    private var hangul = HangulComposer()
    private var pinyin = RawBuffer<UInt8>()
    /// Positions in `pinyin` after which an apostrophe separates syllables.
    private var pinyinBreaks: UInt64 = 0
    /// The pinyin as the field shows it (`ka'pai`), kept up to date key by key so rendering
    /// is one copy.
    private var pinyinShown = RawBuffer<UInt8>()
    /// Latin mode of a Korean keyboard after the 한/영 toggle.
    private(set) var latinMode = false
    let pinyinInField: Bool

    /// Lowest committed length and pinyin length since `startTracking()`: text below them is
    /// known to be unchanged, which makes comparing `Mark`s exact without copying bytes.
    private(set) var committedLowWater = 0
    private(set) var pinyinLowWater = 0

    /// Bytes at the start of the field's text that no edit has changed since the last
    /// `markRendered()`: the text's first `unchangedPrefix` bytes (as far as both texts reach)
    /// are those of the text then, so a session writes only what follows them.
    private(set) var unchangedPrefix = 0

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
    mutating func exchangeBuffers(committed: inout RawBuffer<UInt8>, pinyin: inout RawBuffer<UInt8>, pinyinShown: inout RawBuffer<UInt8>) {
        swap(&self.committed, &committed)
        swap(&self.pinyin, &pinyin)
        swap(&self.pinyinShown, &pinyinShown)
    }

    /// Frees the editor's buffers (see `RawBuffer`); it is empty after it.
    mutating func freeBuffers() {
        committed.free()
        pinyin.free()
        pinyinShown.free()
    }

    /// Frees the editor's buffers (see `RawBuffer`), which leaves it unusable: for an owner
    /// that is going away.
    mutating func deallocateBuffers() {
        committed.deallocate()
        pinyin.deallocate()
        pinyinShown.deallocate()
    }

    /// The same editor with buffers of its own.
    func copy() -> FieldEditor {
        var copy = self
        copy.committed = committed.copy()
        copy.pinyin = pinyin.copy()
        copy.pinyinShown = pinyinShown.copy()
        return copy
    }

    /// Identifies the editor's state relative to a tracking start.
    struct Mark: Hashable {
        var committedCount: Int32
        var pinyinCount: Int32
        var preedit: UInt64
        var latinMode: Bool
    }

    var mark: Mark {
        Mark(committedCount: Int32(truncatingIfNeeded: committed.count), pinyinCount: Int32(truncatingIfNeeded: pinyin.count),
             preedit: hangul.signature, latinMode: latinMode)
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

    /// The text may change from byte `offset` on.
    @inline(__always)
    private mutating func touch(_ offset: Int) {
        unchangedPrefix = min(unchangedPrefix, offset)
    }

    /// The text as it is now has been written out: `unchangedPrefix` counts from here.
    @inline(__always)
    mutating func markRendered() {
        unchangedPrefix = Int.max
    }

    /// Replace everything with `text` (paste, suggestion, clearing).
    mutating func reset(to text: UnsafeBufferPointer<UInt8> = UnsafeBufferPointer(start: nil, count: 0)) {
        touch(0)
        committed.removeAll()
        committed.append(contentsOf: text)
        hangul = HangulComposer()
        pinyin.removeAll()
        pinyinShown.removeAll()
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
            // Committing the preedit leaves the text as it was (the syllable's bytes are the
            // preedit's); the character follows it.
            hangul.flush(into: &committed)
            commitPinyinAsTyped()
            touch(committed.count)
            UTF8Bytes.append(key.value, to: &committed)
            return true
        case .jamo:
            if latinMode {
                hangul.flush(into: &committed)
                touch(committed.count)
                committed.append(KeyboardLayout.characters[Int(key.physical)])
            } else {
                inputJamo(UInt8(key.value))
            }
            return true
        case .pinyinLetter:
            appendPinyinLetter(key)
            return pinyinInField
        case .pick:
            let offset = Int(key.value >> 12), count = Int(key.value & 0xFFF)
            touch(committed.count)
            committed.append(contentsOf: UnsafeBufferPointer(rebasing: target[offset..<(offset + count)]))
            let hadVisiblePinyin = pinyinInField && !pinyin.isEmpty
            pinyin.removeAll()
            pinyinShown.removeAll()
            pinyinBreaks = 0
            pinyinLowWater = 0
            return count > 0 || hadVisiblePinyin
        case .toggle:
            hangul.flush(into: &committed)
            latinMode.toggle()
            return false
        }
    }

    /// `apply` of a `.jamo` key in Hangul mode (`!latinMode`): the composer takes the jamo.
    @inline(__always)
    mutating func inputJamo(_ jamo: UInt8) {
        let before = committed.count
        let kept = hangul.input(jamo, committed: &committed)
        touch(kept ? committed.count : before)
    }

    /// `apply` of a `.pinyinLetter` key: the letter joins the pinyin (and the field's text
    /// when `pinyinInField`).
    @inline(__always)
    mutating func appendPinyinLetter(_ key: PlanKey) {
        if pinyinInField { touch(committed.count + pinyinShown.count) }
        if pinyin.count < 63 {
            if !pinyin.isEmpty && pinyinBreaks & (1 << UInt64(pinyin.count - 1)) != 0 {
                pinyinShown.append(UInt8(ascii: "'"))
            }
            if key.flags & PlanKey.syllableEnd != 0 { pinyinBreaks |= 1 << UInt64(pinyin.count) }
            pinyin.append(UInt8(key.value))
            pinyinShown.append(UInt8(key.value))
        }
    }

    /// Whether no pinyin is being typed.
    @inline(__always)
    var hasNoPinyin: Bool { pinyin.isEmpty }

    /// `apply` of a `.character` key when there is no preedit (`!hasPreedit`): the character
    /// goes after the committed text, with nothing to commit first.
    @inline(__always)
    mutating func appendCharacter(_ scalar: UInt32) {
        assert(!hasPreedit, "a character appended past a preedit")
        touch(committed.count)
        UTF8Bytes.append(scalar, to: &committed)
    }

    /// One backspace: the last jamo of the syllable being composed, the last pinyin letter, or
    /// the last character. Returns whether the field's text changed.
    mutating func backspace() -> Bool {
        if hangul.backspace() {
            touch(committed.count)
            return true
        }
        if !pinyin.isEmpty {
            pinyin.removeLast()
            pinyinShown.removeLast()
            if pinyinShown.last == UInt8(ascii: "'") { pinyinShown.removeLast() }
            touch(committed.count + pinyinShown.count)
            pinyinBreaks &= ~(1 << UInt64(pinyin.count))
            pinyinLowWater = min(pinyinLowWater, pinyin.count)
            return pinyinInField
        }
        let changed = UTF8Bytes.removeLastScalar(&committed)
        touch(committed.count)
        committedLowWater = min(committedLowWater, committed.count)
        return changed
    }

    /// Whether the field's text is the committed text alone (no preedit shown).
    @inline(__always)
    var showsCommittedOnly: Bool { hangul.isEmpty && (!pinyinInField || pinyinShown.isEmpty) }

    /// The Hangul syllable (or lone jamo) being composed, when it is all the field shows
    /// after the committed text; `nil` otherwise.
    @inline(__always)
    var hangulPreedit: UInt32? {
        mutating get {
            hangul.isEmpty || (pinyinInField && !pinyinShown.isEmpty) ? nil : hangul.preeditScalar
        }
    }

    /// Whether no Hangul syllable is being composed: the field's text is then the committed
    /// text followed by `shownPinyin`.
    @inline(__always)
    var hasNoHangulPreedit: Bool { hangul.isEmpty }

    /// The pinyin the field shows after the committed text (none unless `pinyinInField`).
    @inline(__always)
    var shownPinyin: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: pinyinShown.base, count: pinyinInField ? pinyinShown.count : 0)
    }

    /// Where the field's text is now, read out of the editor: a session writes the text into
    /// memory the compiler cannot tell from the editor's, so rendering from this value spares
    /// a copy of the whole editor per key.
    struct Rendering {
        let committed: UnsafePointer<UInt8>
        let committedCount: Int
        /// The preedit syllable or jamo, 0 if none.
        let preedit: UInt32
        let shown: UnsafePointer<UInt8>
        let shownCount: Int

        /// Length of the text in UTF-8 bytes.
        @inline(__always)
        var count: Int { committedCount + (preedit == 0 ? 0 : HangulComposer.preeditByteCount) + shownCount }

        /// Writes the text from its byte `offset` on (`count - offset` bytes) at `bytes`.
        @inline(__always)
        func write(from offset: Int, into bytes: UnsafeMutablePointer<UInt8>) {
            if preedit == 0 && shownCount == 0 {
                // Only committed text (every key of an English query).
                copyBytes(from: committed + offset, to: bytes, count: committedCount - offset)
                return
            }
            var next = bytes
            var skip = offset
            if skip < committedCount {
                copyBytes(from: committed + skip, to: next, count: committedCount - skip)
                next += committedCount - skip
                skip = 0
            } else {
                skip -= committedCount
            }
            if preedit != 0 {
                let utf8 = (UInt8(truncatingIfNeeded: 0xE0 | preedit >> 12),
                            UInt8(truncatingIfNeeded: 0x80 | (preedit >> 6) & 0x3F),
                            UInt8(truncatingIfNeeded: 0x80 | preedit & 0x3F))
                switch skip {
                case 0:
                    next[0] = utf8.0
                    next[1] = utf8.1
                    next[2] = utf8.2
                    next += 3
                case 1:
                    next[0] = utf8.1
                    next[1] = utf8.2
                    next += 2
                case 2:
                    next[0] = utf8.2
                    next += 1
                default:
                    break
                }
                skip = max(skip - HangulComposer.preeditByteCount, 0)
            }
            if skip < shownCount { copyBytes(from: shown + skip, to: next, count: shownCount - skip) }
        }
    }

    /// (`mutating get` only so that reading it through a session's state does not copy the
    /// editor.)
    @inline(__always)
    var rendering: Rendering {
        mutating get { renderingOfCopy }
    }

    @inline(__always)
    private var renderingOfCopy: Rendering {
        let showsPinyin = pinyinInField && pinyinShown.count > 0
        return Rendering(
            committed: UnsafePointer(committed.base), committedCount: committed.count,
            preedit: hangul.isEmpty ? 0 : hangul.preeditScalar,
            shown: UnsafePointer(pinyinShown.base), shownCount: showsPinyin ? pinyinShown.count : 0
        )
    }

    /// The field's text as UTF-8.
    var renderedText: [UInt8] {
        let rendering = renderingOfCopy
        return [UInt8](unsafeUninitializedCapacity: rendering.count) { bytes, initialized in
            rendering.write(from: 0, into: bytes.baseAddress!)
            initialized = rendering.count
        }
    }

    /// Pinyin left unpicked when something else commits goes in as Latin letters, as IMEs do
    /// on Return.
    @inline(__always)
    private mutating func commitPinyinAsTyped() {
        guard !pinyin.isEmpty else { return }
        touch(committed.count)
        committed.append(contentsOf: pinyin.elements)
        pinyin.removeAll()
        pinyinShown.removeAll()
        pinyinBreaks = 0
        pinyinLowWater = 0
    }
}

/// Copies `count` bytes between buffers that do not overlap: word by word for the short texts
/// of a search field, without a call to `memmove`.
@inlinable @inline(__always)
func copyBytes(from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>, count: Int) {
    @inline(__always)
    func move<Word: FixedWidthInteger>(_: Word.Type, at offset: Int) {
        UnsafeMutableRawPointer(destination + offset).storeBytes(of: UnsafeRawPointer(source + offset).loadUnaligned(as: Word.self), as: Word.self)
    }
    // Words from the start, then one last word that ends at `count` (it may overlap the
    // word before it, which writes the same bytes).
    switch count {
    case ..<1:
        return
    case 1:
        destination[0] = source[0]
    case 2...3:
        move(UInt16.self, at: 0)
        move(UInt16.self, at: count - 2)
    case 4...7:
        move(UInt32.self, at: 0)
        move(UInt32.self, at: count - 4)
    case 8...32:
        var offset = 0
        while offset + 8 < count {
            move(UInt64.self, at: offset)
            offset += 8
        }
        move(UInt64.self, at: count - 8)
    default:
        destination.update(from: source, count: count)
    }
}
