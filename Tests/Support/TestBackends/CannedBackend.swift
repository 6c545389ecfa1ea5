import Matching
import SearchServer

/// A test double that answers every search with one precomputed result, without scanning: what
/// is left to measure is the HTTP layer around it.
public struct CannedBackend: SearchBackend {
    public let result: BackendResult

    public init(result: BackendResult) {
        self.result = result
    }

    public func search(_ request: SearchRequest, isCancelled: () -> Bool) throws -> BackendResult { result }
}
