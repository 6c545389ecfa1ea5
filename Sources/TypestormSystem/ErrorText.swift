import Foundation

/// Errors from Foundation's file calls as sentences a user can act on.
///
/// `localizedDescription` of a `CocoaError` on Linux is "The operation could not be completed.
/// (NSCocoaErrorDomain error 512.)"; the errno underneath says what actually went wrong.
package enum ErrorText {
    /// What went wrong with a file operation, without the path (callers name the file).
    package static func describe(_ error: any Error) -> String {
        if let system = error as? SystemError { return errnoText(system.errno) }
        if let posix = error as? POSIXError { return errnoText(posix.code.rawValue) }
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return errnoText(Int32(underlying.code))
        }
        if nsError.domain == NSPOSIXErrorDomain { return errnoText(Int32(nsError.code)) }
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file or directory"
            case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
            case .fileWriteOutOfSpace: return "no space left on the device"
            case .fileWriteVolumeReadOnly: return "the file system is read-only"
            case .fileWriteFileExists: return "it already exists"
            case .fileReadCorruptFile: return "its contents are not in the expected format"
            case .fileReadInapplicableStringEncoding, .fileWriteInapplicableStringEncoding: return "it is not valid UTF-8 text"
            case .fileReadTooLarge: return "it is too large to read"
            case .fileReadUnknown: return "it cannot be read"
            case .fileWriteUnknown, .fileWriteInvalidFileName: return "it cannot be written (does its directory exist, and is it writable?)"
            default: break
            }
        }
        if nsError.domain == NSCocoaErrorDomain { return "the file operation failed (code \(nsError.code))" }
        return String(describing: error)
    }

    /// `strerror` in lower case, to sit after a colon: "no such file or directory".
    package static func errnoText(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}
