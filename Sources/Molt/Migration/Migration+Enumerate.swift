import Foundation
import GRDB
import GRDBSQLite

extension Migration {
    /// Calls `body` with each object of an entity that exists in both versions: `old` read-only in the old
    /// version, `new` writable in the new version. What `body` writes to `new` is saved when it returns.
    ///
    /// Objects are read in batches by identifier, so memory stays bounded however many there are, and the
    /// table is never changed under an open cursor. Progress is reported per batch; a cancellation is
    /// honoured between batches.
    ///
    /// ```swift
    /// try migration.enumerateObjects(ofType: "Person") { old, new in
    ///     new["fullName"] = .string("\(old["firstName"].string ?? "") \(old["lastName"].string ?? "")")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - type: The entity's name, old or new (a renamed entity answers to both).
    ///   - body: Reads `old`, writes `new`; throwing rolls back the whole run.
    /// - Throws: ``MoltError`` when the entity is new or was removed in the new version, when `body` wrote an
    ///   unknown attribute or a value of the wrong type, or what `body` throws.
    public func enumerateObjects(
        ofType type: String, _ body: (MigrationObject, inout MigrationObject) throws -> Void
    ) throws {
        let (oldEntity, newEntity) = try entityPair(type)
        guard let oldEntity else {
            throw MoltError(
                .invalidValue,
                "Entity '\(type)' is new in version \(toVersion): it has no old objects to enumerate. Create its objects with `migration.create(\"\(type)\", value: …)`, reading the old data with `enumerateOldObjects(ofType:)`.",
                entity: type)
        }
        guard let newEntity else {
            throw MoltError(
                .invalidValue,
                "Entity '\(type)' does not exist in version \(toVersion): enumerate its old objects with `enumerateOldObjects(ofType: \"\(type)\")` and create what replaces them.",
                entity: type)
        }
        let layout = workspace.newLayout.entities[newEntity.name]!
        var reader = BatchReader(table: oldEntity.name)
        let oldSlots = oldEntity.attributes.map { reader.slot($0.name, $0.type) }
        let newSlots = newEntity.attributes.map { reader.slot(layout.columns[$0.name]!, $0.type) }
        let oldShape = ObjectShape(entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:])
        let newShape = ObjectShape(entity: newEntity, version: toVersion)
        var updates = UpdateStatements(table: layout.table, columns: newEntity.attributes.map { layout.columns[$0.name]! })
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SchemaSQL.quote(oldEntity.name))") ?? 0
        var done = 0
        run.report(entity: newEntity.name, completed: 0, total: total)
        // One old and one new object, refilled for each row: their value arrays are reused rather than
        // allocated per object (a copy the body keeps is copied on write, as for any Swift value).
        var old = MigrationObject(shape: oldShape)
        var new = MigrationObject(shape: newShape)
        // A loop rather than a closure, so that `old` and `new` are plain locals the compiler need not copy
        // defensively when it hands them to `body` and to the update.
        while try reader.next(in: db) {
            for row in 0..<reader.batch.count {
                let id = reader.batch.ids[row]
                old.refill(id: id, from: reader.batch, row: row, slots: oldSlots)
                if new.shape !== newShape || new.values.count != newSlots.count { new = MigrationObject(shape: newShape) }
                new.refill(id: id, from: reader.batch, row: row, slots: newSlots)
                try body(old, &new)
                if let problem = new.problem { throw MoltError(.invalidValue, problem, entity: newEntity.name) }
                if new.changed != 0 || new.manyChanged {
                    try updates.write(new, in: db)
                    run.touched += 1
                }
            }
            done += reader.batch.count
            run.report(entity: newEntity.name, completed: done, total: total)
            try run.checkCancellation()
        }
    }

    /// Calls `body` with each object of an entity of the old version, including entities the new version
    /// removed: the way to read data that a stage moves elsewhere (split, merge).
    ///
    /// ```swift
    /// try migration.enumerateOldObjects(ofType: "WineNote") { old in
    ///     try migration.create("Note", value: ["title": old["name"], "kind": "wine"])
    /// }
    /// ```
    public func enumerateOldObjects(ofType type: String, _ body: (MigrationObject) throws -> Void) throws {
        guard let oldEntity = try entityPair(type).old else {
            throw MoltError(.invalidValue, "Entity '\(type)' does not exist in version \(fromVersion); it has no old objects.", entity: type)
        }
        var reader = BatchReader(table: oldEntity.name)
        let slots = oldEntity.attributes.map { reader.slot($0.name, $0.type) }
        let shape = ObjectShape(entity: oldEntity, version: fromVersion, aliases: renamedProperties[oldEntity.name] ?? [:])
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(SchemaSQL.quote(oldEntity.name))") ?? 0
        var done = 0
        var old = MigrationObject(shape: shape)
        while try reader.next(in: db) {
            for row in 0..<reader.batch.count {
                old.refill(id: reader.batch.ids[row], from: reader.batch, row: row, slots: slots)
                try body(old)
            }
            done += reader.batch.count
            run.report(entity: oldEntity.name, completed: done, total: total)
            try run.checkCancellation()
        }
    }
}

/// Reads a table in batches of identifiers through the SQLite C API: `WHERE _id > ? ORDER BY _id LIMIT n`.
///
/// Call ``slot(_:_:)`` for each column to read, then ``next(in:)`` until it returns false. A batch is read in
/// full before the caller sees it, so the caller may write to the table (SQLite does not
/// define what an open cursor yields over rows changed under it). Its values live in one flat array reused
/// from batch to batch: no allocation per row but the strings and blobs read.
struct BatchReader {
    static let batchSize = 1024
    let table: String
    private(set) var columns: [String] = []
    private var types: [AttributeType] = []
    private var positions: [String: Int] = [:]
    private var statement: Statement?
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

    init(table: String) { self.table = table }

    /// The position of a column in each row read, adding it to the read list once.
    mutating func slot(_ column: String, _ type: AttributeType) -> (index: Int, type: AttributeType) {
        if let index = positions[column] { return (index, type) }
        positions[column] = columns.count
        columns.append(column)
        types.append(type)
        return (columns.count - 1, type)
    }

    /// Reads the next batch into ``batch``.
    ///
    /// - Returns: Whether there was one; false once the table has been read to its end.
    mutating func next(in db: Database) throws -> Bool {
        guard !finished else { return false }
        if statement == nil {
            let q = SchemaSQL.quote
            let list = ([SchemaSQL.idColumn] + columns).map(q).joined(separator: ", ")
            statement = try db.makeStatement(
                sql: "SELECT \(list) FROM \(q(table)) WHERE \(q(SchemaSQL.idColumn)) > ? ORDER BY \(q(SchemaSQL.idColumn)) LIMIT \(Self.batchSize)")
            batch = Batch(width: types.count)
            batch.ids.reserveCapacity(Self.batchSize)
            batch.values.reserveCapacity(Self.batchSize * types.count)
        }
        let handle = statement!.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, last)
        batch.ids.removeAll(keepingCapacity: true)
        batch.values.removeAll(keepingCapacity: true)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw RawSQLite.error(db, code) }
            batch.ids.append(sqlite3_column_int64(handle, 0))
            for (i, type) in types.enumerated() { batch.values.append(RawSQLite.read(handle, Int32(i + 1), as: type)) }
        }
        sqlite3_reset(handle)
        guard let lastID = batch.ids.last else {
            finished = true
            return false
        }
        last = lastID
        if batch.count < Self.batchSize { finished = true }
        return true
    }
}

/// Prepared `UPDATE … WHERE _id = ?` statements, one per set of changed attributes.
struct UpdateStatements {
    let table: String
    let columns: [String]
    private var cache: [UInt64: (Statement, [Int])] = [:]
    /// The statement used last, looked up without hashing: a stage usually changes the same attributes of
    /// every object.
    private var last: (key: UInt64, statement: Statement, indices: [Int])?

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
    }

    mutating func write(_ object: MigrationObject, in db: Database) throws {
        let key = object.manyChanged ? UInt64.max : object.changed
        let (statement, indices): (Statement, [Int])
        if let last, last.key == key {
            (statement, indices) = (last.statement, last.indices)
        } else if let cached = cache[key] {
            (statement, indices) = cached
        } else {
            let changed = columns.indices.filter { object.manyChanged || object.isChanged($0) }
            let q = SchemaSQL.quote
            let sql = "UPDATE \(q(table)) SET \(changed.map { "\(q(columns[$0])) = ?" }.joined(separator: ", ")) WHERE \(q(SchemaSQL.idColumn)) = ?"
            (statement, indices) = (try db.makeStatement(sql: sql), changed)
            cache[key] = (statement, indices)
        }
        if last?.key != key { last = (key, statement, indices) }
        let handle = statement.sqliteStatement
        for (position, index) in indices.enumerated() { RawSQLite.bind(handle, Int32(position + 1), object.values[index]) }
        sqlite3_bind_int64(handle, Int32(indices.count + 1), object.id)
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else { throw RawSQLite.error(db, code) }
    }
}

/// The few SQLite C calls the hot loops of stages need, without GRDB's per-row conveniences.
enum RawSQLite {
    nonisolated(unsafe) static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

    static func read(_ handle: OpaquePointer, _ column: Int32, as type: AttributeType) -> Value {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL:
            return .null
        case SQLITE_INTEGER:
            let v = sqlite3_column_int64(handle, column)
            switch type {
            case .bool: return .bool(v != 0)
            case .double: return .double(Double(v))
            case .date: return .date(Date(timeIntervalSince1970: Double(v)))
            default: return .int(v)
            }
        case SQLITE_FLOAT:
            let v = sqlite3_column_double(handle, column)
            return type == .date ? .date(Date(timeIntervalSince1970: v)) : .double(v)
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(handle, column))
            let text = sqlite3_column_text(handle, column).map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? ""
            if type == .uuid, let uuid = UUID(uuidString: text) { return .uuid(uuid) }
            return .string(text)
        default:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes = sqlite3_column_blob(handle, column) else { return .data(Data()) }
            return .data(Data(bytes: bytes, count: count))
        }
    }

    static func bind(_ handle: OpaquePointer, _ index: Int32, _ value: Value) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .int(let v): sqlite3_bind_int64(handle, index, v)
        case .bool(let v): sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .double(let v): sqlite3_bind_double(handle, index, v)
        case .date(let v): sqlite3_bind_double(handle, index, v.timeIntervalSince1970)
        case .string(var v):
            v.withUTF8 { buffer in
                if let base = buffer.baseAddress {
                    _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self), Int32(buffer.count), transient)
                } else {
                    _ = sqlite3_bind_text(handle, index, "", 0, transient)
                }
            }
        case .uuid(let v):
            var text = v.uuidString
            text.withUTF8 { buffer in
                _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self), Int32(buffer.count), transient)
            }
        case .data(let v):
            v.withUnsafeBytes { buffer in
                _ = sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), transient)
            }
        }
    }

    static func error(_ db: Database, _ code: Int32) -> MoltError {
        var message = "SQLite error \(code)"
        if let connection = db.sqliteConnection, let text = sqlite3_errmsg(connection) { message = String(cString: text) }
        return MoltError(.migrationFailed, "SQLite failed during a migration stage: \(message).", underlying: "SQLite code \(code)")
    }
}

extension Value {
    /// The same stored value read as another attribute type that shares its storage (bool ↔ int, uuid ↔ string).
    func reinterpreted(as type: AttributeType) -> Value {
        switch (self, type) {
        case (.int(let v), .bool): return .bool(v != 0)
        case (.bool(let v), .int): return .int(v ? 1 : 0)
        case (.uuid(let v), .string): return .string(v.uuidString)
        case (.string(let v), .uuid): return UUID(uuidString: v).map(Value.uuid) ?? self
        case (.int(let v), .double): return .double(Double(v))
        default: return self
        }
    }
}
