/// The database engine a store lives in: SQLite, or PostgreSQL (`MoltPostgres`).
///
/// Mapping expressions are SQL that runs in that engine: most are written once in the portable subset both
/// engines read alike, and an ``EntityMapping``'s ``EntityMapping/overrides`` give one engine its own SQL for
/// the rest.
public enum DatabaseEngine: String, Codable, CodingKeyRepresentable, CaseIterable, Sendable, Hashable {
    /// A file (or memory) store: SQLite.
    case sqlite
    /// A namespace of a PostgreSQL database (`MoltPostgres`).
    case postgresql

    /// The engine's name, for messages: "SQLite", "PostgreSQL".
    public var name: String {
        switch self {
        case .sqlite: return "SQLite"
        case .postgresql: return "PostgreSQL"
        }
    }
}
