/// A change of a store's tables, as meant: each engine renders its own DDL from it (``SchemaDDL/sql(for:)``
/// for the defaults), with the links of a new table or column known as links rather than read back from SQL.
///
/// ```swift
/// try db.change(.createTable(SchemaDDL(dialect: db.dialect).table(for: entity)))
/// try db.change(.renameTable("_molt_new_Book", to: "Book"))
/// ```
package enum SQLSchemaChange: Hashable, Sendable {
    /// Creates a table with its columns and links.
    case createTable(SQLTableDefinition)
    /// Drops a table, and the links other tables hold to it (SQLite leaves them dangling until those tables are
    /// dropped or rebuilt in the same transaction; PostgreSQL drops the constraints).
    case dropTable(String, ifExists: Bool = false)
    /// Renames a table.
    case renameTable(String, to: String)
    /// Adds a column (maybe a link) after the others of `table`.
    case addColumn(SQLColumnDefinition, to: String)
    /// Creates an index named `name` on `columns` of `table`.
    case createIndex(name: String, table: String, columns: [String], isUnique: Bool)

    /// What the change does, for the engine.
    package var kind: SQLStatementKind {
        switch self {
        case .createTable, .createIndex: return .create
        case .dropTable, .renameTable, .addColumn: return .alter
        }
    }
}

/// A table to create: its columns in order, and a composite primary key when no column is the identifier.
package struct SQLTableDefinition: Hashable, Sendable {
    /// The unquoted name.
    package var name: String
    /// Whether the table lives for the session only (`CREATE TEMP TABLE`).
    package var isTemporary: Bool
    package var columns: [SQLColumnDefinition]
    /// The columns of a composite primary key (join tables); empty when the identifier column is the key.
    package var primaryKey: [String]

    package init(name: String, isTemporary: Bool = false, columns: [SQLColumnDefinition], primaryKey: [String] = []) {
        self.name = name
        self.isTemporary = isTemporary
        self.columns = columns
        self.primaryKey = primaryKey
    }
}

/// A column to create, and the table it links to when it is a link.
package struct SQLColumnDefinition: Hashable, Sendable {
    /// What a column stores.
    package enum Content: Hashable, Sendable {
        /// Values of an attribute type.
        case value(AttributeType)
        /// The `_id` primary key the engine numbers.
        case identifier
        /// The insertion order of a join table's rows, for engines that keep none (``SQLDialect/insertionOrderColumn``).
        case insertionOrder
    }

    /// A column's link to another table's `_id`.
    package struct Link: Hashable, Sendable {
        /// The unquoted table it points to.
        package var table: String
        package var onDelete: SQLReferenceAction

        package init(table: String, onDelete: SQLReferenceAction) {
            self.table = table
            self.onDelete = onDelete
        }
    }

    /// The unquoted name.
    package var name: String
    package var content: Content
    package var isOptional: Bool
    package var link: Link?
    /// The value of the rows that exist when the column is added.
    package var defaultValue: Value?

    package init(name: String, content: Content, isOptional: Bool = true, link: Link? = nil, defaultValue: Value? = nil)
    {
        self.name = name
        self.content = content
        self.isOptional = isOptional
        self.link = link
        self.defaultValue = defaultValue
    }
}
