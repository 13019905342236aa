import GRDB

/// Observed reads on a connection of their own: in WAL mode SQLite lets readers run beside the writer, each on
/// the last state committed when its transaction began. On the store's one connection, every commit made the
/// next write wait for the reads of every observation it concerned (ten observations: ten reads per commit);
/// here they run beside the writes and coalesce, a read that runs while several commits land seeing all of them.
extension SQLiteDatabase {
    /// The state of the observation reader: not opened yet, open, not to be used (not a writable WAL file), or
    /// closed with the database.
    enum ObservationReader {
        case unopened
        case open(DatabaseQueue)
        case unavailable
        case closed
    }

    /// True: observed reads run on the one observation reader (in WAL mode) or on the store's one connection.
    package var observedReadsTakeTurns: Bool { true }

    package func observationRead<T>(_ body: (any SQLConnection) throws -> T) throws -> (value: T, state: Int64?) {
        guard let reader = try openObservationReader() else { return (try read(body), nil) }
        do {
            // In the read's transaction: the reader writes nothing, so its `data_version` moves exactly when the
            // commits it sees do, and two reads that give the same one saw the same state of the file.
            return try reader.read { db in
                let value = try body(SQLiteConnection(db))
                return (value, try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")))
            }
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, .objects)
        }
    }

    /// The reader, opened the first time: a read-only connection to the file with Molt's SQL functions, or nil
    /// for a store in memory, read-only, immutable or not in WAL mode (a reader in rollback mode would hold a
    /// shared lock that makes the store's own commits wait), and once the database is closed.
    private func openObservationReader() throws -> DatabaseQueue? {
        try observationReader.withLock { state in
            switch state {
            case .open(let reader): return reader
            case .unavailable, .closed: return nil
            case .unopened: break
            }
            guard path != ":memory:", !settings.readOnly, !settings.immutable, !settings.queryOnly,
                try journalMode() == "wal"
            else {
                state = .unavailable
                return nil
            }
            // Opened read-only (as GRDB's pool opens its readers): a `query_only` connection would be switched
            // to `query_only = 1` and back by GRDB around each read, two statements more per observed read.
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(settings.busyTimeout)
            configuration.journalMode = .default
            configuration.prepareDatabase { db in SQLiteFunctions.register(in: db) }
            do {
                let reader = try DatabaseQueue(path: path, configuration: configuration)
                state = .open(reader)
                return reader
            } catch let error as DatabaseError {
                throw SQLiteErrors.map(error, .file(path))
            }
        }
    }

    /// Closes the reader (after the read under way on it, if any); no observed read opens it again.
    func closeObservationReader() throws {
        let reader = observationReader.withLock { state -> DatabaseQueue? in
            defer { state = .closed }
            if case .open(let reader) = state { return reader }
            return nil
        }
        do {
            try reader?.close()
        } catch let error as DatabaseError {
            throw SQLiteErrors.map(error, .file(path))
        }
    }
}
