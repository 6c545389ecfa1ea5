import ProductCatalog
import Foundation

/// The catalog a scenario names, loaded or generated, for the live runners and the server.
package enum ScenarioCatalog {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The absolute path of a `file` catalog.
    package static func path(_ path: String, baseDirectory: String) -> String {
        path.hasPrefix("/") ? path : URL(fileURLWithPath: baseDirectory).appendingPathComponent(path).standardizedFileURL.path
    }

    static func load(_ source: CatalogSource, baseDirectory: String) throws -> Catalog {
        switch source {
        case let .file(file):
            let resolved = path(file, baseDirectory: baseDirectory)
            do {
                return try CatalogLoader.load(path: resolved).catalog
            } catch {
                throw Failure(description: "$.catalog.file: \(error)")
            }
        case let .generate(items, seed, languages):
            let vocabulary = Vocabulary.builtin
            let weights = vocabulary.languages.map { language in
                Int(((languages.first { $0.language.rawValue == language.code }?.share ?? 0) * 1000).rounded())
            }
            return CatalogGenerator(seed: seed, vocabulary: vocabulary, languageWeights: weights).makeCatalog(count: items)
        }
    }
}
