/// The statements that create a schema's tables, join tables and indexes, in an engine's dialect, following
/// ``StoreLayout``'s naming rules.
package struct SchemaDDL: Sendable {
    package let dialect: any SQLDialect

    package init(dialect: any SQLDialect) { self.dialect = dialect }

    private func quote(_ name: String) -> String { dialect.quote(name) }

    /// The column definition of an attribute.
    package func columnDefinition(_ attribute: Attribute, named column: String? = nil) -> String {
        var sql = "\(quote(column ?? attribute.name)) \(dialect.columnType(attribute.type))"
        if !attribute.isOptional { sql += " NOT NULL" }
        return sql
    }

    /// The column definition of a to-one relationship.
    package func columnDefinition(_ relationship: Relationship, named column: String? = nil, destinationTable: String? = nil) -> String {
        let reference = dialect.reference(table: destinationTable ?? relationship.destination, column: StoreLayout.idColumn, onDelete: .setNull)
        return "\(quote(column ?? relationship.name)) \(dialect.columnType(.int)) \(reference)"
    }

    /// `CREATE TABLE` for an entity's own table, under `tableName` (the entity's name unless rebuilding);
    /// `tables` maps the entities its to-one relationships point to onto their tables.
    package func createTable(
        _ entity: Entity, named tableName: String? = nil, temporary: Bool = false, tables: (String) -> String = { $0 }
    ) -> String {
        var columns = [dialect.identifierColumn(StoreLayout.idColumn)]
        columns += entity.attributes.map { columnDefinition($0) }
        columns += entity.relationships.filter { $0.kind == .toOne }.map { columnDefinition($0, destinationTable: tables($0.destination)) }
        return "CREATE \(temporary ? "TEMP " : "")TABLE \(quote(tableName ?? entity.name)) (\(columns.joined(separator: ", ")))"
    }

    /// The statements that create a to-many relationship's join table and its index.
    package func createJoinTable(
        entity: String, _ relationship: Relationship, named tableName: String? = nil, tables: (String) -> String = { $0 }
    ) -> [String] {
        let table = tableName ?? StoreLayout.joinTableName(entity: entity, relationship: relationship.name)
        let integer = dialect.columnType(.int)
        var columns = [
            "\(quote(StoreLayout.ownerColumn)) \(integer) NOT NULL \(dialect.reference(table: tables(entity), column: StoreLayout.idColumn, onDelete: .cascade))",
            "\(quote(StoreLayout.targetColumn)) \(integer) NOT NULL \(dialect.reference(table: tables(relationship.destination), column: StoreLayout.idColumn, onDelete: .cascade))",
        ]
        if relationship.isOrdered { columns.append("\(quote(StoreLayout.positionColumn)) \(integer) NOT NULL DEFAULT 0") }
        if let order = dialect.insertionOrderColumn { columns.append(order) }
        columns.append("PRIMARY KEY (\(quote(StoreLayout.ownerColumn)), \(quote(StoreLayout.targetColumn)))")
        return [
            "CREATE TABLE \(quote(table)) (\(columns.joined(separator: ", ")))",
            "CREATE INDEX \(quote(fitted(table + "_target"))) ON \(quote(table))(\(quote(StoreLayout.targetColumn)))",
        ]
    }

    /// The name Molt gives a new index.
    package static func indexName(table: String, _ index: Index) -> String {
        "\(table)_\(index.attributes.joined(separator: "_"))_\(index.isUnique ? "unique" : "index")"
    }

    /// `CREATE [UNIQUE] INDEX` on a table.
    package func createIndex(table: String, _ index: Index, named name: String? = nil) -> String {
        let columns = index.attributes.map(quote).joined(separator: ", ")
        return "CREATE \(index.isUnique ? "UNIQUE " : "")INDEX \(quote(name ?? fitted(Self.indexName(table: table, index)))) ON \(quote(table))(\(columns))"
    }

    /// Every statement that creates the schema in an empty database.
    package func createStatements(_ schema: Schema) -> [String] {
        createStatementsByTable(schema).flatMap { $0 }
    }

    /// The statements of ``createStatements(_:)`` grouped by the table they create: each group is a table and its
    /// indexes, entity tables first, then join tables. A group needs no other group (a reference to a table that
    /// does not exist yet is only checked when a row is written), so groups can be created in separate databases.
    package func createStatementsByTable(_ schema: Schema) -> [[String]] {
        var groups: [[String]] = []
        for entity in schema.entities {
            groups.append([createTable(entity)] + entity.storedIndexes.map { createIndex(table: entity.name, $0) })
        }
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                groups.append(createJoinTable(entity: entity.name, relationship))
            }
        }
        return groups
    }
}
