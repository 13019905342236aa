/// Reads rows in batches of identifiers: `… WHERE _id > ? ORDER BY _id LIMIT n`.
///
/// Call ``slot(_:_:attribute:)`` for each column to read, then ``next(in:)`` until it returns false. A batch
/// is read in full before the caller sees it, so the caller may write to the tables (engines do not define what
/// an open cursor yields over rows changed under it). A batch holds at most ``maximumRows`` rows and stops
/// early once it holds ``maximumBytes`` of text and bytes, so memory stays flat whatever the row size. Its
/// values live in one flat array reused from batch to batch.
///
/// The rows come from a ``Source``: one table, or a stage's snapshot of the old version joined with the new
/// version's table. ``resume(from:)`` switches source between batches, keeping the position.
struct BatchReader {
    static let maximumRows = 1024
    static let maximumBytes = 8 << 20

    /// Where the rows come from.
    struct Source {
        /// The `FROM` clause.
        var from: String
        /// The identifier expression (what `WHERE … > ?` and `ORDER BY` use).
        var id: String
        /// An expression that is null for a row to skip (its new object was deleted), if any.
        var presence: String?
        /// The condition a row must meet, if any: the rows of one entity in its hierarchy's table.
        var condition: String?
    }

    /// The entity, for messages about a stored value of the wrong type.
    let entity: String
    private(set) var source: Source
    private var expressions: [String] = []
    private var types: [AttributeType] = []
    private var attributes: [String] = []
    private var positions: [String: Int] = [:]
    private var statement: (any SQLStatement)?
    private var last = Int64.min
    private var finished = false
    /// The batch ``next(in:)`` read last.
    private(set) var batch = Batch(width: 0)

    /// The rows of one batch: identifiers, and `width` values per row (the columns of the read list).
    struct Batch {
        fileprivate(set) var ids: [Int64] = []
        fileprivate(set) var values: [Value] = []
        let width: Int

        var count: Int { ids.count }

        /// The value of a column (a slot's index) in a row of the batch.
        subscript(row: Int, column: Int) -> Value { values[row &* width &+ column] }
    }

    init(source: Source, entity: String) {
        self.source = source
        self.entity = entity
    }

    /// A reader of one table.
    init(table: String, entity: String, dialect: any SQLDialect) {
        self.init(source: Source(from: dialect.quote(table), id: dialect.quote(StoreLayout.idColumn)), entity: entity)
    }

    /// The position of a column expression in each row read, adding it to the read list once.
    mutating func slot(
        _ expression: String, _ type: AttributeType, attribute: String
    ) -> (index: Int, type: AttributeType) {
        if let index = positions[expression] { return (index, type) }
        positions[expression] = expressions.count
        expressions.append(expression)
        types.append(type)
        attributes.append(attribute)
        return (expressions.count - 1, type)
    }

    /// The type a slot's column is read as.
    func type(ofSlot index: Int) -> AttributeType { types[index] }

    /// A reader of `source` that starts after the rows this one has read; its slots must be added again.
    func resume(from source: Source) -> BatchReader {
        var reader = BatchReader(source: source, entity: entity)
        reader.last = last
        reader.finished = finished
        return reader
    }

    /// Reads the next batch into ``batch``.
    ///
    /// - Returns: Whether there was one; false once the rows have been read to their end.
    /// - Throws: ``MoltError`` when a stored value is not of its attribute's type.
    mutating func next(in db: any SQLConnection) throws -> Bool {
        guard !finished else { return false }
        if statement == nil {
            let presence = source.presence.map { [$0] } ?? []
            let list = ([source.id] + presence + expressions).joined(separator: ", ")
            statement = try db.makeStatement(
                .read,
                "SELECT \(list) FROM \(source.from) WHERE \(source.condition.map { "\($0) AND " } ?? "")\(source.id) > ? ORDER BY \(source.id) LIMIT \(Self.maximumRows)"
            )
            batch = Batch(width: types.count)
            batch.ids.reserveCapacity(Self.maximumRows)
            batch.values.reserveCapacity(Self.maximumRows * types.count)
        }
        let statement = statement!
        let first = source.presence == nil ? 1 : 2
        try statement.bind([.int(last)])
        defer { statement.reset() }
        batch.ids.removeAll(keepingCapacity: true)
        batch.values.removeAll(keepingCapacity: true)
        var bytes = 0
        var rows = 0
        var lastSeen: Int64?
        while try statement.step() {
            rows += 1
            let id = statement.int64(0)
            lastSeen = id
            if first == 2 && statement.isNull(1) { continue }
            batch.ids.append(id)
            for (i, type) in types.enumerated() {
                guard let value = statement.value(first + i, as: type) else {
                    throw SQLStoredValue.mismatch(
                        entity: entity, attribute: attributes[i], objectID: id, found: statement.describe(first + i),
                        expected: type)
                }
                switch value {
                case .string(let text): bytes &+= text.utf8.count
                case .data(let data): bytes &+= data.count
                default: break
                }
                batch.values.append(value)
            }
            if bytes >= Self.maximumBytes { break }
        }
        guard let lastSeen else {
            finished = true
            return false
        }
        last = lastSeen
        if rows < Self.maximumRows && bytes < Self.maximumBytes { finished = true }
        return true
    }
}

/// Prepared `UPDATE … WHERE _id = ?` statements, one per set of changed attributes.
struct UpdateStatements {
    let table: String
    let columns: [String]
    private var cache: [UInt64: (any SQLStatement, [Int])] = [:]
    /// The statement used last, looked up without hashing: a stage usually changes the same attributes of
    /// every object.
    private var last: (key: UInt64, statement: any SQLStatement, indices: [Int])?

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
    }

    /// The columns an object's changes write.
    func changedColumns(_ object: MigrationObject) -> [String] {
        columns.indices.filter { object.manyChanged || object.isChanged($0) }.map { columns[$0] }
    }

    mutating func write(_ object: MigrationObject, in db: any SQLConnection) throws {
        let key = object.manyChanged ? UInt64.max : object.changed
        let (statement, indices): (any SQLStatement, [Int])
        if let last, last.key == key {
            (statement, indices) = (last.statement, last.indices)
        } else if let cached = cache[key] {
            (statement, indices) = cached
        } else {
            let changed = columns.indices.filter { object.manyChanged || object.isChanged($0) }
            let q = db.dialect.quote
            let sql =
                "UPDATE \(q(table)) SET \(changed.map { "\(q(columns[$0])) = ?" }.joined(separator: ", ")) WHERE \(q(StoreLayout.idColumn)) = ?"
            let kind = SQLStatementKind.updateObject(table: table, columns: changed.map { columns[$0] })
            (statement, indices) = (try db.makeStatement(kind, sql), changed)
            cache[key] = (statement, indices)
        }
        if last?.key != key { last = (key, statement, indices) }
        statement.reset()
        for (position, index) in indices.enumerated() { try statement.bind(object.values[index], at: position) }
        try statement.bind(.int(object.id), at: indices.count)
        _ = try statement.step()
        statement.reset()
    }
}
