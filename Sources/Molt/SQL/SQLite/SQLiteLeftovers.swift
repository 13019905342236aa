import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What lies beside an SQLite file before a read-only opening: a live connection, a rollback journal or a
/// write-ahead log left by a process that died, or harmless debris — and so how to read the file without
/// writing a byte of it or of anything beside it.
///
/// SQLite's own read-only mode is not enough: it creates `-wal` and `-shm` files for a WAL store and leaves
/// them behind, and a writable connection recovers a journal (changing the store) before it reads. So a reader
/// looks first, then picks one of the ``Plan`` cases, or refuses with ``MoltError/Code/needsRecovery`` when only a
/// writer may recover what a dead process left.
///
/// ```swift
/// switch try SQLiteLeftovers(path: path).readingPlan() {
/// case .readOnly: …          // SQLite's read-only mode, with locks: another process is using the file
/// case .writableQueryOnly: … // a WAL store with nothing beside it: the -wal and -shm files go away on close
/// case .immutable: …         // nothing beside the file holds committed data: read the file alone
/// }
/// ```
struct SQLiteLeftovers {
    /// How to open the file for reading.
    enum Plan: Equatable {
        /// `SQLITE_OPEN_READONLY` with SQLite's locks: another connection uses the file, or a stale WAL comes with
        /// its index (reading through it changes only the `-shm` index).
        case readOnly
        /// A writable connection with `PRAGMA query_only`: for a WAL store with nothing beside it, whose `-wal` and
        /// `-shm` files the connection creates and, as the last one, removes.
        case writableQueryOnly
        /// `immutable=1`: nothing beside the file holds committed data (no journal, an empty, foreign or
        /// uncommitted WAL), so the file alone is the last committed state and nothing beside it is touched.
        case immutable
    }

    let path: String

    private func exists(_ suffix: String) -> Bool { FileManager.default.fileExists(atPath: path + suffix) }

    /// Whether the file has a `-wal` and its `-shm` beside it.
    var hasSharedMemory: Bool { exists(SQLiteFiles.wal) && exists(SQLiteFiles.shm) }

    private func size(_ suffix: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? Int) ?? 0
    }

    /// What a process that died while writing left, which a writable connection recovers.
    enum Leftover {
        /// A hot rollback journal: the transaction it records must be rolled back.
        case journal
        /// A write-ahead log with committed changes not yet copied into the file.
        case log
    }

    /// The journal or log a dead writer left, when no other process uses the file.
    func recoverableLeftover() -> Leftover? {
        // A connection of this process holds the file: nothing is left over (and the file must not be opened
        // here: closing a descriptor would release that connection's locks).
        if SQLiteOpenFiles.isOpen(path) || isInUse() { return nil }
        if hasHotJournal() { return .journal }
        if exists(SQLiteFiles.wal) && SQLiteWALFile(path: path + SQLiteFiles.wal).hasCommittedFrames() { return .log }
        return nil
    }

    /// How to read the file, or an error when a dead writer left a journal or a log only a writer may recover.
    ///
    /// - Throws: ``MoltError/Code/needsRecovery`` naming the file left behind and the command that recovers it.
    func readingPlan() throws -> Plan {
        if SQLiteOpenFiles.isOpen(path) || isInUse() { return .readOnly }
        switch recoverableLeftover() {
        case .journal:
            throw needsRecovery(
                "a rollback journal (\(path)-journal, \(size(SQLiteFiles.journal)) bytes) left by a process that stopped in the middle of a write"
            )
        case .log:
            // Committed changes not yet copied into the file: SQLite reads them through the index, which is mapped
            // read-only (`readonly_shm`); without one it would create it.
            if isWALMode() && exists(SQLiteFiles.shm) { return .readOnly }
            throw needsRecovery(
                "a write-ahead log (\(path)-wal, \(size(SQLiteFiles.wal)) bytes) with committed changes, left by a process that stopped before it closed the store"
            )
        case nil:
            // A header whose journal versions SQLite does not know as a writer (3 and up makes the file read-only
            // to SQLite, which then cannot remove the `-wal` and `-shm` a WAL reader creates) is read alone too.
            if exists(SQLiteFiles.wal) || exists(SQLiteFiles.shm) || !hasKnownFormatVersions() { return .immutable }
            return isWALMode() ? .writableQueryOnly : .readOnly
        }
    }

    private func needsRecovery(_ what: String) -> MoltError {
        MoltError(
            .needsRecovery,
            "The store at \(path) has \(what). A read command does not apply or discard it, and nothing was written. Run `molt recover \(path)` (or open the store for writing with `Store.open`), then try again."
        )
    }

    /// Whether bytes 18 and 19 of the header say write-ahead logging.
    func isWALMode() -> Bool {
        formatVersions()?.write == 2
    }

    /// Whether the header's file format write and read versions (bytes 18 and 19) are each 1 (rollback
    /// journal) or 2 (write-ahead log) and its schema format (bytes 44–47) is one SQLite knows (1 to 4); true
    /// for a file too short to have a header (SQLite writes one).
    func hasKnownFormatVersions() -> Bool {
        guard let versions = formatVersions() else { return true }
        return (1...2).contains(versions.write) && (1...2).contains(versions.read) && (1...4).contains(versions.schema)
    }

    private func formatVersions() -> (write: UInt8, read: UInt8, schema: UInt32)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 48), header.count == 48 else { return nil }
        let bytes = [UInt8](header)
        let schema = bytes[44..<48].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return (bytes[18], bytes[19], schema)
    }

    /// Whether another process holds an SQLite lock on the file (a WAL connection holds a shared one for its
    /// whole life; a rollback-journal writer a reserved one for its transaction). Only for a file this process
    /// has no connection to (``SQLiteOpenFiles``): it opens and closes the file.
    func isInUse() -> Bool {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0000  // SQLite's PENDING_BYTE: pending, reserved and shared locks follow it
        lock.l_len = 512
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return false }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// SQLite's rule: a journal that exists, is not empty and does not start with a zero byte, with no writer
    /// holding the file.
    func hasHotJournal() -> Bool {
        guard exists(SQLiteFiles.journal), size(SQLiteFiles.journal) > 0 else { return false }
        guard let handle = FileHandle(forReadingAtPath: path + SQLiteFiles.journal) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 1))?.first.map { $0 != 0 } ?? false
    }
}

/// A write-ahead log read as SQLite recovers it: the header, then frames whose salts match it and whose
/// running checksum holds, up to the first that does not.
struct SQLiteWALFile {
    let path: String

    /// Whether the log holds at least one valid commit frame: changes a reader of the main file alone would miss.
    func hasCommittedFrames() -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 32), header.count == 32 else { return false }
        let bytes = [UInt8](header)
        let magic = Self.bigEndian(bytes, 0)
        guard magic & 0xFFFF_FFFE == 0x377F_0682 else { return false }
        let littleEndian = magic & 1 == 0  // 0x…82: checksums over little-endian words
        let pageSize = Int(Self.bigEndian(bytes, 8))
        guard pageSize >= 512, pageSize <= 65_536, pageSize & (pageSize - 1) == 0 else { return false }
        var sum = Self.checksum(bytes[0..<24], littleEndian, (0, 0))
        guard sum == (Self.bigEndian(bytes, 24), Self.bigEndian(bytes, 28)) else { return false }
        let salts = (Self.bigEndian(bytes, 16), Self.bigEndian(bytes, 20))
        while let frame = try? handle.read(upToCount: 24 + pageSize), frame.count == 24 + pageSize {
            let frameBytes = [UInt8](frame)
            guard (Self.bigEndian(frameBytes, 8), Self.bigEndian(frameBytes, 12)) == salts else { return false }
            sum = Self.checksum(frameBytes[0..<8], littleEndian, sum)
            sum = Self.checksum(frameBytes[24...], littleEndian, sum)
            guard sum == (Self.bigEndian(frameBytes, 16), Self.bigEndian(frameBytes, 20)) else { return false }
            if Self.bigEndian(frameBytes, 4) != 0 { return true }
        }
        return false
    }

    private static func bigEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }

    /// SQLite's WAL checksum over 8-byte chunks, continuing from `start`.
    private static func checksum(
        _ bytes: ArraySlice<UInt8>, _ littleEndian: Bool, _ start: (UInt32, UInt32)
    ) -> (UInt32, UInt32) {
        var (s1, s2) = start
        var index = bytes.startIndex
        func word(_ i: Int) -> UInt32 {
            littleEndian
                ? UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                : UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
        }
        while index + 8 <= bytes.endIndex {
            s1 &+= word(index) &+ s2
            s2 &+= word(index + 4) &+ s1
            index += 8
        }
        return (s1, s2)
    }
}
