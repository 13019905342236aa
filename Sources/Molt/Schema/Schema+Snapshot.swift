import Foundation

/// The JSON snapshot form of a schema: stable, human-readable and diff-friendly.
///
/// Keys are sorted, entities and their members keep their declaration order, and default values are written
/// as plain JSON values of the attribute's type (dates as ISO 8601 text, data as Base64, UUIDs as text, decimals
/// as their text, `"19.99"`, so that no JSON reader rounds a digit). The types are named as
/// ``AttributeType``'s raw values (`"int16"`, `"decimal"`, …).
extension Schema: Codable {
    /// The version of the snapshot format that this Molt writes.
    public static let snapshotFormatVersion = 1

    enum CodingKeys: String, CodingKey { case formatVersion, version, entities, deletions, shortOwners }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decodeIfPresent(Int.self, forKey: .formatVersion) ?? 1
        guard format >= 1 else {
            throw MoltError(
                .invalidSchema,
                "The schema snapshot says it uses format \(format), which no Molt ever wrote (formats start at 1): the file is damaged or was not written by Molt. Write it again with `Schema.snapshotJSON()` or `molt schema`."
            )
        }
        guard format <= Schema.snapshotFormatVersion else {
            throw MoltError(
                .unsupportedFormat,
                "The schema snapshot uses format \(format), but this Molt reads format \(Schema.snapshotFormatVersion) at most; update Molt."
            )
        }
        self.init(
            version: try container.decode(Int.self, forKey: .version),
            deleting: try container.decodeIfPresent([Deletion].self, forKey: .deletions) ?? [],
            entities: try container.decode([Entity].self, forKey: .entities))
        shortOwners = try container.decodeIfPresent(ShortOwners.self, forKey: .shortOwners) ?? .kept
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Schema.snapshotFormatVersion, forKey: .formatVersion)
        try container.encode(version, forKey: .version)
        try container.encode(entities, forKey: .entities)
        if !deletions.isEmpty { try container.encode(deletions, forKey: .deletions) }
        if shortOwners != .kept { try container.encode(shortOwners, forKey: .shortOwners) }
    }

    /// The snapshot as pretty-printed JSON with sorted keys.
    ///
    /// ```swift
    /// try v3.snapshotJSON().write(to: snapshotsFolder.appendingPathComponent("3.json"))
    /// ```
    public func snapshotJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a snapshot written by ``snapshotJSON()``, and validates it.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidSchema`` when the JSON is malformed or the
    ///   schema is not valid.
    public init(snapshotJSON data: Data) throws {
        try self.init(unvalidatedSnapshotJSON: data)
        try validate()
    }

    /// Reads a snapshot without validating it: for schemas recorded by an earlier Molt, which a later Molt's
    /// stricter rules must not make unreadable.
    package init(unvalidatedSnapshotJSON data: Data) throws {
        do {
            self = try JSONDecoder().decode(Schema.self, from: data)
        } catch let error as MoltError {
            throw error
        } catch let DecodingError.dataCorrupted(context) {
            var detail = Self.describe(context)
            while detail.hasSuffix(".") { detail.removeLast() }
            throw MoltError(.invalidSchema, "The schema snapshot is not valid JSON: \(detail).")
        } catch let DecodingError.keyNotFound(key, context) {
            throw MoltError(
                .invalidSchema, "The schema snapshot lacks the key '\(key.stringValue)' at \(Self.path(context)).")
        } catch let DecodingError.typeMismatch(_, context) {
            throw MoltError(
                .invalidSchema,
                "The schema snapshot has a value of the wrong type at \(Self.path(context)): \(context.debugDescription)"
            )
        } catch let DecodingError.valueNotFound(_, context) {
            throw MoltError(.invalidSchema, "The schema snapshot lacks a value at \(Self.path(context)).")
        } catch {
            throw MoltError(.invalidSchema, "The schema snapshot could not be read: \(error).")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return path.isEmpty ? "the top level" : "'\(path.hasPrefix(".") ? String(path.dropFirst()) : path)'"
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        if let underlying = context.underlyingError as NSError?,
            let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String
        {
            return detail
        }
        return context.debugDescription
    }

    /// A stable SHA-256 of the schema's structure: the same for the same entities, attributes, types,
    /// optionality, defaults, relationships and indexes, whatever their declaration order. The version number
    /// and the `originalName` migration hints are not part of it.
    public var contentHash: String { derived.contentHash(computeContentHash) }

    /// Whether a store that records schema version `version` with content hash `hash` is already at this schema,
    /// with nothing to migrate: the one rule that opening a store, a dry run and every `molt` command apply.
    package func isRecorded(version: Int, hash: String) -> Bool { version == self.version && hash == contentHash }

    private func computeContentHash() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let canonical = entities.sorted { $0.name < $1.name }.map { entity -> Entity in
            var e = entity
            e.originalName = nil
            e.attributes = e.attributes.sorted { $0.name < $1.name }.map {
                var a = $0; a.originalName = nil; return a
            }
            e.relationships = e.relationships.sorted { $0.name < $1.name }.map {
                var r = $0; r.originalName = nil; return r
            }
            e.indexes = e.indexes.sorted { $0.attributes.lexicographicallyPrecedes($1.attributes) }
            return e
        }
        let data = (try? encoder.encode(canonical)) ?? Data()
        return SHA256.hex([UInt8](data))
    }
}

extension Entity: Codable {
    enum CodingKeys: String, CodingKey {
        case name, parent, isAbstract = "abstract", primaryKey, originalName, attributes, relationships, indexes
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name),
            parent: try c.decodeIfPresent(String.self, forKey: .parent),
            isAbstract: try c.decodeIfPresent(Bool.self, forKey: .isAbstract) ?? false,
            primaryKey: try c.decodeIfPresent(String.self, forKey: .primaryKey),
            originalName: try c.decodeIfPresent(String.self, forKey: .originalName),
            attributes: try c.decodeIfPresent([Attribute].self, forKey: .attributes) ?? [],
            relationships: try c.decodeIfPresent([Relationship].self, forKey: .relationships) ?? [],
            indexes: try c.decodeIfPresent([Index].self, forKey: .indexes) ?? [])
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        // Written only when set: a schema without inheritance has the snapshot and content hash it always had.
        try c.encodeIfPresent(parent, forKey: .parent)
        if isAbstract { try c.encode(true, forKey: .isAbstract) }
        try c.encodeIfPresent(primaryKey, forKey: .primaryKey)
        try c.encodeIfPresent(originalName, forKey: .originalName)
        try c.encode(attributes, forKey: .attributes)
        if !relationships.isEmpty { try c.encode(relationships, forKey: .relationships) }
        if !indexes.isEmpty { try c.encode(indexes, forKey: .indexes) }
    }
}

extension Attribute: Codable {
    enum CodingKeys: String, CodingKey { case name, type, optional, `default`, shape, originalName }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let name = try c.decode(String.self, forKey: .name)
        let type = try c.decode(AttributeType.self, forKey: .type)
        var defaultValue: Value?
        if c.contains(.default), try !c.decodeNil(forKey: .default) {
            defaultValue = try Value.decode(type, from: c, forKey: .default)
        }
        self.init(
            name, type, isOptional: try c.decodeIfPresent(Bool.self, forKey: .optional) ?? false,
            default: defaultValue, shape: try c.decodeIfPresent(ValueShape.self, forKey: .shape),
            originalName: try c.decodeIfPresent(String.self, forKey: .originalName))
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(type, forKey: .type)
        try c.encode(isOptional, forKey: .optional)
        if let defaultValue { try defaultValue.encode(to: &c, forKey: .default) }
        // Written only when set: a schema without JSON values has the snapshot and content hash it always had.
        try c.encodeIfPresent(shape, forKey: .shape)
        try c.encodeIfPresent(originalName, forKey: .originalName)
    }
}

extension Relationship: Codable {
    enum CodingKeys: String, CodingKey {
        case name, destination, kind, ordered, inverse, deleteRule, originalName, optional, minimumCount
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        destination = try c.decode(String.self, forKey: .destination)
        kind = try c.decode(Kind.self, forKey: .kind)
        isOrdered = try c.decodeIfPresent(Bool.self, forKey: .ordered) ?? false
        inverse = try c.decodeIfPresent(String.self, forKey: .inverse)
        deleteRule = try c.decodeIfPresent(DeleteRule.self, forKey: .deleteRule) ?? .nullify
        originalName = try c.decodeIfPresent(String.self, forKey: .originalName)
        isOptional = try c.decodeIfPresent(Bool.self, forKey: .optional) ?? true
        minimumCount = try c.decodeIfPresent(Int.self, forKey: .minimumCount) ?? 0
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(destination, forKey: .destination)
        try c.encode(kind, forKey: .kind)
        if kind == .toMany { try c.encode(isOrdered, forKey: .ordered) }
        try c.encodeIfPresent(inverse, forKey: .inverse)
        try c.encode(deleteRule, forKey: .deleteRule)
        try c.encodeIfPresent(originalName, forKey: .originalName)
        // Written only when required: the snapshots and content hashes of optional relationships never change.
        if !isOptional { try c.encode(false, forKey: .optional) }
        // Likewise written only when there is a minimum (a negative one too, so that validation names it).
        if minimumCount != 0 { try c.encode(minimumCount, forKey: .minimumCount) }
    }
}

extension Value {
    /// Decodes a value of `type` written as a plain JSON value.
    static func decode<K: CodingKey>(
        _ type: AttributeType, from c: KeyedDecodingContainer<K>, forKey key: K
    ) throws -> Value {
        func corrupt(_ what: String) -> DecodingError {
            .dataCorruptedError(forKey: key, in: c, debugDescription: "expected \(what) for a \(type.rawValue) default")
        }
        switch type {
        case .string: return .string(try c.decode(String.self, forKey: key))
        case .int, .int16, .int32: return .int(try c.decode(Int64.self, forKey: key))
        case .double, .float: return .double(try c.decode(Double.self, forKey: key))
        case .decimal:
            // Text, so that no JSON reader rounds a digit away.
            guard let decimal = DecimalText.decimal(fromText: try c.decode(String.self, forKey: key)) else {
                throw corrupt("decimal text (\"19.99\")")
            }
            return .decimal(decimal)
        case .bool: return .bool(try c.decode(Bool.self, forKey: key))
        case .date:
            guard let date = SnapshotDates.parse(try c.decode(String.self, forKey: key)) else {
                throw corrupt("an ISO 8601 date")
            }
            return .date(date)
        case .data:
            guard let data = Data(base64Encoded: try c.decode(String.self, forKey: key)) else {
                throw corrupt("Base64 text")
            }
            return .data(data)
        case .uuid:
            guard let uuid = UUID(uuidString: try c.decode(String.self, forKey: key)) else { throw corrupt("a UUID") }
            return .uuid(uuid)
        }
    }

    /// Encodes the value as a plain JSON value.
    func encode<K: CodingKey>(to c: inout KeyedEncodingContainer<K>, forKey key: K) throws {
        switch self {
        case .null: try c.encodeNil(forKey: key)
        case .string(let v): try c.encode(v, forKey: key)
        case .int(let v): try c.encode(v, forKey: key)
        case .double(let v): try c.encode(v, forKey: key)
        case .bool(let v): try c.encode(v, forKey: key)
        case .date(let v): try c.encode(SnapshotDates.text(v), forKey: key)
        case .data(let v): try c.encode(v.base64EncodedString(), forKey: key)
        case .uuid(let v): try c.encode(v.uuidString, forKey: key)
        case .decimal(let v): try c.encode(DecimalText.text(v), forKey: key)
        }
    }
}

/// Dates in snapshots: ISO 8601 with milliseconds, as every snapshot has been written (the content hash of a
/// recorded schema depends on this text, so it never changes).
enum SnapshotDates {
    static func text(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Whether `text` has the shape `parse` hands to the formatter: ISO 8601's date and time, a fraction of at
    /// most nine digits, `Z` or an offset. ICU's parser on Linux traps (SIGFPE) on a fraction of dozens of
    /// digits, so text of any other shape is refused before it gets there (found by `Fuzz/run snapshot`).
    static func hasShape(_ text: String) -> Bool {
        (try? #/-?[0-9]{4,6}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:?[0-9]{2})/#
            .wholeMatch(in: text)) != nil
    }

    static func parse(_ text: String) -> Date? {
        guard hasShape(text) else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
