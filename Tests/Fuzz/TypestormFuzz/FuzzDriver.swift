import CFuzzer
import Foundation
import FuzzTargets
import Synchronization

/// The fuzzing executable: `TypestormFuzz TARGET [libFuzzer flags and corpus directories]`.
///
/// Built by `scripts/fuzz` with `-sanitize=fuzzer,address` and `-DFUZZING`, it hands the
/// arguments to libFuzzer. Built plainly (as `swift build` does), it replays the files or
/// directories it is given through the target once each, so the same binary reproduces a crash
/// without the fuzzer.
@main
enum FuzzDriver {
    static func main() {
        var arguments = CommandLine.arguments
        // libFuzzer re-executes itself (merging, forking) with its own arguments only, so the
        // target also travels in the environment.
        let target: FuzzTarget
        if arguments.count >= 2, let named = FuzzTarget(rawValue: arguments[1]) {
            target = named
            arguments.remove(at: 1)
            setenv(targetVariable, named.rawValue, 1)
        } else if let inherited = ProcessInfo.processInfo.environment[targetVariable].flatMap(FuzzTarget.init(rawValue:)) {
            target = inherited
        } else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("usage: TypestormFuzz TARGET [FILE|DIR|-flag]...; targets: \(names)\n".utf8))
            exit(64)
        }
        #if FUZZING
        selected.withLock { $0 = target }
        var argc = CInt(arguments.count)
        var cArguments: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let code = cArguments.withUnsafeMutableBufferPointer { buffer -> CInt in
            var argv = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
                let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
                selected.withLock { $0 }?.run(bytes)
                return 0
            }
        }
        exit(code)
        #else
        var count = 0
        for path in arguments.dropFirst() {
            for file in files(at: path) {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    exit(66)
                }
                target.run(Array(data))
                count += 1
            }
        }
        print("\(target.rawValue): \(count) inputs ran without a crash")
        #endif
    }

    static let targetVariable = "TYPESTORM_FUZZ_TARGET"

    /// `path` itself, or the regular files in it when it is a directory (sorted).
    static func files(at path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return [path] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.sorted().map { (path as NSString).appendingPathComponent($0) }
    }
}

#if FUZZING
/// The target libFuzzer's callback runs (a C function pointer cannot capture it).
let selected = Mutex<FuzzTarget?>(nil)

/// libFuzzer's own `main` (linked whole with `-sanitize=fuzzer`) needs this symbol even though
/// `FuzzDriver.main` runs the driver.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 || data == nil ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    selected.withLock { $0 }?.run(bytes)
    return 0
}
#endif
