import Foundation

/// One benchmark: a schema change timed in Molt and in a baseline on identical data, in the same run.
///
/// A scenario is one small file in `Scenarios/`; list it in ``Scenarios/all`` to run it.
protocol Scenario: Sendable {
    /// The name given on the command line, e.g. `add-attribute`.
    var name: String { get }
    /// One line saying what is measured.
    var summary: String { get }
    /// Runs the measurements and returns the report's lines.
    func run(_ runner: Runner) throws -> [Comparison]
}

/// A failed sanity check: Molt and the baseline did not produce the same data, so timing them means nothing.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
}

/// Remembers the table Molt produced and checks that the baseline produced the same one.
final class SameResult {
    private var expected: String?
    private let tables: [String]
    private let deep: Bool

    /// Compares one table's ``Fixture/shape(of:at:)``: columns, row count and the object with `_id` 7.
    init(table: String = "Item") { (tables, deep) = ([table], false) }

    /// Compares the ``Fixture/fingerprint(of:at:)`` of each table: its shape and sums over every value.
    init(tables: [String]) { (self.tables, deep) = (tables, true) }

    func check(_ url: URL) throws {
        try compare(deep ? try Fixture.fingerprint(of: tables, at: url) : try Fixture.shape(of: tables[0], at: url))
    }

    /// Compares a summary computed elsewhere (of a file, say) with the first one given.
    func compare(_ shape: String) throws {
        guard let expected else { self.expected = shape; return }
        guard expected == shape else {
            throw BenchmarkError(description: "Molt and the baseline differ:\n  \(expected)\n  \(shape)")
        }
    }
}
