import GRDB

extension Store {
    /// Reads objects without blocking the caller: the body runs on the store's serial queue, and the task
    /// waits for it.
    ///
    /// Safe under Swift 6 strict concurrency: the body is `@Sendable`, and what it returns must be `Sendable`
    /// (models are).
    ///
    /// ```swift
    /// let notes = try await store.asyncRead { objects in
    ///     try objects.fetch(Note.self, where: \.count > 3)
    /// }
    /// ```
    ///
    /// - Parameter body: Reads through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    public func asyncRead<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        let schema = self.schema
        let layout = self.layout
        do {
            return try await queue.read { db in try body(Objects(db: db, schema: schema, layout: layout, isWritable: false)) }
        } catch {
            throw Store.mapped(error)
        }
    }

    /// Writes objects in one transaction without blocking the caller: everything the body does is committed
    /// together, or not at all when it throws.
    ///
    /// ```swift
    /// let saved = try await store.asyncWrite { objects in
    ///     try objects.insert(Note(title: "Milk"))
    /// }
    /// ```
    ///
    /// - Parameter body: Writes through ``Objects``; what it returns is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    public func asyncWrite<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        let schema = self.schema
        let layout = self.layout
        do {
            return try await queue.write { db in try body(Objects(db: db, schema: schema, layout: layout, isWritable: true)) }
        } catch {
            throw Store.mapped(error)
        }
    }

    /// `error` as a ``MoltError`` when it comes from SQLite; other errors unchanged.
    static func mapped(_ error: any Error) -> any Error {
        do {
            return try mappingErrors { () -> any Error in throw error }
        } catch {
            return error
        }
    }
}
