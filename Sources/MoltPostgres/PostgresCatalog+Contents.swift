import Molt

extension PostgresCatalog {
    /// What validation reads of a namespace: its application tables' shapes and every reference.
    struct Contents {
        var shapes: [String: SQLTableShape]
        var references: [Reference]
    }

    /// The namespace's tables, references and indexes from **one** catalog query of plain columns.
    ///
    /// A migration's validation runs on a session whose catalog caches are cold: three queries with scalar
    /// subqueries per column (`pg_type`, `pg_collation`, `pg_constraint`) cost ~8 ms there, this one ~5 ms and
    /// one round trip. Names, collations and keys are joined here, by oid. The rare case it cannot settle
    /// alone (a reference to a table of another namespace, a collation other than `default`, `C` and `POSIX`)
    /// reads what it lacks with a query of its own.
    func contents() throws -> Contents {
        let rows = try connection.rows(
            """
            SELECT 'a', c.oid::int8, c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod),
                   a.attnum::int8, a.atttypid::int8, a.attcollation::int8,
                   (a.attidentity <> '')::int::int8 + 2 * a.attnotnull::int::int8, c.relkind::text
            FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
            WHERE c.relnamespace = \(Self.namespaceOID) AND c.relkind IN ('r', 'i') AND a.attnum > 0 AND NOT a.attisdropped
            UNION ALL
            SELECT 'k', k.conrelid::int8, k.contype::text, array_to_string(k.conkey, ' '), array_to_string(k.confkey, ' '),
                   k.confrelid::int8, k.conindid::int8, NULL, NULL, NULL
            FROM pg_constraint k WHERE k.connamespace = \(Self.namespaceOID)
            UNION ALL
            SELECT 'x', x.indrelid::int8, NULL, x.indkey::text, NULL, x.indexrelid::int8, x.indisunique::int::int8, NULL, NULL, NULL
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE i.relnamespace = \(Self.namespaceOID)
            """, Array(repeating: .string(namespace), count: 3),
            types: [.string, .int, .string, .string, .string, .int, .int, .int, .int, .string])
        var raw = RawCatalog()
        for row in rows { raw.add(row) }
        let collations = try collationNames(raw.unknownCollations)
        let references = try raw.references() ?? self.references()
        return Contents(shapes: raw.shapes(references: references, collations: collations), references: references)
    }

    /// The quoted names of collations other than the three every server has.
    private func collationNames(_ oids: Set<Int64>) throws -> [Int64: String] {
        var names: [Int64: String] = [
            RawCatalog.defaultCollation: #""default""#, RawCatalog.cCollation: #""C""#, 951: #""POSIX""#,
        ]
        let missing = oids.subtracting(names.keys)
        guard !missing.isEmpty else { return names }
        let list = missing.sorted().map(String.init).joined(separator: ", ")
        for row in try connection.rows(
            "SELECT oid::int8, quote_ident(collname) FROM pg_collation WHERE oid IN (\(list))", types: [.int, .string])
        {
            if case .int(let oid) = row[0], case .string(let name) = row[1] { names[oid] = name }
        }
        return names
    }
}

/// The rows of ``PostgresCatalog/contents()``, by oid, and what they say once joined.
private struct RawCatalog {
    struct Column {
        var name: String
        var type: String
        var typeID: Int64
        var collation: Int64
        var isIdentity: Bool
        var isNotNull: Bool
    }

    struct Relation {
        var name: String
        var isTable: Bool
        var columns: [Int64: Column] = [:]
    }

    struct Constraint {
        var kind: String
        var table: Int64
        var key: [Int64]
        var parent: Int64
        var parentKey: [Int64]
        var index: Int64
    }

    struct IndexRow {
        var table: Int64
        var index: Int64
        var key: [Int64]
        var isUnique: Bool
    }

    var relations: [Int64: Relation] = [:]
    var constraints: [Constraint] = []
    var indexes: [IndexRow] = []

    mutating func add(_ row: [Value]) {
        func int(_ i: Int) -> Int64 { if case .int(let v) = row[i] { return v } else { return 0 } }
        func keys(_ i: Int) -> [Int64] { (row[i].string ?? "").split(separator: " ").compactMap { Int64($0) } }
        switch row[0].string {
        case "a":
            let oid = int(1)
            if relations[oid] == nil {
                relations[oid] = Relation(name: row[2].string ?? "", isTable: row[9].string == "r")
            }
            relations[oid]!.columns[int(5)] = Column(
                name: row[3].string ?? "", type: row[4].string ?? "", typeID: int(6), collation: int(7),
                isIdentity: int(8) & 1 != 0, isNotNull: int(8) & 2 != 0)
        case "k":
            constraints.append(
                Constraint(
                    kind: row[2].string ?? "", table: int(1), key: keys(3), parent: int(5), parentKey: keys(4),
                    index: int(6)))
        default:
            indexes.append(IndexRow(table: int(1), index: int(5), key: keys(3), isUnique: int(6) != 0))
        }
    }

    /// The oids of the database's default collation and of `C`, the same on every server.
    static let (defaultCollation, cCollation): (Int64, Int64) = (100, 950)
    /// The oid of the type `name`, the one built-in collatable type whose collation is `C`.
    private static let nameType: Int64 = 19

    /// The collation a column of type `typeID` has unless told otherwise: `C` for `name`, the database's for text.
    private static func typeCollation(_ typeID: Int64) -> Int64 { typeID == nameType ? cCollation : defaultCollation }

    /// Collations columns name that are not their type's, to be named.
    var unknownCollations: Set<Int64> {
        Set(
            relations.values.flatMap(\.columns.values).compactMap { column in
                column.collation == 0 || column.collation == Self.typeCollation(column.typeID) ? nil : column.collation
            })
    }

    private func columnName(_ table: Int64, _ number: Int64?) -> String? {
        number.flatMap { relations[table]?.columns[$0]?.name }
    }

    /// Every reference (single-column foreign key), ordered by table and column; nil when one points outside the
    /// namespace, whose names these rows do not hold.
    func references() -> [PostgresCatalog.Reference]? {
        var result: [PostgresCatalog.Reference] = []
        for constraint in constraints where constraint.kind == "f" {
            guard let table = relations[constraint.table], let parent = relations[constraint.parent],
                let column = columnName(constraint.table, constraint.key.first),
                let parentColumn = columnName(constraint.parent, constraint.parentKey.first)
            else { return nil }
            result.append(
                PostgresCatalog.Reference(
                    table: table.name, column: column, parent: parent.name, parentColumn: parentColumn,
                    tableHasID: table.columns.values.contains { $0.name == StoreLayout.idColumn }))
        }
        return result.sorted { ($0.table, $0.column) < ($1.table, $1.column) }
    }

    /// The application's tables (not Molt's own): columns in order, with the same text as the catalog query of
    /// ``PostgresExpectedShapes`` compares; references; indexes other than the primary key.
    func shapes(references: [PostgresCatalog.Reference], collations: [Int64: String]) -> [String: SQLTableShape] {
        var result: [String: SQLTableShape] = [:]
        var names: [Int64: String] = [:]
        for (oid, relation) in relations where relation.isTable && !relation.name.hasPrefix("_molt_") {
            names[oid] = relation.name
            let primaryKey = constraints.first { $0.kind == "p" && $0.table == oid && $0.key.count == 1 }?.key.first
            var shape = SQLTableShape(columns: [:], references: [], indexes: [], order: [])
            for (number, column) in relation.columns.sorted(by: { $0.key < $1.key }) {
                var type = column.type
                if column.collation != 0, column.collation != Self.typeCollation(column.typeID) {
                    type += " COLLATE \(collations[column.collation] ?? String(column.collation))"
                }
                if column.isIdentity { type += " IDENTITY" }
                if number == primaryKey { type += " PRIMARY KEY" } else if column.isNotNull { type += " NOT NULL" }
                shape.append(column.name, type)
            }
            result[relation.name] = shape
        }
        for reference in references where result[reference.table] != nil {
            result[reference.table]!.references.insert(
                "\(reference.column) → \(reference.parent)(\(reference.parentColumn))")
        }
        let backing = Set(constraints.map(\.index))
        for index in indexes {
            guard let table = names[index.table] else { continue }
            let columns = index.key.filter { $0 != 0 }.compactMap { columnName(index.table, $0) }
            // The primary key's own index is not shown; every other index is, by its columns.
            if columns == [StoreLayout.idColumn], index.isUnique, backing.contains(index.index) { continue }
            result[table]!.indexes.insert("\(index.isUnique ? "unique" : "index")(\(columns.joined(separator: ", ")))")
        }
        return result
    }
}
