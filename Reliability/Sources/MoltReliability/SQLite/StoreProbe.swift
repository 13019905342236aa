import Foundation

/// What the harness reads of a store directly, beside molt: SQLite's integrity and foreign-key checks, the
/// version Molt recorded, and a digest of every table's rows.
///
/// The store is opened for reading and writing, as an application reopening it after a crash would: SQLite then
/// rolls back a hot journal and reads a write-ahead log. Probe only after molt's own commands have looked at the
/// files.
///
/// The digest covers every table but `_molt_history` (whose rows record when and how long a migration ran), and
/// the schema (`sqlite_master` without root pages), with each value's storage class. Rows are hashed in the
/// order of all their columns, so that the digest does not depend on where SQLite put them.
///
/// ```swift
/// let probe = try StoreProbe(url)
/// guard probe.isSound else { … }                       // integrity and foreign keys
/// probe.version == 1 && probe.digest == pristine.digest  // the old version, every object intact
/// ```
struct StoreProbe: Sendable, Equatable {
    /// `PRAGMA integrity_check`: `["ok"]` when sound.
    var integrity: [String]
    /// `PRAGMA foreign_key_check`: one line per violation.
    var foreignKeyViolations: [String]
    /// The `schemaVersion` recorded in `_molt_metadata`, or nil when it cannot be read as an integer.
    var version: Int?
    var userVersion: Int64
    /// Rows of `_molt_history`.
    var historyCount: Int
    var digest: UInt64

    var isSound: Bool { integrity == ["ok"] && foreignKeyViolations.isEmpty }

    /// Problems found, for a report: integrity, foreign keys, a version recorded in two places that disagree.
    var problems: [String] {
        var lines: [String] = []
        if integrity != ["ok"] { lines.append("integrity_check: " + integrity.prefix(3).joined(separator: "; ")) }
        if !foreignKeyViolations.isEmpty {
            lines.append(
                "foreign_key_check: \(foreignKeyViolations.count) violation(s), first \(foreignKeyViolations[0])")
        }
        if version == nil { lines.append("no readable schemaVersion in _molt_metadata") }
        if let version, Int64(version) != userVersion {
            lines.append("_molt_metadata says version \(version) but PRAGMA user_version is \(userVersion)")
        }
        return lines
    }

    init(_ url: URL) throws {
        let db = try SQLiteConnection(url)
        defer { db.close() }
        integrity = try db.rows("PRAGMA integrity_check").compactMap { $0.first?.text }
        foreignKeyViolations = try db.rows("PRAGMA foreign_key_check").map {
            $0.map(\.description).joined(separator: " ")
        }
        version = try? db.scalar("SELECT value FROM _molt_metadata WHERE key = 'schemaVersion'")?.text.flatMap {
            Int($0)
        }
        userVersion = try db.scalar("PRAGMA user_version")?.int ?? -1
        historyCount = Int((try? db.scalar("SELECT COUNT(*) FROM _molt_history")?.int) ?? -1)
        digest = try StoreProbe.digest(db)
    }

    /// The digest of the schema and of every table but `_molt_history`.
    static func digest(_ db: SQLiteConnection) throws -> UInt64 {
        var fnv = FNV()
        let master = try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        for row in master { for value in row { value.hash(into: &fnv) } }
        let tables = try db.rows(
            """
            SELECT name FROM sqlite_master WHERE type = 'table' AND name <> '_molt_history' AND name NOT LIKE 'sqlite_%'
            ORDER BY name
            """
        ).compactMap { $0.first?.text }
        for table in tables {
            fnv.add(table)
            let quoted = SQLiteValue.identifier(table)
            let columns = try db.columnNames("SELECT * FROM \(quoted)")
            let order = (1...max(columns.count, 1)).map(String.init).joined(separator: ", ")
            try db.forEachRow("SELECT * FROM \(quoted) ORDER BY \(order)") { row in
                for value in row { value.hash(into: &fnv) }
            }
        }
        return fnv.value
    }
}

/// The journal mode written in an SQLite file's header (bytes 18 and 19: 1 for a rollback journal, 2 for WAL).
enum JournalMode: String, Sendable, CaseIterable {
    case wal
    case rollback

    /// The mode of the file at `url`, or nil when its header is not SQLite's.
    init?(ofFileAt url: URL) {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 20), header.count == 20 else { return nil }
        switch header[header.startIndex + 18] {
        case 1: self = .rollback
        case 2: self = .wal
        default: return nil
        }
    }

    /// Switches the closed store at `url` to this mode (`PRAGMA journal_mode`).
    func apply(to url: URL) throws {
        let db = try SQLiteConnection(url)
        defer { db.close() }
        let result = try db.scalar("PRAGMA journal_mode = \(self == .wal ? "WAL" : "DELETE")")?.text
        guard result == (self == .wal ? "wal" : "delete") else {
            throw HarnessError("could not switch \(url.path) to \(rawValue) (SQLite answered \(result ?? "nothing"))")
        }
    }
}
