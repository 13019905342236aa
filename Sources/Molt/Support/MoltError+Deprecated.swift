/// The names of earlier releases, kept for one release so that code written against them still compiles (with a
/// deprecation warning). See the "Migrating to this release" article.
extension MoltError {
    /// The description of the error that caused this one: the earlier, text-only form of ``cause``.
    ///
    /// ```swift
    /// log(error.underlying ?? "")                                   // before
    /// log(error.cause.map { String(describing: $0) } ?? "")          // now: the error itself is kept
    /// ```
    @available(
        *, deprecated, renamed: "cause",
        message:
            "MoltError keeps the error that caused it: read `cause` (an `any Error`), and `String(describing:)` it for the text."
    )
    public var underlying: String? {
        cause.map { String(describing: $0) }
    }

    /// Creates an error whose cause is known only as text: the earlier form of
    /// `init(_:_:entity:property:sql:cause:)`.
    ///
    /// ```swift
    /// MoltError(.ioError, "Cannot read the backup.", underlying: "\(error)")   // before
    /// MoltError(.ioError, "Cannot read the backup.", cause: error)             // now
    /// ```
    ///
    /// - Parameters:
    ///   - code: What kind of problem it is.
    ///   - message: Sentences that name the problem and the fix.
    ///   - entity: The entity concerned.
    ///   - property: The attribute or relationship concerned.
    ///   - underlying: The description of the underlying error; it becomes ``cause``, an error whose description
    ///     is this text.
    @available(*, deprecated, message: "Pass the error itself as `cause:` instead of its description as `underlying:`.")
    public init(_ code: Code, _ message: String, entity: String? = nil, property: String? = nil, underlying: String?) {
        self.init(code, message, entity: entity, property: property, cause: underlying.map(DescribedCause.init))
    }
}

/// The cause of an error created with the deprecated `underlying:` text.
private struct DescribedCause: Error, CustomStringConvertible {
    let description: String
}
