import Foundation
import GRDB
import Molt

/// The proof of a copy by `INSERT … SELECT` (``CoreDataSQLCopy``), in SQL, in the same transaction before it
/// commits: per entity, the objects counted on each side; every original row joined by its key to the new
/// store's row of the same entity, each attribute compared with the original value converted and each to-one
/// with the original's key, exactly (``differs(_:_:)``: storage class and bytes); every to-many relationship
/// (positions included) counted on both sides and the original's pairs, with their storage classes, looked for in
/// the new store. A row, a value or a link missing, added or changed makes the entity's line differ, and the
/// adoption rolls back.
///
/// Relationships the store keeps only as their inverse's column are filled from that inverse and left out, as in
/// the object-by-object proof (``AdoptionProof``).
struct CoreDataSQLProof {
    let plan: CoreDataSQLPlan
    let schema: Schema
    let layout: StoreLayout
    let dialect: any SQLDialect

    func compare(_ db: Database) throws -> AdoptionComparison {
        var lines: [AdoptionComparison.Line] = []
        for entity in plan.entities {
            let (original, differing) = try originalRows(entity, db: db)
            let own = layout.ownRowsCondition(entity.entity.name).map { " WHERE \($0)" } ?? ""
            let adopted =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(layout.table(entity.entity.name))\(own)") ?? 0
            let agree = try differing == 0 && linksAgree(entity, db: db)
            lines.append(
                AdoptionComparison.Line(
                    entity: entity.entity.name, originalCount: original, adoptedCount: adopted, digestsAgree: agree))
        }
        // In the schema's order, as the object-by-object proof lists them.
        let order = Dictionary(
            schema.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        return try AdoptionProof.verdict(
            lines.sorted { order[$0.entity, default: .max] < order[$1.entity, default: .max] })
    }

    /// The SQL condition that holds when the values of `a` and `b` differ in any way: a null on one side only,
    /// another storage class (the integer 1 and the real 1.0, the text 'x' and the blob x'78', which `IS NOT`
    /// takes as equal or which a column's affinity would make equal), or other bytes (`COLLATE BINARY`, so that a
    /// column's own collation, such as a decimal's by value, does not take '1.0' for '1').
    static func differs(_ a: String, _ b: String) -> String {
        "(typeof(\(a)) IS NOT typeof(\(b)) OR \(a) IS NOT \(b) COLLATE BINARY)"
    }

    /// In one scan of the entity's original rows: how many there are, and how many have no row of the same key
    /// and entity in the new store, or one whose values or to-one links differ.
    private func originalRows(_ entity: CoreDataSQLPlan.EntityPlan, db: Database) throws -> (count: Int, differing: Int)
    {
        let q = CoreDataSQLPlan.quote, name = entity.entity.name
        let column = { (property: String) in "m.\(layout.column(name, property))" }
        var differs = ["m.\(q(StoreLayout.idColumn)) IS NULL"]
        if layout.hierarchy(name) != nil {
            differs.append(Self.differs("m.\(q(StoreLayout.entityColumn))", dialect.literal(.string(name))))
        }
        for (attribute, value) in zip(entity.layout.attributes, entity.values) {
            differs.append(Self.differs(column(attribute.name), value.expression))
        }
        for toOne in entity.layout.toOne { differs.append(Self.differs(column(toOne.name), "c.\(q(toOne.column))")) }
        let join =
            "LEFT JOIN \(layout.table(name)) AS m ON m.\(q(StoreLayout.idColumn)) = c.Z_PK"
        let rows = entity.rows.replacingOccurrences(of: " AS c WHERE ", with: " AS c \(join) WHERE ")
        let counts = try Row.fetchOne(
            db, sql: "SELECT count(*), count(CASE WHEN \(differs.joined(separator: " OR ")) THEN 1 END) \(rows)")
        return (counts?[0] as Int? ?? 0, counts?[1] as Int? ?? 0)
    }

    /// Whether every to-many relationship the copy wrote holds, for the entity's objects, the original's pairs
    /// (and positions) and no other.
    private func linksAgree(_ entity: CoreDataSQLPlan.EntityPlan, db: Database) throws -> Bool {
        let q = CoreDataSQLPlan.quote, name = entity.entity.name
        for relationship in entity.entity.relationships where relationship.kind == .toMany {
            guard let original = entity.pairs(of: relationship.name, ordered: relationship.isOrdered) else { continue }
            let own = layout.ownRowsCondition(name).map { " AND m.\($0)" } ?? ""
            let columns =
                [StoreLayout.ownerColumn, StoreLayout.targetColumn].map { "j.\(q($0))" }
                + (relationship.isOrdered ? ["j.\(q(StoreLayout.positionColumn))"] : [])
            let adopted =
                "SELECT \(Self.typed(columns)) FROM \(layout.joinTable(name, relationship.name)) AS j JOIN \(layout.table(name)) AS m ON m.\(q(StoreLayout.idColumn)) = j.\(q(StoreLayout.ownerColumn))\(own)"
            let pairs = ["owner", "target"] + (relationship.isOrdered ? ["position"] : [])
            let typedOriginal = "SELECT \(Self.typed(pairs)) FROM (\(original))"
            let counts = try Row.fetchOne(
                db,
                sql:
                    "SELECT (SELECT count(*) FROM (\(original))), (SELECT count(*) FROM (\(adopted))), (SELECT count(*) FROM (\(typedOriginal) EXCEPT \(adopted)))"
            )
            guard let counts, counts[0] as Int == counts[1] as Int, counts[2] as Int == 0 else { return false }
        }
        return true
    }

    /// Each of `columns` followed by its storage class, so that `EXCEPT` (which takes 1 and 1.0 as equal) sees
    /// another class as another pair.
    private static func typed(_ columns: [String]) -> String {
        columns.map { "\($0), typeof(\($0))" }.joined(separator: ", ")
    }
}
