import Foundation

/// What inserting a model of one type needs besides its values, worked out once per model type and schema
/// value rather than for every object: the store's entity it was checked against, and the inverse side of each
/// of its to-one relationships, with the statement text that links it (for a store's own layout).
struct TypedInsertPlan: @unchecked Sendable {
    /// A to-one relationship of the model whose destination keeps an inverse.
    struct Inverse {
        /// Its position among the model's to-one relationships (``PersistentModel/toOneRelationships``).
        let offset: Int
        let relationship: Relationship
        let destination: Entity
        let inverse: Relationship
        /// ``Objects/linkSQL(entity:relationship:)`` of the inverse, built once; nil in a stage's layout.
        let linkSQL: String?
    }

    let entity: Entity
    let inverses: [Inverse]
    let insertSQL: String

    /// Model type and engine → the plan and the schema value it was made for (held, so that its identity cannot
    /// be reused). The engine is part of the key: the link statements are in its dialect.
    private struct Key: Hashable {
        var model: ObjectIdentifier
        var engine: DatabaseEngine
    }
    private static let cache = LockedValue<[Key: (schema: AnyObject, plan: TypedInsertPlan)]>([:])

    /// The plan of `type` in `objects`' schema and layout.
    static func of<M: PersistentModel>(_ type: M.Type, in objects: Objects) throws -> TypedInsertPlan {
        let layout = objects.layout
        let standard = objects.layoutSource == nil && layout.isStandard(M.entity.name)
        let key = Key(model: ObjectIdentifier(type), engine: objects.dialect.engine), schema = objects.schema.derived
        if standard, let cached = cache.withLock({ $0[key] }), cached.schema === schema { return cached.plan }
        let entity = try objects.typedEntity(type)
        var inverses: [Inverse] = []
        for (offset, relationship) in M.toOneRelationships.enumerated() {
            guard let inverseName = relationship.inverse else { continue }
            let destination = try objects.entity(relationship.destination)
            let inverse = try objects.relationship(inverseName, of: destination)
            let linkSQL =
                standard && layout.isStandard(destination.name)
                ? objects.linkSQL(entity: destination, relationship: inverse) : nil
            inverses.append(
                Inverse(
                    offset: offset, relationship: relationship, destination: destination, inverse: inverse,
                    linkSQL: linkSQL))
        }
        let plan = TypedInsertPlan(entity: entity, inverses: inverses, insertSQL: TypedSQL.of(type, in: layout).insert)
        if standard { cache.withLock { $0[key] = (schema, plan) } }
        return plan
    }
}
