import Foundation
import GRDB
import Molt

/// Copies every object of a Core Data store into a Molt store at the converted schema, keeping each object's
/// `Z_PK` as its identifier, in the caller's write transaction.
///
/// Each entity is one scan of its table (`WHERE Z_ENT = n ORDER BY Z_PK`), walked alongside one scan per join
/// table and per ordered relationship, each ordered by owner: no query runs per object and memory does not grow
/// with the store. Every object's values and links also go into a digest per entity, which the proof compares
/// with the new store's (``AdoptionProof``).
struct CoreDataCopy {
    let store: CoreDataStoreFile
    let layout: CoreDataStoreLayout
    let values: CoreDataValues
    /// Why the schema writes the model's sub-entities as entities of their own, when it does.
    var flattenedBecause: String?

    /// Copies every entity; returns the digest of what was read, per entity.
    func copy(into importer: ObjectImporter, schema: Schema) throws -> [String: AdoptionDigest] {
        try checkEveryRowCopied(schema)
        try checkLinkTargets(schema)
        var digests: [String: AdoptionDigest] = [:]
        try store.queue.read { db in
            for entityLayout in layout.entities {
                // With its inherited members: Core Data's row holds them all.
                guard let declared = schema.entity(named: entityLayout.name), !declared.isAbstract,
                    let entity = schema.effectiveEntity(named: declared.name)
                else { continue }
                var digest = AdoptionDigest()
                try copy(entityLayout, as: entity, db: db, into: importer, digest: &digest)
                digests[entity.name] = digest
            }
        }
        return digests
    }

    private func copy(
        _ entityLayout: CoreDataStoreLayout.EntityLayout, as entity: Entity, db: Database,
        into importer: ObjectImporter,
        digest: inout AdoptionDigest
    ) throws {
        let columns = ["Z_PK"] + entityLayout.attributes.map(\.column) + entityLayout.toOne.map(\.column)
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT \(columns.joined(separator: ", ")) FROM \(entityLayout.table) WHERE Z_ENT = ? ORDER BY Z_PK",
            arguments: [entityLayout.number])
        var walks = try entityLayout.joins.map { join in
            try PairWalk(
                db,
                sql:
                    "SELECT \(join.ownerColumn), \(join.destinationColumn) FROM \(join.table) ORDER BY \(join.ownerColumn)\(join.orderColumn.map { ", \($0)" } ?? "")",
                relationship: join.name, invalid: Self.notAKey)
        }
        walks += try entityLayout.orderedInverses.map { ordered in
            try PairWalk(
                db,
                sql:
                    "SELECT \(ordered.foreignKey), Z_PK FROM \(ordered.table) WHERE \(ordered.foreignKey) IS NOT NULL ORDER BY \(ordered.foreignKey), \(ordered.orderColumn ?? "Z_PK")",
                relationship: ordered.name, invalid: Self.notAKey)
        }
        let attributeCount = entityLayout.attributes.count
        while let row = try rows.next() {
            let key: Int64 = row[0]
            var objectValues: [String: Value] = [:]
            for (index, attribute) in entityLayout.attributes.enumerated() {
                let value = try values.value(in: row, at: index + 1, of: attribute, entity: entity.name, key: key)
                if !value.isNull { objectValues[attribute.name] = value }
            }
            var links: [String: [Int64]] = [:]
            for (index, toOne) in entityLayout.toOne.enumerated() {
                switch (row[attributeCount + 1 + index] as DatabaseValue).storage {
                case .null: break
                case .int64(let target): links[toOne.name] = [target]
                default:
                    throw MoltError(
                        .corruptStore,
                        "Object \(key) of '\(entity.name)' holds a value that is not an object's key in its to-one relationship '\(toOne.name)' (column \(toOne.column)): Core Data cannot read it either. Nothing was adopted and the store was left as it was; restore it from a backup.",
                        entity: entity.name, property: toOne.name)
                }
            }
            for index in walks.indices {
                let targets = try walks[index].targets(of: key)
                if !targets.isEmpty { links[walks[index].relationship] = targets }
            }
            digest.add(
                id: key, values: objectValues, links: links, of: entity, skipping: entityLayout.inverseOnly.map(\.name))
            try importer.insert(entity, fileID: key, values: objectValues, links: links)
        }
    }

    /// Refuses a row that no copied entity reads (its `Z_ENT` is not the number this model gives an entity of its
    /// table, or is an abstract entity's) before anything is written: each entity reads its rows by number, and a
    /// row no number claims would otherwise be left behind without a word.
    func checkEveryRowCopied(_ schema: Schema) throws {
        let numbers = readNumbers(schema)
        try store.queue.read { db in
            for table in Set(layout.entities.map(\.table)).sorted() {
                let sql =
                    "SELECT Z_ENT, COUNT(*) FROM \(table) WHERE \(Self.unreadRows(of: table, numbers: numbers)) GROUP BY Z_ENT LIMIT 1"
                guard let row = try Row.fetchOne(db, sql: sql) else { continue }
                let number: Int? = row[0]
                let count: Int = row[1] ?? 0
                let owner = layout.entities.first { $0.number == number }?.name
                throw MoltError(
                    .invalidSchema,
                    "Table \(table) has \(count) row(s) of entity number \(number.map(String.init) ?? "NULL")\(owner.map { " ('\($0)', abstract in this model)" } ?? ", which no entity of model version '\(layout.model.name)' has"): adopting would leave them behind. Nothing was adopted and the store was left as it was. Give the model version that wrote the store.",
                    entity: owner)
            }
        }
    }

    /// The entity numbers the copy reads, per table: those of the schema's concrete entities.
    func readNumbers(_ schema: Schema) -> [String: [Int]] {
        var numbers: [String: [Int]] = [:]
        for entityLayout in layout.entities {
            guard let declared = schema.entity(named: entityLayout.name), !declared.isAbstract else { continue }
            numbers[entityLayout.table, default: []].append(entityLayout.number)
        }
        return numbers
    }

    /// The SQL condition of a row of `table` that no copied entity reads (``checkEveryRowCopied(_:)``), on its
    /// unqualified `Z_ENT`.
    static func unreadRows(of table: String, numbers: [String: [Int]]) -> String {
        let read = (numbers[table] ?? []).map(String.init).joined(separator: ", ")
        return "Z_ENT IS NULL OR Z_ENT NOT IN (\(read.isEmpty ? "NULL" : read))"
    }

    /// Refuses a link to an object of a sub-entity where the converted schema's relationship holds only its
    /// parent's objects, before anything is written. Runs once no row is one no copied entity reads (after
    /// ``checkEveryRowCopied(_:)``, or a scan that found none of them).
    func checkLinkTargets(_ schema: Schema) throws {
        let byName = Dictionary(layout.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // The entity numbers a link to `name` may hold: its own, and, when Molt holds the hierarchy, its descendants'.
        func allowed(_ name: String) -> [Int] {
            let names =
                [name] + (schema.isInHierarchy(name) ? schema.subEntities(of: name, recursive: true).map(\.name) : [])
            return names.compactMap { byName[$0]?.number }
        }
        func list(_ numbers: [Int]) -> String { numbers.map(String.init).joined(separator: ", ") }
        let numbers = readNumbers(schema)
        func mayHoldOthers(_ target: CoreDataStoreLayout.EntityLayout) -> Bool {
            Self.mayHoldOthers(target, allowed: allowed(target.name), numbers: numbers)
        }
        try store.queue.read { db in
            for owner in layout.entities {
                // (relationship, destination, SQL giving an owner's key and a target's entity number)
                var checks: [(String, String, String)] = []
                for toOne in owner.toOne {
                    guard let target = byName[toOne.destination], mayHoldOthers(target) else { continue }
                    checks.append(
                        (
                            toOne.name, toOne.destination,
                            "SELECT s.Z_PK, t.Z_ENT FROM \(owner.table) s JOIN \(target.table) t ON t.Z_PK = s.\(toOne.column) WHERE s.Z_ENT = \(owner.number) AND t.Z_ENT NOT IN (\(list(allowed(target.name)))) LIMIT 1"
                        ))
                }
                for join in owner.joins {
                    guard let target = byName[join.destination], mayHoldOthers(target) else { continue }
                    checks.append(
                        (
                            join.name, join.destination,
                            "SELECT j.\(join.ownerColumn), t.Z_ENT FROM \(join.table) j JOIN \(owner.table) s ON s.Z_PK = j.\(join.ownerColumn) AND s.Z_ENT = \(owner.number) JOIN \(target.table) t ON t.Z_PK = j.\(join.destinationColumn) WHERE t.Z_ENT NOT IN (\(list(allowed(target.name)))) LIMIT 1"
                        ))
                }
                for ordered in owner.orderedInverses + owner.inverseOnly {
                    guard let target = byName[ordered.destination], mayHoldOthers(target) else { continue }
                    checks.append(
                        (
                            ordered.name, ordered.destination,
                            "SELECT t.\(ordered.foreignKey), t.Z_ENT FROM \(ordered.table) t JOIN \(owner.table) s ON s.Z_PK = t.\(ordered.foreignKey) AND s.Z_ENT = \(owner.number) WHERE t.Z_ENT NOT IN (\(list(allowed(target.name)))) LIMIT 1"
                        ))
                }
                for (relationship, destination, sql) in checks {
                    guard let row = try Row.fetchOne(db, sql: sql) else { continue }
                    let key: Int64 = row[0] ?? 0
                    let number: Int = row[1] ?? 0
                    let kind = layout.entities.first { $0.number == number }?.name ?? "entity \(number)"
                    let why =
                        flattenedBecause.map {
                            "a sub-entity of '\(destination)', which this model's Molt schema writes as an entity of its own (\($0)), so the link cannot be kept"
                        }
                        ?? "which is not '\(destination)' nor one of its sub-entities in the model: the store does not agree with the model that matched it. Check that the model given is the one the app saved this store with"
                    throw MoltError(
                        .invalidSchema,
                        "Object \(key) of '\(owner.name)' links '\(relationship)' to an object of '\(kind)', \(why). Nothing was adopted and the store was left as it was.",
                        entity: owner.name, property: relationship)
                }
            }
        }
    }

    /// Whether a link to `target`, whose objects may be of the entities numbered `allowed`, may hold an object of
    /// another entity. Once every row is one a copied entity reads (`numbers`, per table), a table whose copied
    /// entities are all allowed cannot: its check, a join of every link, is not run.
    private static func mayHoldOthers(
        _ target: CoreDataStoreLayout.EntityLayout, allowed: [Int], numbers: [String: [Int]]
    ) -> Bool {
        guard let read = numbers[target.table], !read.isEmpty else { return true }
        return !Set(read).isSubset(of: allowed)
    }

    /// The refusal of a link that holds something other than an object's key.
    private static func notAKey(_ row: Row) -> MoltError {
        MoltError(
            .corruptStore,
            "A link of the store holds \(row[0] as DatabaseValue) → \(row[1] as DatabaseValue), which is not a pair of objects' keys: Core Data cannot read it either. Nothing was adopted and the store was left as it was; restore it from a backup."
        )
    }
}
