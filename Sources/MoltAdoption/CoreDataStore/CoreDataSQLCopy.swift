import Foundation
import GRDB
import Molt
import MoltTooling

/// Copies a Core Data store into a new Molt store in SQLite with one `INSERT … SELECT` per entity and per to-many
/// relationship, reading the store (in place, read-only, or its private copy) attached to the new store's
/// connection (``CoreDataSQLPlan/source``), in the creation's transaction; then proves the copy in SQL
/// (``CoreDataSQLProof``).
///
/// It writes only what the object-by-object copy (``CoreDataCopy``) would write. Before writing, one scan per table
/// looks for a row no copied entity reads and a link in a join table that is not a key, and the row path's check of
/// link targets refuses what it refuses. The proof's scan of the original checks every value against its
/// attribute's kind: when it finds one SQL would not convert exactly, or when a statement fails (a duplicate, a
/// value ``CoreDataValues`` refuses), the copy is rolled back and the row path copies instead, refusing with the
/// message that names the row or the value.
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
        guard let db = SQLiteAccess.database(of: objects.db) else { return .unfit("the store is not SQLite") }
        let (made, unfit) = CoreDataSQLPlan.make(reader.layout, schema: schema)
        guard let plan = made else { return .unfit(unfit ?? "") }
        CoreDataSQLValue.register(in: db, slots: plan.slots, values: reader.values)
        if let reason = try firstUnfit(plan, schema: schema, db: db) { return .unfit(reason) }
        try reader.checkLinkTargets(schema)
        let proof = CoreDataSQLProof(plan: plan, schema: schema, layout: objects.layout, dialect: objects.dialect)
        // The original's side of the proof is read on another thread while the copy writes.
        let (queries, source, slots, values) = (proof.originalQueries(), source, plan.slots, reader.values.apart())
        let original = BackgroundWork("Molt adoption proof") {
            try CoreDataSQLProof.scanOriginal(queries, source: source, slots: slots, values: values)
        }
        var outcome = Outcome.unfit("")
        try db.inSavepoint {
            var counts: [String: Int] = [:]
            do {
                let importer = try ObjectImporter(objects, keepingIDs: true)
                for entity in plan.entities {
                    counts[entity.entity.name] = try insert(entity, objects: objects, importer: importer, db: db)
                }
                try importer.finish(identifierMarks: marks)
            } catch {
                _ = try? original.value()
                outcome = .unfit("the copy in SQL stopped (\(error)); the object-by-object copy names the value")
                return .rollback
            }
            if let beforeProof { try db.execute(sql: beforeProof) }
            switch try proof.compare(db, original: original.value()) {
            case .unfit(let reason):
                outcome = .unfit(reason)
                return .rollback
            case .compared(let comparison):
                let missing = reader.values.missing.withLock { $0 }
                let line =
                    "\(missing.count) binary value(s) whose external-storage file was missing, adopted as null: "
                    + missing.joined(separator: "; ")
                outcome = .copied(counts: counts, comparison: comparison, leftOut: missing.isEmpty ? [] : [line])
                return .commit
            }
        }
        if case .unfit = outcome { reader.values.missing.withLock { $0 = [] } }
        return outcome
    }

    /// Why the row path must copy the store, found before writing: a row no copied entity reads, or a link in a
    /// join table or an ordered relationship's foreign key that is not a key; nil when there is none. One scan
    /// per table of the store that holds such rows or links. (The values of the entities' rows are
    /// checked by the proof's scan of them, ``CoreDataSQLProof``.)
    private func firstUnfit(_ plan: CoreDataSQLPlan, schema: Schema, db: Database) throws -> String? {
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
                "SELECT CASE \(which) END, \(keyColumn) FROM \(CoreDataSQLPlan.sourceTable(table)) AS c WHERE \(list.map { "(\($0.condition))" }.joined(separator: " OR ")) LIMIT 1"
            guard let row = try Row.fetchOne(db, sql: sql) else { continue }
            let index: Int = row[0] ?? 0
            let key: Int64? = row[1]
            return list[index].why + (key.map { " (object \($0))" } ?? "")
        }
        return nil
    }

    /// Writes one entity's rows and its to-many relationships; returns the number of objects.
    private func insert(
        _ plan: CoreDataSQLPlan.EntityPlan, objects: Objects, importer: ObjectImporter, db: Database
    ) throws -> Int {
        let layout = objects.layout, q = CoreDataSQLPlan.quote, name = plan.entity.name
        var columns = [q(StoreLayout.idColumn)], select = ["c.Z_PK"]
        for (attribute, value) in zip(plan.layout.attributes, plan.values) {
            columns.append(layout.column(name, attribute.name))
            select.append(value.expression)
        }
        for toOne in plan.layout.toOne {
            columns.append(layout.column(name, toOne.name))
            select.append("c.\(q(toOne.column))")
        }
        if layout.hierarchy(name) != nil {
            columns.append(q(StoreLayout.entityColumn))
            select.append(objects.dialect.literal(.string(name)))
        }
        try db.execute(
            sql:
                "INSERT INTO \(layout.table(name)) (\(columns.joined(separator: ", "))) SELECT \(select.joined(separator: ", ")) \(plan.rows) ORDER BY c.Z_PK"
        )
        let count = db.changesCount
        for relationship in plan.entity.relationships {
            guard try written(relationship, of: plan, objects: objects, db: db) else { continue }
            importer.noteGiven(plan.entity, relationship)
        }
        return count
    }

    /// Writes a to-many relationship read from a join table or a foreign key; whether the entity's objects
    /// give the relationship (a to-one set, a to-many written) for at least one object, as the row path notes it.
    private func written(
        _ relationship: Relationship, of plan: CoreDataSQLPlan.EntityPlan, objects: Objects, db: Database
    ) throws -> Bool {
        let q = CoreDataSQLPlan.quote
        if let toOne = plan.layout.toOne.first(where: { $0.name == relationship.name }) {
            return try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 \(plan.rows) AND c.\(q(toOne.column)) IS NOT NULL)")
                ?? false
        }
        guard let pairs = plan.pairs(of: relationship.name, ordered: relationship.isOrdered) else { return false }
        let columns =
            [StoreLayout.ownerColumn, StoreLayout.targetColumn]
            + (relationship.isOrdered ? [StoreLayout.positionColumn] : [])
        try db.execute(
            sql:
                "INSERT INTO \(objects.layout.joinTable(plan.entity.name, relationship.name)) (\(columns.map(q).joined(separator: ", "))) \(pairs)"
        )
        return db.changesCount > 0
    }
}
