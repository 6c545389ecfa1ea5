import ProductCatalog
import Matching

/// The real filter engine behind the HTTP server.
///
/// Cancellation is bridged to the engine's own check: the engine polls `isCancelled` (one atomic
/// load, set by the server's disconnect watcher) every 64 KiB of scanning.
package struct EngineBackend: SearchBackend {
    package let engine: SearchEngine
    package let catalog: Catalog

    /// The engine must be built over `catalog` (``SearchEngine/build(catalog:tuning:)``, which reports a
    /// catalog over the store's limit as an error).
    package init(catalog: Catalog, engine: SearchEngine) {
        self.catalog = catalog
        self.engine = engine
    }

    package func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult {
        let response = withoutActuallyEscaping(isCancelled) { isCancelled in
            // The closure does not outlive this call: the engine returns before we do.
            let check = UncheckedCheck(isCancelled)
            return engine.search(request, cancellation: .custom { check.call() })
        }
        if response.wasCancelled { throw SearchCancelled(itemsScanned: response.itemsScanned) }
        let hits = response.items.map { SearchHit(id: catalog.id(at: $0), name: catalog.name(at: $0)) }
        return BackendResult(items: hits, total: response.total ?? hits.count, path: response.path.name,
                             itemsScanned: response.itemsScanned)
    }
}

/// Carries the server's non-escaping, non-Sendable cancellation check into the engine's
/// `@Sendable` hook. Sound because the engine calls it only during `search`, on the calling
/// thread or on the scan threads it joins before returning.
private struct UncheckedCheck: @unchecked Sendable {
    let call: () -> Bool
    init(_ call: @escaping () -> Bool) { self.call = call }
}
