import Molt

extension CoreDataModel {
    /// The model with every sub-entity holding its ancestors' properties before its own (root first), as Core
    /// Data's sub-entities hold them; `parent` and `isAbstract` are kept so that the conversion can report them.
    ///
    /// - Throws: `MoltError` when a parent entity is missing or the hierarchy loops.
    package func flattened() throws -> CoreDataModel {
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func ancestors(of entity: CoreDataEntity) throws -> [CoreDataEntity] {
            var chain: [CoreDataEntity] = []
            var next = entity.parent
            while let parentName = next {
                guard let parent = byName[parentName] else {
                    throw MoltError(
                        .invalidSchema,
                        "Core Data model '\(name)': entity '\(entity.name)' names parent entity '\(parentName)', which is not in the model. Restore the model from version control."
                    )
                }
                guard !chain.contains(where: { $0.name == parent.name }), parent.name != entity.name else {
                    throw MoltError(
                        .invalidSchema,
                        "Core Data model '\(name)': the parents of entity '\(entity.name)' form a loop through '\(parentName)'."
                    )
                }
                chain.insert(parent, at: 0)
                next = parent.parent
            }
            return chain
        }
        var result = self
        result.entities = try entities.map { entity in
            var flat = entity
            let chain = try ancestors(of: entity)
            flat.attributes = chain.flatMap(\.attributes) + entity.attributes
            flat.relationships = chain.flatMap(\.relationships) + entity.relationships
            flat.uniquenessConstraints = chain.flatMap(\.uniquenessConstraints) + entity.uniquenessConstraints
            flat.indexes = chain.flatMap(\.indexes) + entity.indexes
            return flat
        }
        return result
    }

    /// The entities that inherit from `name`, directly or not, in model order.
    package func descendants(of name: String) -> [String] {
        var result: [String] = []
        var frontier = [name]
        while let next = frontier.popLast() {
            for entity in entities where entity.parent == next && !result.contains(entity.name) {
                result.append(entity.name)
                frontier.append(entity.name)
            }
        }
        return entities.map(\.name).filter(result.contains)
    }
}
