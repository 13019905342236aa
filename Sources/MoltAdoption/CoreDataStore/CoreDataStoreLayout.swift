import Foundation
import Molt

/// Where a Core Data store keeps each value of one model version: the table and columns of every entity, attribute
/// and relationship, derived from the model the way Core Data lays a store out, and checked against the store.
///
/// Core Data numbers entities (`Z_ENT`) with root entities in alphabetical order, each followed depth first by its
/// sub-entities; a hierarchy shares its root's table (`Z` + the root's name, upper-cased), split by `Z_ENT`.
/// An attribute or to-one relationship is the column `Z` + its name; a to-one relationship to an entity with
/// sub-entities also has `Z<n>_<NAME>`, the target's entity number. A to-many relationship whose inverse is a
/// to-one is that to-one's column (ordered: the destination's `Z_FOK_<INVERSE>` holds the position); a
/// many-to-many relationship is a join table `Z_<n><NAME>` with a column per side, `Z_<n><NAME>` holding the
/// destination's key and `Z_<m><INVERSE>` the owner's (ordered: `Z_FOK_` + the column it orders).
package struct CoreDataStoreLayout {
    package struct AttributeColumn {
        package var name: String
        package var coreDataType: String
        package var column: String
        package var allowsExternalStorage: Bool
    }

    package struct ToOneColumn {
        package var name: String
        package var destination: String
        package var column: String
    }

    /// A to-many relationship read from a join table (many-to-many).
    package struct JoinTable {
        package var name: String
        package var destination: String
        package var table: String
        package var ownerColumn: String
        package var destinationColumn: String
        package var orderColumn: String?
    }

    /// A to-many relationship whose inverse is a to-one: read from the destination's rows (in the order of their
    /// `Z_FOK_` column when ordered).
    package struct OrderedInverse {
        package var name: String
        package var destination: String
        package var table: String
        package var foreignKey: String
        package var orderColumn: String?
    }

    package struct EntityLayout {
        package var name: String
        package var number: Int
        package var table: String
        package var attributes: [AttributeColumn] = []
        package var toOne: [ToOneColumn] = []
        package var joins: [JoinTable] = []
        package var orderedInverses: [OrderedInverse] = []
        /// Unordered to-many relationships stored only as their to-one inverse (filled from it on import).
        package var inverseOnly: [OrderedInverse] = []
    }

    package var model: CoreDataModel
    /// Every entity of the model, in entity-number order (abstract ones too).
    package var entities: [EntityLayout]
    /// The tables this layout reads (entity tables and join tables), upper-cased.
    package var tables: Set<String>

    /// The entity numbers of `model`: roots alphabetically, each followed depth first by its sub-entities.
    package static func entityNumbers(of model: CoreDataModel) -> [String: Int] {
        var numbers: [String: Int] = [:]
        func visit(_ entity: CoreDataEntity) {
            numbers[entity.name] = numbers.count + 1
            for child in model.entities.filter({ $0.parent == entity.name }).sorted(by: { $0.name < $1.name }) {
                visit(child)
            }
        }
        for root in model.entities.filter({ $0.parent == nil }).sorted(by: { $0.name < $1.name }) { visit(root) }
        return numbers
    }

    /// The layout of `model` in `store`, or the first difference between them, named.
    package static func matching(
        _ model: CoreDataModel, in store: CoreDataStoreFile
    ) -> Result<CoreDataStoreLayout, CoreDataStoreMismatch> {
        let names = Set(model.entities.map(\.name))
        if names != store.modelEntityNames {
            let missing = store.modelEntityNames.subtracting(names).sorted()
            let extra = names.subtracting(store.modelEntityNames).sorted()
            return .failure(
                CoreDataStoreMismatch(
                    version: model.name, entity: missing.first ?? extra.first ?? "?",
                    what: missing.isEmpty
                        ? "entity '\(extra[0])' is in the model but not in the store's model"
                        : "entity '\(missing[0])' is in the store's model but not in this version",
                    sameEntities: false))
        }
        do {
            return .success(try CoreDataStoreLayout(model, store: store))
        } catch let mismatch as CoreDataStoreMismatch {
            return .failure(mismatch)
        } catch {
            return .failure(CoreDataStoreMismatch(version: model.name, entity: "?", what: "\(error)"))
        }
    }

    private init(_ model: CoreDataModel, store: CoreDataStoreFile) throws {
        self.model = model
        let numbers = Self.entityNumbers(of: model)
        let flat = try model.flattened()
        let byName = Dictionary(model.entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        func root(_ name: String) -> String {
            var current = name
            while let parent = byName[current]?.parent { current = parent }
            return current
        }
        func fail(_ entity: String, _ what: String) -> CoreDataStoreMismatch {
            CoreDataStoreMismatch(version: model.name, entity: entity, what: what)
        }
        var tables: Set<String> = []
        var layouts: [EntityLayout] = []
        // Columns by the entity that declares the property: sub-entities share their ancestors' columns, and
        // siblings that declare the same name get `ZNAME`, `ZNAME1`, … in entity-number order.
        var claims = ColumnClaims()
        func column(_ property: String, of entity: String, table: String, kind: String) throws -> String {
            let base = "Z" + property.uppercased()
            let declaring = Self.declaringEntity(of: property, from: entity, in: byName)
            guard let columns = store.columns[table],
                let column = claims.column(base, for: declaring, table: table, in: columns)
            else { throw fail(entity, "\(kind) '\(property)' has no column \(base) in table \(table)") }
            return column
        }
        for entity in flat.entities.sorted(by: { numbers[$0.name]! < numbers[$1.name]! }) {
            let table = "Z" + root(entity.name).uppercased()
            guard store.columns[table] != nil else { throw fail(entity.name, "its table \(table) is not in the store") }
            tables.insert(table)
            var layout = EntityLayout(name: entity.name, number: numbers[entity.name]!, table: table)
            for attribute in entity.attributes where !attribute.isTransient {
                layout.attributes.append(
                    AttributeColumn(
                        name: attribute.name, coreDataType: attribute.type,
                        column: try column(attribute.name, of: entity.name, table: table, kind: "attribute"),
                        allowsExternalStorage: attribute.allowsExternalStorage))
            }
            for relationship in entity.relationships where !relationship.isTransient {
                if !relationship.isToMany {
                    layout.toOne.append(
                        ToOneColumn(
                            name: relationship.name, destination: relationship.destination,
                            column: try column(
                                relationship.name, of: entity.name, table: table, kind: "to-one relationship")))
                    continue
                }
                try Self.place(
                    relationship, of: entity.name, in: &layout, model: model, flat: flat, numbers: numbers,
                    store: store,
                    tables: &tables, fail: fail)
            }
            layouts.append(layout)
        }
        self.entities = layouts
        self.tables = tables
        try checkNoUnknownColumns(store: store, flat: flat, root: root)
    }

    /// Places one relationship: a to-one column, a join table, or its inverse's column.
    private static func place(
        _ relationship: CoreDataRelationship, of entity: String, in layout: inout EntityLayout, model: CoreDataModel,
        flat: CoreDataModel,
        numbers: [String: Int], store: CoreDataStoreFile, tables: inout Set<String>,
        fail: (String, String) -> CoreDataStoreMismatch
    ) throws {
        let inverse = relationship.inverse.flatMap { name in
            flat.entity(named: relationship.destination)?.relationships.first { $0.name == name }
        }
        if let inverse, !inverse.isToMany {
            let destinationTable = try tableOf(relationship.destination, model: model)
            guard relationship.isOrdered else {
                layout.inverseOnly.append(
                    OrderedInverse(
                        name: relationship.name, destination: relationship.destination, table: destinationTable,
                        foreignKey: "Z" + inverse.name.uppercased(), orderColumn: nil))
                return
            }
            let order = "Z_FOK_" + inverse.name.uppercased()
            guard store.columns[destinationTable]?.contains(order) == true else {
                throw fail(
                    entity, "ordered relationship '\(relationship.name)' has no column \(order) in \(destinationTable)")
            }
            layout.orderedInverses.append(
                OrderedInverse(
                    name: relationship.name, destination: relationship.destination, table: destinationTable,
                    foreignKey: "Z" + inverse.name.uppercased(), orderColumn: order))
            return
        }
        // Many-to-many (or to-many without inverse): a join table named after one side.
        let ownerNumbers = chain(of: entity, model: model).compactMap { numbers[$0] }
        let destinationNumbers = chain(of: relationship.destination, model: model).compactMap { numbers[$0] }
        let inverseName = (relationship.inverse ?? relationship.name).uppercased()
        let name = relationship.name.uppercased()
        for owner in ownerNumbers {
            for destination in destinationNumbers {
                for (table, ownerColumn, destinationColumn) in [
                    ("Z_\(owner)\(name)", "Z_\(owner)\(inverseName)", "Z_\(destination)\(name)"),
                    ("Z_\(destination)\(inverseName)", "Z_\(owner)\(inverseName)", "Z_\(destination)\(name)"),
                ] {
                    guard let columns = store.columns[table],
                        let ownerColumn = ColumnClaims.numbered(ownerColumn, in: columns, excluding: []),
                        let destinationColumn = ColumnClaims.numbered(
                            destinationColumn, in: columns, excluding: [ownerColumn])
                    else { continue }
                    tables.insert(table)
                    let order = "Z_FOK_" + destinationColumn.dropFirst(2)
                    layout.joins.append(
                        JoinTable(
                            name: relationship.name, destination: relationship.destination, table: table,
                            ownerColumn: ownerColumn, destinationColumn: destinationColumn,
                            orderColumn: relationship.isOrdered && columns.contains(String(order)) ? String(order) : nil
                        ))
                    return
                }
            }
        }
        throw fail(entity, "to-many relationship '\(relationship.name)' has no join table in the store")
    }

    /// The entity of `entity`'s chain (itself or an ancestor) that declares `property`.
    private static func declaringEntity(
        of property: String, from entity: String, in byName: [String: CoreDataEntity]
    ) -> String {
        var current: String? = entity
        while let name = current, let found = byName[name] {
            if found.attributes.contains(where: { $0.name == property })
                || found.relationships.contains(where: { $0.name == property })
            {
                return name
            }
            current = found.parent
        }
        return entity
    }

    /// `name` and its ancestors, nearest first.
    private static func chain(of name: String, model: CoreDataModel) -> [String] {
        var result = [name]
        while let parent = model.entity(named: result.last!)?.parent { result.append(parent) }
        return result
    }

    private static func tableOf(_ name: String, model: CoreDataModel) throws -> String {
        "Z" + chain(of: name, model: model).last!.uppercased()
    }

    /// Refuses a store table column that no attribute or relationship of this version explains: the store was
    /// written by another version of the model (one with that attribute), which this version would drop.
    private func checkNoUnknownColumns(
        store: CoreDataStoreFile, flat: CoreDataModel, root: (String) -> String
    ) throws {
        var explained: [String: Set<String>] = [:]
        for layout in entities {
            explained[layout.table, default: ["Z_PK", "Z_ENT", "Z_OPT"]].formUnion(
                layout.attributes.map(\.column) + layout.toOne.map(\.column))
        }
        for layout in entities {
            for inverse in layout.orderedInverses {
                if let order = inverse.orderColumn { explained[inverse.table, default: []].insert(order) }
            }
        }
        for (table, known) in explained {
            let unknown = (store.columns[table] ?? []).subtracting(known).filter { column in
                // The target's entity number beside a to-one column (`Z10_MESSAGE`), and positions.
                !(column.hasPrefix("Z_FOK_") || column.range(of: #"^Z[0-9]+_"#, options: .regularExpression) != nil)
            }
            if let column = unknown.sorted().first {
                let owner = entities.first { $0.table == table }?.name ?? table
                throw CoreDataStoreMismatch(
                    version: model.name, entity: owner,
                    what: "table \(table) has a column \(column) that no attribute of this version explains")
            }
        }
    }
}

/// The columns of each table, given out by the entity that declares each property.
private struct ColumnClaims {
    private var byDeclaration: [String: String] = [:]
    private var taken: [String: Set<String>] = [:]

    /// The column of `property`'s base name `base` declared by `declaring`, in `table`: the one it was given, or
    /// the first of `base`, `base1`, `base2`… not yet given to another declaration.
    mutating func column(_ base: String, for declaring: String, table: String, in columns: Set<String>) -> String? {
        let key = "\(table).\(declaring).\(base)"
        if let given = byDeclaration[key] { return given }
        guard let column = Self.numbered(base, in: columns, excluding: taken[table] ?? []) else { return nil }
        byDeclaration[key] = column
        taken[table, default: []].insert(column)
        return column
    }

    /// `base`, or else `base1`, `base2`…: the first in `columns` and not in `excluding`.
    static func numbered(_ base: String, in columns: Set<String>, excluding: Set<String>) -> String? {
        if columns.contains(base) && !excluding.contains(base) { return base }
        for number in 1...9 where columns.contains(base + "\(number)") && !excluding.contains(base + "\(number)") {
            return base + "\(number)"
        }
        return nil
    }
}

/// Why a model version does not describe a store: the entity and what differs.
package struct CoreDataStoreMismatch: Error, CustomStringConvertible {
    package var version: String
    package var entity: String
    package var what: String
    /// Whether the version has the store's entities, so that the difference is in their columns: the closest.
    package var sameEntities = true
    package var description: String { "\(version): \(what)" }
}
