import CCurl
import TypestormMetrics
import Testing
@testable import LiveLoad

@Suite("libcurl result codes", .timeLimit(.minutes(5)))
struct CurlErrorTests {
    /// libcurl refuses string options over 8 MB (`CURL_MAX_INPUT_LENGTH`) at setopt time.
    static let oversized = String(repeating: "a", count: 9_000_000)

    /// Submits one request on a fresh client and returns its completion.
    func complete(url: String, configuration: HTTPLoadClient.Configuration = .init(client: .curl)) async throws -> HTTPCompletion? {
        let (client, stream) = try HTTPLoadClient.makeStreaming(configuration: configuration)
        defer { client.shutdown() }
        client.submit(id: 7, url: url)
        for await completion in stream { return completion }
        return nil
    }

    @Test func anErrorNamesTheCallTheOptionAndCurlsWords() {
        let error = CurlError(CURLE_BAD_FUNCTION_ARGUMENT, "curl_easy_setopt(\(CurlError.name(of: CURLOPT_URL)))")
        #expect(error.interface == .easy)
        #expect(error.code == 43)
        #expect(error.message == String(cString: curl_easy_strerror(CURLE_BAD_FUNCTION_ARGUMENT)))
        #expect(error.description == "curl_easy_setopt(CURLOPT_URL) failed: \(error.message) (CURLcode 43)")
        let multi = CurlError(CURLM_OUT_OF_MEMORY, "curl_multi_add_handle")
        #expect(multi.interface == .multi)
        #expect(multi.description == "curl_multi_add_handle failed: \(String(cString: curl_multi_strerror(CURLM_OUT_OF_MEMORY))) (CURLMcode 3)")
        #expect(CurlError.name(of: CURLOPT_TIMEOUT_MS) == "CURLOPT_TIMEOUT_MS")
    }

    @Test func checkPassesOKAndThrowsTheRest() throws {
        try CurlError.check(CURLE_OK, "curl_easy_setopt(CURLOPT_URL)")
        try CurlError.check(CURLM_OK, "curl_multi_add_handle")
        #expect(throws: CurlError(CURLE_UNKNOWN_OPTION, "x")) { try CurlError.check(CURLE_UNKNOWN_OPTION, "x") }
        #expect(throws: CurlError(CURLM_BAD_HANDLE, "y")) { try CurlError.check(CURLM_BAD_HANDLE, "y") }
    }

    @Test func aURLCurlRefusesFailsThatRequestWithTheOption() async throws {
        let completion = try #require(try await complete(url: "http://127.0.0.1:9/" + Self.oversized))
        #expect(completion.id == 7)
        guard case .failed(let reason) = completion.outcome else {
            Issue.record("expected a failure, got \(completion.outcome)")
            return
        }
        #expect(reason.hasPrefix("curl_easy_setopt(CURLOPT_URL) failed: "))
        #expect(reason.hasSuffix("(CURLcode 43)"))
        #expect(completion.cause == .transport)
    }

    @Test func aCertificateFileCurlRefusesFailsTheRequestAtTheHandle() async throws {
        var configuration = HTTPLoadClient.Configuration(client: .curl)
        configuration.caFile = Self.oversized
        let completion = try #require(try await complete(url: "http://127.0.0.1:9/", configuration: configuration))
        guard case .failed(let reason) = completion.outcome else {
            Issue.record("expected a failure, got \(completion.outcome)")
            return
        }
        #expect(reason.hasPrefix("curl_easy_setopt(CURLOPT_CAINFO) failed: "))
        #expect(completion.cause == .transport)
    }
}
