import Foundation
import GRDB
import Molt

/// Reads a GRDB, FMDB or plain SQLite database (in place, read-only, or a private copy of it) through a ``SQLiteMapping``: checks that
/// every table and column is accounted for, then copies each table's rows as objects of its entity, every value
/// checked against its attribute (type, null) and every to-one column resolved to its destination object.
struct SQLiteDatabaseReader {
    let queue: DatabaseQueue
    let original: URL
    let schema: Schema
    let mapping: SQLiteMapping
    /// Every table's columns, by table name.
    let columns: [String: [String]]
    let tableNames: Set<String>

    init(source: String, original: URL, schema: Schema, mapping: SQLiteMapping) throws {
        self.original = original
        self.schema = schema
        queue = try DatabaseQueue(path: source)
        let tables = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        var columns: [String: [String]] = [:]
        try queue.read { db in
            for table in tables { columns[table] = try db.columns(in: table).map(\.name) }
        }
        self.columns = columns
        tableNames = Set(tables)
        var completed = try mapping.inferred(for: schema, tables: columns)
        // A table without an identity column named keeps its rowid: the INTEGER PRIMARY KEY column when it has one.
        try queue.read { db in
            for index in completed.tables.indices where completed.tables[index].identity == nil {
                let table = completed.tables[index].table
                guard tables.contains(table) else { continue }
                completed.tables[index].identity = try db.primaryKey(table).rowIDColumn
            }
        }
        try queue.read { db in try Self.inferJoins(&completed, schema: schema, tables: tables, db: db) }
        self.mapping = completed
        try checkEverythingMapped()
    }

    /// The relationships kept in join tables: those a to-one column does not hold.
    static func joined(_ entity: Entity, in schema: Schema) -> [Relationship] {
        entity.relationships.filter { relationship in
            guard relationship.kind == .toMany else { return false }
            let inverse = relationship.inverse.flatMap {
                schema.entity(named: relationship.destination)?.relationship(named: $0)
            }
            return inverse?.kind != .toOne
        }
    }

    /// Finds the join table of each many-to-many relationship the mapping does not give: the one table (not an
    /// entity's) with a foreign key to the owner's table and one to the destination's.
    private static func inferJoins(
        _ mapping: inout SQLiteMapping, schema: Schema, tables: [String], db: Database
    ) throws {
        let entityTables = Set(mapping.tables.map(\.table))
        let keys = try Dictionary(
            uniqueKeysWithValues: tables.filter { !entityTables.contains($0) }.map { ($0, try db.foreignKeys(on: $0)) })
        for index in mapping.tables.indices {
            let table = mapping.tables[index]
            guard let entity = schema.entity(named: table.entity) else { continue }
            for relationship in joined(entity, in: schema) where table.joins[relationship.name] == nil {
                guard let destination = mapping.tables.first(where: { $0.entity == relationship.destination }),
                    destination.table != table.table
                else { throw unmappedJoin(entity, relationship) }
                let candidates = keys.compactMap { name, foreignKeys -> SQLiteMapping.Join? in
                    guard let owner = foreignKeys.first(where: { $0.destinationTable == table.table }),
                        let target = foreignKeys.first(where: { $0.destinationTable == destination.table }),
                        owner.originColumns.count == 1, target.originColumns.count == 1
                    else { return nil }
                    return SQLiteMapping.Join(
                        table: name, owner: owner.originColumns[0], destination: target.originColumns[0])
                }
                guard candidates.count == 1 else { throw unmappedJoin(entity, relationship) }
                mapping.tables[index].joins[relationship.name] = candidates[0]
            }
        }
    }

    private static func unmappedJoin(_ entity: Entity, _ relationship: Relationship) -> MoltError {
        MoltError(
            .invalidSchema,
            "No single join table of the database holds '\(entity.name).\(relationship.name)' (a table with a foreign key to each side). Nothing was adopted. Map it in the table's \"joins\": {\"\(relationship.name)\": {\"table\": …, \"owner\": …, \"destination\": …}}.",
            entity: entity.name, property: relationship.name)
    }

    /// The engine that wrote the database, and its version as it records it.
    func versions() throws -> (engine: String, versions: [String]) {
        try queue.read { db in
            if tableNames.contains("grdb_migrations") {
                let applied = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
                return ("GRDB", ["grdb_migrations: \(applied.joined(separator: ", "))"])
            }
            let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
            return ("SQLite", version == 0 ? [] : ["user_version \(version)"])
        }
    }

    /// Refuses a table or a column that the mapping neither reads nor leaves out on purpose: adopting would leave
    /// its values behind.
    private func checkEverythingMapped() throws {
        let read = Set(mapping.tables.map(\.table) + mapping.tables.flatMap { $0.joins.values.map(\.table) })
        let leftOut = Set(mapping.ignoredTables + ["sqlite_sequence", "grdb_migrations", "sqlite_stat1"])
        if let table = tableNames.subtracting(read).subtracting(leftOut).sorted().first {
            throw MoltError(
                .invalidSchema,
                "Table \(table) of \(original.path) is not mapped to an entity, so adopting would leave its rows behind. Nothing was adopted and the database was left as it was. Map it to an entity, or list it in the mapping's \"ignoredTables\"."
            )
        }
        for table in mapping.tables {
            guard let all = columns[table.table] else {
                throw MoltError(
                    .invalidSchema,
                    "The mapping reads table \(table.table) for '\(table.entity)', which the database does not have (its tables: \(tableNames.sorted().joined(separator: ", "))). Nothing was adopted.",
                    entity: table.entity)
            }
            let used = Set(table.columns.values).union(table.identity.map { [$0] } ?? []).union(table.ignoredColumns)
            if let column = all.filter({ !used.contains($0) }).first {
                throw MoltError(
                    .invalidSchema,
                    "Column \(table.table).\(column) is not mapped to a property of '\(table.entity)', so adopting would leave its values behind. Nothing was adopted and the database was left as it was. Map it in the table's \"columns\", or list it in \"ignoredColumns\".",
                    entity: table.entity)
            }
        }
    }

    /// The SQL that reads one table: identity, each attribute, each to-one resolved to its destination's identity,
    /// and the raw to-one column (to tell a null link from a dangling one).
    private func select(_ table: SQLiteMapping.Table, _ entity: Entity, db: Database) throws -> String {
        let identity = table.identity.map { $0.quotedDatabaseIdentifier } ?? "rowid"
        var parts = ["s.\(identity)"]
        for attribute in entity.attributes {
            parts.append("s.\(table.columns[attribute.name]!.quotedDatabaseIdentifier)")
        }
        let keys = try db.foreignKeys(on: table.table)
        for relationship in entity.relationships where relationship.kind == .toOne {
            let column = table.columns[relationship.name]!
            let raw = "s.\(column.quotedDatabaseIdentifier)"
            guard let destination = mapping.tables.first(where: { $0.entity == relationship.destination }) else {
                parts += [raw, raw]
                continue
            }
            // The destination row the column references (its foreign key's column, or its identity), found by
            // the key: a dangling value finds none and is refused.
            let destinationIdentity = (destination.identity ?? "rowid").quotedDatabaseIdentifier
            let referenced =
                keys.first { $0.originColumns == [column] }?.destinationColumns.first?.quotedDatabaseIdentifier
                ?? destinationIdentity
            parts += [
                "(SELECT d.\(destinationIdentity) FROM \(destination.table.quotedDatabaseIdentifier) d WHERE d.\(referenced) = \(raw))",
                raw,
            ]
        }
        return
            "SELECT \(parts.joined(separator: ", ")) FROM \(table.table.quotedDatabaseIdentifier) s ORDER BY s.\(identity)"
    }

    /// Copies every table; returns each entity's digest of what was read.
    func copy(into importer: ObjectImporter) throws -> [String: AdoptionDigest] {
        var digests: [String: AdoptionDigest] = [:]
        try queue.read { db in
            for table in mapping.tables {
                guard let entity = schema.entity(named: table.entity) else { continue }
                var digest = AdoptionDigest()
                // Filled from their to-one inverses by the importer: not read here, left out of both digests.
                let toMany = Self.filledFromInverse(entity, in: schema)
                let rows = try Row.fetchCursor(db, sql: try select(table, entity, db: db))
                var walks = try Self.joined(entity, in: schema).map { relationship in
                    try PairWalk(
                        db, sql: try joinSelect(table, relationship, db: db), relationship: relationship.name,
                        invalid: { row in Self.dangling(row, relationship.name) })
                }
                while let row = try rows.next() {
                    var (id, values, links) = try read(row, table, entity)
                    for index in walks.indices {
                        let targets = try walks[index].targets(of: id)
                        if !targets.isEmpty { links[walks[index].relationship] = targets }
                    }
                    digest.add(id: id, values: values, links: links, of: entity, skipping: toMany)
                    try importer.insert(entity, fileID: id, values: values, links: links)
                }
                digests[entity.name] = digest
            }
        }
        return digests
    }

    private func read(
        _ row: Row, _ table: SQLiteMapping.Table, _ entity: Entity
    ) throws -> (Int64, [String: Value], [String: [Int64]]) {
        guard case .int64(let id) = (row[0] as DatabaseValue).storage else {
            throw MoltError(
                .invalidValue,
                "A row of \(table.table) has no integer identity in \(table.identity ?? "rowid"). Nothing was adopted; map an integer primary key as the table's \"identity\".",
                entity: entity.name)
        }
        var values: [String: Value] = [:]
        for (index, attribute) in entity.attributes.enumerated() {
            let column = table.columns[attribute.name]!
            let value = try SQLiteDatabaseValues.value(
                in: row, at: index + 1, as: attribute, table: table.table, column: column, id: id)
            if value.isNull {
                guard attribute.isOptional else {
                    throw MoltError(
                        .invalidValue,
                        "\(table.table).\(column) of the row \(id) is NULL, but '\(entity.name).\(attribute.name)' is required. Nothing was adopted and the database was left as it was. Make the attribute optional in the schema the database is adopted at, or give the row a value first.",
                        entity: entity.name, property: attribute.name)
                }
                continue
            }
            values[attribute.name] = value
        }
        var links: [String: [Int64]] = [:]
        var index = entity.attributes.count + 1
        for relationship in entity.relationships where relationship.kind == .toOne {
            let resolved = row[index] as DatabaseValue
            let raw = row[index + 1] as DatabaseValue
            index += 2
            if case .int64(let target) = resolved.storage {
                links[relationship.name] = [target]
            } else if !raw.isNull {
                throw MoltError(
                    .constraintViolation,
                    "\(table.table).\(table.columns[relationship.name]!) of the row \(id) holds \(raw), which no row of '\(relationship.destination)' has: a dangling link. Nothing was adopted and the database was left as it was. Fix or clear the link first.",
                    entity: entity.name, property: relationship.name)
            }
        }
        return (id, values, links)
    }

    /// The to-many relationships held by their to-one inverse's column.
    static func filledFromInverse(_ entity: Entity, in schema: Schema) -> [String] {
        let joined = Set(joined(entity, in: schema).map(\.name))
        return entity.relationships.filter { $0.kind == .toMany && !joined.contains($0.name) }.map(\.name)
    }

    /// The SQL that reads a join table: owner and destination resolved to their identities (through the keys the
    /// columns reference), then both raw, ordered by owner.
    private func joinSelect(_ table: SQLiteMapping.Table, _ relationship: Relationship, db: Database) throws -> String {
        let join = table.joins[relationship.name]!
        let destination = mapping.tables.first { $0.entity == relationship.destination }!
        let keys = try db.foreignKeys(on: join.table)
        func resolve(_ column: String, in target: SQLiteMapping.Table) -> String {
            let identity = (target.identity ?? "rowid").quotedDatabaseIdentifier
            let referenced =
                keys.first { $0.originColumns == [column] }?.destinationColumns.first?.quotedDatabaseIdentifier
                ?? identity
            return
                "(SELECT t.\(identity) FROM \(target.table.quotedDatabaseIdentifier) t WHERE t.\(referenced) = j.\(column.quotedDatabaseIdentifier))"
        }
        let owner = resolve(join.owner, in: table), target = resolve(join.destination, in: destination)
        return
            "SELECT \(owner), \(target), j.\(join.owner.quotedDatabaseIdentifier), j.\(join.destination.quotedDatabaseIdentifier) FROM \(join.table.quotedDatabaseIdentifier) j ORDER BY 1, j.rowid"
    }

    /// The largest identifier each table handed out (AUTOINCREMENT's `sqlite_sequence`, or its largest row).
    func identifierMarks() throws -> [String: Int64] {
        try queue.read { db in
            var marks: [String: Int64] = [:]
            for table in mapping.tables {
                let sequence =
                    tableNames.contains("sqlite_sequence")
                    ? try Int64.fetchOne(
                        db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [table.table])
                    : nil
                let largest = try Int64.fetchOne(
                    db,
                    sql:
                        "SELECT MAX(\(table.identity?.quotedDatabaseIdentifier ?? "rowid")) FROM \(table.table.quotedDatabaseIdentifier)"
                )
                marks[table.entity] = max(sequence ?? 0, largest ?? 0)
            }
            return marks
        }
    }

    /// The refusal of a join table row whose owner or destination key finds no row.
    private static func dangling(_ row: Row, _ relationship: String) -> MoltError {
        MoltError(
            .constraintViolation,
            "A row of the join table of '\(relationship)' links \(row[2] as DatabaseValue) to \(row[3] as DatabaseValue), and one of them is no row: a dangling link. Nothing was adopted and the database was left as it was. Delete the row first.",
            property: relationship)
    }
}
