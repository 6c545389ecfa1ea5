import Typestorm

/// Seed 002's draft that does not follow its parent's identity, in a search field: the model
/// copies the scope and tokens into its query when the text changes, and the search restarts on
/// the text alone (`.task(id: model.searchText)`), so picking another scope or token keeps
/// showing, and keeps searching for, the old one until the text changes.
///
/// ```swift
/// @State private var name: String                // copied once from the parent
/// init(profile: Binding<Profile>) { _name = State(initialValue: profile.wrappedValue.name) }
/// // …the parent changes `profile`; `name` stays what it was
/// ```
///
/// The same model as seed 003's search (``CatalogSearchModel``) with `restartKey: .text` and no
/// cache: exactly what the `+text-keyed` variant of `split-state` models.
@MainActor
final class DraftSearchAdapter: MeasuredField {
    let catalog: CatalogSearchAdapter

    init(_ env: FieldEnvironment) {
        catalog = CatalogSearchAdapter(env, restartKey: .text, cacheCapacity: 0)
    }

    func textChanged(_ text: String) { catalog.textChanged(text) }
    func scopeChanged(_ scope: String?) { catalog.scopeChanged(scope) }
    func tokensChanged(_ tokens: [String]) { catalog.tokensChanged(tokens) }
    func submitted() { catalog.submitted() }
}
