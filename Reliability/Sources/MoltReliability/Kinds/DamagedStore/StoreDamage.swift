import Foundation

/// One way to damage a valid store, applied to a copy of it: bytes overwritten, bits flipped, the file cut,
/// Molt's own tables edited with SQL, or files left beside it as a crash would.
///
/// Every random choice (a page, the bits, a length) is made when the catalog is built from the seed, so the
/// damage itself is deterministic.
struct StoreDamage: Sendable {
    /// The report row: `damaged-store <family>`.
    var family: String
    /// A unique, descriptive name: `metadata-schemaVersion-null`.
    var name: String
    /// The journal mode of the valid store it starts from.
    var base: JournalMode = .wal
    /// Damages the store at the given path (its folder holds nothing else).
    var apply: @Sendable (_ store: URL, _ campaign: Campaign) throws -> Void
}

extension StoreDamage {
    // MARK: Bytes

    /// Overwrites bytes at offsets of the file.
    static func overwrite(_ store: URL, at offset: Int, with bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: store)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }

    /// Flips bits of the file (bit `n` is bit `n % 8` of byte `n / 8`).
    static func flip(_ store: URL, bits: [Int]) throws {
        var data = try Data(contentsOf: store)
        for bit in bits where bit / 8 < data.count {
            data[data.startIndex + bit / 8] ^= UInt8(1 << (bit % 8))
        }
        try data.write(to: store)
    }

    /// Cuts the file to `size` bytes.
    static func truncate(_ store: URL, to size: Int) throws {
        let handle = try FileHandle(forUpdating: store)
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(max(0, size)))
    }

    /// Appends bytes to the file.
    static func append(_ store: URL, _ bytes: [UInt8]) throws {
        let handle = try FileHandle(forUpdating: store)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }

    /// A big-endian 32-bit integer, as the SQLite header stores them.
    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    // MARK: SQL

    /// Runs statements on the store, as someone with sqlite3 would.
    static func sql(_ store: URL, _ statements: [String]) throws {
        let db = try SQLiteConnection(store)
        defer { db.close() }
        for statement in statements { try db.execute(statement) }
    }

    /// The statements that rebuild `table` with the same columns but no types or constraints, so that any value
    /// (NULL, a blob, an integer in a text column) can be stored in it.
    static func loosen(_ table: String, columns: [String]) -> [String] {
        let quoted = SQLiteValue.identifier(table)
        let loose = SQLiteValue.identifier(table + "_loose")
        let list = columns.map(SQLiteValue.identifier).joined(separator: ", ")
        return [
            "CREATE TABLE \(loose) (\(list))", "INSERT INTO \(loose) SELECT \(list) FROM \(quoted)",
            "DROP TABLE \(quoted)",
            "ALTER TABLE \(loose) RENAME TO \(quoted)",
        ]
    }

    static let metadataColumns = ["key", "value"]
    static let historyColumns = ["id", "fromVersion", "toVersion", "startedAt", "duration", "objectsTouched", "steps"]

    // MARK: Files beside the store

    /// Makes the files a writer leaves when it dies: on a copy of the store, `statements` run on a connection that
    /// never checkpoints (WAL) and keeps almost nothing in memory (so a rollback journal spills to the file),
    /// and the store with its companions is copied back while the connection is still open.
    ///
    /// - Parameter commit: Whether the statements' transaction commits before the copy (a stale WAL of committed
    ///   work) or is still open (a hot journal, or WAL frames without a commit).
    static func leaveCompanions(_ store: URL, statements: [String], commit: Bool, copyShm: Bool = true) throws {
        let folder = store.deletingLastPathComponent().appendingPathComponent("writer")
        try StoreFiles.freshFolder(folder)
        defer { try? FileManager.default.removeItem(at: folder) }
        let working = folder.appendingPathComponent(store.lastPathComponent)
        try StoreFiles.copy(store, to: working)
        let db = try SQLiteConnection(working)
        defer { db.close() }
        try db.execute("PRAGMA wal_autocheckpoint = 0; PRAGMA cache_size = 1; PRAGMA cache_spill = 1")
        try db.execute("BEGIN")
        for statement in statements { try db.execute(statement) }
        if commit { try db.execute("COMMIT") }
        StoreFiles.remove(store)
        for source in StoreFiles.existing(working) where copyShm || !source.path.hasSuffix("-shm") {
            let suffix = String(source.path.dropFirst(working.path.count))
            try FileManager.default.copyItem(at: source, to: URL(fileURLWithPath: store.path + suffix))
        }
        if !commit { try db.execute("ROLLBACK") }
    }

    /// A statement that makes every pet 3,000 characters longer, so that the pages it dirties outgrow the cache and
    /// spill to the file (or the log) before the transaction ends.
    static let rewritePets =
        "UPDATE \"Pet\" SET \"name\" = \"name\" || hex(zeroblob(1500)), \"weight\" = \"weight\" + 1"
}
