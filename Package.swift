// swift-tools-version: 6.0
import PackageDescription

/// `TYPESTORM_JEMALLOC=0 swift build ...` builds without jemalloc, for the sanitizers
/// (`scripts/sanitize`), whose own malloc must serve the process: no target links libjemalloc,
/// and the code that reads its statistics compiles to "the system allocator" (`TYPESTORM_NO_JEMALLOC`).
let withJemalloc = Context.environment["TYPESTORM_JEMALLOC"] != "0"
let jemalloc: [Target.Dependency] = withJemalloc ? ["CJemalloc"] : []

/// The same settings on every Swift target: Swift 6 language mode (strict concurrency) and
/// upcoming features that make the code say what it means.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
] + (withJemalloc ? [] : [.define("TYPESTORM_NO_JEMALLOC")])

func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "Typestorm",

    products: [
        /// The library: `import Typestorm` (docs/library.md).
        .library(name: "Typestorm", targets: ["Typestorm"]),
        /// Helpers for a user's tests of their own search field.
        .library(name: "TypestormTesting", targets: ["TypestormTesting"]),
        .executable(name: "typestorm", targets: ["TypestormMain"]),
    ],
    targets: [
        // C libraries from Debian.
        .systemLibrary(name: "CUtf8proc", providers: [.apt(["libutf8proc-dev"])]),
        system("CCurl", pkgConfig: "libcurl", apt: "libcurl4-openssl-dev"),
        system("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        system("CJemalloc", pkgConfig: "jemalloc", apt: "libjemalloc-dev"),
        // C shims, one per library, for what Swift cannot call directly (variadic functions,
        // packed structs, signal handlers); jemalloc's are inline in CJemalloc's header.
        .target(name: "CPosixShims"),
        .target(name: "CCurlShims", dependencies: ["CCurl"]),
        // The plain HTTP/1.1 client's wire side: buffers, send and receive, the response parser.
        .target(name: "CPlainHTTP"),
        .target(name: "CMicroHTTPDShims", dependencies: ["CMicroHTTPD"]),

        // Modules with no project imports.
        .target(name: "Locking", swiftSettings: swiftSettings),
        .target(name: "TypestormMetrics", dependencies: ["SearchField"], swiftSettings: swiftSettings),
        .target(name: "Typists", dependencies: ["Locking", "JSONReading"], swiftSettings: swiftSettings),
        .target(name: "SearchField", swiftSettings: swiftSettings),
        .target(name: "JSONReading", swiftSettings: swiftSettings),
        .target(name: "Diagnostics", swiftSettings: swiftSettings),

        .target(name: "ProductCatalog", dependencies: ["TypestormSystem", "JSONReading"], swiftSettings: swiftSettings),

        .target(name: "Matching", dependencies: ["ProductCatalog", "TypestormSystem", "CUtf8proc", "Locking"], swiftSettings: swiftSettings),
        // The runner core: one host between a strategy and any runner, and the backend model.
        .target(name: "FieldRuntime", dependencies: ["SearchField", "TypestormMetrics", "Typists"], swiftSettings: swiftSettings),
        .target(name: "TypestormSystem", dependencies: ["CPosixShims", "Locking", "TypestormMetrics"] + jemalloc, swiftSettings: swiftSettings),
        .target(
            name: "Simulation",
            dependencies: ["FieldRuntime", "SearchField", "Typists", "TypestormMetrics", "JSONReading"],
            swiftSettings: swiftSettings
        ),
        // User search fields written as async Swift, in virtual time on executors of our own.
        .target(
            name: "FieldHarness",
            dependencies: ["FieldRuntime", "Simulation", "SearchField", "Typists", "TypestormMetrics"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "LiveLoad",
            dependencies: ["FieldRuntime", "SearchField", "Typists", "TypestormMetrics", "Matching", "TypestormSystem", "CCurl", "CCurlShims", "CPlainHTTP", "CPosixShims", "Locking"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SearchServer",
            dependencies: ["Matching", "ProductCatalog", "TypestormMetrics", "TypestormSystem", "FieldRuntime", "CMicroHTTPD", "CMicroHTTPDShims", "CPosixShims", "Locking"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "Orchestration",
            dependencies: ["FieldRuntime", "FieldHarness", "Simulation", "LiveLoad", "SearchServer", "TypestormSystem", "TypestormMetrics", "Typists", "SearchField", "ProductCatalog", "Matching", "Reporting", "Diagnostics", "Locking", "JSONReading"],
            swiftSettings: swiftSettings
        ),
        .target(name: "Reporting", dependencies: ["TypestormMetrics", "Diagnostics"], swiftSettings: swiftSettings),
        .target(
            name: "TypestormCLI",
            dependencies: [
                "TypestormMetrics", "Typists", "SearchField", "ProductCatalog", "Matching", "TypestormSystem",
                "FieldRuntime", "Simulation", "LiveLoad", "SearchServer", "Orchestration", "Reporting", "Diagnostics", "RunHistory",
                "FieldHarness", "JSONReading",
            ],
            swiftSettings: swiftSettings
        ),
        // The results store: SQLite and PostgreSQL from Debian, history and change points.
        system("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        system("CLibPQ", pkgConfig: "libpq", apt: "libpq-dev"),
        .target(name: "RunHistory", dependencies: ["TypestormMetrics", "Reporting", "Diagnostics", "CSQLite", "CLibPQ"], swiftSettings: swiftSettings),
        // The detector's error rates on synthetic series, for its test and its calibration run.
        .target(name: "ChangePointSeries", dependencies: ["RunHistory", "Typists"], path: "Tests/Support/ChangePointSeries", swiftSettings: swiftSettings),
        .testTarget(name: "RunHistoryTests", dependencies: ["ChangePointSeries", "RunHistory", "CSQLite", "TypestormMetrics", "Reporting", "Typists", "TypestormSystem", "Diagnostics"], swiftSettings: swiftSettings),
        .executableTarget(
            name: "ChangePointCalibration", dependencies: ["RunHistory", "Typists", "ChangePointSeries"],
            path: "Benchmarks/ChangePointCalibration", swiftSettings: swiftSettings
        ),

        // The library's one module (it re-exports the face of the modules above) and the test
        // support built on it; the executable is a client of both's modules.
        .target(
            name: "Typestorm",
            dependencies: [
                "Typists", "SearchField", "TypestormMetrics", "FieldRuntime", "Simulation", "LiveLoad",
                "ProductCatalog", "Matching", "Orchestration", "Reporting", "TypestormCLI", "FieldHarness",
            ],
            swiftSettings: swiftSettings
        ),
        .target(name: "TypestormTesting", dependencies: ["Typestorm"], swiftSettings: swiftSettings),
        .executableTarget(name: "TypestormMain", dependencies: ["Typestorm", "TypestormCLI", "TypestormSystem", "Diagnostics"] + jemalloc, swiftSettings: swiftSettings),

        // Benchmarks: executables, run by hand or by scripts/bench; never part of `swift test`.
        .executableTarget(
            name: "FilterBenchmark",
            dependencies: ["ProductCatalog", "Matching", "TypestormSystem"] + jemalloc,
            path: "Benchmarks/FilterBenchmark",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "HTTPBenchmark",
            dependencies: ["SearchServer", "LiveLoad", "Matching", "TypestormSystem", "TestBackends"],
            path: "Benchmarks/HTTPBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "DriverBenchmark",
            dependencies: ["Orchestration", "Simulation", "TypestormMetrics", "TypestormSystem"],
            path: "Benchmarks/DriverBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "SimulatorBenchmark",
            dependencies: ["Simulation", "SearchField", "TypestormMetrics", "Orchestration"] + jemalloc,
            path: "Benchmarks/SimulatorBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "FieldHarnessBenchmark",
            dependencies: ["FieldHarness", "Orchestration", "Simulation", "SearchField", "TypestormMetrics", "Typists"] + jemalloc,
            path: "Benchmarks/FieldHarnessBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "LockBenchmark",
            dependencies: ["Locking", "TypestormMetrics", "SearchField"],
            path: "Benchmarks/LockBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "TypistBenchmark",
            dependencies: ["Typists"],
            path: "Benchmarks/TypistBenchmark",
            swiftSettings: swiftSettings
        ),

        .executableTarget(
            name: "LiveBenchmark",
            dependencies: ["LiveLoad", "ProductCatalog", "Matching", "TypestormMetrics", "TypestormSystem", "SearchField", "Typists",
                           "FieldHarness", "Orchestration", "SearchServer"],
            path: "Benchmarks/LiveBenchmark",
            swiftSettings: swiftSettings
        ),

        // Fuzzing (scripts/fuzz): the targets, and the libFuzzer driver that runs one of them.
        .target(name: "CFuzzer", path: "Tests/Fuzz/CFuzzer"),
        .target(
            name: "FuzzTargets",
            dependencies: ["ProductCatalog", "Matching", "Orchestration", "SearchServer", "Typists"],
            path: "Tests/Fuzz/FuzzTargets",
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "TypestormFuzz", dependencies: ["FuzzTargets", "CFuzzer"], path: "Tests/Fuzz/TypestormFuzz", swiftSettings: swiftSettings),

        // Test doubles for tests and benchmarks; not part of the product.
        .target(name: "TestBackends", dependencies: ["SearchServer", "Matching"], path: "Tests/Support/TestBackends", swiftSettings: swiftSettings),

        // Tests: Swift Testing, one target per module.
        .testTarget(name: "LockingTests", dependencies: ["Locking"], swiftSettings: swiftSettings),
        .testTarget(name: "TypestormMetricsTests", dependencies: ["TypestormMetrics", "SearchField"], swiftSettings: swiftSettings),
        .testTarget(name: "TypistsTests", dependencies: ["Typists"], swiftSettings: swiftSettings),
        .testTarget(name: "SearchFieldTests", dependencies: ["SearchField", "FieldRuntime", "TypestormMetrics", "Typists"], swiftSettings: swiftSettings),
        .testTarget(name: "ProductCatalogTests", dependencies: ["ProductCatalog"], swiftSettings: swiftSettings),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics"], swiftSettings: swiftSettings),
        .testTarget(name: "MatchingTests", dependencies: ["Matching", "ProductCatalog", "TypestormSystem"], swiftSettings: swiftSettings),
        .testTarget(name: "FieldRuntimeTests", dependencies: ["FieldRuntime", "SearchField", "TypestormMetrics", "Typists"], swiftSettings: swiftSettings),
        .testTarget(name: "SimulationTests", dependencies: ["FieldRuntime", "Simulation", "SearchField", "Typists", "TypestormMetrics"], swiftSettings: swiftSettings),
        .testTarget(name: "TypestormSystemTests", dependencies: ["TypestormSystem", "Locking"], swiftSettings: swiftSettings),
        .testTarget(name: "SearchServerTests", dependencies: ["SearchServer", "Matching", "TestBackends", "Locking"], swiftSettings: swiftSettings),
        .testTarget(name: "LiveLoadTests", dependencies: ["CCurl", "CPlainHTTP", "FieldRuntime", "LiveLoad", "SearchServer", "TypestormSystem", "Matching", "ProductCatalog", "SearchField", "TypestormMetrics", "Typists", "TestBackends", "Locking"], swiftSettings: swiftSettings),
        .testTarget(name: "TypestormCLITests", dependencies: ["TypestormCLI", "Diagnostics", "TypestormMetrics"], swiftSettings: swiftSettings),
        .testTarget(name: "OrchestrationTests", dependencies: ["JSONReading", "FieldRuntime", "LiveLoad", "Matching", "Orchestration", "TypestormMetrics", "TypestormSystem", "SearchServer", "Simulation", "Reporting", "SearchField", "Typists", "TestBackends", "Locking", "FieldHarness", "ProductCatalog"], exclude: ["model_server.py"], swiftSettings: swiftSettings),
        .testTarget(name: "TypestormTests", dependencies: ["Typestorm"], swiftSettings: swiftSettings),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzTargets"], swiftSettings: swiftSettings),
        .testTarget(name: "ReportingTests", dependencies: ["Reporting", "TypestormMetrics"], exclude: ["Fixtures"], swiftSettings: swiftSettings),
    ],
    swiftLanguageModes: [.v6]
)
