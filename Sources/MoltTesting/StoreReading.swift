/// An object's place in a store: its entity and identifier.
struct ObjectRef: Hashable {
    var entity: String
    var id: Int64
}

/// Reads what the kit compares from a store: the links of an object, named by fixture key.
enum StoreReading {
    /// Relationship name → keys of the fixtures an object points to; an object that is no fixture is named
    /// `_id N`.
    static func links(
        of object: DynamicObject, in objects: Objects, schema: Schema, keys: [ObjectRef: String]
    ) throws -> [String: [String]] {
        guard let entity = schema.effectiveEntity(named: object.entity) else { return [:] }
        var result: [String: [String]] = [:]
        for relationship in entity.relationships {
            let destinations = try objects.destinations(relationship.name, of: object)
            result[relationship.name] = destinations.map { destination in
                keys[ObjectRef(entity: destination.entity, id: destination.id!)] ?? "_id \(destination.id!)"
            }
        }
        return result
    }
}
