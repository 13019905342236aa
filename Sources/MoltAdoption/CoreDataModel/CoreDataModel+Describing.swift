import Molt

extension CoreDataModel {
    /// The Core Data model that stores objects of `schema` as the store does: for a SwiftData app (whose model is
    /// its Swift classes, with no `.xcdatamodeld`) or a Core Data app without its model file, when the app
    /// declares the same entities and properties as Molt models.
    ///
    /// Each Molt type stands for the Core Data type that stores it (`string` for String and URI, `data` for
    /// Binary and Transformable: their columns hold the same values). A Core Data binary attribute that allows
    /// external storage holds a marker byte before each value, which no value tells apart from a plain one: it is
    /// named in `externalStorage`.
    ///
    /// - Parameters:
    ///   - schema: The Molt schema whose entities the store holds.
    ///   - externalStorage: The `Entity.attribute` names of binary attributes that allow external storage.
    /// - Throws: `MoltError` (`invalidSchema`) for a name in `externalStorage` that is not a data attribute.
    package init(describing schema: Schema, externalStorage: Set<String>) throws {
        var unclaimed = externalStorage
        let entities = schema.entities.map { entity in
            CoreDataEntity(
                name: entity.name, parent: entity.parent, isAbstract: entity.isAbstract,
                attributes: entity.attributes.map { attribute in
                    let name = "\(entity.name).\(attribute.name)"
                    let external = attribute.type == .data && unclaimed.remove(name) != nil
                    return CoreDataAttribute(
                        name: attribute.name, type: Self.coreDataType(of: attribute.type),
                        isOptional: attribute.isOptional, allowsExternalStorage: external)
                },
                relationships: entity.relationships.map(Self.relationship))
        }
        if let name = unclaimed.sorted().first {
            throw MoltError(
                .invalidSchema,
                "'\(name)' is named as allowing external storage, but the schema at version \(schema.version) has no data attribute of that name. Name binary attributes as Entity.attribute."
            )
        }
        self.init(name: "Molt schema version \(schema.version)", entities: entities)
    }

    private static func coreDataType(of type: AttributeType) -> String {
        switch type {
        case .string: "String"
        case .int: "Integer 64"
        case .int32: "Integer 32"
        case .int16: "Integer 16"
        case .double: "Double"
        case .float: "Float"
        case .decimal: "Decimal"
        case .bool: "Boolean"
        case .date: "Date"
        case .data: "Binary"
        case .uuid: "UUID"
        }
    }

    private static func relationship(_ relationship: Relationship) -> CoreDataRelationship {
        var described = CoreDataRelationship(name: relationship.name, destination: relationship.destination)
        described.isToMany = relationship.kind == .toMany
        described.isOrdered = relationship.isOrdered
        described.isOptional = relationship.isOptional
        described.inverse = relationship.inverse
        described.deleteRule =
            switch relationship.deleteRule {
            case .nullify: .nullify
            case .cascade: .cascade
            case .deny: .deny
            }
        return described
    }
}
