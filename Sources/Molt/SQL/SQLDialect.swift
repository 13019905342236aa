/// The SQL of one storage engine: what differs between SQLite and PostgreSQL in the statements Molt writes.
///
/// The rules are Molt's (``ValueConversion``, the table layout of ``StoreLayout``); a dialect only spells them.
/// Every conversion a dialect writes in SQL gives exactly what ``ValueConversion/convert(_:to:)`` gives in
/// Swift, so that a value converts the same way on every path and every engine.
package protocol SQLDialect: Sendable {
    /// The engine this dialect speaks.
    var engine: DatabaseEngine { get }

    /// The column type that stores an attribute type.
    func columnType(_ type: AttributeType) -> String

    /// The definition of the `_id` column: an integer primary key the engine assigns.
    func identifierColumn(_ name: String) -> String

    /// The clause of a column that references another table's `_id`, deleting or nulling with it.
    func reference(table: String, column: String, onDelete action: SQLReferenceAction) -> String

    /// A literal of a value, as stored for its attribute type.
    func literal(_ value: Value) -> String

    /// The SQL expression that converts `expression` (a value of `from`) to `to`, for a widening conversion
    /// (``AttributeType/widens(to:)``); the expression itself when the storage is the same.
    func conversion(_ expression: String, from: AttributeType, to: AttributeType) -> String

    /// A condition true for the integer values of `column` that have no exact double (beyond 2^53).
    func inexactDoubleCondition(_ column: String) -> String

    /// A condition true for the numbers of `expression` that a `Float` does not hold exactly (0.1, 1e300), for a
    /// mapping into a `float` attribute: PostgreSQL's `real` would round them, SQLite would keep a value no
    /// `Float` reads back.
    func inexactFloatCondition(_ expression: String) -> String

    /// A condition on a text column that contains the text bound to its one `?`, case-sensitively.
    func containsCondition(_ column: String) -> String

    /// A condition on a text column that starts with the text bound to both its `?`s, case-sensitively.
    func hasPrefixCondition(_ column: String) -> String

    /// ` LIMIT … OFFSET …`, or an empty string.
    func limitClause(limit: Int?, offset: Int?) -> String

    /// An `INSERT` that skips rows that would violate a uniqueness constraint: `INSERT OR IGNORE INTO t (…) <select>`.
    func insertIgnoringDuplicates(into table: String, columns: [String], _ select: String) -> String

    /// How to name a temporary table in a statement (`temp."x"`).
    func temporaryTable(_ name: String) -> String

    /// A condition true when `column` holds a value whose storage does not fit `type`, for engines that keep
    /// any value in any column (SQLite); nil for engines whose column types refuse them (PostgreSQL).
    func storageMismatchCondition(_ column: String, type: AttributeType) -> String?

    /// The expression that orders rows of a join table by insertion, for relationships that keep no position.
    var insertionOrder: String { get }

    /// The definition of a column every join table gets for ``insertionOrder``, for engines whose rows have no
    /// insertion order of their own (PostgreSQL has no `rowid`); nil when the engine keeps one (SQLite).
    var insertionOrderColumn: String? { get }

    /// The longest identifier the engine keeps whole, in bytes; nil when there is no practical limit.
    var maximumIdentifierLength: Int? { get }

    /// A checker of queries an app supplies (a mapping's expressions), against `schema`'s tables: reads only.
    func queryChecker(for schema: Schema) throws -> any SQLQueryChecker

    /// Why the engine cannot store `value` whole (PostgreSQL text cannot hold a NUL character), as a phrase
    /// that follows "cannot store" and says what to do instead; nil when it can (SQLite stores every value).
    func storageRefusal(_ value: Value) -> String?

    /// `CREATE INDEX` on a temporary table (SQLite names the index's schema, PostgreSQL the table's).
    func temporaryIndex(_ name: String, on table: String, columns: String) -> String

    /// An SQL expression of a mapping in the engine's spelling: the names of `names` it uses bare are quoted
    /// with the case they are declared in (PostgreSQL folds unquoted names to lower case; SQLite ignores case).
    func portableExpression(_ expression: String, names: Set<String>) -> String
}

/// What a reference does when the row it points to is deleted.
package enum SQLReferenceAction: Hashable, Sendable {
    case setNull, cascade
}

extension SQLDialect {
    package var insertionOrderColumn: String? { nil }

    package func storageRefusal(_ value: Value) -> String? { nil }

    /// The SQL of a sum of a decimal column that keeps every digit, as text (null when no value is summed), or
    /// nil when the engine would add the values as doubles (SQLite): the caller then adds them in Swift. The
    /// text may have more digits than a `Decimal` holds: the caller refuses it then.
    package func exactDecimalSum(_ column: String) -> String? { nil }

    package func temporaryIndex(_ name: String, on table: String, columns: String) -> String {
        "CREATE INDEX \(temporaryTable(name)) ON \(table) (\(columns))"
    }

    package func portableExpression(_ expression: String, names: Set<String>) -> String { expression }

    /// The engine's name, for messages: "SQLite", "PostgreSQL".
    package var engineName: String { engine.name }

    /// An identifier in double quotes, inner quotes doubled: the same in SQLite and PostgreSQL.
    package func quote(_ identifier: String) -> String {
        // Names almost never hold a quote: then one copy of their bytes, not an append per scalar.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"\(identifier)\"" }
        var result = "\""
        result.reserveCapacity(identifier.utf8.count + 2)
        for character in identifier.unicodeScalars {
            if character == "\"" { result += "\"\"" } else { result.unicodeScalars.append(character) }
        }
        result += "\""
        return result
    }
}

/// An index as the engine reports it.
package struct SQLIndexInfo: Hashable, Sendable {
    /// The index's name.
    package var name: String
    /// The indexed columns, in order.
    package var columns: [String]
    /// Whether it is unique.
    package var isUnique: Bool
    /// Whether it was created by a `CREATE INDEX` (rather than by a constraint or primary key).
    package var isExplicit: Bool

    package init(name: String, columns: [String], isUnique: Bool, isExplicit: Bool) {
        self.name = name
        self.columns = columns
        self.isUnique = isUnique
        self.isExplicit = isExplicit
    }
}

/// The shape of one table, for comparing a migrated store with a fresh one.
package struct SQLTableShape: Equatable, Sendable {
    /// Column name → its type and constraints (`TEXT NOT NULL`, `INTEGER PRIMARY KEY`).
    package var columns: [String: String]
    /// `column → table(column)` for each reference.
    package var references: Set<String>
    /// `unique(a, b)` or `index(a)` for each index.
    package var indexes: Set<String>
    /// The columns in the table's order.
    package var order: [String]

    package init(columns: [String: String], references: Set<String>, indexes: Set<String>, order: [String]) {
        self.columns = columns
        self.references = references
        self.indexes = indexes
        self.order = order
    }

    /// Adds a column after the others.
    package mutating func append(_ column: String, _ type: String) {
        columns[column] = type
        order.append(column)
    }

    package static func == (lhs: SQLTableShape, rhs: SQLTableShape) -> Bool {
        lhs.columns == rhs.columns && lhs.references == rhs.references && lhs.indexes == rhs.indexes
    }

    /// One line: columns in `order`, then references and indexes.
    package func render(order: [String]) -> String {
        let names = order.filter { columns[$0] != nil } + columns.keys.filter { !order.contains($0) }.sorted()
        var text = names.map { "\($0) \(columns[$0]!)" }.joined(separator: ", ")
        if !references.isEmpty { text += "; references: " + references.sorted().joined(separator: ", ") }
        if !indexes.isEmpty { text += "; indexes: " + indexes.sorted().joined(separator: ", ") }
        return text
    }
}

/// A row whose link points to a missing row.
package struct SQLBrokenLink: Sendable, Hashable {
    /// The table holding the link.
    package var table: String
    /// The table the link points to.
    package var parent: String
    /// The row's `_id`, when the table has one.
    package var rowID: Int64?

    package init(table: String, parent: String, rowID: Int64?) {
        self.table = table
        self.parent = parent
        self.rowID = rowID
    }

    /// "a row of 'Book' (_id 4) points to a missing 'Author'", as refusals name a broken link.
    package var phrase: String {
        "a row of '\(table)'\(rowID.map { " (_id \($0))" } ?? "") points to a missing '\(parent)'"
    }
}
