extension Store {
    /// The object of an entity with this identifier, or nil, read in one statement without blocking the caller
    /// or a thread of Swift's cooperative pool: what a server does most.
    ///
    /// It reads what `try await store.read { try $0.object(entityName, id: id) }` reads, and costs less on
    /// PostgreSQL: one `SELECT` sees one state by itself, so it is sent without a transaction around it (a
    /// `BEGIN` and a `COMMIT` are two more round trips to the server). Reads that need several statements to
    /// agree go through `store.read { … }`.
    ///
    /// ```swift
    /// let note = try await store.object("Note", id: 42)
    /// ```
    ///
    /// - Parameters:
    ///   - entityName: The entity.
    ///   - id: The object's `_id`.
    /// - Throws: ``MoltError`` for an unknown entity, a value the store holds that does not fit its attribute, or
    ///   a failure of the store.
    public func object(_ entityName: String, id: Int64) async throws -> DynamicObject? {
        // A read-only store checks the recorded schema first: a second statement, so a transaction.
        guard recordedHash == nil else { return try await read { try $0.object(entityName, id: id) } }
        let (schema, layout) = (self.schema, self.layout)
        return try await database.readOneStatement { db in
            try Objects(db: db, schema: schema, layout: layout, isWritable: false).object(entityName, id: id)
        }
    }
}
