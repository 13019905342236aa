import Molt

/// Brings one table to its new shape in place, in PostgreSQL's terms: no table is ever rebuilt.
///
/// - Adding a column (with a constant default) and renaming one change the catalog only.
/// - A type change is one `ALTER COLUMN … TYPE … USING`, which rewrites the table once.
/// - An attribute made required is filled where null (only those rows are written), then `SET NOT NULL`.
/// - A column whose values come from a shared source (one old column feeding two new ones) is added and filled
///   with one `UPDATE`.
/// - Dropping a column changes the catalog only (its indexes and references go with it).
struct PostgresTableChange {
    let change: SQLTableChange
    let connection: PostgresStoreConnection
    /// The table's rows, counted once by the caller before the change (the rows a type change rewrites).
    let rowCount: Int

    private var q: (String) -> String { PostgresDialect.shared.quote }
    private var table: String { q(change.table) }

    /// A final column computed from exactly one origin column that nothing else reads: altered in place.
    private struct InPlace {
        var origin: String
        var final: String
        var source: SQLColumnSource
    }

    func apply() throws -> SQLTableChangeResult {
        let dialect = connection.dialect
        let finals = change.finalColumns(for: PostgresDialect.shared)
        var readers: [String: Int] = [:]
        for column in finals { for origin in Self.origins(of: column.source) { readers[origin, default: 0] += 1 } }
        var inPlace: [InPlace] = []
        var computed: [(name: String, source: SQLColumnSource)] = []
        for column in finals {
            let origins = Self.origins(of: column.source)
            if origins.count == 1, let origin = origins.first, readers[origin] == 1,
                change.originColumns.contains(origin)
            {
                inPlace.append(InPlace(origin: origin, final: column.name, source: column.source))
            } else {
                computed.append(column)
            }
        }
        // Before anything is written: a widening from int to double that the run did not find exact while counting,
        // under the lock of the change, so that no live write slips a value in between.
        if !change.exactDoubles.isEmpty { try connection.lockForChange(change.table) }
        for check in change.exactDoubles { try ExactDoubles.check(check, table: change.table, in: connection) }
        var written = 0
        var wroteLinks = false
        var present = Set(change.originColumns)
        // Columns computed from others are added and filled first, while every origin column has its old name.
        var pendingNames: [(temporary: String, final: String)] = []
        for column in computed {
            var name = column.name
            if present.contains(name) {
                name = freeName("_molt_add_\(column.name)", taken: present)
                pendingNames.append((name, column.name))
            }
            present.insert(name)
            if case .literal(let value) = column.source {
                try addColumn(column.name, as: name, default: value)
            } else {
                try addColumn(column.name, as: name, default: .null)
                written = max(
                    written,
                    try connection.execute(.update, "UPDATE \(table) SET \(q(name)) = \(column.source.sql(dialect))"))
                wroteLinks = wroteLinks || change.entity.relationship(named: column.name) != nil
            }
        }
        let kept = Set(inPlace.map(\.origin))
        for origin in change.originColumns where !kept.contains(origin) {
            try connection.execute(.alter, "ALTER TABLE \(table) DROP COLUMN \(q(origin))")
            present.remove(origin)
        }
        try rename(inPlace.map { ($0.origin, $0.final) } + pendingNames, present: &present)
        for column in inPlace {
            let (count, rewritten) = try convert(column)
            written = max(written, count)
            wroteLinks = wroteLinks || (rewritten && change.entity.relationship(named: column.final) != nil)
        }
        try syncConstraints(inPlace: inPlace, computed: computed)
        // Only the columns named above were written: every other value of each row, every other link, is as it was.
        return SQLTableChangeResult(rowsWritten: written, wroteLinks: wroteLinks)
    }

    /// Brings `NOT NULL` and the indexes to the entity's, reading the catalog (a few milliseconds a query) only
    /// where they may now differ.
    private func syncConstraints(inPlace: [InPlace], computed: [(name: String, source: SQLColumnSource)]) throws {
        if mayDifferInNullability(inPlace: inPlace, computed: computed) { try syncNullability() }
        if mayDifferInIndexes(inPlace: inPlace) {
            try connection.syncIndexes(of: change.entity, table: change.table, version: change.version)
        }
    }

    /// Whether a column's `NOT NULL` may differ from the entity: the table was laid out by a stage (its
    /// constraints unknown), a column kept in place changed optionality, or a required column was computed (added
    /// nullable, then filled). A column added with a constant gets its final definition at once.
    private func mayDifferInNullability(inPlace: [InPlace], computed: [(name: String, source: SQLColumnSource)]) -> Bool
    {
        guard let origin = change.origin else { return true }
        let changedInPlace = inPlace.contains { column in
            guard let before = origin.attribute(named: column.origin),
                let after = change.entity.attribute(named: column.final)
            else { return false }
            return before.isOptional != after.isOptional
        }
        let filledRequired = computed.contains { column in
            if case .literal = column.source { return false }
            return change.entity.attribute(named: column.name)?.isOptional == false
        }
        return changedInPlace || filledRequired
    }

    /// Whether the table's indexes may differ from the entity's: the table was laid out by a stage, an index
    /// went with a dropped column, or the declared indexes (through renames, which indexes follow) changed.
    private func mayDifferInIndexes(inPlace: [InPlace]) -> Bool {
        guard let origin = change.origin else { return true }
        let renamed = Dictionary(inPlace.map { ($0.origin, $0.final) }, uniquingKeysWith: { first, _ in first })
        var carried: Set<Index> = []
        for index in origin.storedIndexes {
            let columns = index.attributes.compactMap { renamed[$0] }
            guard columns.count == index.attributes.count else { return true }
            carried.insert(Index(columns, unique: index.isUnique))
        }
        return carried != Set(change.entity.storedIndexes)
    }

    /// The origin columns a source reads.
    static func origins(of source: SQLColumnSource) -> [String] {
        switch source {
        case .column(let name): return [name]
        case .literal: return []
        case .converted(let inner, _, _): return origins(of: inner)
        case .coalesce(let inner, _): return origins(of: inner)
        // An app's expression may read any column: it is computed while every origin column is there, never
        // altered in place (no origin of its own).
        case .sql(_, _, let otherwise): return origins(of: otherwise) + [""]
        }
    }

    private func freeName(_ base: String, taken: Set<String>) -> String {
        var name = base
        var n = 2
        while taken.contains(name) {
            name = "\(base)_\(n)"
            n += 1
        }
        return name
    }

    /// `ADD COLUMN` with the final definition; a constant default fills existing rows in the catalog only,
    /// and is dropped again so that the table matches a fresh one.
    private func addColumn(_ property: String, as column: String, default value: Value) throws {
        let ddl = SchemaDDL(dialect: PostgresDialect.shared)
        if let relationship = change.entity.relationship(named: property) {
            try connection.change(.addColumn(ddl.column(relationship, named: column), to: change.table))
            return
        }
        guard let attribute = change.entity.attribute(named: property) else { return }
        guard !value.isNull else {
            try connection.change(
                .addColumn(SQLColumnDefinition(name: column, content: .value(attribute.type)), to: change.table))
            return
        }
        let definition = SQLColumnDefinition(
            name: column, content: .value(attribute.type), isOptional: attribute.isOptional, defaultValue: value)
        try connection.change(.addColumn(definition, to: change.table))
        try connection.execute(.alter, "ALTER TABLE \(table) ALTER COLUMN \(q(column)) DROP DEFAULT")
    }

    /// Renames columns, through temporary names when a new name is still taken (swaps, chains).
    private func rename(_ renames: [(from: String, to: String)], present: inout Set<String>) throws {
        let moves = renames.filter { $0.from != $0.to }
        guard !moves.isEmpty else { return }
        let direct = moves.allSatisfy { move in !present.contains(move.to) }
        if direct {
            for move in moves {
                try connection.execute(.alter, "ALTER TABLE \(table) RENAME COLUMN \(q(move.from)) TO \(q(move.to))")
            }
        } else {
            for (i, move) in moves.enumerated() {
                try connection.execute(
                    .alter, "ALTER TABLE \(table) RENAME COLUMN \(q(move.from)) TO \(q("_molt_rename_\(i)"))")
            }
            for (i, move) in moves.enumerated() {
                try connection.execute(
                    .alter, "ALTER TABLE \(table) RENAME COLUMN \(q("_molt_rename_\(i)")) TO \(q(move.to))")
            }
        }
        for move in moves {
            present.remove(move.from)
            present.insert(move.to)
        }
    }

    /// A type change or a fill of nulls on a column altered in place (already under its final name).
    private func convert(_ column: InPlace) throws -> (Int, Bool) {
        let dialect = connection.dialect
        let source = Self.renamed(column.source, to: column.final)
        guard case .column = source else {
            let name = q(column.final)
            switch source {
            case .coalesce(let inner, let fallback)
            where Self.origins(of: inner) == [column.final] && !Self.converts(inner):
                let count = try connection.execute(
                    .update, "UPDATE \(table) SET \(name) = \(dialect.literal(fallback)) WHERE \(name) IS NULL")
                return (count, count > 0)
            default:
                try connection.link.run(
                    "ALTER TABLE \(table) ALTER COLUMN \(name) TYPE \(targetType(column.final)) USING \(source.sql(dialect))",
                    [],
                    kind: .alter, lock: .rewrite)
                return (rowCount, true)
            }
        }
        return (0, false)
    }

    private static func converts(_ source: SQLColumnSource) -> Bool {
        if case .converted = source { return true }
        if case .coalesce(let inner, _) = source { return converts(inner) }
        return false
    }

    private static func renamed(_ source: SQLColumnSource, to name: String) -> SQLColumnSource {
        switch source {
        case .column: return .column(name)
        case .literal: return source
        case .converted(let inner, let from, let to): return .converted(renamed(inner, to: name), from: from, to: to)
        case .coalesce(let inner, let fallback): return .coalesce(renamed(inner, to: name), fallback)
        case .sql: return source
        }
    }

    private func targetType(_ column: String) -> String {
        if let attribute = change.entity.attribute(named: column) {
            return PostgresDialect.shared.columnType(attribute.type)
        }
        return PostgresDialect.shared.columnType(.int)
    }

    /// `SET NOT NULL` / `DROP NOT NULL` where the catalog differs from the entity.
    private func syncNullability() throws {
        let rows = try connection.rows(
            """
            SELECT attname, attnotnull FROM pg_attribute
            WHERE attrelid = \(PostgresCatalog.tableOID) AND attnum > 0 AND NOT attisdropped
            """, [.string(connection.namespace), .string(change.table)], types: [.string, .bool])
        let notNull = Dictionary(uniqueKeysWithValues: rows.map { ($0[0].string!, $0[1] == .bool(true)) })
        for attribute in change.entity.attributes {
            guard let current = notNull[attribute.name], current == attribute.isOptional else { continue }
            let clause = attribute.isOptional ? "DROP NOT NULL" : "SET NOT NULL"
            try connection.link.run(
                "ALTER TABLE \(table) ALTER COLUMN \(q(attribute.name)) \(clause)", [], kind: .alter,
                lock: attribute.isOptional ? .metadata : .scan)
        }
    }
}
