import Foundation
import Molt

/// The declarative mappings of `molt migrate --mapping FILE`, and of a snapshot folder's step files
/// (`3-to-4.mapping.json`): SQL expressions, run in the store's database, that compute what Molt cannot infer
/// between two versions.
///
/// The file is JSON: an object with a `mappings` array (or the bare array) of ``EntityMapping``s, the same
/// Codable form as in Swift. Each mapping names a `destination` entity of the new version, optionally a
/// `source` entity of the old version and a `filter`, `attributes` (new attribute → SQL expression over the old
/// attributes), `links`, and `overrides`: per-engine expressions (`"sqlite"`, `"postgresql"`) for what the
/// portable subset cannot say. `"empty": true` (with only a `destination`) deletes every object of an entity the
/// new version keeps, by its relationships' delete rules.
///
/// ```json
/// { "mappings": [ { "destination": "UserMemo",
///                   "attributes": { "memoDescription": "title || ' - ' || COALESCE(memoSubtitle, '')" } },
///                 { "destination": "Draft", "empty": true } ] }
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
        let mappings = try self.mappings(at: Files.url(path))
        guard target.version > stored.version else {
            throw CLIFailure(
                .usage,
                "--mapping needs a target version newer than the store's (\(stored.version)), but the schema is version \(target.version); nothing was written."
            )
        }
        return try MigrationPlan(
            schemas: [stored, target], stages: [.mapping(from: stored.version, to: target.version, mappings)])
    }

    /// The mappings of the file at `url`.
    ///
    /// - Throws: ``CLIFailure`` (bad input) when the file is missing or is not a list of mappings.
    static func mappings(at url: URL) throws -> [EntityMapping] {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIFailure(.badInput, "There is no mapping file at \(url.path). Check the path.")
        }
        do {
            return try JSONDecoder().decode(Wrapper.self, from: data).mappings
        } catch let wrapped {
            guard let bare = try? JSONDecoder().decode([EntityMapping].self, from: data) else {
                throw CLIFailure(
                    .badInput,
                    "\(url.lastPathComponent) is not a mapping file\(decodingDetail(wrapped)): it must be JSON with a \"mappings\" array of objects with \"destination\" and \"attributes\" (SQL expressions), and optionally \"overrides\" keyed by engine (\"sqlite\", \"postgresql\")."
                )
            }
            return bare
        }
    }

    /// Where and why decoding stopped, as " (at mappings[0].overrides: …)"; empty when the JSON itself is broken.
    private static func decodingDetail(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "" }
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default: return ""
        }
        guard !context.codingPath.isEmpty else { return "" }
        let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        let detail: String
        if case .keyNotFound(let key, _) = error {
            detail = "\"\(key.stringValue)\" is missing"
        } else {
            detail = context.debugDescription
        }
        return " (at \(path.hasPrefix(".") ? String(path.dropFirst()) : path): \(detail))"
    }
}
