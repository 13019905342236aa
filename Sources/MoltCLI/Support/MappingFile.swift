import Foundation
import Molt

/// The declarative mappings of `molt migrate --mapping FILE`: SQL expressions that compute the values of the
/// steps Molt cannot infer.
enum MappingFile {
    /// The migration plan from `stored` to `target` with the mapping stages read from the file at `path`.
    ///
    /// - Throws: ``CLIFailure``: the Molt library does not offer declarative mapping stages yet.
    static func plan(at path: String, from stored: Schema, to target: Schema) throws -> MigrationPlan {
        throw CLIFailure(
            .usage,
            "--mapping is not supported yet: this Molt has no declarative mapping stages. Migrate without --mapping, or write a custom stage in Swift; nothing was written.")
    }
}
