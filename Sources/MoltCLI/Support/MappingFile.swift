import Foundation
import Molt

/// The declarative mappings of `molt migrate --mapping FILE`: SQL expressions, run inside SQLite, that compute
/// what Molt cannot infer between the store's version and the target.
///
/// The file is JSON: an object with a `mappings` array (or the bare array) of ``EntityMapping``s, the same
/// Codable form as in Swift. Each mapping names a `destination` entity of the new version, optionally a
/// `source` entity of the old version and a `filter`, `attributes` (new attribute → SQL expression over the old
/// attributes) and `links`.
///
/// ```json
/// { "mappings": [ { "destination": "UserMemo",
///                   "attributes": { "memoDescription": "title || ' - ' || COALESCE(memoSubtitle, '')" } } ] }
/// ```
enum MappingFile {
    struct Wrapper: Decodable {
        var mappings: [EntityMapping]
    }

    /// The migration plan from `stored` to `target`: one mapping stage with the file's mappings.
    ///
    /// - Throws: ``CLIFailure`` (bad input) when the file is missing or is not a list of mappings;
    ///   ``MoltError`` when the plan is invalid.
    static func plan(at path: String, from stored: Schema, to target: Schema) throws -> MigrationPlan {
        let url = Files.url(path)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIFailure(.badInput, "There is no mapping file at \(url.path). Check the path.")
        }
        let mappings: [EntityMapping]
        if let wrapped = try? JSONDecoder().decode(Wrapper.self, from: data) {
            mappings = wrapped.mappings
        } else if let bare = try? JSONDecoder().decode([EntityMapping].self, from: data) {
            mappings = bare
        } else {
            throw CLIFailure(
                .badInput,
                "\(url.lastPathComponent) is not a mapping file: it must be JSON with a \"mappings\" array of objects with \"destination\" and \"attributes\" (SQL expressions).")
        }
        guard target.version > stored.version else {
            throw CLIFailure(
                .usage,
                "--mapping needs a target version newer than the store's (\(stored.version)), but the schema is version \(target.version); nothing was written.")
        }
        return try MigrationPlan(schemas: [stored, target], stages: [.mapping(from: stored.version, to: target.version, mappings)])
    }
}
