import Matching
import SearchServer

/// A test double that answers every search with one precomputed result, without scanning: what
/// is left to measure is the HTTP layer around it.
package struct CannedBackend: SearchBackend {
    package let result: BackendResult

    package init(result: BackendResult) {
        self.result = result
    }

    package func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult { result }
}
