import TypestormSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a loader's bytes come from: a file read in chunks, or bytes in memory (tests).
enum ByteSource {
    case file(Int32)
    case memory([UInt8])
}

/// Reads a byte source line by line through one reusable buffer.
///
/// The file is read in 1 MiB chunks; a line is handed out as a pointer into the buffer, valid
/// until the next call. A line longer than the buffer grows it. So loading a file never holds
/// more than one chunk (plus the longest line) of it.
struct LineReader {
    private var source: ByteSource
    private var memoryOffset = 0
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// 1-based number of the line returned last.
    private(set) var lineNumber = 0
    private var checkedBOM = false

    init(source: ByteSource, chunkSize: Int = 1 << 20) {
        self.source = source
        buffer = [UInt8](repeating: 0, count: chunkSize)
    }

    /// Calls `body` with the next line (without its `\n` or `\r\n`); returns false at the end.
    mutating func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws(CatalogError) -> R) throws(CatalogError) -> R? {
        while true {
            if let newline = findNewline() {
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let lineStart = start
                start = newline + 1
                return try emit(lineStart, lineEnd, body)
            }
            if atEOF {
                guard start < end else { return nil }
                var lineEnd = end
                if buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let lineStart = start
                start = end
                return try emit(lineStart, lineEnd, body)
            }
            try refill()
        }
    }

    private mutating func emit<R>(_ lineStart: Int, _ lineEnd: Int, _ body: (UnsafeBufferPointer<UInt8>) throws(CatalogError) -> R) throws(CatalogError) -> R {
        lineNumber += 1
        var from = lineStart
        if !checkedBOM {
            checkedBOM = true
            if lineEnd - from >= 3, buffer[from] == 0xEF, buffer[from + 1] == 0xBB, buffer[from + 2] == 0xBF { from += 3 }
        }
        let result: Result<R, CatalogError> = buffer.withUnsafeBufferPointer { all in
            do throws(CatalogError) {
                return .success(try body(UnsafeBufferPointer(rebasing: all[from..<lineEnd])))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func findNewline() -> Int? {
        guard start < end else { return nil }
        return buffer.withUnsafeBufferPointer { all -> Int? in
            guard let base = all.baseAddress,
                  let hit = memchr(base + start, 0x0A, end - start) else { return nil }
            return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
        }
    }

    private mutating func refill() throws(CatalogError) {
        if start > 0 {
            let remaining = end - start
            if remaining > 0 {
                buffer.withUnsafeMutableBufferPointer { all in
                    _ = memmove(all.baseAddress!, all.baseAddress! + start, remaining)
                }
            }
            start = 0
            end = remaining
        }
        if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
        let room = buffer.count - end
        let got: Int
        switch source {
        case let .file(fd):
            do throws(SystemError) {
                got = try Syscall.call("read") { buffer.withUnsafeMutableBufferPointer { read(fd, $0.baseAddress! + end, room) } }
            } catch {
                throw CatalogError(file: "", kind: .cannotRead(String(cString: strerror(error.errno))))
            }
        case let .memory(bytes):
            got = min(room, bytes.count - memoryOffset)
            buffer.withUnsafeMutableBufferPointer { all in
                bytes.withUnsafeBufferPointer { src in
                    if got > 0 { _ = memcpy(all.baseAddress! + end, src.baseAddress! + memoryOffset, got) }
                }
            }
            memoryOffset += got
        }
        if got == 0 { atEOF = true }
        end += got
    }
}
