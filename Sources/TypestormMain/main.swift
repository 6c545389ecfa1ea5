#if !TYPESTORM_NO_JEMALLOC
import CJemalloc
#endif
import Diagnostics
import Foundation
import TypestormSystem
import Typestorm

// TYPESTORM_ALLOCATOR=system re-executes the process on glibc's malloc instead of jemalloc
// (linked into this executable), for comparing allocators; it must happen before anything runs.
do {
    try Allocator.applySelectionFromEnvironment()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(ExitCode.usage)
}

let code = await TypestormTool.main()
exit(code)
