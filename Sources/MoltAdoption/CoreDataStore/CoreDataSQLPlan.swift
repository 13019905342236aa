import Foundation
import Molt

/// What the copy by `INSERT … SELECT` (``CoreDataSQLCopy``) writes for each entity of a Core Data store: the
/// Molt entity, and the conversion of each attribute. Made from the layout and the schema alone; nil, with the
/// reason, when the schema's entities are not the layout's (a schema the app gave that differs), which only the
/// row path checks value by value.
struct CoreDataSQLPlan {
    struct EntityPlan {
        var layout: CoreDataStoreLayout.EntityLayout
        /// The Molt entity, with its inherited members.
        var entity: Entity
        /// The conversion of each of `layout.attributes`, in order.
        var values: [CoreDataSQLValue]
    }

    /// The entities copied (concrete ones of the schema), in entity-number order, as the row path copies them.
    var entities: [EntityPlan] = []
    /// The attributes converted by ``CoreDataSQLValue/function``, by slot.
    var slots: [(entity: String, attribute: CoreDataStoreLayout.AttributeColumn)] = []

    /// The schema name of the attached store (in place or its private copy), as the SQL names its tables.
    static let source = "molt_source"

    /// The plan for `layout` into `schema`, or why the row path must copy it.
    static func make(_ layout: CoreDataStoreLayout, schema: Schema) -> (plan: CoreDataSQLPlan?, unfit: String?) {
        var plan = CoreDataSQLPlan()
        for entityLayout in layout.entities {
            guard let declared = schema.entity(named: entityLayout.name), !declared.isAbstract,
                let entity = schema.effectiveEntity(named: declared.name)
            else { continue }
            let stored = Set(entityLayout.attributes.map(\.name))
            let links =
                entityLayout.toOne.map(\.name) + entityLayout.joins.map(\.name)
                + entityLayout.orderedInverses.map(\.name) + entityLayout.inverseOnly.map(\.name)
            guard Set(entity.attributes.map(\.name)) == stored,
                Set(entity.relationships.map(\.name)) == Set(links), links.count == entity.relationships.count
            else {
                return (
                    nil, "the schema's entity '\(entity.name)' does not have the store's attributes and relationships"
                )
            }
            var values: [CoreDataSQLValue] = []
            for attribute in entityLayout.attributes {
                let column = "c.\(quote(attribute.column))"
                guard let molt = entity.attribute(named: attribute.name),
                    let value = CoreDataSQLValue.conversion(
                        of: attribute, as: molt, x: column, key: "c.Z_PK", slot: plan.slots.count)
                else {
                    return (
                        nil,
                        "attribute '\(entity.name).\(attribute.name)' (Core Data type \(attribute.coreDataType)) has no conversion in SQL into its Molt type"
                    )
                }
                if value.callsSwift { plan.slots.append((entity.name, attribute)) }
                values.append(value)
            }
            plan.entities.append(EntityPlan(layout: entityLayout, entity: entity, values: values))
        }
        return (plan, nil)
    }

    /// A name quoted for SQLite.
    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A table of the attached store, quoted.
    static func sourceTable(_ table: String) -> String { "\(source).\(quote(table))" }
}

extension CoreDataSQLPlan.EntityPlan {
    /// `FROM` the entity's rows in the attached store, named `c`.
    var rows: String {
        "FROM \(CoreDataSQLPlan.sourceTable(layout.table)) AS c WHERE c.Z_ENT = \(layout.number)"
    }

    /// The SQL of the `(owner, target[, position])` pairs of a to-many relationship read from a join table or from
    /// the destination's foreign key, for the owners of this entity, in columns of those names; nil for one filled
    /// from its inverse.
    func pairs(of name: String, ordered: Bool) -> String? {
        let q = CoreDataSQLPlan.quote
        let owners = "(SELECT c.Z_PK \(rows))"
        if let join = layout.joins.first(where: { $0.name == name }) {
            let (owner, target) = ("j.\(q(join.ownerColumn))", "j.\(q(join.destinationColumn))")
            let position =
                ordered
                ? ", ROW_NUMBER() OVER (PARTITION BY \(owner) ORDER BY \(join.orderColumn.map { "j.\(q($0)), " } ?? "")\(target)) AS position"
                : ""
            return
                "SELECT \(owner) AS owner, \(target) AS target\(position) FROM \(CoreDataSQLPlan.sourceTable(join.table)) AS j WHERE \(owner) IN \(owners)"
        }
        if let inverse = layout.orderedInverses.first(where: { $0.name == name }) {
            let owner = "d.\(q(inverse.foreignKey))"
            let position =
                ordered
                ? ", ROW_NUMBER() OVER (PARTITION BY \(owner) ORDER BY \(inverse.orderColumn.map { "d.\(q($0)), " } ?? "")d.Z_PK) AS position"
                : ""
            return
                "SELECT \(owner) AS owner, d.Z_PK AS target\(position) FROM \(CoreDataSQLPlan.sourceTable(inverse.table)) AS d WHERE \(owner) IN \(owners)"
        }
        return nil
    }
}
