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

    /// Per table written, the objects a write may have left without a required link: those the writes named, or
    /// (absent) any object, for a write that named none (a destination deleted, SQL of the caller's own). For a
    /// join table, the owners that may hold fewer destinations than the relationship's minimum count.
    private let suspects = LockedValue((objects: [String: Set<Int64>](), anywhere: Set<String>()))

    /// Records that the write to `table` can empty a required link of these objects only (none: of no object).
    func mayEmptyLinks(in table: String, of objects: [Int64]) {
        suspects.withLock { $0.objects[table, default: []].formUnion(objects) }
    }

    /// Records that the write to `table` can empty a required link of any of its objects.
    func mayEmptyLinks(anywhereIn table: String) { suspects.withLock { _ = $0.anywhere.insert(table) } }

    /// The objects of `table` whose required links the commit checks: nil for every object of the table.
    func linkSuspects(in table: String) -> Set<Int64>? {
        suspects.withLock { $0.anywhere.contains(table) ? nil : $0.objects[table] }
    }

    /// Records that rows of `table` were written by SQL that named none of them (a mapping's, an import's): any
    /// of its objects may have lost a link.
    func didWriteUnnamed(_ table: String) {
        willWrite(table)
        mayEmptyLinks(anywhereIn: table)
    }

    /// Per table, the objects inserted, or (absent) any object, for an insert that named none (a mapping's
    /// copy): those whose to-many relationships the commit holds to their minimum count, besides the owners
    /// that lost links. An object already short that the transaction did not insert or unlink is not checked, as
    /// Core Data validates only the objects a save changes.
    private let inserted = LockedValue((objects: [String: Set<Int64>](), anywhere: Set<String>()))

    /// Records that the objects `ids` were inserted into `table`.
    func didInsert(into table: String, _ ids: [Int64]) {
        inserted.withLock { $0.objects[table, default: []].formUnion(ids) }
    }

    /// Records that objects were inserted into `table` by SQL that named none of them.
    func didInsert(anywhereIn table: String) {
        willWrite(table)
        inserted.withLock { _ = $0.anywhere.insert(table) }
    }

    /// Which objects of `entity` the commit checks for the required `relationship`: for a to-one, those whose
    /// column a write may have emptied; for a to-many with a minimum count, those inserted and those that lost
    /// links. Every object after a write that named none; nil for none.
    func requiredLinkScope(
        _ entity: String, _ relationship: Relationship, layout: StoreLayout
    ) -> EmptyRequiredLink.Scope? {
        let table = layout.physicalTable(entity)
        func written(_ table: String) -> Bool { tables.withLock { $0.written.contains(table) } }
        switch relationship.kind {
        case .toOne:
            guard written(table) else { return nil }
            return linkSuspects(in: table).map { .objects($0) } ?? .everyObject
        case .toMany:
            let join = layout.physicalJoinTable(entity, relationship.name)
            let unlinked: EmptyRequiredLink.Scope? =
                written(join) ? linkSuspects(in: join).map { .objects($0) } ?? .everyObject : nil
            let new: EmptyRequiredLink.Scope? = inserted.withLock {
                $0.anywhere.contains(table) ? .everyObject : $0.objects[table].map { .objects($0) }
            }
            return .merging([unlinked, new])
        }
    }

    /// Adds what `other` recorded (a migration stage's writes), its tables named by `name`.
    func absorb(_ other: TableAccess, naming name: (String) -> String) {
        for table in other.written { willWrite(name(table)) }
        let (theirSuspects, theirInserted) = (other.suspects.withLock { $0 }, other.inserted.withLock { $0 })
        suspects.withLock { mine in
            for (table, ids) in theirSuspects.objects { mine.objects[name(table), default: []].formUnion(ids) }
            mine.anywhere.formUnion(theirSuspects.anywhere.map(name))
        }
        inserted.withLock { mine in
            for (table, ids) in theirInserted.objects { mine.objects[name(table), default: []].formUnion(ids) }
            mine.anywhere.formUnion(theirInserted.anywhere.map(name))
        }
    }
}

/// What a write does to the required links of the rows it writes (``Objects/willWrite(_:properties:links:)``).
enum LinkEffect {
    /// It cannot empty one: it writes attributes, sets a link, inserts (the new object is reported once it has its
    /// identifier), or deletes the rows.
    case keeps
    /// It can empty those of these objects.
    case mayEmpty([Int64])
    /// Not said: any object when it writes every column or a required to-one one, none when it names only others.
    case unknown
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
        access?.mayEmptyLinks(anywhereIn: table)
    }

    /// Records that rows of a join table (unquoted) are written by SQL of the caller's own that only adds links
    /// (an import's): no owner loses one.
    package func recordLinksAdded(table: String) {
        access?.willWrite(table)
        access?.mayEmptyLinks(in: table, of: [])
    }

    /// Records, for the check of required links at commit, that the object `id` of `entity` was just inserted.
    package func didInsertObject(_ entity: String, id: Int64) {
        access?.mayEmptyLinks(in: layout.physicalTable(entity), of: [id])
        access?.didInsert(into: layout.physicalTable(entity), [id])
    }

    /// Records what a write to `entity`'s table does to required links (see ``LinkEffect``).
    func record(_ links: LinkEffect, writing entity: String, properties: [String]?) {
        guard let access else { return }
        let table = layout.physicalTable(entity)
        switch links {
        case .keeps: access.mayEmptyLinks(in: table, of: [])
        case .mayEmpty(let ids): access.mayEmptyLinks(in: table, of: ids)
        case .unknown:
            let required = schema.effectiveEntity(named: entity)?.relationships.filter(\.isRequiredToOne) ?? []
            if let properties, !required.contains(where: { properties.contains($0.name) }) {
                access.mayEmptyLinks(in: table, of: [])
            } else {
                access.mayEmptyLinks(anywhereIn: table)
            }
        }
    }
}
