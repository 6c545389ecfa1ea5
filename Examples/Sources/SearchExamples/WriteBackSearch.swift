import Foundation
import Observation
import Typestorm

/// Seed 001's write-back: the field is "cleaned" by writing the trimmed text back into the very
/// state the text field is bound to, inside its own `onChange`, here around seed 000's model:
///
/// ```swift
/// TextField("검색어", text: $model.searchText)
///     .onChange(of: model.searchText) { _, newValue in
///         let cleaned = newValue.trimmingCharacters(in: .whitespacesAndNewlines)
///         if model.searchText != cleaned {
///             model.searchText = cleaned // ← 여기
///         }
///     }
/// ```
///
/// The write is itself a change, so the action runs again. While an input method is composing,
/// the text field puts the composition back, the guard never holds, and the loop runs until
/// SwiftUI gives up on it.
@MainActor
public enum WriteBackCleaning {
    /// The `onChange` action, as the article writes it.
    public static func searchTextChanged(_ model: SeedSearchModel, _ newValue: String) {
        let cleaned = newValue.trimmingCharacters(in: .whitespacesAndNewlines)
        if model.searchText != cleaned {
            model.searchText = cleaned
        }
    }
}

/// `.onChange(of:)` as SwiftUI runs it, made of Observation: `action` runs after every change of
/// what `value` reads, with the new value, one main-actor job after the change (SwiftUI runs it
/// in the next update, before the tasks that update starts have run a line).
@MainActor
final class OnChange<Value: Equatable> {
    let value: () -> Value
    let action: (Value) -> Void

    init(of value: @escaping () -> Value, perform action: @escaping (Value) -> Void) {
        self.value = value
        self.action = action
        observe()
    }

    private func observe() {
        _ = withObservationTracking { value() } onChange: { [weak self] in
            Task { @MainActor in self?.changed() }
        }
    }

    private func changed() {
        observe()
        action(value())
    }
}

@MainActor
final class WriteBackAdapter: MeasuredField {
    let seed: SeedAdapter
    let env: FieldEnvironment
    /// What the text field shows (the user's text, or what a write-back left in it).
    private var fieldText = ""
    /// The loop was stopped: the field's text stays until the next edit.
    private var stopped = false
    private var onChange: OnChange<String>?

    init(_ env: FieldEnvironment) {
        self.env = env
        seed = SeedAdapter(env)
        let model = seed.model
        onChange = OnChange(of: { model.searchText }) { [unowned self] newValue in
            // The text field takes what the code wrote into its binding; composing, it puts
            // its own text straight back, which is another change.
            if newValue != fieldText {
                guard !stopped, let shown = env.setFieldText(newValue) else {
                    stopped = true
                    if model.searchText != fieldText { model.searchText = fieldText }
                    return
                }
                fieldText = shown
                if shown != newValue {
                    model.searchText = shown
                    return
                }
            }
            guard !stopped else { return }
            WriteBackCleaning.searchTextChanged(model, newValue)
        }
    }

    func textChanged(_ text: String) {
        fieldText = text
        stopped = false
        seed.textChanged(text)
    }
    func scopeChanged(_ scope: String?) { seed.scopeChanged(scope) }
    func tokensChanged(_ tokens: [String]) { seed.tokensChanged(tokens) }
}
