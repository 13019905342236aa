import Foundation
import GRDB
import Molt

/// The proof of a copy by `INSERT … SELECT` (``CoreDataSQLCopy``), in SQL, in the same transaction before it
/// commits, one scan of each table on each side (``CoreDataSQLDigest``):
///
/// - per entity, the original rows' digest, each value checked against its attribute's kind and converted in Swift
///   into what Molt stores (independently of the SQL that copied it), against the digest of the new store's rows of
///   that entity as stored (key, attributes, to-one links; storage classes and bytes);
/// - per to-many relationship read from a join table or a foreign key, the digest of the original's pairs
///   (positions included) against the new store's.
///
/// A row, a value or a link missing, added or changed makes the entity's line differ, and the adoption rolls back.
/// A value the copy in SQL would not have converted exactly makes the proof *unfit* instead: the copy is rolled
/// back and the object-by-object path copies, or refuses the value naming it.
///
/// Relationships the store keeps only as their inverse's column are filled from that inverse and left out, as in
/// the object-by-object proof (``AdoptionProof``).
struct CoreDataSQLProof {
    let plan: CoreDataSQLPlan
    let schema: Schema
    let layout: StoreLayout
    let dialect: any SQLDialect

    enum Outcome {
        /// Every original value fits: the comparison of both sides, entity by entity.
        case compared(AdoptionComparison)
        /// Why the object-by-object path must copy instead: the first object holding a value the copy in SQL does
        /// not convert exactly.
        case unfit(String)
    }

    /// One query of the original's side: the digest of an entity's rows, or of one of its to-many relationships'
    /// pairs.
    struct OriginalQuery: Hashable, Sendable {
        var entity: String
        var relationship: String?
        var sql: String
    }

    /// The original's side of the proof, in the order ``compare(_:original:)`` reads it.
    func originalQueries() -> [OriginalQuery] {
        plan.entities.flatMap { entity in
            [OriginalQuery(entity: entity.entity.name, relationship: nil, sql: originalRows(entity))]
                + entity.entity.relationships.compactMap { relationship in
                    guard relationship.kind == .toMany, let sql = originalPairs(of: relationship, entity) else {
                        return nil
                    }
                    return OriginalQuery(entity: entity.entity.name, relationship: relationship.name, sql: sql)
                }
        }
    }

    /// Runs `queries` on a connection of its own to `source` (the store or its private copy, attached as the copy
    /// attaches it),
    /// with the row path's conversions (`slots`, `values`), up to the first that finds an unfit value: what runs
    /// while the copy writes, on another thread.
    static func scanOriginal(
        _ queries: [OriginalQuery], source: String,
        slots: [(entity: String, attribute: CoreDataStoreLayout.AttributeColumn)], values: CoreDataValues
    ) throws -> [OriginalQuery: CoreDataSQLDigest.Result] {
        var configuration = Configuration()
        configuration.label = "MoltAdoption.CoreDataSQLProof"
        configuration.busyMode = .timeout(30)  // beside the adoption's other readers of the same file
        let queue = try DatabaseQueue(configuration: configuration)
        return try queue.inDatabase { db in
            CoreDataSQLValue.register(in: db, slots: slots, values: values)
            try db.execute(sql: "ATTACH DATABASE ? AS \(CoreDataSQLPlan.source)", arguments: [source])
            defer { try? db.execute(sql: "DETACH DATABASE \(CoreDataSQLPlan.source)") }
            var results: [OriginalQuery: CoreDataSQLDigest.Result] = [:]
            for query in queries {
                let result = try CoreDataSQLDigest.fetch(db, sql: query.sql)
                results[query] = result
                if result.unfit != nil { break }
            }
            return results
        }
    }

    /// Compares the new store, read in `db`, with the original's side read by ``scanOriginal(_:source:slots:values:)``.
    func compare(_ db: Database, original: [OriginalQuery: CoreDataSQLDigest.Result]) throws -> Outcome {
        var lines: [AdoptionComparison.Line] = []
        var queries = originalQueries()[...]
        for entity in plan.entities {
            guard let rowsQuery = queries.popFirst(), let rows = original[rowsQuery] else {
                throw MoltError(
                    .validationFailed,
                    "The proof of the adoption has no digest of '\(entity.entity.name)', so nothing was adopted and the store was left as it was. This is a defect of Molt: report it with this message."
                )
            }
            if let unfit = rows.unfit {
                let names = ["key"] + entity.layout.attributes.map(\.name) + entity.layout.toOne.map(\.name)
                let name = names.indices.contains(unfit.column) ? "'\(names[unfit.column])' " : ""
                return .unfit(
                    "'\(entity.entity.name)' holds a value the copy in SQL does not convert (\(name)of object \(unfit.key))"
                )
            }
            let adopted = try CoreDataSQLDigest.fetch(db, sql: adoptedRows(entity))
            var agree = rows.agrees(with: adopted)
            while let pairsQuery = queries.first, pairsQuery.entity == entity.entity.name,
                let relationship = pairsQuery.relationship.flatMap(entity.entity.relationship(named:))
            {
                queries.removeFirst()
                guard let pairs = original[pairsQuery] else {
                    throw MoltError(
                        .validationFailed,
                        "The proof of the adoption has no digest of '\(entity.entity.name).\(relationship.name)', so nothing was adopted and the store was left as it was. This is a defect of Molt: report it with this message."
                    )
                }
                if let unfit = pairs.unfit {
                    return .unfit(
                        "'\(entity.entity.name).\(relationship.name)' holds a link that is not a key (object \(unfit.key))"
                    )
                }
                agree = try agree && pairs.agrees(with: adoptedPairs(of: relationship, entity, db: db))
            }
            lines.append(
                AdoptionComparison.Line(
                    entity: entity.entity.name, originalCount: Int(rows.count), adoptedCount: Int(adopted.count),
                    digestsAgree: agree))
        }
        // In the schema's order, as the object-by-object proof lists them.
        let order = Dictionary(
            schema.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        return .compared(
            try AdoptionProof.verdict(
                lines.sorted { order[$0.entity, default: .max] < order[$1.entity, default: .max] }))
    }

    /// The digest of the entity's original rows: key, attributes, to-one links, and for a hierarchy the entity's
    /// name, which Molt's rows hold.
    private func originalRows(_ entity: CoreDataSQLPlan.EntityPlan) -> String {
        let q = CoreDataSQLPlan.quote
        var kinds: [(kind: CoreDataSQLDigest.Kind, required: Bool)] = [(.key, true)]
        var arguments = ["c.Z_PK"]
        for value in entity.values {
            kinds.append((value.kind, value.required))
            arguments += value.arguments
        }
        for toOne in entity.layout.toOne {
            kinds.append((.link, false))
            arguments.append("c.\(q(toOne.column))")
        }
        if layout.hierarchy(entity.entity.name) != nil {
            kinds.append((.any, false))
            arguments.append(dialect.literal(.string(entity.entity.name)))
        }
        let literal = dialect.literal(.string(CoreDataSQLDigest.kinds(kinds)))
        return "SELECT \(CoreDataSQLDigest.source)(\(literal), \(arguments.joined(separator: ", "))) \(entity.rows)"
    }

    /// The digest of the entity's rows in the new store, in the order of ``originalRows(_:)``.
    private func adoptedRows(_ entity: CoreDataSQLPlan.EntityPlan) -> String {
        let name = entity.entity.name
        var columns = [dialect.quote(StoreLayout.idColumn)]
        columns += entity.layout.attributes.map { layout.column(name, $0.name) }
        columns += entity.layout.toOne.map { layout.column(name, $0.name) }
        if layout.hierarchy(name) != nil { columns.append(dialect.quote(StoreLayout.entityColumn)) }
        let own = layout.ownRowsCondition(name).map { " WHERE \($0)" } ?? ""
        return
            "SELECT \(CoreDataSQLDigest.stored)(\(columns.joined(separator: ", "))) FROM \(layout.table(name))\(own)"
    }

    /// The digest of a to-many relationship's original pairs (and positions), for the entity's owners; nil for
    /// one filled from its inverse.
    private func originalPairs(of relationship: Relationship, _ entity: CoreDataSQLPlan.EntityPlan) -> String? {
        guard let original = entity.pairs(of: relationship.name, ordered: relationship.isOrdered) else { return nil }
        let names = ["owner", "target"] + (relationship.isOrdered ? ["position"] : [])
        let kinds = dialect.literal(.string(CoreDataSQLDigest.kinds(names.map { _ in (.key, true) })))
        return "SELECT \(CoreDataSQLDigest.source)(\(kinds), \(names.joined(separator: ", "))) FROM (\(original))"
    }

    /// The digest of a to-many relationship's pairs (and positions) in the new store, for the entity's owners.
    private func adoptedPairs(
        of relationship: Relationship, _ entity: CoreDataSQLPlan.EntityPlan, db: Database
    ) throws -> CoreDataSQLDigest.Result {
        let q = CoreDataSQLPlan.quote, name = entity.entity.name
        let columns =
            [StoreLayout.ownerColumn, StoreLayout.targetColumn]
            + (relationship.isOrdered ? [StoreLayout.positionColumn] : [])
        // Only the entity's owners when its table holds a hierarchy's rows (the join table then being shared).
        let owners =
            layout.ownRowsCondition(name).map {
                " JOIN \(layout.table(name)) AS m ON m.\(q(StoreLayout.idColumn)) = j.\(q(StoreLayout.ownerColumn)) AND m.\($0)"
            } ?? ""
        return try CoreDataSQLDigest.fetch(
            db,
            sql:
                "SELECT \(CoreDataSQLDigest.stored)(\(columns.map { "j.\(q($0))" }.joined(separator: ", "))) FROM \(layout.joinTable(name, relationship.name)) AS j\(owners)"
        )
    }
}
