import FieldRuntime
import Foundation
import Reporting
import SearchField

/// One line of the replay timeline, as printed and as `--json` gives it.
package struct TimelineLine: Codable, Sendable {
    /// Milliseconds of virtual time.
    package var tMs: Double
    /// `key`, `event`, `effect`, `screen` or `backend`.
    package var kind: String
    package var text: String

    enum CodingKeys: String, CodingKey {
        case tMs = "t_ms", kind, text
    }

    package var symbol: String {
        switch kind {
        case "key": "⌨"
        case "event": "⇠"
        case "screen": "▣"
        case "backend": "·"
        default: "→"
        }
    }

    package init?(time: Int64, entry: TimelineEntry) {
        tMs = Double(time) / 1e6
        switch entry {
        case let .typing(action):
            kind = "key"
            switch action {
            case let .edit(key, text): self.text = "'\(key)'  field \"\(text.string)\""
            case let .scope(scope): self.text = "scope \(scope ?? "all")"
            case let .tokens(tokens): self.text = "tokens [\(tokens.joined(separator: ", "))]"
            case .submit: self.text = "Return"
            case .end: self.text = "leaves the field"
            }
        case let .event(event):
            kind = "event"
            switch event {
            case .textChanged, .scopeChanged, .tokensChanged, .submitted:
                return nil
            case let .timerFired(id): text = "timer #\(id) fired"
            case let .responseArrived(id, summary):
                text = summary.count.map { "response #\(id): \($0) result\($0 == 1 ? "" : "s")" } ?? "response #\(id): results, count unknown"
            case let .requestFailed(id, reason): text = "request #\(id) failed: \(reason.rawValue)"
            case let .fieldTextSet(text): self.text = "field now reports \"\(text)\""
            }
        case let .effect(effect):
            kind = "effect"
            switch effect {
            case let .scheduleTimer(id, delay, purpose):
                let why = switch purpose {
                case let .debounce(query): "debounce for \(query)"
                case .stalled: "stalled indicator"
                case .throttle: "throttle window"
                }
                text = "start timer #\(id), \(StrategyComparison.millis(delay)) (\(why))"
            case let .cancelTimer(id): text = "cancel timer #\(id)"
            case let .sendRequest(id, query): text = "send #\(id) \(query)"
            case let .runLocally(id, query): text = "filter #\(id) \(query) on the UI thread"
            case let .cancelRequest(id): text = "cancel #\(id)"
            case let .display(state):
                kind = "screen"
                text = "\(state)"
            case let .setFieldText(text): self.text = "write \"\(text)\" back into the field"
            case let .commit(query, cached): text = "commit \(query)" + (cached ? " (from the cache)" : "")
            case let .apply(id, query, kind): text = "apply #\(id) for \(query) as \(kind.rawValue)"
            case let .discard(id): text = "drop the response of #\(id)"
            case let .writeBack(reentries, runaway, broke):
                text = "write-back: \(reentries) re-entr\(reentries == 1 ? "y" : "ies")" + (runaway ? ", runaway stopped" : "")
                    + (broke ? ", composition broken" : "")
            }
        case let .backend(note):
            kind = "backend"
            text = note
        }
    }

    /// The lines as `typestorm replay` prints them: the time (once per instant), a symbol, the text.
    package static func render(_ lines: [TimelineLine]) -> String {
        var output = ""
        var lastTime: Double = -1
        for line in lines {
            let stamp = line.tMs == lastTime ? "" : String(format: "%.1f ms", line.tMs)
            lastTime = line.tMs
            let pad = String(repeating: " ", count: max(0, 10 - stamp.count))
            output += pad + stamp + "  " + line.symbol + " " + line.text + "\n"
        }
        return output
    }
}
