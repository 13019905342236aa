extension Schema {
    /// Checks that the schema is well formed, and throws an error naming the first culprit otherwise.
    ///
    /// It rejects duplicate or empty names, names reserved by Molt (`_id`, names starting with `_molt`),
    /// relationships to missing entities or with an inverse that does not point back, primary keys and indexes
    /// on missing or optional attributes, and defaults of the wrong type.
    ///
    /// - Throws: ``MoltError`` with code ``MoltError/Code/invalidSchema``.
    public func validate() throws {
        func fail(_ message: String, _ entity: String? = nil, _ property: String? = nil) -> MoltError {
            MoltError(.invalidSchema, "Invalid schema version \(version): \(message)", entity: entity, property: property)
        }
        guard version >= 0 else { throw fail("the version must not be negative.") }
        var entityNames: Set<String> = []
        for entity in entities {
            try Self.checkName(entity.name, what: "Entity", fail: { fail($0, entity.name) })
            guard entityNames.insert(entity.name).inserted else {
                throw fail("entity '\(entity.name)' is declared twice.", entity.name)
            }
        }
        for entity in entities {
            var propertyNames: Set<String> = []
            for attribute in entity.attributes {
                let label = "\(entity.name).\(attribute.name)"
                try Self.checkName(attribute.name, what: "Attribute '\(entity.name)'", fail: { fail($0, entity.name, attribute.name) })
                guard propertyNames.insert(attribute.name).inserted else {
                    throw fail("property '\(label)' is declared twice.", entity.name, attribute.name)
                }
                if case .double(let number)? = attribute.defaultValue, !number.isFinite {
                    throw fail(
                        "the default value \(number) of attribute '\(label)' is not a finite number, which a schema snapshot cannot record.",
                        entity.name, attribute.name)
                }
                if let value = attribute.defaultValue, attribute.coerce(value) == nil {
                    throw fail(
                        "the default value \(value) of attribute '\(label)' is not of type '\(attribute.type.rawValue)'.",
                        entity.name, attribute.name)
                }
            }
            for relationship in entity.relationships {
                let label = "\(entity.name).\(relationship.name)"
                try Self.checkName(relationship.name, what: "Relationship '\(entity.name)'", fail: { fail($0, entity.name, relationship.name) })
                guard propertyNames.insert(relationship.name).inserted else {
                    throw fail("property '\(label)' is declared twice.", entity.name, relationship.name)
                }
                guard let destination = self.entity(named: relationship.destination) else {
                    throw fail(
                        "relationship '\(label)' points to entity '\(relationship.destination)', which is not in the schema.",
                        entity.name, relationship.name)
                }
                if relationship.isOrdered && relationship.kind == .toOne {
                    throw fail("relationship '\(label)' is to-one and cannot be ordered.", entity.name, relationship.name)
                }
                if let inverseName = relationship.inverse {
                    guard let inverse = destination.relationship(named: inverseName) else {
                        throw fail(
                            "relationship '\(label)' names inverse '\(destination.name).\(inverseName)', which does not exist.",
                            entity.name, relationship.name)
                    }
                    guard inverse.destination == entity.name, inverse.inverse == relationship.name else {
                        throw fail(
                            "relationship '\(label)' names inverse '\(destination.name).\(inverseName)', which does not point back to it; declare `inverse: \"\(relationship.name)\"` on both sides.",
                            entity.name, relationship.name)
                    }
                }
            }
            if let key = entity.primaryKey {
                guard let attribute = entity.attribute(named: key) else {
                    throw fail("primary key '\(entity.name).\(key)' is not an attribute of the entity.", entity.name, key)
                }
                guard !attribute.isOptional else {
                    throw fail("primary key '\(entity.name).\(key)' must not be optional.", entity.name, key)
                }
            }
            var indexKeys: Set<[String]> = []
            for index in entity.indexes {
                guard !index.attributes.isEmpty else { throw fail("an index of '\(entity.name)' lists no attribute.", entity.name) }
                for name in index.attributes where entity.attribute(named: name) == nil {
                    throw fail("an index of '\(entity.name)' names '\(name)', which is not an attribute of the entity.", entity.name, name)
                }
                guard indexKeys.insert(index.attributes).inserted else {
                    throw fail("the index on '\(entity.name)'(\(index.attributes.joined(separator: ", "))) is declared twice.", entity.name)
                }
            }
        }
        try validateJoinTableNames()
    }

    private static func checkName(_ name: String, what: String, fail: (String) -> MoltError) throws {
        guard !name.isEmpty else { throw fail("\(what) has an empty name.") }
        guard name != "_id", !name.lowercased().hasPrefix("_molt") else {
            throw fail("\(what) name '\(name)' is reserved by Molt; choose another name.")
        }
        guard name.unicodeScalars.allSatisfy({ $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }),
            let first = name.unicodeScalars.first, !("0"..."9").contains(first)
        else {
            throw fail("\(what) name '\(name)' must be made of letters, digits and '_', and not start with a digit.")
        }
    }

    /// To-many relationships live in join tables named `Entity_relationship`; those must not clash with entities.
    private func validateJoinTableNames() throws {
        let names = Set(entities.map { $0.name.lowercased() })
        for entity in entities {
            for relationship in entity.relationships where relationship.kind == .toMany {
                let table = Entity.joinTableName(entity: entity.name, relationship: relationship.name)
                if names.contains(table.lowercased()) {
                    throw MoltError(
                        .invalidSchema,
                        "Invalid schema version \(version): relationship '\(entity.name).\(relationship.name)' is stored in table '\(table)', which is also the name of an entity; rename one of them.",
                        entity: entity.name, property: relationship.name)
                }
            }
        }
    }
}
