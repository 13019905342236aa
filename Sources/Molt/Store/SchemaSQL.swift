import Foundation

/// How a schema is laid out in SQLite: one table per entity with an `_id INTEGER PRIMARY KEY`, one column per
/// attribute and per to-one relationship, and one join table per to-many relationship.
enum SchemaSQL {
    static let idColumn = "_id"
    static let ownerColumn = "owner"
    static let targetColumn = "target"
    static let positionColumn = "position"

    /// The join table that stores a to-many relationship.
    static func joinTableName(entity: String, relationship: String) -> String { "\(entity)_\(relationship)" }

    static func quote(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The column definition of an attribute.
    static func columnDefinition(_ attribute: Attribute) -> String {
        var sql = "\(quote(attribute.name)) \(attribute.type.sqlType)"
        if !attribute.isOptional { sql += " NOT NULL" }
        return sql
    }

    /// The column definition of a to-one relationship.
    static func columnDefinition(_ relationship: Relationship, named column: String? = nil, destinationTable: String? = nil) -> String {
        "\(quote(column ?? relationship.name)) INTEGER REFERENCES \(quote(destinationTable ?? relationship.destination))(\(quote(idColumn))) ON DELETE SET NULL"
    }

    /// `CREATE TABLE` for an entity's own table, under `tableName` (the entity's name unless rebuilding).
    static func createTable(_ entity: Entity, named tableName: String? = nil, tables: (String) -> String = { $0 }) -> String {
        var columns = ["\(quote(idColumn)) INTEGER PRIMARY KEY"]
        columns += entity.attributes.map(columnDefinition)
        columns += entity.relationships.filter { $0.kind == .toOne }.map { columnDefinition($0, destinationTable: tables($0.destination)) }
        return "CREATE TABLE \(quote(tableName ?? entity.name)) (\(columns.joined(separator: ", ")))"
    }

    /// The statements that create a to-many relationship's join table and its index.
    static func createJoinTable(
        entity: String, _ relationship: Relationship, named tableName: String? = nil, tables: (String) -> String = { $0 }
    ) -> [String] {
        let table = tableName ?? joinTableName(entity: entity, relationship: relationship.name)
        var columns = [
            "\(quote(ownerColumn)) INTEGER NOT NULL REFERENCES \(quote(tables(entity)))(\(quote(idColumn))) ON DELETE CASCADE",
            "\(quote(targetColumn)) INTEGER NOT NULL REFERENCES \(quote(tables(relationship.destination)))(\(quote(idColumn))) ON DELETE CASCADE",
        ]
        if relationship.isOrdered { columns.append("\(quote(positionColumn)) INTEGER NOT NULL DEFAULT 0") }
        columns.append("PRIMARY KEY (\(quote(ownerColumn)), \(quote(targetColumn)))")
        return [
            "CREATE TABLE \(quote(table)) (\(columns.joined(separator: ", ")))",
            "CREATE INDEX \(quote(table + "_target")) ON \(quote(table))(\(quote(targetColumn)))",
        ]
    }

    /// The indexes an entity's table must have: its declared indexes and a unique one for its primary key.
    static func indexes(of entity: Entity) -> [Index] {
        var result = entity.indexes
        if let key = entity.primaryKey, !result.contains(where: { $0.attributes == [key] && $0.isUnique }) {
            result.removeAll { $0.attributes == [key] }
            result.append(Index([key], unique: true))
        }
        return result
    }

    /// The name Molt gives a new index.
    static func indexName(table: String, _ index: Index) -> String {
        "\(table)_\(index.attributes.joined(separator: "_"))_\(index.isUnique ? "unique" : "index")"
    }

    static func createIndex(table: String, _ index: Index, named name: String? = nil) -> String {
        let columns = index.attributes.map(quote).joined(separator: ", ")
        return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(quote(name ?? indexName(table: table, index))) ON \(quote(table))(\(columns))"
    }

    /// Every statement that creates the schema in an empty database.
    static func createStatements(_ schema: Schema) -> [String] {
        var statements: [String] = []
        for entity in schema.entities {
            statements.append(createTable(entity))
            for index in indexes(of: entity) { statements.append(createIndex(table: entity.name, index)) }
        }
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                statements += createJoinTable(entity: entity.name, relationship)
            }
        }
        return statements
    }

    /// Every table the schema owns: entity tables and join tables.
    static func tableNames(_ schema: Schema) -> [String] {
        schema.entities.flatMap { entity in
            [entity.name] + entity.relationships.filter { $0.kind == .toMany }.map { joinTableName(entity: entity.name, relationship: $0.name) }
        }
    }

    /// A SQL literal for a value of an attribute.
    static func literal(_ value: Value) -> String {
        switch value {
        case .null: return "NULL"
        case .string(let v): return "'" + v.replacingOccurrences(of: "'", with: "''") + "'"
        case .int(let v): return String(v)
        case .double(let v): return doubleLiteral(v)
        case .bool(let v): return v ? "1" : "0"
        case .date(let v): return doubleLiteral(v.timeIntervalSince1970)
        case .data(let v): return "X'" + v.map { String(format: "%02X", $0) }.joined() + "'"
        case .uuid(let v): return "'" + v.uuidString + "'"
        }
    }

    private static func doubleLiteral(_ v: Double) -> String {
        if v.isNaN { return "NULL" }
        if v.isInfinite { return v > 0 ? "9e999" : "-9e999" }
        let text = "\(v)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }
}
