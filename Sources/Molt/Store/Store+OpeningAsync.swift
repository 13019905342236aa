import Foundation

extension Store {
    /// Opens (creating or migrating) the store off the caller's thread: the explicit moment a migration runs,
    /// never lazily on whatever thread touches the store first.
    ///
    /// The opening, its migration and its wait for another opener's lock run on a thread of their own, never on
    /// a thread of Swift's cooperative pool; the task awaits the result. Cancelling the calling task cancels a
    /// running migration, which rolls back. As with GRDB's `write`, the asynchronous overload is the one an
    /// `async` function calls.
    ///
    /// ```swift
    /// let store = try await Store.open(at: url, schema: v6, options: .init().migrating(with: plan))
    /// ```
    public static func open(at url: URL, schema: Schema, options: Options = Options()) async throws -> Store {
        try await open(at: .file(url), schema: schema, options: options)
    }

    /// Opens (creating or migrating) the store at `location` off the caller's thread.
    public static func open(
        at location: StoreLocation, schema: Schema, options: Options = Options()
    ) async throws -> Store {
        let opening = opening(at: location, schema: schema, options: options)
        return try await withTaskCancellationHandler {
            try await opening.store
        } onCancel: {
            opening.cancel()
        }
    }

    /// Starts opening the store in the background and returns at once, with the migration's progress as an
    /// async sequence a UI can observe, and the store to await.
    ///
    /// ```swift
    /// let opening = Store.opening(at: url, schema: v6, options: .init().migrating(with: plan))
    /// Task { for await step in opening.progress { progressView.value = step.fractionCompleted } }
    /// let store = try await opening.store
    /// ```
    public static func opening(at url: URL, schema: Schema, options: Options = Options()) -> Opening {
        opening(at: .file(url), schema: schema, options: options)
    }

    /// Starts opening the store at `location` in the background; see ``opening(at:schema:options:)-(URL,_,_)``.
    public static func opening(at location: StoreLocation, schema: Schema, options: Options = Options()) -> Opening {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MigrationProgress.self, bufferingPolicy: .bufferingNewest(64))
        var options = options
        let cancellation = options.cancellation ?? MigrationCancellation()
        options.cancellation = cancellation
        let forward = options.progress
        options.progress = { progress in
            forward?(progress)
            continuation.yield(progress)
        }
        let opening = options
        let task = Task<Store, Error> {
            try await withCheckedThrowingContinuation { result in
                // A thread of its own: a migration (or a wait for another process's) can take minutes, and must
                // not hold one of the few threads every task of the app shares.
                let thread = Thread {
                    defer { continuation.finish() }
                    result.resume(with: Result { try Store.open(at: location, schema: schema, options: opening) })
                }
                thread.name = "Molt opening \(location)"
                thread.qualityOfService = .userInitiated
                thread.start()
            }
        }
        return Opening(progress: stream, task: task, cancellation: cancellation)
    }

    /// A store being opened in the background: its migration's progress, and the store when it is ready.
    public struct Opening: Sendable {
        /// The migration's progress; it finishes when the opening does.
        public let progress: AsyncStream<MigrationProgress>
        let task: Task<Store, Error>
        let cancellation: MigrationCancellation

        /// The opened store, once created, opened or migrated.
        ///
        /// - Throws: What ``Store/open(at:schema:options:)-7fe3v`` throws.
        public var store: Store {
            get async throws { try await task.value }
        }

        /// Cancels the migration, which rolls back; ``store`` then throws ``MoltError/Code/cancelled``.
        public func cancel() { cancellation.cancel() }
    }
}
