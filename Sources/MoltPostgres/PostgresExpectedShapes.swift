import Molt

/// The shapes PostgreSQL's catalog shows (``PostgresCatalog/shapes()``) for the tables ``SchemaDDL`` creates for a
/// schema, worked out without creating them.
///
/// Validation compares a migrated store with these. Creating the tables in a scratch namespace and reading
/// them back costs ~2 ms a table (catalog writes, files, their removal), needs the right to create a
/// namespace in the database, and grows with the schema; this is the same answer for nothing. It must stay
/// the catalog's answer: `PostgresExpectedShapesTests` compares the two for schemas of every attribute type,
/// optionality, relationship kind, ordering and index, on a live server.
enum PostgresExpectedShapes {
    static func shapes(of schema: Schema) -> [String: SQLTableShape] {
        var result: [String: SQLTableShape] = [:]
        for entity in schema.storageSchema.entities {
            result[entity.name] = table(of: entity)
            for relationship in entity.relationships where relationship.kind == .toMany {
                result[StoreLayout.joinTableName(entity: entity.name, relationship: relationship.name)] =
                    joinTable(of: entity, relationship)
            }
        }
        return result
    }

    /// An entity's table: `_id`, the attributes, the to-one relationships; its declared indexes.
    private static func table(of entity: Entity) -> SQLTableShape {
        let dialect = PostgresDialect.shared
        var shape = SQLTableShape(columns: [:], references: [], indexes: [], order: [])
        shape.append(StoreLayout.idColumn, "\(dialect.columnType(.int)) IDENTITY PRIMARY KEY")
        for attribute in entity.attributes {
            shape.append(attribute.name, dialect.columnType(attribute.type) + (attribute.isOptional ? "" : " NOT NULL"))
        }
        for relationship in entity.relationships where relationship.kind == .toOne {
            shape.append(relationship.name, dialect.columnType(.int))
            shape.references.insert("\(relationship.name) → \(relationship.destination)(\(StoreLayout.idColumn))")
        }
        shape.indexes = Set(entity.storedIndexes.map { index(unique: $0.isUnique, $0.attributes) })
        return shape
    }

    /// A to-many relationship's join table: owner and target (its primary key, target indexed), the position
    /// of an ordered one, and the insertion order.
    private static func joinTable(of entity: Entity, _ relationship: Relationship) -> SQLTableShape {
        let integer = PostgresDialect.shared.columnType(.int)
        var shape = SQLTableShape(columns: [:], references: [], indexes: [], order: [])
        shape.append(StoreLayout.ownerColumn, "\(integer) NOT NULL")
        shape.append(StoreLayout.targetColumn, "\(integer) NOT NULL")
        if relationship.isOrdered { shape.append(StoreLayout.positionColumn, "\(integer) NOT NULL") }
        shape.append(PostgresDialect.insertionOrderName, "\(integer) IDENTITY NOT NULL")
        shape.references = [
            "\(StoreLayout.ownerColumn) → \(entity.name)(\(StoreLayout.idColumn))",
            "\(StoreLayout.targetColumn) → \(relationship.destination)(\(StoreLayout.idColumn))",
        ]
        shape.indexes = [
            index(unique: true, [StoreLayout.ownerColumn, StoreLayout.targetColumn]),
            index(unique: false, [StoreLayout.targetColumn]),
        ]
        return shape
    }

    private static func index(unique: Bool, _ columns: [String]) -> String {
        "\(unique ? "unique" : "index")(\(columns.joined(separator: ", ")))"
    }
}
