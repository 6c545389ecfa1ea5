import Foundation

extension SessionState {
    /// One query of the session: the pause before it, the follow-up choice, typing it, and
    /// Return; then whether the session goes on.
    mutating func produceQuery() {
        if queriesDone == 0 {
            now += millis(pause(median: settings.config.focusDelayMedianMillis, .sigma05))
            planNewQuery()
        } else {
            now += millis(pause(median: settings.config.readingPauseMedianMillis, .sigma07))
            editor.flush()
            if !editor.committed.isEmpty && rng.nextBool(settings.config.refineShare) {
                planRefinement()
            } else {
                if !editor.committed.isEmpty {
                    editor.reset()
                    emitEdit(TypingKey.clear)
                    now += millis(pause(median: 400, .sigma04))
                }
                planNewQuery()
            }
        }
        typeQuery()
        queriesDone += 1
        if rng.nextBool(settings.config.submitRate) {
            now += millis(pause(median: settings.config.submitPauseMedianMillis, .sigma05))
            editor.flush()
            emit(.submit, key: 0)
        }
        if queriesDone >= settings.config.maxQueriesPerSession || !rng.nextBool(settings.config.followUpRate) {
            now += millis(pause(median: 2000, .sigma06))
            editor.flush()
            emit(.end, key: 0)
            finished = true
        }
    }

    /// A query typed into an empty field: k words from the words-per-query distribution.
    mutating func planNewQuery() {
        let k = drawWordCount()
        let index = pool.draw(words: k, &rng)
        let phrase = pool.phrases[index]
        let words = min(phrase.wordCount, k == settings.config.wordsPerQuery.count ? phrase.wordCount : k)
        lastPhrase = index
        lastPhraseWords = words
        intendedWords = words
        plan(phrase: phrase, fromWord: 0, toWord: words, leadingSpace: false)
    }

    /// A follow-up that adds words: the next words of the last phrase if it was cut short,
    /// otherwise the first word of another phrase.
    mutating func planRefinement() {
        if lastPhrase >= 0, pool.phrases[lastPhrase].wordCount > lastPhraseWords {
            let phrase = pool.phrases[lastPhrase]
            let to = min(phrase.wordCount, lastPhraseWords + 1 + rng.nextInt(below: 2))
            intendedWords = to - lastPhraseWords
            plan(phrase: phrase, fromWord: lastPhraseWords, toWord: to, leadingSpace: false)
            lastPhraseWords = to
        } else {
            let index = pool.draw(words: 1, &rng)
            lastPhrase = index
            lastPhraseWords = 1
            intendedWords = 1
            plan(phrase: pool.phrases[index], fromWord: 0, toWord: 1, leadingSpace: true)
        }
    }

    mutating func drawWordCount() -> Int {
        drawIndex(settings.config.wordsPerQuery, total: settings.wordsPerQueryTotal) + 1
    }

    /// An index with probability proportional to `weights`, whose sum is `total`
    /// (`weights.reduce(0, +)`, made once by the population's settings).
    mutating func drawIndex(_ weights: [Double], total: Double) -> Int {
        guard total > 0 else { return 0 }
        var x = rng.nextUnit() * total
        for (index, weight) in weights.enumerated() {
            if x < weight { return index }
            x -= weight
        }
        return weights.count - 1
    }

    @inline(__always)
    func millis(_ value: Double) -> Int64 {
        Int64(value * 1_000_000)
    }

    /// Build the keys that type words `fromWord..<toWord` of `phrase` after the current text.
    mutating func plan(phrase: Phrase, fromWord: Int, toWord: Int, leadingSpace: Bool) {
        keys.removeAll()
        target.removeAll()
        words.removeAll()
        baseBytes.removeAll()
        baseBytes.append(contentsOf: editor.committed.elements)
        let startByte = fromWord == 0 ? 0 : phrase.wordEnds[fromWord - 1]
        let endByte = phrase.wordEnds[toWord - 1]
        if leadingSpace { target.append(UInt8(ascii: " ")) }
        let delta = target.count - startByte
        target.append(copying: startByte..<endByte, of: phrase.bytes)
        queryNumber += 1
        isRefinement = !baseBytes.isEmpty

        var atWordStart = baseBytes.isEmpty || baseBytes.last == UInt8(ascii: " ")
        var wordFirstKey = -1
        func space(_ byteOffset: Int, into session: inout SessionState) {
            if wordFirstKey >= 0 {
                session.words.append(PlannedWord(firstKey: wordFirstKey, endKey: session.keys.count, byteEnd: byteOffset))
                wordFirstKey = -1
            }
            session.keys.append(.character(UInt32(UInt8(ascii: " ")), wordStart: false))
            atWordStart = true
        }
        func beginKey(at index: Int) -> Bool {
            let starts = atWordStart
            if starts { wordFirstKey = index }
            atWordStart = false
            return starts
        }

        switch pool.language {
        case .en, .ko:
            // The keys were planned once per phrase; take the words' slice of them.
            let plan = phrase.plan
            let startKey = fromWord == 0 ? 0 : plan.words[fromWord - 1].endKey
            let endKey = plan.words[toWord - 1].endKey
            if leadingSpace { keys.append(.character(0x20, wordStart: false)) }
            let latinAtStart = fromWord == 0 ? false : plan.latinAfterWord[fromWord - 1]
            if editor.latinMode != latinAtStart { keys.append(.toggle) }
            let keyDelta = keys.count - startKey
            keys.append(copying: startKey..<endKey, of: plan.keys)
            for word in plan.words[fromWord..<toWord] {
                words.append(PlannedWord(firstKey: word.firstKey + keyDelta, endKey: word.endKey + keyDelta, byteEnd: word.byteEnd + delta))
            }
            return
        case .zh:
            if leadingSpace { space(0, into: &self) }
            var index = phrase.units.firstIndex { Int($0.byteOffset) >= startByte } ?? phrase.units.count
            var segmentStart = -1
            var mode = 0
            var positionInSegment = 0
            while index < phrase.units.count, Int(phrase.units[index].byteOffset) < endByte {
                let unit = phrase.units[index]
                let offset = Int(unit.byteOffset) + delta
                if !unit.isHan {
                    if unit.byteCount == 1 && phrase.bytes[Int(unit.byteOffset)] == UInt8(ascii: " ") {
                        space(offset, into: &self)
                    } else {
                        keys.append(.character(UInt32(phrase.bytes[Int(unit.byteOffset)]), wordStart: beginKey(at: keys.count)))
                    }
                    index += 1
                    continue
                }
                if segmentStart < 0 {
                    segmentStart = offset
                    positionInSegment = 0
                    var length = 1
                    while !phrase.units[index + length - 1].endsSegment { length += 1 }
                    mode = 0
                    if length > 1 {
                        let r = rng.nextUnit()
                        if r < settings.config.pinyinInitialsOnly {
                            mode = 2
                        } else if r < settings.config.pinyinInitialsOnly + settings.config.pinyinAbbreviateRest {
                            mode = 1
                        }
                    }
                }
                let full = mode == 0 || (mode == 1 && positionInSegment == 0)
                let firstLetter = keys.count
                let letters = Int(unit.pinyinOffset)
                if full {
                    keys.append(copying: letters..<(letters + Int(unit.pinyinCount)), of: phrase.pinyinKeys)
                } else {
                    var initial = phrase.pinyinKeys[letters]
                    initial.flags |= PlanKey.syllableEnd
                    keys.append(initial)
                }
                if beginKey(at: firstLetter) { keys[firstLetter].flags |= PlanKey.wordStart }
                positionInSegment += 1
                if unit.endsSegment {
                    keys.append(.pick(byteOffset: segmentStart, byteCount: offset + Int(unit.byteCount) - segmentStart))
                    segmentStart = -1
                }
                index += 1
            }
        }
        if wordFirstKey >= 0 {
            words.append(PlannedWord(firstKey: wordFirstKey, endKey: keys.count, byteEnd: target.count))
        }
    }

    /// Type the planned keys, with slips and their corrections, pauses, and the part-way
    /// actions (scope or token change, clear and retype, suggestion, word prediction).
    mutating func typeQuery() {
        let n = keys.count
        marks.removeAll()
        marks.append(editor.mark)
        forgetPreviousKey()
        if rng.nextBool(pasteRate) {
            now += millis(pause(median: 900, .sigma05))
            resetField(toTargetPrefix: target.count)
            emitEdit(TypingKey.paste)
            return
        }
        var clearAt = -1, acceptAt = -1, scopeAt = -1
        if n >= 4 && rng.nextBool(settings.config.clearAndRetypeRate) {
            clearAt = n / 3 + rng.nextInt(below: n - n / 3)
        }
        if n >= 4 && rng.nextBool(settings.config.acceptSuggestionRate) {
            let earliest = max(2, Int(0.4 * Double(n)))
            acceptAt = earliest + rng.nextInt(below: max(1, n - 1 - earliest))
        }
        if n >= 2 && rng.nextBool(settings.config.scopeOrTokenChangeRate) {
            scopeAt = 1 + rng.nextInt(below: n - 1)
        }
        var predictAt = -1, predictWord = -1
        var clean = true
        var i = 0
        while i < n {
            if i == scopeAt {
                scopeAt = -1
                now += millis(pause(median: 1000, .sigma05))
                changeScopeOrTokens()
                forgetPreviousKey()
            }
            if i == clearAt {
                clearAt = -1
                now += millis(pause(median: 800, .sigma05))
                editor.reset(to: baseBytes.elements)
                emitEdit(TypingKey.clear)
                marks.removeAll()
                marks.append(editor.mark)
                forgetPreviousKey()
                predictAt = -1
                clean = true
                i = 0
                continue
            }
            if i == acceptAt {
                now += millis(pause(median: settings.config.suggestionLookMedianMillis, .sigma05) + keyInterval(keys[i]))
                resetField(toTargetPrefix: target.count)
                emitEdit(TypingKey.acceptSuggestion)
                return
            }
            let key = keys[i]
            if key.isWordStart && predictionRate > 0 && pool.language != .zh,
               let w = words.firstIndex(where: { $0.firstKey == i }), words[w].endKey - i >= 4,
               rng.nextBool(predictionRate) {
                predictAt = i + 2
                predictWord = w
            }
            if i == predictAt {
                predictAt = -1
                if clean {
                    let word = words[predictWord]
                    let last = word.endKey >= n
                    now += millis(pause(median: settings.config.suggestionLookMedianMillis, .sigma05))
                    resetField(toTargetPrefix: last ? word.byteEnd : word.byteEnd + 1)
                    emitEdit(TypingKey.acceptSuggestion)
                    let resume = last ? n : word.endKey + 1
                    let unreachable = FieldEditor.Mark(committedCount: -1, pinyinCount: -1, preedit: 0, latinMode: false)
                    while marks.count < resume { marks.append(unreachable) }
                    marks.append(editor.mark)
                    forgetPreviousKey()
                    i = resume
                    continue
                }
            }
            // The key's draws go through a local copy of the generator, written back once.
            var random = rng
            var interval = key.kind == .pick
                ? pause(median: settings.config.candidatePickMedianMillis, .sigma04, using: &random)
                : keyInterval(key, using: &random)
            if random.nextBool(threshold: hesitationThreshold) {
                interval += pause(median: settings.config.hesitationMedianMillis, .sigma06, using: &random)
            }
            if key.isWordStart && i > 0 && random.nextBool(threshold: suggestionLookThreshold) {
                interval += pause(median: settings.config.suggestionLookMedianMillis, .sigma05, using: &random)
            }
            now += millis(interval)
            let slips = random.nextBool(threshold: slipThreshold)
            rng = random
            if slips, let wrong = key.slip(choosing: rng.nextInt(below: 8)) {
                editor.startTracking()
                press(wrong)
                let noticed = pool.language == .zh || rng.nextBool(profile.noticeRate)
                if !noticed {
                    clean = false
                    marks.append(editor.mark)
                    i += 1
                    continue
                }
                let extra = profile.device == .desktop
                    ? drawIndex(settings.noticeDelayWeights.desktop, total: settings.noticeDelayTotals.desktop)
                    : drawIndex(settings.noticeDelayWeights.mobile, total: settings.noticeDelayTotals.mobile)
                var typed = 0
                while typed < extra && i + 1 + typed < n && keys[i + 1 + typed].kind != .pick {
                    now += millis(keyInterval(keys[i + 1 + typed]))
                    press(keys[i + 1 + typed])
                    typed += 1
                }
                now += millis(baseIKI * rng.nextUniform(1.5...2.0))
                i = backspaceToTrack()
                continue
            }
            if key.kind == .character && !editor.hasPreedit {
                pressCharacter(key)
            } else if key.kind == .pinyinLetter && editor.pinyinInField {
                pressPinyinLetter(key)
            } else if key.kind == .jamo && !editor.latinMode && editor.hasNoPinyin {
                pressJamo(key)
            } else {
                press(key)
            }
            marks.append(editor.mark)
            i += 1
        }
    }

    /// Backspace until the field is in a state the plan passed through, and return the plan
    /// position to retype from. A human deletes what looks wrong; with composition that can be
    /// more than the keys typed (a final that moved to the next syllable goes with it).
    mutating func backspaceToTrack() -> Int {
        while true {
            let changed = editor.backspace()
            if changed || settings.config.emitsUnchangedKeys { emitEdit(TypingKey.backspace) }
            forgetPreviousKey()
            if let j = marks.lastIndex(where: { editor.matches($0) }) {
                editor.setLatinMode(marks[j].latinMode)
                marks.truncate(to: j + 1)
                return j
            }
            if !changed && !editor.hasPreedit && editor.committed.isEmpty {
                marks.removeAll()
                marks.append(editor.mark)
                return 0
            }
            now += millis(baseIKI * 0.9 * sampler.sample(&rng))
        }
    }

    /// Press a key: the editor applies it, and the field's new text is emitted if it changed.
    mutating func press(_ key: PlanKey) {
        let changed = editor.apply(key, target: target.elements)
        prevPhysical = key.physical
        prevHand = key.flags & PlanKey.handMask
        guard changed || settings.config.emitsUnchangedKeys else { return }
        let code: UInt32
        switch key.kind {
        case .character, .pinyinLetter:
            code = key.value
        case .jamo:
            code = Hangul.scalar(ofJamo: UInt8(key.value))
        case .pick:
            let r = rng.nextUnit()
            code = r < 0.65 ? TypingKey.pickWithSpace : (r < 0.9 ? UInt32(UInt8(ascii: "1")) : UInt32(UInt8(ascii: "2")))
        case .toggle:
            code = TypingKey.toggleHangul
        }
        emitEdit(code)
    }

    /// `press(key)` for a character key typed after committed text alone, the most common key:
    /// the character is appended and the text written, without the editor's general `apply`.
    @inline(never)
    mutating func pressCharacter(_ key: PlanKey) {
        editor.appendCharacter(key.value)
        prevPhysical = key.physical
        prevHand = key.flags & PlanKey.handMask
        // With no preedit before the key, the field shows the committed text alone.
        emitCommittedEdit(key.value)
    }

    /// `press(key)` for a pinyin letter shown in the field: the letter extends the text.
    @inline(never)
    mutating func pressPinyinLetter(_ key: PlanKey) {
        editor.appendPinyinLetter(key)
        prevPhysical = key.physical
        prevHand = key.flags & PlanKey.handMask
        if !emitPinyinExtension(key.value) { emitRenderedEdit(key.value) }
    }

    /// `press(key)` for a jamo in Hangul mode with no pinyin: the composer takes it, and the
    /// text is the committed text and the syllable being composed.
    @inline(never)
    mutating func pressJamo(_ key: PlanKey) {
        editor.inputJamo(UInt8(key.value))
        prevPhysical = key.physical
        prevHand = key.flags & PlanKey.handMask
        emitHangulEdit(Hangul.scalar(ofJamo: UInt8(key.value)), preedit: editor.hangulPreedit!)
    }

    /// The interval before `key`, in ms: the typist's base, the key-pair effect within words,
    /// the slower first key of a word, rollover, and the typist's own spread.
    ///
    /// - Complexity: O(1); one or two uniform draws and one normal draw.
    @inline(__always)
    mutating func keyInterval(_ key: PlanKey) -> Double {
        keyInterval(key, using: &rng)
    }

    /// `keyInterval(key)` drawing from `random` (a copy of `rng` that the caller writes back).
    @inline(__always)
    func keyInterval(_ key: PlanKey, using random: inout SeededGenerator) -> Double {
        var ms = baseIKI
        if key.isWordStart {
            ms *= profile.firstKeyFactor
        } else {
            ms *= pairFactors.factor(hand: key.flags & PlanKey.handMask, previousHand: prevHand, sameKey: key.physical == prevPhysical)
            if profile.rolloverRate > 0 && random.nextBool(threshold: rolloverThreshold) {
                ms *= 0.35 + 0.4 * random.nextUnit()
            }
        }
        return ms * sampler.sample(&random)
    }

    /// A log-normal pause with this median, from the population's tables (no `exp` per draw).
    @inline(__always)
    mutating func pause(median: Double, _ shape: PopulationSettings.PauseShape) -> Double {
        pause(median: median, shape, using: &rng)
    }

    /// `pause(median:_:)` drawing from `random` (a copy of `rng` that the caller writes back).
    @inline(__always)
    func pause(median: Double, _ shape: PopulationSettings.PauseShape, using random: inout SeededGenerator) -> Double {
        let table = settings.pauses[shape.rawValue]
        return median * table.unitMedian * table.sampler.sample(&random)
    }

    /// The next key follows no key on the layout (after a pause, a backspace, a paste).
    @inline(__always)
    mutating func forgetPreviousKey() {
        prevPhysical = KeyboardLayout.none
        prevHand = 0
    }

    /// Set the field to the start text plus the first `count` bytes of the target.
    mutating func resetField(toTargetPrefix count: Int) {
        scratch.removeAll()
        scratch.append(contentsOf: baseBytes.elements)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: target.elements[0..<count]))
        editor.reset(to: scratch.elements)
    }

    mutating func changeScopeOrTokens() {
        if !settings.config.scopes.isEmpty && (settings.config.tokens.isEmpty || rng.nextBool(0.5)) {
            let next: String? = scope != nil && rng.nextBool(0.3) ? nil : settings.config.scopes[rng.nextInt(below: settings.config.scopes.count)]
            scope = next
            sideActions.append(.scope(next))
            emit(.scope, key: UInt32(sideActions.count - 1))
        } else if !settings.config.tokens.isEmpty {
            let token = settings.config.tokens[rng.nextInt(below: settings.config.tokens.count)]
            if let existing = tokens.firstIndex(of: token) {
                tokens.remove(at: existing)
            } else {
                tokens.append(token)
            }
            sideActions.append(.tokens(tokens))
            emit(.tokens, key: UInt32(sideActions.count - 1))
        }
    }

    /// Emits an edit with the field's text now. Only the bytes that differ from the last
    /// edit's text are written: a text that extends it is written in place after it, a
    /// prefix of it is a shorter view of it, and any other text copies the bytes they share
    /// from the arena and renders the rest.
    @inline(__always)
    mutating func emitEdit(_ key: UInt32) {
        if editor.showsCommittedOnly {
            emitCommittedEdit(key)
        } else {
            emitRenderedEdit(key)
        }
    }

    /// `emitEdit` when the field shows the committed text alone (`editor.showsCommittedOnly`).
    @inline(__always)
    mutating func emitCommittedEdit(_ key: UInt32) {
        // Most keys append to the committed text of a text that ends the arena: write the
        // new bytes after it. (Byte counts of texts in memory: the arithmetic wraps rather
        // than traps, as it cannot overflow.)
        let committedCount = editor.committed.count
        if lastTextEndsArena && editor.unchangedPrefix >= lastTextCount && committedCount >= lastTextCount {
            let added = committedCount &- lastTextCount
            let end = arenaCount &+ added
            if end > arena.capacity { growArena(to: end) }
            copyBytes(from: editor.committed.base + lastTextCount, to: arena.base + arenaCount, count: added)
            arenaCount = end
            recordEdit(key, start: lastTextStart, count: committedCount)
            return
        }
        emitRenderedEdit(key)
    }

    /// `emitEdit` for any other text.
    @inline(never)
    mutating func emitRenderedEdit(_ key: UInt32) {
        if emitPinyinExtension(key) { return }
        if let preedit = editor.hangulPreedit {
            emitHangulEdit(key, preedit: preedit)
            return
        }
        let rendering = editor.rendering
        let count = rendering.count
        let shared = min(editor.unchangedPrefix, lastTextCount, count)
        let start: Int
        if shared == lastTextCount && lastTextEndsArena {
            start = lastTextStart
            let end = arenaCount &+ count &- shared
            if end > arena.capacity { growArena(to: end) }
            rendering.write(from: shared, into: arena.base + arenaCount)
            arenaCount = end
        } else if shared == count {
            start = lastTextStart
            lastTextEndsArena = lastTextEndsArena && count == lastTextCount
        } else {
            start = arenaCount
            let end = start &+ count
            if end > arena.capacity { growArena(to: end) }
            let base = arena.base
            copyBytes(from: base + lastTextStart, to: base + start, count: shared)
            rendering.write(from: shared, into: base + start + shared)
            arenaCount = end
            lastTextEndsArena = true
        }
        recordEdit(key, start: start, count: count)
    }

    /// A pinyin letter extends the pinyin shown after the committed text: writes it after the
    /// last text and records the edit, if the text is that; `false` (nothing done) otherwise.
    @inline(__always)
    mutating func emitPinyinExtension(_ key: UInt32) -> Bool {
        guard editor.hasNoHangulPreedit && lastTextEndsArena && editor.unchangedPrefix >= lastTextCount else { return false }
        let committed = editor.committed.elements, pinyin = editor.shownPinyin
        let count = committed.count &+ pinyin.count
        guard count >= lastTextCount && lastTextCount >= committed.count else { return false }
        let added = count &- lastTextCount
        let end = arenaCount &+ added
        if end > arena.capacity { growArena(to: end) }
        copyBytes(from: pinyin.baseAddress! + (lastTextCount &- committed.count), to: arena.base + arenaCount, count: added)
        arenaCount = end
        recordEdit(key, start: lastTextStart, count: count)
        return true
    }

    /// Emits an edit whose text is the committed text and the Hangul syllable (or jamo)
    /// `preedit` being composed after it: the committed bytes the last text does not share
    /// and the syllable's three.
    @inline(__always)
    mutating func emitHangulEdit(_ key: UInt32, preedit: UInt32) {
        let committed = editor.committed.elements
        let count = committed.count &+ HangulComposer.preeditByteCount
        let start: Int
        var from = 0
        if lastTextEndsArena && editor.unchangedPrefix >= lastTextCount && lastTextCount <= committed.count {
            start = lastTextStart
            from = lastTextCount
        } else {
            start = arenaCount
        }
        let end = arenaCount &+ count &- from
        if end > arena.capacity { growArena(to: end) }
        let next = arena.base + arenaCount
        copyBytes(from: committed.baseAddress! + from, to: next, count: committed.count &- from)
        let syllable = next + (committed.count &- from)
        syllable[0] = UInt8(truncatingIfNeeded: 0xE0 | preedit >> 12)
        syllable[1] = UInt8(truncatingIfNeeded: 0x80 | (preedit >> 6) & 0x3F)
        syllable[2] = UInt8(truncatingIfNeeded: 0x80 | preedit & 0x3F)
        arenaCount = end
        lastTextEndsArena = true
        recordEdit(key, start: start, count: count)
    }

    /// The edit's text is `arena.base[start..<start + count]`, now the last text: records the
    /// edit's event.
    @inline(__always)
    mutating func recordEdit(_ key: UInt32, start: Int, count: Int) {
        lastTextStart = start
        lastTextCount = count
        editor.markRendered()
        assert(arenaText(start, count) == editor.renderedText, "an edit's text is not the field's text")
        append(RawTypingEvent(at: now, kind: .edit, key: key, textStart: Int32(truncatingIfNeeded: start), textCount: Int32(truncatingIfNeeded: count)))
    }

    /// Bytes `start..<start + count` of the arena (for checking, in debug builds).
    func arenaText(_ start: Int, _ count: Int) -> [UInt8] {
        Array(UnsafeBufferPointer(start: arena.base + start, count: count))
    }

    /// Gives the arena room for at least `count` bytes (it grows by doubling; the bytes
    /// written so far move with it, and texts of an earlier arena keep theirs).
    @inline(never)
    mutating func growArena(to count: Int) {
        let grown = FieldBytes(capacity: max(count, 2 * arena.capacity, 1024))
        grown.base.update(from: arena.base, count: arenaCount)
        arena = grown
    }

    mutating func emit(_ kind: RawTypingEvent.Kind, key: UInt32) {
        append(RawTypingEvent(at: now, kind: kind, key: key, textStart: 0, textCount: 0))
    }

    /// Adds `event` to the query's events.
    @inline(__always)
    mutating func append(_ event: RawTypingEvent) {
        out.append(event)
    }
}
