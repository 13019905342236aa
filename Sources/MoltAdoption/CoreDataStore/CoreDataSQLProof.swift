import Foundation
import GRDB
import Molt

/// The proof of a copy by `INSERT … SELECT` (``CoreDataSQLCopy``), in SQL, in the same transaction before it
/// commits: per entity, the objects counted on each side; every original row joined by its key to the new
/// store's row of the same entity, each attribute compared with the original value converted and each to-one
/// with the original's key (`IS NOT`, so that a null on one side only differs); every to-many relationship
/// (positions included) counted on both sides and the original's pairs looked for in the new store. A row, a
/// value or a link missing, added or changed makes the entity's line differ, and the adoption rolls back.
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
            let original = try Int.fetchOne(db, sql: "SELECT count(*) \(entity.rows)") ?? 0
            let own = layout.ownRowsCondition(entity.entity.name).map { " WHERE \($0)" } ?? ""
            let adopted =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(layout.table(entity.entity.name))\(own)") ?? 0
            let agree = try differingRows(entity, db: db) == 0 && linksAgree(entity, db: db)
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

    /// The original rows of the entity with no row of the same key and entity in the new store, or one whose
    /// values or to-one links differ.
    private func differingRows(_ entity: CoreDataSQLPlan.EntityPlan, db: Database) throws -> Int {
        let q = CoreDataSQLPlan.quote, name = entity.entity.name
        let column = { (property: String) in "m.\(layout.column(name, property))" }
        var differs = ["m.\(q(StoreLayout.idColumn)) IS NULL"]
        if layout.hierarchy(name) != nil {
            differs.append("m.\(q(StoreLayout.entityColumn)) IS NOT \(dialect.literal(.string(name)))")
        }
        for (attribute, value) in zip(entity.layout.attributes, entity.values) {
            differs.append("\(column(attribute.name)) IS NOT \(value.expression)")
        }
        for toOne in entity.layout.toOne { differs.append("\(column(toOne.name)) IS NOT c.\(q(toOne.column))") }
        let join =
            "LEFT JOIN \(layout.table(name)) AS m ON m.\(q(StoreLayout.idColumn)) = c.Z_PK"
        let rows = entity.rows.replacingOccurrences(of: " AS c WHERE ", with: " AS c \(join) WHERE ")
        return try Int.fetchOne(db, sql: "SELECT count(*) \(rows) AND (\(differs.joined(separator: " OR ")))") ?? 0
    }

    /// Whether every to-many relationship the copy wrote holds, for the entity's objects, the original's pairs
    /// (and positions) and no other.
    private func linksAgree(_ entity: CoreDataSQLPlan.EntityPlan, db: Database) throws -> Bool {
        let q = CoreDataSQLPlan.quote, name = entity.entity.name
        for relationship in entity.entity.relationships where relationship.kind == .toMany {
            guard let original = entity.pairs(of: relationship.name, ordered: relationship.isOrdered) else { continue }
            let own = layout.ownRowsCondition(name).map { " AND m.\($0)" } ?? ""
            let columns =
                ["j.\(q(StoreLayout.ownerColumn))", "j.\(q(StoreLayout.targetColumn))"]
                + (relationship.isOrdered ? ["j.\(q(StoreLayout.positionColumn))"] : [])
            let adopted =
                "SELECT \(columns.joined(separator: ", ")) FROM \(layout.joinTable(name, relationship.name)) AS j JOIN \(layout.table(name)) AS m ON m.\(q(StoreLayout.idColumn)) = j.\(q(StoreLayout.ownerColumn))\(own)"
            let counts = try Row.fetchOne(
                db,
                sql:
                    "SELECT (SELECT count(*) FROM (\(original))), (SELECT count(*) FROM (\(adopted))), (SELECT count(*) FROM (\(original) EXCEPT \(adopted)))"
            )
            guard let counts, counts[0] as Int == counts[1] as Int, counts[2] as Int == 0 else { return false }
        }
        return true
    }
}
