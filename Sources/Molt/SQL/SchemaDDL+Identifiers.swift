extension SchemaDDL {
    /// The longest prefix Molt puts before a table's or a column's name for its working copies during a
    /// migration (`_molt_old_`, `_molt_new_`, `_molt_add_`).
    static let workingPrefixLength = 10

    /// The most bytes a name of the schema (an entity, an attribute, a relationship, a to-many relationship's
    /// table) may have in this dialect: what it keeps of an identifier, less room for Molt's working prefixes;
    /// nil when the dialect keeps names whole (SQLite).
    package var maximumNameLength: Int? { dialect.maximumIdentifierLength.map { $0 - Self.workingPrefixLength } }

    /// Throws the refusal for the first name of `schemas` this dialect would cut (``tooLongName(in:)``), before
    /// any of their tables is made: where a store is created and where a run (or its dry run) begins.
    package func checkNames(of schemas: [Schema]) throws {
        for schema in schemas { if let error = tooLongName(in: schema) { throw error } }
    }

    /// The refusal for the first name of `schema` this dialect would cut (PostgreSQL keeps 63 bytes of an
    /// identifier and silently drops the rest, which can make two names one), or nil when every name fits.
    package func tooLongName(in schema: Schema) -> MoltError? {
        guard let limit = maximumNameLength, let kept = dialect.maximumIdentifierLength else { return nil }
        func refusal(_ subject: String, _ name: String, entity: String, property: String? = nil) -> MoltError? {
            guard name.utf8.count > limit else { return nil }
            return MoltError(
                .invalidSchema,
                "Invalid schema version \(schema.version) for \(dialect.engineName): \(subject) is \(name.utf8.count) bytes long, and names may have at most \(limit) bytes there (\(dialect.engineName) keeps \(kept) bytes of a name, and a migration's working copies add up to \(Self.workingPrefixLength)). Give it a shorter name, with `originalName` set to the old one so that its data follows.",
                entity: entity, property: property)
        }
        for entity in schema.entities {
            if let error = refusal("entity '\(entity.name)'", entity.name, entity: entity.name) { return error }
            for name in entity.attributes.map(\.name) + entity.relationships.map(\.name) {
                if let error = refusal("property '\(entity.name).\(name)'", name, entity: entity.name, property: name) {
                    return error
                }
                // A name an earlier sibling declares too has a column of its own, `Entity.property`.
                let stored = schema.storedName(of: name, in: entity.name) ?? name
                let subject = "column '\(stored)' (of property '\(entity.name).\(name)', which a sibling declares too)"
                if stored != name, let error = refusal(subject, stored, entity: entity.name, property: name) {
                    return error
                }
            }
            let owner = schema.rootEntity(of: entity.name)?.name ?? entity.name
            for relationship in entity.relationships where relationship.kind == .toMany {
                let table = StoreLayout.joinTableName(
                    entity: owner,
                    relationship: schema.storedName(of: relationship.name, in: entity.name) ?? relationship.name)
                let subject = "table '\(table)' (of relationship '\(entity.name).\(relationship.name)')"
                if let error = refusal(subject, table, entity: entity.name, property: relationship.name) {
                    return error
                }
            }
        }
        return nil
    }

    /// `name`, or, when this dialect would cut it, its first bytes and a hash of the whole: for the names Molt
    /// makes up itself (indexes), so that two long names never become one.
    package func fitted(_ name: String) -> String {
        guard let limit = dialect.maximumIdentifierLength, name.utf8.count > limit else { return name }
        var hash: UInt32 = 2_166_136_261  // FNV-1a: stable across runs and platforms, unlike Hasher.
        for byte in name.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let suffix = "_" + String(hash, radix: 16).leftPadded(to: 8)
        var prefix = ""
        for character in name {
            guard prefix.utf8.count + String(character).utf8.count + suffix.utf8.count <= limit else { break }
            prefix.append(character)
        }
        return prefix + suffix
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
