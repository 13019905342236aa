/// Where a column's values come from during an inferred run, in terms of the table as it was when the run
/// started: an engine-neutral expression that a dialect renders.
package indirect enum SQLColumnSource: Equatable, Sendable {
    /// An existing column, unchanged.
    case column(String)
    /// A constant, for a column added during the run.
    case literal(Value)
    /// A widening conversion (``AttributeType/widens(to:)``) of another source.
    case converted(SQLColumnSource, from: AttributeType, to: AttributeType)
    /// Another source, or `fallback` where it is null: an attribute made required with a default.
    case coalesce(SQLColumnSource, Value)
    /// An app's SQL expression over the table's columns (a mapping's, checked by ``SQLExpressionCheck``), or, where
    /// `filter` is false, another source.
    case sql(String, filter: String?, otherwise: SQLColumnSource)

    /// The source converted from `from` to `to`; the same source when the types are the same.
    ///
    /// Whether a conversion changes the stored value depends on the engine (SQLite stores a bool as an
    /// integer and a UUID as text; PostgreSQL has a type for each): ``simplified(for:)`` drops the
    /// conversions an engine stores alike.
    package static func convert(_ source: SQLColumnSource, from: AttributeType, to: AttributeType) -> SQLColumnSource {
        if from == to { return source }
        if case .literal(.null) = source { return source }
        return .converted(source, from: from, to: to)
    }

    /// The source without the conversions between types that `dialect` stores in the same column type with
    /// the same values (SQLite: bool → int, uuid → string), so that such a change alters no row.
    package func simplified(for dialect: any SQLDialect) -> SQLColumnSource {
        switch self {
        case .column, .literal: return self
        case .converted(let source, let from, let to):
            let inner = source.simplified(for: dialect)
            let same =
                dialect.columnType(from) == dialect.columnType(to) && dialect.conversion("x", from: from, to: to) == "x"
            return same ? inner : .converted(inner, from: from, to: to)
        case .coalesce(let source, let fallback): return .coalesce(source.simplified(for: dialect), fallback)
        case .sql(let expression, let filter, let otherwise):
            return .sql(expression, filter: filter, otherwise: otherwise.simplified(for: dialect))
        }
    }

    /// The SQL expression in `dialect`.
    package func sql(_ dialect: any SQLDialect) -> String {
        switch self {
        case .column(let name): return dialect.quote(name)
        case .literal(let value): return dialect.literal(value)
        case .converted(let source, let from, let to):
            return dialect.conversion(source.sql(dialect), from: from, to: to)
        case .coalesce(let source, let fallback):
            return "COALESCE(\(source.sql(dialect)), \(dialect.literal(fallback)))"
        case .sql(let expression, nil, _): return "(\(expression))"
        case .sql(let expression, let filter?, let otherwise):
            return "(CASE WHEN (\(filter)) THEN (\(expression)) ELSE \(otherwise.sql(dialect)) END)"
        }
    }

    /// The column it reads as is, if it is one.
    package var plainColumn: String? {
        if case .column(let name) = self { return name }
        return nil
    }
}

/// How one entity table changes in an inferred run, for the engine to apply: SQLite alters or rebuilds it,
/// PostgreSQL alters its columns in place.
package struct SQLTableChange: Sendable {
    /// The table, already under its final name.
    package var table: String
    /// The entity the table must hold afterwards: its attributes and to-one relationships are the final columns.
    package var entity: Entity
    /// The columns the table has now: attributes, then to-one relationships.
    package var originColumns: [String]
    /// Of those, the columns of to-one relationships (references).
    package var originReferences: Set<String>
    /// For each final column (attribute or to-one relationship name): where its values come from.
    package var sources: [String: SQLColumnSource]
    /// Whether a column's nullability changed, which SQLite cannot alter in place.
    package var constraintsChanged: Bool
    /// The version the run leads to, for messages.
    package var version: Int
    /// Origin columns the change widens from int to double: every stored integer must have an exact double,
    /// or the change is refused before anything is written (``ValueConversion/inexactDouble(entity:attribute:value:objectID:version:origin:)``).
    /// The engine checks them before it writes; an inferred run leaves out those it found exact while counting
    /// the table.
    package var exactDoubles: [ExactDouble] = []
    /// The table's rows, when the run counted them already and nothing has added or removed one since;
    /// nil when the engine must count them itself (for progress).
    package var rowCount: Int?
    /// The entity whose definition the table has now (its origin columns, constraints and indexes), when the
    /// run knows it exactly: a table of the run's start schema. Nil for a table a stage's workspace laid out,
    /// whose indexes and constraints the engine must then read.
    package var origin: Entity?

    /// An `int → double` widening to check against the data before it is applied.
    package struct ExactDouble: Sendable, Hashable {
        /// The column of the origin table.
        package var column: String
        /// The entity and attribute, in the version that widens it.
        package var entity: String
        package var attribute: String
        /// The version that widens it.
        package var version: Int

        package init(column: String, entity: String, attribute: String, version: Int) {
            self.column = column
            self.entity = entity
            self.attribute = attribute
            self.version = version
        }

        /// The refusal for `value`, held by the object `objectID`.
        package func refusal(value: Int64, objectID: Int64?) -> MoltError {
            ValueConversion.inexactDouble(
                entity: entity, attribute: attribute, value: value, objectID: objectID, version: version)
        }
    }

    package init(
        table: String, entity: Entity, originColumns: [String], originReferences: Set<String>,
        sources: [String: SQLColumnSource], constraintsChanged: Bool, version: Int, exactDoubles: [ExactDouble] = [],
        rowCount: Int? = nil, origin: Entity? = nil
    ) {
        self.table = table
        self.entity = entity
        self.originColumns = originColumns
        self.originReferences = originReferences
        self.sources = sources
        self.constraintsChanged = constraintsChanged
        self.version = version
        self.exactDoubles = exactDoubles
        self.rowCount = rowCount
        self.origin = origin
    }

    /// The final columns in order, each with its source (null for a column nothing fills).
    package var finalColumns: [(name: String, source: SQLColumnSource)] {
        entity.attributes.map { ($0.name, sources[$0.name] ?? .literal(.null)) }
            + entity.relationships.filter { $0.kind == .toOne }.map { ($0.name, sources[$0.name] ?? .literal(.null)) }
    }

    /// ``finalColumns`` without the conversions `dialect` stores alike (``SQLColumnSource/simplified(for:)``): what
    /// an engine applies.
    package func finalColumns(for dialect: any SQLDialect) -> [(name: String, source: SQLColumnSource)] {
        finalColumns.map { ($0.name, $0.source.simplified(for: dialect)) }
    }

    /// Whether applying the change in `dialect` reads every row: a computed or converted column, or a changed
    /// constraint. Renaming, adding with a constant and dropping plain columns need not.
    package func visitsRows(in dialect: any SQLDialect) -> Bool {
        constraintsChanged
            || finalColumns(for: dialect).contains { column in
                switch column.source {
                case .column, .literal: return false
                case .converted, .coalesce, .sql: return true
                }
            }
    }
}

/// What applying a ``SQLTableChange`` did.
package struct SQLTableChangeResult: Sendable {
    /// Rows written (copied by a rebuild, filled by a conversion).
    package var rowsWritten: Int
    /// Whether a link's value may have been written, so that the table's links must be checked: a rebuild
    /// copies them all; an in-place change of other columns (PostgreSQL's) writes none, and every link stays
    /// as the store held it, valid.
    package var wroteLinks: Bool

    package init(rowsWritten: Int, wroteLinks: Bool) {
        self.rowsWritten = rowsWritten
        self.wroteLinks = wroteLinks
    }
}
