import Foundation
import Molt

/// Which table of a GRDB, FMDB or plain SQLite database holds which entity, and which column which attribute or
/// to-one relationship: how ``SQLiteAdoption`` reads the database. In Swift or as a JSON file:
///
/// ```json
/// {
///   "tables": [
///     { "entity": "Team", "table": "team", "columns": { "code": "id", "name": "name", "color": "color" } },
///     { "entity": "Player", "table": "player", "identity": "id", "columns": { "name": "name", "team": "teamId" } }
///   ],
///   "ignoredTables": ["sqlite_sequence"]
/// }
/// ```
///
/// A table's rows keep their identities: `identity` names the integer primary key column (the table's `rowid`
/// when absent). A to-one column holds what its foreign key references: the destination's identity, or another
/// of its columns (a text key), which the adoption resolves to the destination object. What the mapping leaves
/// out is found by ``inferred(for:tables:)``: a table or column whose name is the entity's or property's (any
/// case, or in snake_case), a to-one in `team`, `teamId` or `team_id`.
public struct SQLiteMapping: Hashable, Sendable, Codable {
    /// A join table that holds a many-to-many relationship: one row per link, a column that references the
    /// owner and one that references the destination.
    public struct Join: Hashable, Sendable, Codable {
        public var table: String
        /// The column that references the object that owns the relationship.
        public var owner: String
        /// The column that references the destination.
        public var destination: String

        public init(table: String, owner: String, destination: String) {
            self.table = table
            self.owner = owner
            self.destination = destination
        }
    }

    /// One table read as one entity.
    public struct Table: Hashable, Sendable, Codable {
        /// The entity its rows become.
        public var entity: String
        /// The table.
        public var table: String
        /// The integer primary key column whose values become the objects' identifiers; nil for `rowid`.
        public var identity: String?
        /// The column of each attribute and to-one relationship, by property name.
        public var columns: [String: String]
        /// Columns deliberately left behind.
        public var ignoredColumns: [String]
        /// The join table of each to-many relationship whose inverse is not a to-one, by relationship name.
        public var joins: [String: Join]

        public init(
            entity: String, table: String, identity: String? = nil, columns: [String: String] = [:],
            ignoredColumns: [String] = [], joins: [String: Join] = [:]
        ) {
            self.entity = entity
            self.table = table
            self.identity = identity
            self.columns = columns
            self.ignoredColumns = ignoredColumns
            self.joins = joins
        }

        enum CodingKeys: String, CodingKey { case entity, table, identity, columns, ignoredColumns, joins }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            entity = try container.decode(String.self, forKey: .entity)
            table = try container.decode(String.self, forKey: .table)
            identity = try container.decodeIfPresent(String.self, forKey: .identity)
            columns = try container.decodeIfPresent([String: String].self, forKey: .columns) ?? [:]
            ignoredColumns = try container.decodeIfPresent([String].self, forKey: .ignoredColumns) ?? []
            joins = try container.decodeIfPresent([String: Join].self, forKey: .joins) ?? [:]
        }
    }

    /// The tables, one per entity (entities not listed are inferred by name).
    public var tables: [Table]
    /// Tables deliberately left behind (`sqlite_sequence` and GRDB's `grdb_migrations` always are).
    public var ignoredTables: [String]

    public init(tables: [Table] = [], ignoredTables: [String] = []) {
        self.tables = tables
        self.ignoredTables = ignoredTables
    }

    enum CodingKeys: String, CodingKey { case tables, ignoredTables }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tables = try container.decodeIfPresent([Table].self, forKey: .tables) ?? []
        ignoredTables = try container.decodeIfPresent([String].self, forKey: .ignoredTables) ?? []
    }

    /// Reads a mapping file.
    ///
    /// - Throws: `MoltError/Code/invalidSchema` naming what the file lacks.
    public init(json: Data) throws {
        do {
            self = try JSONDecoder().decode(SQLiteMapping.self, from: json)
        } catch {
            throw MoltError(
                .invalidSchema,
                "The mapping file is not a mapping of tables to entities (\(error)). It lists \"tables\", each with \"entity\", \"table\" and optionally \"identity\", \"columns\" and \"ignoredColumns\"."
            )
        }
    }

    /// This mapping completed for `schema` by name over `tables` (each table's columns): an entity it does not
    /// list gets the table of its name, a property it does not map the column of its name.
    ///
    /// - Throws: `MoltError/Code/invalidSchema` naming an entity or property without a table or column.
    public func inferred(for schema: Schema, tables: [String: [String]]) throws -> SQLiteMapping {
        var result = self
        for entity in schema.entities where !result.tables.contains(where: { $0.entity == entity.name }) {
            guard let table = Self.match(entity.name, plural: true, in: Array(tables.keys)) else {
                throw MoltError(
                    .invalidSchema,
                    "No table of the database holds entity '\(entity.name)' by name (its tables: \(tables.keys.sorted().joined(separator: ", "))). Nothing was adopted. Map it: SQLiteMapping.Table(entity: \"\(entity.name)\", table: …).",
                    entity: entity.name)
            }
            result.tables.append(Table(entity: entity.name, table: table))
        }
        for index in result.tables.indices {
            let table = result.tables[index]
            guard let entity = schema.entity(named: table.entity), let columns = tables[table.table] else { continue }
            let stored = entity.attributes.map(\.name) + entity.relationships.filter { $0.kind == .toOne }.map(\.name)
            for property in stored where table.columns[property] == nil {
                let isLink = entity.relationship(named: property) != nil
                let candidates = isLink ? [property, property + "Id", property + "_id", property + "ID"] : [property]
                let found = candidates.lazy.compactMap { Self.match($0, plural: false, in: columns) }.first
                guard let found else {
                    throw MoltError(
                        .invalidSchema,
                        "Table \(table.table) has no column for '\(entity.name).\(property)' by name (its columns: \(columns.joined(separator: ", "))). Nothing was adopted. Map it in the table's \"columns\".",
                        entity: entity.name, property: property)
                }
                result.tables[index].columns[property] = found
            }
        }
        return result
    }

    /// The name among `names` that is `name` in any case or in snake_case (and, for tables, plural).
    private static func match(_ name: String, plural: Bool, in names: [String]) -> String? {
        var forms = [name, snakeCase(name)]
        if plural { forms += forms.map { $0 + "s" } }
        let lowered = Set(forms.map { $0.lowercased() })
        return names.sorted().first { lowered.contains($0.lowercased()) }
    }

    private static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase, !result.isEmpty { result += "_" }
            result += character.lowercased()
        }
        return result
    }
}
