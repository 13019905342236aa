/// The tables, join tables and indexes of a schema as ``SQLSchemaChange``s, following ``StoreLayout``'s naming
/// rules, and their DDL in an engine's dialect.
package struct SchemaDDL: Sendable {
    package let dialect: any SQLDialect

    package init(dialect: any SQLDialect) { self.dialect = dialect }

    private func quote(_ name: String) -> String { dialect.quote(name) }

    // MARK: - What to create

    /// The column of an attribute.
    package func column(_ attribute: Attribute, named column: String? = nil) -> SQLColumnDefinition {
        SQLColumnDefinition(
            name: column ?? attribute.name, content: .value(attribute.type), isOptional: attribute.isOptional)
    }

    /// The column of a to-one relationship: a link to its destination's table (`destinationTable`, the
    /// destination's name unless rebuilding).
    package func column(
        _ relationship: Relationship, named column: String? = nil, destinationTable: String? = nil
    ) -> SQLColumnDefinition {
        SQLColumnDefinition(
            name: column ?? relationship.name, content: .value(.int),
            link: .init(table: destinationTable ?? relationship.destination, onDelete: .setNull))
    }

    /// An entity's own table, under `tableName` (the entity's name unless rebuilding); `tables` maps the
    /// entities its to-one relationships point to onto their tables.
    package func table(
        for entity: Entity, named tableName: String? = nil, temporary: Bool = false, tables: (String) -> String = { $0 }
    ) -> SQLTableDefinition {
        var columns = [SQLColumnDefinition(name: StoreLayout.idColumn, content: .identifier, isOptional: false)]
        columns += entity.attributes.map { column($0) }
        columns += entity.relationships.filter { $0.kind == .toOne }.map {
            column($0, destinationTable: tables($0.destination))
        }
        return SQLTableDefinition(name: tableName ?? entity.name, isTemporary: temporary, columns: columns)
    }

    /// A to-many relationship's join table and the index of its targets.
    package func joinTable(
        entity: String, _ relationship: Relationship, named tableName: String? = nil,
        tables: (String) -> String = { $0 }
    ) -> [SQLSchemaChange] {
        let table = tableName ?? StoreLayout.joinTableName(entity: entity, relationship: relationship.name)
        func link(_ name: String, to entity: String) -> SQLColumnDefinition {
            SQLColumnDefinition(
                name: name, content: .value(.int), isOptional: false,
                link: .init(table: tables(entity), onDelete: .cascade))
        }
        var columns = [
            link(StoreLayout.ownerColumn, to: entity), link(StoreLayout.targetColumn, to: relationship.destination),
        ]
        if relationship.isOrdered { columns.append(Self.positionColumn) }
        if dialect.insertionOrderColumn != nil {
            columns.append(SQLColumnDefinition(name: "", content: .insertionOrder))
        }
        let definition = SQLTableDefinition(
            name: table, columns: columns, primaryKey: [StoreLayout.ownerColumn, StoreLayout.targetColumn])
        return [
            .createTable(definition),
            .createIndex(
                name: fitted(table + "_target"), table: table, columns: [StoreLayout.targetColumn], isUnique: false),
        ]
    }

    /// The position column of an ordered relationship's join table.
    package static let positionColumn = SQLColumnDefinition(
        name: StoreLayout.positionColumn, content: .value(.int), isOptional: false, defaultValue: .int(0))

    /// The name Molt gives a new index.
    package static func indexName(table: String, _ index: Index) -> String {
        "\(table)_\(index.attributes.joined(separator: "_"))_\(index.isUnique ? "unique" : "index")"
    }

    /// An index of the schema on a table.
    package func index(table: String, _ index: Index, named name: String? = nil) -> SQLSchemaChange {
        .createIndex(
            name: name ?? fitted(Self.indexName(table: table, index)), table: table, columns: index.attributes,
            isUnique: index.isUnique)
    }

    /// Every change that creates the schema in an empty database.
    package func createChanges(_ schema: Schema) -> [SQLSchemaChange] {
        createChangesByTable(schema).flatMap { $0 }
    }

    /// The changes of ``createChanges(_:)`` grouped by the table they create: each group is a table and its
    /// indexes, entity tables first, then join tables. A group needs no other group (a link to a table that
    /// does not exist yet is only checked when a row is written), so groups can be created in separate databases.
    package func createChangesByTable(_ schema: Schema) -> [[SQLSchemaChange]] {
        var groups: [[SQLSchemaChange]] = []
        let schema = schema.storageSchema
        for entity in schema.entities {
            groups.append(
                [.createTable(table(for: entity))] + entity.storedIndexes.map { index(table: entity.name, $0) })
        }
        for entity in schema.entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                groups.append(joinTable(entity: entity.name, relationship))
            }
        }
        return groups
    }

    // MARK: - Rendering

    /// The statement of a change in the dialect, every link included.
    package func sql(for change: SQLSchemaChange) -> String {
        switch change {
        case .createTable(let table): return sql(for: table)
        case .dropTable(let table, let ifExists): return "DROP TABLE \(ifExists ? "IF EXISTS " : "")\(quote(table))"
        case .renameTable(let from, let to): return "ALTER TABLE \(quote(from)) RENAME TO \(quote(to))"
        case .addColumn(let column, let table): return "ALTER TABLE \(quote(table)) ADD COLUMN \(sql(for: column))"
        case .createIndex(let name, let table, let columns, let isUnique):
            return
                "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(quote(name)) ON \(quote(table))(\(columns.map(quote).joined(separator: ", ")))"
        }
    }

    /// `CREATE TABLE`, without the links of the columns in `withheld` (an engine that adds them later).
    package func sql(for table: SQLTableDefinition, withholding withheld: Set<String> = []) -> String {
        var columns = table.columns.map { sql(for: $0, withLink: !withheld.contains($0.name)) }
        if !table.primaryKey.isEmpty {
            columns.append("PRIMARY KEY (\(table.primaryKey.map(quote).joined(separator: ", ")))")
        }
        return
            "CREATE \(table.isTemporary ? "TEMP " : "")TABLE \(quote(table.name)) (\(columns.joined(separator: ", ")))"
    }

    /// A column's definition: name, type, constraints, default and (unless `withLink` is false) its link.
    package func sql(for column: SQLColumnDefinition, withLink: Bool = true) -> String {
        switch column.content {
        case .identifier: return dialect.identifierColumn(column.name)
        case .insertionOrder: return dialect.insertionOrderColumn ?? ""
        case .value(let type):
            var sql = "\(quote(column.name)) \(dialect.columnType(type))"
            if !column.isOptional { sql += " NOT NULL" }
            if let value = column.defaultValue { sql += " DEFAULT \(dialect.literal(value))" }
            if withLink, let link = column.link {
                sql += " " + dialect.reference(table: link.table, column: StoreLayout.idColumn, onDelete: link.onDelete)
            }
            return sql
        }
    }
}
