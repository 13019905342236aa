/// The tables one transaction read and wrote (unquoted, as the store's layout names them), recorded by
/// ``Objects`` as it goes: what an observed read depends on, and what a write transaction may have changed.
///
/// A write records, besides the tables it writes itself, those the database changes with it through references
/// (links in join tables, to-one columns set to null, cascades), so that a commit names every table it touched.
package final class TableAccess: Sendable {
    private let tables = LockedValue((read: Set<String>(), written: Set<String>()))

    package init() {}

    /// The tables read.
    package var read: Set<String> { tables.withLock { $0.read } }
    /// The tables written.
    package var written: Set<String> { tables.withLock { $0.written } }

    func didRead(_ table: String) { tables.withLock { _ = $0.read.insert(table) } }
    func willWrite(_ table: String) { tables.withLock { _ = $0.written.insert(table) } }
}

extension Objects {
    /// Records that the objects of `entity` are read.
    func recordRead(_ entity: String) {
        access?.didRead(layout.physicalTable(entity))
    }

    /// Records that the links of `entity`'s to-many `relationship` are read.
    func recordReadLinks(_ entity: String, _ relationship: String) {
        access?.didRead(layout.physicalJoinTable(entity, relationship))
    }

    /// Records that rows of `table` (unquoted) are written by SQL of the caller's own (an import's fills).
    package func recordWrite(table: String) {
        access?.willWrite(table)
    }
}
