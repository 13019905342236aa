/// The names of earlier releases, kept for one release so that code written against them still compiles (with a
/// deprecation warning whose fix-it writes the new name). See the "Migrating to this release" article.
extension Store {
    /// Reads objects off the caller's thread: the earlier name of the async `read(_:)`.
    ///
    /// ```swift
    /// let notes = try await store.asyncRead { objects in try objects.fetch(Note.self) }   // before
    /// let notes = try await store.read { objects in try objects.fetch(Note.self) }        // now
    /// ```
    ///
    /// - Parameter body: Reads through ``Objects``; what it returns (a `Sendable` value) is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @available(
        *, deprecated, renamed: "read(_:)",
        message: "asyncRead is the async overload of read: write `try await store.read { … }`."
    )
    @discardableResult
    public func asyncRead<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        try await read(body)
    }

    /// Writes objects in one transaction off the caller's thread: the earlier name of the async `write(_:)`.
    ///
    /// ```swift
    /// try await store.asyncWrite { objects in try objects.insert(Note(title: "Milk")) }   // before
    /// try await store.write { objects in try objects.insert(Note(title: "Milk")) }        // now
    /// ```
    ///
    /// - Parameter body: Writes through ``Objects``; what it returns (a `Sendable` value) is returned.
    /// - Throws: What `body` throws, or a ``MoltError``.
    @available(
        *, deprecated, renamed: "write(_:)",
        message: "asyncWrite is the async overload of write: write `try await store.write { … }`."
    )
    @discardableResult
    public func asyncWrite<T: Sendable>(_ body: @escaping @Sendable (Objects) throws -> T) async throws -> T {
        try await write(body)
    }
}
