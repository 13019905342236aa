extension Schema {
    /// The largest version number a schema may have: stores record it as a 32-bit integer, and the next
    /// version must still be a number.
    public static let maximumVersion = Int(Int32.max) - 1

    /// Checks that the schema is well formed, and throws an error naming the first culprit otherwise.
    ///
    /// It rejects a version out of range; duplicate or empty names, and names that differ only in case (the
    /// storage engines compare names ignoring case); names reserved by Molt or the engines (`_id`, `_entity`,
    /// names starting with `_molt` or `sqlite_`); parents that are missing or inherit from their own
    /// sub-entities, and a property name used twice in one hierarchy; relationships to missing entities or with an inverse that does not
    /// point back, required to-many relationships, and minimum counts below 0 or on a to-one; primary keys and indexes on missing or optional attributes; defaults of the wrong type; and
    /// deletions that contradict the schema.
    ///
    /// ```swift
    /// try Schema(version: 2) { Entity("Note") { Attribute("title", .string); Attribute("Title", .string) } }.validate()
    /// // Invalid schema version 2: properties 'Note.title' and 'Note.Title' differ only in case; …
    /// ```
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidSchema``.
    public func validate() throws { try derived.validate(checkValidity) }

    private func checkValidity() throws {
        guard version >= 0 else { throw invalid("the version must not be negative.") }
        guard version <= Self.maximumVersion else {
            throw invalid(
                "the version must not be greater than \(Self.maximumVersion) (stores record it as a 32-bit number).")
        }
        var entityNames = NameSet(kind: "entities", schema: self)
        for entity in entities {
            try checkName(entity.name, what: "Entity", entity: entity.name)
            try entityNames.insert(entity.name, label: entity.name, entity: entity.name)
        }
        try validateHierarchies()
        let byName = Dictionary(
            entities.map { ($0.name, effectiveEntity(named: $0.name) ?? $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            try validateMembers(of: entity)
            try validateRelationships(of: entity, entities: byName)
            try validateKeys(of: byName[entity.name] ?? entity)
        }
        try validateJoinTableNames()
        try validateDeletions()
    }

    func invalid(_ message: String, _ entity: String? = nil, _ property: String? = nil) -> MoltError {
        MoltError(.invalidSchema, "Invalid schema version \(version): \(message)", entity: entity, property: property)
    }

    /// The most columns an entity's table may have (`_id`, the attributes and the to-one relationships):
    /// PostgreSQL's limit, the smaller of the two engines' (SQLite's is 2,000), so a schema runs on both.
    static let maximumColumns = 1_600

    private func validateMembers(of entity: Entity) throws {
        let columns = 1 + entity.attributes.count + entity.relationships.filter { $0.kind == .toOne }.count
        guard columns <= Self.maximumColumns else {
            throw invalid(
                "entity '\(entity.name)' needs \(columns) columns (_id, its attributes and its to-one relationships), more than the \(Self.maximumColumns) a table may have (PostgreSQL's limit; SQLite's is 2,000). Move some attributes to another entity linked by a to-one relationship.",
                entity.name)
        }
        var propertyNames = NameSet(kind: "properties", schema: self)
        for attribute in entity.attributes {
            let label = "\(entity.name).\(attribute.name)"
            try checkName(
                attribute.name, what: "Attribute '\(entity.name)'", entity: entity.name, property: attribute.name)
            try propertyNames.insert(attribute.name, label: label, entity: entity.name)
            if case .double(let number)? = attribute.defaultValue, !number.isFinite {
                throw invalid(
                    "the default value \(number) of attribute '\(label)' is not a finite number, which a schema snapshot cannot record.",
                    entity.name, attribute.name)
            }
            if let value = attribute.defaultValue, attribute.coerce(value) == nil {
                throw invalid(
                    "the default value \(value) of attribute '\(label)' is not of type '\(attribute.type.rawValue)'.",
                    entity.name, attribute.name)
            }
            try validateShape(of: attribute, in: entity.name)
        }
        for relationship in entity.relationships {
            let label = "\(entity.name).\(relationship.name)"
            try checkName(
                relationship.name, what: "Relationship '\(entity.name)'", entity: entity.name,
                property: relationship.name)
            try propertyNames.insert(relationship.name, label: label, entity: entity.name)
        }
    }

    /// A shape only on a string attribute (JSON is text), and a default value that has it.
    private func validateShape(of attribute: Attribute, in entity: String) throws {
        guard let shape = attribute.shape else { return }
        let label = "\(entity).\(attribute.name)"
        guard attribute.type == .string else {
            throw invalid(
                "attribute '\(label)' has a value shape but type '\(attribute.type.rawValue)'; JSON values are stored as text: make it a string attribute, or remove the shape.",
                entity, attribute.name)
        }
        if case .string(let text)? = attribute.defaultValue, let mismatch = shape.mismatch(inJSON: text) {
            let what =
                mismatch.field.isEmpty ? "it \(mismatch.problem)" : "field '\(mismatch.field)' \(mismatch.problem)"
            throw invalid(
                "the default value of attribute '\(label)' does not have the attribute's shape: \(what).", entity,
                attribute.name)
        }
    }

    private func validateMinimumCount(of relationship: Relationship, label: String, entity: String) throws {
        if relationship.minimumCount < 0 {
            throw invalid(
                "relationship '\(label)' has the minimum count \(relationship.minimumCount); a minimum count is 0 (none) or more.",
                entity, relationship.name)
        }
        if relationship.minimumCount > 0 && relationship.kind == .toOne {
            throw invalid(
                "relationship '\(label)' is to-one and cannot have a minimum count; make it required instead (`isOptional: false`).",
                entity, relationship.name)
        }
    }

    private func validateRelationships(of entity: Entity, entities: [String: Entity]) throws {
        for relationship in entity.relationships {
            let label = "\(entity.name).\(relationship.name)"
            guard let destination = entities[relationship.destination] else {
                throw invalid(
                    "relationship '\(label)' points to entity '\(relationship.destination)', which is not in the schema.",
                    entity.name, relationship.name)
            }
            if relationship.isOrdered && relationship.kind == .toOne {
                throw invalid(
                    "relationship '\(label)' is to-one and cannot be ordered.", entity.name, relationship.name)
            }
            if !relationship.isOptional && relationship.kind == .toMany {
                throw invalid(
                    "relationship '\(label)' is to-many and cannot be required; give it a minimum count instead (`minimumCount: 1`: every '\(entity.name)' object links one '\(relationship.destination)' or more).",
                    entity.name, relationship.name)
            }
            try validateMinimumCount(of: relationship, label: label, entity: entity.name)
            guard let inverseName = relationship.inverse else { continue }
            guard let inverse = destination.relationship(named: inverseName) else {
                throw invalid(
                    "relationship '\(label)' names inverse '\(destination.name).\(inverseName)', which does not exist.",
                    entity.name, relationship.name)
            }
            guard inverse.destination == entity.name, inverse.inverse == relationship.name else {
                throw invalid(
                    "relationship '\(label)' names inverse '\(destination.name).\(inverseName)', which does not point back to it; declare `inverse: \"\(relationship.name)\"` on both sides.",
                    entity.name, relationship.name)
            }
        }
    }

    private func validateKeys(of entity: Entity) throws {
        if let key = entity.primaryKey {
            guard let attribute = entity.attribute(named: key) else {
                throw invalid(
                    "primary key '\(entity.name).\(key)' is not an attribute of the entity.", entity.name, key)
            }
            guard !attribute.isOptional else {
                throw invalid("primary key '\(entity.name).\(key)' must not be optional.", entity.name, key)
            }
        }
        var indexKeys: Set<[String]> = []
        for index in entity.indexes {
            guard !index.attributes.isEmpty else {
                throw invalid("an index of '\(entity.name)' lists no attribute.", entity.name)
            }
            for name in index.attributes where entity.attribute(named: name) == nil {
                guard let relationship = entity.relationship(named: name) else {
                    throw invalid(
                        "an index of '\(entity.name)' names '\(name)', which is neither an attribute nor a to-one relationship of the entity.",
                        entity.name, name)
                }
                guard relationship.kind == .toOne else {
                    throw invalid(
                        "an index of '\(entity.name)' names the to-many relationship '\(name)'; an index holds attributes and to-one relationships (a to-many's links are in a table of their own, indexed already).",
                        entity.name, name)
                }
            }
            guard indexKeys.insert(index.attributes).inserted else {
                throw invalid(
                    "the index on '\(entity.name)'(\(index.attributes.joined(separator: ", "))) is declared twice.",
                    entity.name)
            }
        }
    }

    private func checkName(_ name: String, what: String, entity: String, property: String? = nil) throws {
        guard !name.isEmpty else { throw invalid("\(what) has an empty name.", entity, property) }
        let lowercased = name.lowercased()
        guard lowercased != "_id", lowercased != Entity.entityColumnName, !lowercased.hasPrefix("_molt"),
            !lowercased.hasPrefix("sqlite_")
        else {
            throw invalid("\(what) name '\(name)' is reserved by Molt; choose another name.", entity, property)
        }
        guard name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }),
            let first = name.unicodeScalars.first, !("0"..."9").contains(first)
        else {
            throw invalid(
                "\(what) name '\(name)' must be made of letters, digits and '_', and not start with a digit.", entity,
                property)
        }
    }

    /// To-many relationships live in join tables named `Entity_relationship`; those must not clash with
    /// entities or each other, ignoring case as the engines do.
    private func validateJoinTableNames() throws {
        var tables: [String: String] = [:]
        for entity in entities { tables[entity.name.lowercased()] = "an entity" }
        for entity in entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                // A hierarchy's join tables are named after its root, whose table holds the owners.
                let owner = rootEntity(of: entity.name)?.name ?? entity.name
                let table = Entity.joinTableName(
                    entity: owner, relationship: storedName(of: relationship.name, in: entity.name) ?? relationship.name
                )
                if let other = tables[table.lowercased()] {
                    throw MoltError(
                        .invalidSchema,
                        "Invalid schema version \(version): relationship '\(entity.name).\(relationship.name)' is stored in table '\(table)', which is also the name of \(other); rename one of them.",
                        entity: entity.name, property: relationship.name)
                }
                tables[table.lowercased()] = "the table of relationship '\(entity.name).\(relationship.name)'"
            }
        }
    }

    /// A deletion names the previous version's data; this version must not still declare it under that name,
    /// unless it declares it replaced (``Deletion/replaced(_:of:)``): then a property of that name must be there,
    /// and no property may say it comes from the replaced one.
    private func validateDeletions() throws {
        var seen: [Deletion] = []
        for deletion in deletions {
            guard !seen.contains(where: { $0.names(sameAs: deletion) }) else {
                throw invalid("the deletion of \(deletion) is declared twice.", deletion.entity)
            }
            seen.append(deletion)
            guard let property = deletion.property else {
                if let kept = entities.first(where: { $0.name == deletion.entity || $0.originalName == deletion.entity }
                ) {
                    throw invalid(
                        "entity '\(deletion.entity)' is declared deleted, but entity '\(kept.name)' still comes from it; remove the deletion, or the entity.",
                        deletion.entity)
                }
                continue
            }
            let owner = entities.first { $0.name == deletion.entity || $0.originalName == deletion.entity }
            let members: [(name: String, originalName: String?)] =
                owner.map { entity in
                    entity.attributes.map { ($0.name, $0.originalName) }
                        + entity.relationships.map { ($0.name, $0.originalName) }
                } ?? []
            let renamedFrom = members.first { $0.originalName == property }
            if deletion.isReplaced {
                guard let owner, members.contains(where: { $0.name == property }) else {
                    throw invalid(
                        "property '\(deletion.entity).\(property)' is declared replaced, but no entity of this version has a property '\(property)' that comes from entity '\(deletion.entity)'. Add the new property, or declare a plain deletion: .property(\"\(property)\", of: \"\(deletion.entity)\") (in a snapshot, without \"replaced\").",
                        deletion.entity, property)
                }
                if let renamedFrom {
                    throw invalid(
                        "property '\(deletion.entity).\(property)' is declared replaced, but '\(owner.name).\(renamedFrom.name)' says it comes from it (originalName \"\(property)\"); a replaced property's values are deleted, not carried. Remove the originalName, or the replacement.",
                        deletion.entity, property)
                }
                continue
            }
            if let renamedFrom {
                throw invalid(
                    "property '\(deletion.entity).\(property)' is declared deleted, but '\(owner!.name).\(renamedFrom.name)' still comes from it (originalName \"\(property)\"); remove the deletion, or the originalName.",
                    deletion.entity, property)
            }
            if let owner, members.contains(where: { $0.name == property }) {
                throw invalid(
                    "property '\(deletion.entity).\(property)' is declared deleted, but entity '\(owner.name)' still has a property '\(property)'. If the new '\(property)' replaces it (another kind or type, starting empty), declare .replaced(\"\(property)\", of: \"\(deletion.entity)\") (in a snapshot: {\"entity\" : \"\(deletion.entity)\", \"property\" : \"\(property)\", \"replaced\" : true}); otherwise remove the deletion, or the property.",
                    deletion.entity, property)
            }
        }
    }
}

/// Names already used in one scope, compared as the storage engines compare them (ignoring case).
private struct NameSet {
    let kind: String
    let schema: Schema
    private var names: [String: String] = [:]

    init(kind: String, schema: Schema) {
        self.kind = kind
        self.schema = schema
    }

    mutating func insert(_ name: String, label: String, entity: String) throws {
        if let other = names[name.lowercased()] {
            let what = kind == "entities" ? "entity" : "property"
            if other == label {
                throw schema.invalid("\(what) '\(label)' is declared twice.", entity, kind == "entities" ? nil : name)
            }
            throw schema.invalid(
                "\(kind) '\(other)' and '\(label)' differ only in case, which the storage engines do not tell apart; rename one of them.",
                entity, kind == "entities" ? nil : name)
        }
        names[name.lowercased()] = label
    }
}
