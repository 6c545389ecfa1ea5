import CCurl

/// A libcurl call that returned an error code: which call and option, curl's code and its words.
///
/// These are failures of the client itself (an option this libcurl refuses, a handle it cannot
/// add, an event loop it cannot drive), distinct from a request's transport failure
/// (`ErrorCause`: refused, reset, DNS, TLS, timeout); they say which call to look at.
package struct CurlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl's interfaces have separate code enums: `CURLcode` (easy) and `CURLMcode` (multi).
    package enum Interface: String, Sendable {
        case easy
        case multi
    }

    package var interface: Interface
    /// The `CURLcode` or `CURLMcode` value.
    package var code: Int
    /// curl's message for the code (`curl_easy_strerror`, `curl_multi_strerror`).
    package var message: String
    /// The call that failed, with its option when it has one: `curl_easy_setopt(CURLOPT_URL)`.
    package var operation: String

    package var description: String {
        "\(operation) failed: \(message) (\(interface == .easy ? "CURLcode" : "CURLMcode") \(code))"
    }
}

extension CurlError {
    init(_ code: CURLcode, _ operation: String) {
        interface = .easy
        self.code = Int(code.rawValue)
        message = String(cString: curl_easy_strerror(code))
        self.operation = operation
    }

    init(_ code: CURLMcode, _ operation: String) {
        interface = .multi
        self.code = Int(code.rawValue)
        message = String(cString: curl_multi_strerror(code))
        self.operation = operation
    }

    /// Throws unless `code` is `CURLE_OK`.
    static func check(_ code: CURLcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        if code != CURLE_OK { throw CurlError(code, operation()) }
    }

    /// Throws unless `code` is `CURLM_OK`.
    static func check(_ code: CURLMcode, _ operation: @autoclosure () -> String) throws(CurlError) {
        if code != CURLM_OK { throw CurlError(code, operation()) }
    }

    /// The option as the docs spell it (`CURLOPT_URL`), from libcurl's own option table.
    static func name(of option: CURLoption) -> String {
        guard let info = curl_easy_option_by_id(option), let name = info.pointee.name else { return "option \(option.rawValue)" }
        return "CURLOPT_" + String(cString: name)
    }
}
