import Foundation
import Molt

/// What the copy by `INSERT … SELECT` (``CoreDataSQLCopy``) asks of the store's engine, stated by meaning
/// (``RowCopy``): for each entity of a Core Data store, its rows, and what each stored column is ("seconds since 2001,
/// as a date"; "16 bytes, as a UUID"); for each to-many relationship, its pairs. The engine writes Molt's format;
/// this plan names only Core Data's tables and columns. Made from the layout and the schema alone; nil, with the
/// reason, when the schema's entities are not the layout's (a schema the app gave that differs), which only the
/// row path checks value by value.
///
/// A decimal and a binary value that allows external storage go through ``CoreDataValues`` itself, as a conversion
/// of the copy; every other value is converted by the engine from its meaning.
struct CoreDataSQLPlan {
    struct EntityPlan {
        var layout: CoreDataStoreLayout.EntityLayout
        /// The Molt entity, with its inherited members.
        var entity: Entity
    }

    /// The entities copied (concrete ones of the schema), in entity-number order, as the row path copies them.
    var entities: [EntityPlan] = []
    /// The copy the engine writes.
    var copy: RowCopy

    /// The plan for `layout` into `schema`, reading the store at `source`, or why the row path must copy it.
    static func make(
        _ layout: CoreDataStoreLayout, schema: Schema, source: String, values: CoreDataValues
    ) -> (plan: CoreDataSQLPlan?, unfit: String?) {
        var plan = CoreDataSQLPlan(copy: RowCopy(source: source, entities: []))
        let proofValues = values.apart()
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
            let entityPlan = EntityPlan(layout: entityLayout, entity: entity)
            var rows = RowCopy.EntityRows(entity: entity.name, rows: entityPlan.rows, key: "c.Z_PK", columns: [])
            for attribute in entityLayout.attributes {
                guard let molt = entity.attribute(named: attribute.name),
                    let meaning = meaning(of: attribute, as: molt, conversion: plan.copy.conversions.count)
                else {
                    return (
                        nil,
                        "attribute '\(entity.name).\(attribute.name)' (Core Data type \(attribute.coreDataType)) has no conversion in SQL into its Molt type"
                    )
                }
                if case .converted = meaning {
                    let name = entity.name
                    plan.copy.conversions.append(
                        RowCopy.Conversion(
                            { key, stored in try values.value(stored, of: attribute, entity: name, key: key) },
                            proof: { key, stored in
                                try proofValues.value(stored, of: attribute, entity: name, key: key)
                            }))
                }
                rows.columns.append(
                    .init(member: attribute.name, source: "c.\(quote(attribute.column))", meaning: meaning))
            }
            for toOne in entityLayout.toOne {
                rows.columns.append(.init(member: toOne.name, source: "c.\(quote(toOne.column))", meaning: .link))
            }
            for relationship in entity.relationships where relationship.kind == .toMany {
                guard let pairs = entityPlan.pairs(of: relationship.name, ordered: relationship.isOrdered) else {
                    continue
                }
                rows.links.append(RowCopy.Link(relationship: relationship.name, pairs: pairs))
            }
            plan.copy.entities.append(rows)
            plan.entities.append(entityPlan)
        }
        return (plan, nil)
    }

    /// What a Core Data attribute's stored values are, for the Molt attribute `molt`: nil when the Molt attribute
    /// is not of the type Core Data's converts to (a schema given by the app that differs), which only the row path
    /// checks. Strings and URIs are copied byte for byte (a text that is not UTF-8, which no Molt string holds, is
    /// refused by the row path); a decimal's text is ASCII (one with a NUL goes to the row path).
    private static func meaning(
        of attribute: CoreDataStoreLayout.AttributeColumn, as molt: Attribute, conversion: Int
    ) -> RowCopy.Meaning? {
        switch (attribute.coreDataType, molt.type) {
        case ("String", .string), ("URI", .string): return .text
        case ("Boolean", .bool): return .bool
        case ("Integer 16", .int16): return .int16
        case ("Integer 32", .int32): return .int32
        case ("Integer 64", .int): return .int64
        case ("Double", .double): return .double
        case ("Float", .float): return .float
        case ("Date", .date): return .secondsSince2001
        case ("UUID", .uuid): return .uuidBytes
        case ("Binary", .data) where !attribute.allowsExternalStorage,
            ("Transformable", .data)
        where !attribute.allowsExternalStorage:
            return .bytes
        case ("Binary", .data), ("Transformable", .data):
            // A missing file may become null, which the row path then gives the attribute's default.
            guard molt.isOptional, molt.defaultValue == nil else { return nil }
            return .converted(conversion, from: .bytes)
        case ("Decimal", .decimal): return .converted(conversion, from: .numberOrASCIIText)
        default: return nil
        }
    }

    /// A name quoted for SQLite.
    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// A table of the attached store, quoted.
    static func sourceTable(_ table: String) -> String { "\(RowCopy.sourceSchema).\(quote(table))" }
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
