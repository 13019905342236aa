extension Store {
    /// Runs the reads of one or several observations in one read transaction (on a connection of its own in WAL
    /// mode, see ``SQLDatabase/observationRead(_:)``), after a check in the same transaction that the store is
    /// still at the schema it was opened at: each read with the tables it touches recorded, and what it throws
    /// kept as its own outcome. The check is one cached lookup in the metadata table; it keeps results from ever
    /// being decoded with a schema another process migrated the store away from.
    ///
    /// - Returns: Each read's outcome, in order: the tables it read, or what it threw; and the token of the
    ///   state they saw, where the engine gives one (``SQLDatabase/observationRead(_:)``).
    /// - Throws: ``MoltError/Code/storeIsNewer`` when another opening migrated the store; a ``MoltError`` of the
    ///   engine (the store is closed).
    package func observedReads(
        _ reads: [(Objects) throws -> Void]
    ) throws -> (outcomes: [Result<Set<String>, any Error>], state: Int64?) {
        let (schema, layout) = (self.schema, self.layout)
        let (outcomes, state) = try database.observationRead { db in
            try self.checkStillAtSchema(db)
            return reads.map { read -> Result<Set<String>, any Error> in
                let access = TableAccess()
                do {
                    try read(Objects(db: db, schema: schema, layout: layout, isWritable: false, access: access))
                    return .success(access.read)
                } catch {
                    return .failure(error)
                }
            }
        }
        return (outcomes, state)
    }

    /// Throws when the schema hash the store records is no longer the one it was opened at.
    private func checkStillAtSchema(_ db: any SQLConnection) throws {
        guard try StoreMetadata.value(of: "schemaHash", in: db) != (recordedHash ?? schema.contentHash) else { return }
        let version = try StoreMetadata.value(of: "schemaVersion", in: db) ?? "?"
        throw MoltError(
            .storeIsNewer,
            "The store at \(database.location) was migrated to schema version \(version) by another opening (a newer version of the app, or another process) while this observation read it at version \(schema.version); the observation ended rather than read objects of version \(version) with the schema of version \(schema.version). Open the store again with the schema of version \(version) to observe it."
        )
    }

    /// Starts noticing the commits of other connections, if the engine can tell of them (see ``StoreChanges``).
    package func startNoticingOtherConnections() {
        changes.startNoticing(database)
    }
}
