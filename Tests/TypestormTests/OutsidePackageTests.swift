import Foundation
import Testing

/// The README's library example, built as a user builds it: a package in a directory of its
/// own that depends on this checkout by path and imports only `Typestorm`.
@Suite("A package outside the repository builds on the library", .timeLimit(.minutes(10)),
       .enabled(if: ProcessInfo.processInfo.environment["TYPESTORM_SKIP_OUTSIDE_PACKAGE"] == nil))
struct OutsidePackageTests {
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The first Swift code block of the README's "The library" section.
    static func readmeProgram() throws -> String {
        let readme = try String(contentsOf: checkout.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## The library\n"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test func theReadmeExampleBuildsAndPrintsItsTable() throws {
        let program = try Self.readmeProgram()
        #expect(program.contains("import Typestorm"))
        #expect(!program.contains("import Orchestration") && !program.contains("import Simulation"), "one import")
        #expect(program.split(separator: "\n").count <= 25, "about 20 lines")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("typestorm-outside-\(getpid())")
        try? FileManager.default.removeItem(at: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let sources = directory.appendingPathComponent("Sources/TypingDemo")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        // A symbolic link gives the checkout the name the README uses for the package.
        let link = directory.appendingPathComponent("typestorm")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Self.checkout)
        try """
        // swift-tools-version: 6.0
        import PackageDescription

        let package = Package(
            name: "TypingDemo",
            dependencies: [.package(path: "typestorm")],
            targets: [.executableTarget(name: "TypingDemo", dependencies: [.product(name: "Typestorm", package: "typestorm")])]
        )
        """.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try program.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)

        let build = try Self.run(["swift", "build", "--package-path", directory.path], in: directory)
        try #require(build.status == 0, "swift build failed:\n\(build.output)")
        let binary = directory.appendingPathComponent(".build/debug/TypingDemo").path
        // From another working directory: the shipped query lists are found through the checkout.
        let first = try Self.run([binary], in: FileManager.default.temporaryDirectory)
        #expect(first.status == 0, "\(first.output)")
        let lines = first.output.split(separator: "\n")
        #expect(lines.first?.hasPrefix("strategy") == true, "\(first.output)")
        #expect(lines.contains { $0.hasPrefix("naive ") } && lines.contains { $0.hasPrefix("split-state ") }, "\(first.output)")
        let second = try Self.run([binary], in: FileManager.default.temporaryDirectory)
        #expect(second.output == first.output, "the same bytes every run")
    }

    static func run(_ arguments: [String], in directory: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
