import Foundation

/// Brings another engine's store (Core Data, SwiftData, GRDB, plain SQLite) into Molt, once, before
/// ``Store/open(at:schema:options:)-7fe3v`` opens the store: set it with ``Store/Options/adopting(_:)``.
///
/// The `MoltAdoption` library provides the adoptions (`.coreData(model:)`, `.sqlite(mapping:)`); an opening
/// calls ``adoptIfNeeded(at:schema:options:)`` first, which does nothing when the file is already a Molt
/// store (or there is none), so the option can stay on in every release of the app:
///
/// ```swift
/// import MoltAdoption
///
/// let store = try Store.open(
///     at: url, schema: v7,
///     options: .init().migrating(with: plan).adopting(.coreData(model: modelURL)))
/// ```
public protocol StoreAdoption: Sendable {
    /// Turns the foreign store at `location` into a Molt store at `schema`'s version, or does nothing when
    /// `location` holds a Molt store already or nothing at all. Until the new store is complete and validated,
    /// the original is left as it was; on any error it is left as it was.
    ///
    /// - Parameters:
    ///   - location: Where the app opens its store.
    ///   - schema: The schema the app opens the store with.
    ///   - options: The opening's options (its plan walks the adopted store to `schema`), without the adoption.
    func adoptIfNeeded(at location: StoreLocation, schema: Schema, options: Store.Options) throws
}

extension Store.Options {
    /// A copy that first adopts a foreign store found where the Molt store should be.
    ///
    /// ```swift
    /// let options = Store.Options().migrating(with: plan).adopting(.coreData(model: modelURL))
    /// ```
    public func adopting(_ adoption: some StoreAdoption) -> Store.Options {
        var copy = self
        copy.adoption = adoption
        return copy
    }
}

/// Where an adopted store came from: recorded once, by the adoption, and shown by ``Store/inspect(at:countingObjects:)-(URL,_)``
/// and `molt info`.
public struct AdoptionRecord: Hashable, Sendable, Codable {
    /// The engine that wrote the original: `Core Data`, `GRDB`, `SQLite`.
    public var engine: String
    /// The original's own version names: Core Data's model version identifiers and the model version it matched,
    /// GRDB's last migration, or `user_version`.
    public var sourceVersions: [String]
    /// The path the original was read from.
    public var source: String
    /// The version of the Molt schema the original was written as, before the plan walked it on.
    public var adoptedAtVersion: Int
    /// The objects of each entity copied, by the entity's name at ``adoptedAtVersion``.
    public var objectCounts: [String: Int]
    /// What the adoption left out because it is the engine's housekeeping, not the app's data (Core Data's
    /// persistent history, its model cache), one line each.
    public var leftOut: [String]
    /// The to-many relationships that copied objects hold fewer destinations through than the relationship's
    /// ``Relationship/minimumCount``, one line each, with how many and the first identifiers: kept as they are
    /// (Core Data checks minimum counts only when it saves an object, and a lightweight migration that adds a
    /// required to-many leaves the existing objects without one), and held to the minimum by the writes that
    /// change them; ``Store/verify()`` reports them. Empty for a record written before this field existed.
    public var underMinimumCount: [String]
    /// When the adoption committed.
    public var adoptedAt: Date

    public init(
        engine: String, sourceVersions: [String], source: String, adoptedAtVersion: Int, objectCounts: [String: Int],
        leftOut: [String], underMinimumCount: [String] = [], adoptedAt: Date
    ) {
        self.engine = engine
        self.sourceVersions = sourceVersions
        self.source = source
        self.adoptedAtVersion = adoptedAtVersion
        self.objectCounts = objectCounts
        self.leftOut = leftOut
        self.underMinimumCount = underMinimumCount
        self.adoptedAt = adoptedAt
    }

    private enum CodingKeys: String, CodingKey {
        case engine, sourceVersions, source, adoptedAtVersion, objectCounts, leftOut, underMinimumCount, adoptedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        engine = try container.decode(String.self, forKey: .engine)
        sourceVersions = try container.decode([String].self, forKey: .sourceVersions)
        source = try container.decode(String.self, forKey: .source)
        adoptedAtVersion = try container.decode(Int.self, forKey: .adoptedAtVersion)
        objectCounts = try container.decode([String: Int].self, forKey: .objectCounts)
        leftOut = try container.decode([String].self, forKey: .leftOut)
        // Absent from the records of earlier releases.
        underMinimumCount = try container.decodeIfPresent([String].self, forKey: .underMinimumCount) ?? []
        adoptedAt = try container.decode(Date.self, forKey: .adoptedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(engine, forKey: .engine)
        try container.encode(sourceVersions, forKey: .sourceVersions)
        try container.encode(source, forKey: .source)
        try container.encode(adoptedAtVersion, forKey: .adoptedAtVersion)
        try container.encode(objectCounts, forKey: .objectCounts)
        try container.encode(leftOut, forKey: .leftOut)
        // Only when there is one, so that a record (and `molt info --json`) without any reads as before.
        if !underMinimumCount.isEmpty { try container.encode(underMinimumCount, forKey: .underMinimumCount) }
        try container.encode(adoptedAt, forKey: .adoptedAt)
    }
}

extension StoreMetadata {
    static let adoptionKey = "adoption"

    /// Records where an adopted store came from, in the adoption's transaction.
    package static func write(_ adoption: AdoptionRecord, in db: any SQLConnection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let json = String(decoding: try encoder.encode(adoption), as: UTF8.self)
        try db.execute(
            .bookkeeping,
            "INSERT INTO \(db.dialect.quote(table)) (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [.string(adoptionKey), .string(json)])
    }

    /// The adoption record, if the store was adopted.
    static func adoption(_ db: any SQLConnection) throws -> AdoptionRecord? {
        guard let json = try values(of: [adoptionKey], in: db)[adoptionKey] else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        do {
            return try decoder.decode(AdoptionRecord.self, from: Data(json.utf8))
        } catch {
            throw MoltError(
                .corruptStore,
                "The store's adoption record (table \(table), key '\(adoptionKey)') cannot be read: \(error). Restore the store from a backup."
            )
        }
    }
}

extension Objects {
    /// Records where the store came from, in the adoption's transaction.
    package func recordAdoption(_ record: AdoptionRecord) throws {
        try requireWritable()
        try StoreMetadata.write(record, in: db)
    }
}
