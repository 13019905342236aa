import Foundation
import GRDB
import Molt

/// Copies a Core Data store into a new Molt store with the engine's bulk copy (``RowCopy``, planned by
/// ``CoreDataSQLPlan``): one `INSERT … SELECT` per entity and per to-many relationship, reading the store (in place,
/// read-only, or its private copy) attached to the new store's connection as ``RowCopy/sourceSchema``, in the
/// creation's transaction, proved by the engine before it is kept.
///
/// It writes only what the object-by-object copy (``CoreDataCopy``) would write. Before writing, one scan per table
/// looks for a row no copied entity reads and a link in a join table that is not a key, and the row path's check of
/// link targets refuses what it refuses. The proof's scan of the original checks every value against its meaning:
/// when it finds one the copy would not convert exactly, or when a statement fails (a duplicate, a value
/// ``CoreDataValues`` refuses), nothing is kept and the row path copies instead, refusing with the message that
/// names the row or the value.
struct CoreDataSQLCopy {
    let reader: CoreDataCopy
    /// What SQLite attaches to read the store (the store in place, read-only, or its private copy), attached to
    /// the new store's connection.
    let source: String
    /// For tests: SQL run on the new store between the copy and its proof, to show that the proof refuses what
    /// it changes.
    var beforeProof: String? = nil

    /// What the copy did: objects per entity and what it left out; or why the row path must copy instead.
    enum Outcome {
        case copied(counts: [String: Int], comparison: AdoptionComparison, leftOut: [String])
        case unfit(String)
    }

    /// Copies and proves, or tells why the row path must copy (nothing then written).
    func copy(_ objects: Objects, schema: Schema, marks: [String: Int64]) throws -> Outcome {
        let (made, unfit) = CoreDataSQLPlan.make(reader.layout, schema: schema, source: source, values: reader.values)
        guard var plan = made else { return .unfit(unfit ?? "") }
        plan.copy.beforeProof = beforeProof
        if let reason = try firstUnfit(plan, schema: schema) { return .unfit(reason) }
        try reader.checkLinkTargets(schema)
        let lines: [RowCopy.Line]
        switch try objects.copyRows(plan.copy, identifierMarks: marks) {
        case .unfit(let reason):
            reader.values.missing.withLock { $0 = [] }
            return .unfit(reason)
        case .disagreed(let proved), .copied(let proved):
            lines = proved
        }
        // In the schema's order, as the object-by-object proof lists them; a difference is refused naming it.
        let order = Dictionary(
            schema.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        let comparison = try AdoptionProof.verdict(
            lines.sorted { order[$0.entity, default: .max] < order[$1.entity, default: .max] }.map {
                AdoptionComparison.Line(
                    entity: $0.entity, originalCount: $0.sourceCount, adoptedCount: $0.copiedCount,
                    digestsAgree: $0.agree)
            })
        return .copied(
            counts: Dictionary(lines.map { ($0.entity, $0.copiedCount) }, uniquingKeysWith: { first, _ in first }),
            comparison: comparison, leftOut: reader.values.missingLeftOut())
    }

    /// Why the row path must copy the store, found before writing: a row no copied entity reads, or a link in a
    /// join table or an ordered relationship's foreign key that is not a key; nil when there is none. One scan
    /// per table of the store that holds such rows or links. (The values of the entities' rows are
    /// checked by the proof's scan of them, ``RowCopy``.)
    private func firstUnfit(_ plan: CoreDataSQLPlan, schema: Schema) throws -> String? {
        let q = CoreDataSQLPlan.quote
        // Per table, in the order first met: each condition of an unfit row, with why (an object's key follows).
        var tables: [String] = []
        var checks: [String: [(condition: String, why: String)]] = [:]
        func check(_ table: String, _ condition: String, _ why: String) {
            if checks[table] == nil { tables.append(table) }
            checks[table, default: []].append((condition, why))
        }
        let numbers = reader.readNumbers(schema)
        for table in Set(reader.layout.entities.map(\.table)).sorted() {
            check(
                table, CoreDataCopy.unreadRows(of: table, numbers: numbers),
                "table \(table) holds rows no copied entity reads")
        }
        for entity in plan.entities {
            for join in entity.layout.joins {
                let (owner, target) = (q(join.ownerColumn), q(join.destinationColumn))
                check(
                    join.table, "typeof(c.\(owner)) <> 'integer' OR typeof(c.\(target)) <> 'integer'",
                    "join table \(join.table) holds a link that is not a key")
            }
            for inverse in entity.layout.orderedInverses {
                check(
                    inverse.table, "typeof(c.\(q(inverse.foreignKey))) NOT IN ('null', 'integer')",
                    "table \(inverse.table) holds a link that is not a key")
            }
        }
        let entityTables = Set(reader.layout.entities.map(\.table))
        for table in tables {
            let list = checks[table] ?? []
            let which = list.indices.map { "WHEN \(list[$0].condition) THEN \($0)" }.joined(separator: " ")
            let keyColumn = entityTables.contains(table) ? "c.Z_PK" : "NULL"
            let sql =
                "SELECT CASE \(which) END, \(keyColumn) FROM \(q(table)) AS c WHERE \(list.map { "(\($0.condition))" }.joined(separator: " OR ")) LIMIT 1"
            guard let row = try reader.store.queue.read({ try Row.fetchOne($0, sql: sql) }) else { continue }
            let index: Int = row[0] ?? 0
            let key: Int64? = row[1]
            return list[index].why + (key.map { " (object \($0))" } ?? "")
        }
        return nil
    }
}
