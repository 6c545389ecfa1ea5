// swift-tools-version: 6.0
import PackageDescription

/// Search fields written as a developer writes them (the seed articles' code), measured with
/// Typestorm: a harness executable with the whole command line, and tests that run it.
let package = Package(
    name: "TypestormExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Typestorm", path: "..")],
    targets: [
        .target(name: "SearchExamples", dependencies: [.product(name: "Typestorm", package: "Typestorm")]),
        .executableTarget(name: "ExampleHarness", dependencies: ["SearchExamples", .product(name: "Typestorm", package: "Typestorm")]),
        .testTarget(
            name: "SearchExamplesTests",
            dependencies: ["ExampleHarness", .product(name: "TypestormTesting", package: "Typestorm")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
