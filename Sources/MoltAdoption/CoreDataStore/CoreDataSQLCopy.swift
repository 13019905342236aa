import Foundation
import GRDB
import Molt
import MoltTooling

/// Copies a Core Data store into a new Molt store in SQLite with one `INSERT … SELECT` per entity and per to-many
/// relationship, reading the private copy attached to the new store's connection (``CoreDataSQLPlan/source``),
/// in the creation's transaction; then proves the copy in SQL (``CoreDataSQLProof``).
///
/// It writes only what the object-by-object copy (``CoreDataCopy``) would write: before writing, the same checks
/// of rows and links refuse what they refuse, and one scan per table looks for a value SQL would not convert
/// exactly (``CoreDataSQLValue/unfit``). When it finds one, or when a statement fails (a duplicate, a value
/// ``CoreDataValues`` refuses), its writes are rolled back and the row path copies instead, refusing the value
/// with the message that names it.
struct CoreDataSQLCopy {
    let reader: CoreDataCopy
    /// The private copy, attached to the new store's connection.
    let source: URL
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
        try reader.checkEveryRowCopied(schema)
        try reader.checkLinkTargets(schema)
        CoreDataSQLValue.register(in: db, slots: plan.slots, values: reader.values)
        if let reason = try firstUnfit(plan, db: db) { return .unfit(reason) }
        var counts: [String: Int] = [:]
        do {
            try db.inSavepoint {
                let importer = try ObjectImporter(objects, keepingIDs: true)
                for entity in plan.entities {
                    counts[entity.entity.name] = try insert(entity, objects: objects, importer: importer, db: db)
                }
                try importer.finish(identifierMarks: marks)
                return .commit
            }
        } catch {
            reader.values.missing.withLock { $0 = [] }
            return .unfit("the copy in SQL stopped (\(error)); the object-by-object copy names the value")
        }
        if let beforeProof { try db.execute(sql: beforeProof) }
        let missing = reader.values.missing.withLock { $0 }
        let comparison = try CoreDataSQLProof(
            plan: plan, schema: schema, layout: objects.layout, dialect: objects.dialect
        )
        .compare(db)
        reader.values.missing.withLock { $0 = missing }  // the proof converts again: its lines are the same
        let line =
            "\(missing.count) binary value(s) whose external-storage file was missing, adopted as null: "
            + missing.joined(separator: "; ")
        return .copied(counts: counts, comparison: comparison, leftOut: missing.isEmpty ? [] : [line])
    }

    /// Why the row path must copy the store: the first entity that holds a value SQL would not convert exactly,
    /// or a link that is not a key; nil when every value fits.
    private func firstUnfit(_ plan: CoreDataSQLPlan, db: Database) throws -> String? {
        let q = CoreDataSQLPlan.quote
        for entity in plan.entities {
            let conditions =
                entity.values.map(\.unfit)
                + entity.layout.toOne.map { "typeof(c.\(q($0.column))) NOT IN ('null', 'integer')" }
            guard !conditions.isEmpty else { continue }
            let sql = "SELECT c.Z_PK \(entity.rows) AND (\(conditions.joined(separator: " OR "))) LIMIT 1"
            if let key = try Int64.fetchOne(db, sql: sql) {
                return "object \(key) of '\(entity.entity.name)' holds a value the copy in SQL does not convert"
            }
            for join in entity.layout.joins {
                let (owner, target) = (q(join.ownerColumn), q(join.destinationColumn))
                let sql =
                    "SELECT 1 FROM \(CoreDataSQLPlan.sourceTable(join.table)) WHERE typeof(\(owner)) <> 'integer' OR typeof(\(target)) <> 'integer' LIMIT 1"
                if try Int.fetchOne(db, sql: sql) != nil {
                    return "join table \(join.table) holds a link that is not a key"
                }
            }
            for inverse in entity.layout.orderedInverses {
                let key = q(inverse.foreignKey)
                let sql =
                    "SELECT 1 FROM \(CoreDataSQLPlan.sourceTable(inverse.table)) WHERE typeof(\(key)) NOT IN ('null', 'integer') LIMIT 1"
                if try Int.fetchOne(db, sql: sql) != nil {
                    return "table \(inverse.table) holds a link that is not a key"
                }
            }
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
