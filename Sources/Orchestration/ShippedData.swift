import Foundation

/// Finds the data shipped in the repository's `Datasets/` (query lists, the 20k catalog, the
/// default scenario) from any working directory: the one lookup every command uses.
///
/// The order: beside the scenario (its directory and the ones above it, so a scenario in
/// `Datasets/scenarios/` finds `Datasets/queries`), then `$TYPESTORM_HOME`, then beside the
/// executable (`<package>/.build/<config>/typestorm` and the directories above it), then the
/// checkout the library was built from (for a package that depends on Typestorm), then the
/// current directory as a last resort.
package enum ShippedData {
    /// The query lists (`en.txt`, `ko.txt`, `zh.txt`, `zh-pinyin.txt`).
    package static let queries = "Datasets/queries"
    /// The 20,000-product catalog commands use when given none.
    package static let catalog = "Datasets/catalogs/products-20k.tsv"
    /// The main job's scenario.
    package static let defaultScenario = "Datasets/scenarios/default.json"

    package struct NotFound: Error, Sendable, CustomStringConvertible {
        package var relativePath: String
        package var searched: [String]
        package var description: String {
            "cannot find the shipped \(relativePath) (looked in \(searched.joined(separator: ", "))); set TYPESTORM_HOME to the Typestorm directory"
        }
    }

    /// The running executable, resolved through symbolic links (also what the driver spawns
    /// as its workers).
    package static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? Bundle.main.executablePath ?? CommandLine.arguments.first ?? "."
    }

    /// The checkout this module was built from (three directories above this file), where a
    /// package that depends on Typestorm finds the shipped data.
    static let sourceCheckout = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().standardizedFileURL.path

    /// The directories searched for `relativePath`, in order (see the type's comment).
    package static func roots(scenarioDirectory: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                             executable: String = executablePath, checkout: String? = sourceCheckout,
                             currentDirectory: String = FileManager.default.currentDirectoryPath) -> [String] {
        func ancestors(of path: String, count: Int) -> [String] {
            var url = URL(fileURLWithPath: path).standardizedFileURL
            var result: [String] = []
            for _ in 0..<count {
                result.append(url.path)
                if url.path == "/" { break }
                url.deleteLastPathComponent()
            }
            return result
        }
        var roots: [String] = []
        if let scenarioDirectory { roots += ancestors(of: scenarioDirectory, count: 3) }
        if let home = environment["TYPESTORM_HOME"], !home.isEmpty { roots.append(URL(fileURLWithPath: home).standardizedFileURL.path) }
        roots += ancestors(of: URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent().path, count: 5)
        if let checkout { roots.append(checkout) }
        roots.append(currentDirectory)
        var seen = Set<String>()
        return roots.filter { seen.insert($0).inserted }
    }

    /// The first `root/relativePath` that exists.
    package static func find(_ relativePath: String, scenarioDirectory: String? = nil,
                            environment: [String: String] = ProcessInfo.processInfo.environment,
                            executable: String = executablePath, checkout: String? = sourceCheckout,
                            currentDirectory: String = FileManager.default.currentDirectoryPath) throws(NotFound) -> String {
        let searched = roots(scenarioDirectory: scenarioDirectory, environment: environment, executable: executable,
                             checkout: checkout, currentDirectory: currentDirectory)
        let fm = FileManager.default
        for root in searched {
            let candidate = URL(fileURLWithPath: root).appendingPathComponent(relativePath).path
            if fm.fileExists(atPath: candidate) { return candidate }
        }
        throw NotFound(relativePath: relativePath, searched: searched)
    }
}
