import Observation

/// Seed 000's first version: a task per text change, nothing cancelled, every answer written
/// when it arrives.
///
/// ```swift
/// .onChange(of: searchText) { _, newValue in
///     Task {
///         isLoading = true
///         results = try await ProductAPI.search(keyword: newValue)
///         isLoading = false
///     }
/// }
/// ```
@Observable @MainActor
public final class NaiveSearchModel {
    public var searchText = "" {
        didSet { if searchText != oldValue { searchTextChanged(searchText) } }
    }
    /// The searchable's scope and tokens (changing them starts nothing).
    @ObservationIgnored public var filter = SearchFilter()
    public private(set) var results: SearchPage?
    public private(set) var isLoading = false
    @ObservationIgnored let api: ProductAPI

    public init(api: ProductAPI) {
        self.api = api
    }

    func searchTextChanged(_ newValue: String) {
        let filter = filter
        Task {
            isLoading = true
            results = try await api.search(newValue, filter)
            isLoading = false
        }
    }
}
