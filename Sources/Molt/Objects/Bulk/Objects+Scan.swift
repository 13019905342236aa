import Foundation

/// One object of a ``Objects/scan(_:_:)``: its identifier, its attribute values and the identifiers its
/// relationships point to, in the entity's order. The scan reuses one value for every object.
package struct ScannedObject {
    /// The object's `_id`.
    package var id: Int64 = 0
    /// One value per attribute, in the order of `entity.attributes`.
    package var values: [Value] = []
    /// One list per relationship, in the order of `entity.relationships`: zero or one identifier for a to-one,
    /// every destination in order for a to-many.
    package var links: [[Int64]] = []
}

extension Objects {
    /// Calls `body` with every object of `entity` in `_id` order (for an entity of a hierarchy, give it with its
    /// inherited members, ``Schema/effectiveEntity(named:)``: the objects of that entity alone are scanned), with its attributes and the identifiers of its
    /// relationships, in bounded memory: what `molt export` streams.
    ///
    /// One query reads the entity's table (to-one links are columns of the row); each to-many relationship is one
    /// scan of its join table ordered by owner, walked alongside. No query runs per object.
    ///
    /// ```swift
    /// try objects.scan(entity) { object in print(object.id, object.values, object.links) }
    /// ```
    ///
    /// - Throws: ``MoltError/Code/corruptStore`` naming the attribute and the object when a stored value is not of
    ///   its attribute's type; what `body` throws.
    package func scan(_ entity: Entity, _ body: (ScannedObject) throws -> Void) throws {
        let q = dialect.quote
        let toOne = entity.relationships.filter { $0.kind == .toOne }
        let columns =
            entity.attributes.map { layout.column(entity.name, $0.name) }
            + toOne.map { layout.column(entity.name, $0.name) }
        // In a hierarchy's table, the rows of this very entity (not of its sub-entities, scanned as their own).
        let own = layout.ownRowsCondition(entity.name).map { " WHERE \($0)" } ?? ""
        let rows = try db.makeStatement(
            .read,
            "SELECT \(([idColumn] + columns).joined(separator: ", ")) FROM \(layout.table(entity.name))\(own) ORDER BY \(idColumn)"
        )
        defer { rows.reset() }
        var cursors: [Int: JoinCursor] = [:]
        for (index, relationship) in entity.relationships.enumerated() where relationship.kind == .toMany {
            let order = (relationship.isOrdered ? [q(StoreLayout.positionColumn)] : []) + [dialect.insertionOrder]
            cursors[index] = try JoinCursor(
                db.makeStatement(
                    .read,
                    "SELECT \(q(StoreLayout.ownerColumn)), \(q(StoreLayout.targetColumn)) FROM \(layout.joinTable(entity.name, relationship.name)) ORDER BY \(q(StoreLayout.ownerColumn)), \(order.joined(separator: ", "))"
                ))
        }
        defer { for cursor in cursors.values { cursor.statement.reset() } }
        let toOneColumn = Dictionary(
            uniqueKeysWithValues: toOne.enumerated().map { ($1.name, entity.attributes.count + 1 + $0) })
        var object = ScannedObject()
        object.values = Array(repeating: .null, count: entity.attributes.count)
        object.links = Array(repeating: [], count: entity.relationships.count)
        while try rows.step() {
            object.id = rows.int64(0)
            for (index, attribute) in entity.attributes.enumerated() {
                guard let value = rows.value(index + 1, as: attribute.type) else {
                    throw SQLStoredValue.mismatch(
                        entity: entity.name, attribute: attribute.name, objectID: object.id,
                        found: rows.describe(index + 1),
                        expected: attribute.type)
                }
                object.values[index] = value
            }
            for (index, relationship) in entity.relationships.enumerated() {
                object.links[index].removeAll(keepingCapacity: true)
                if let cursor = cursors[index] {
                    try cursor.targets(of: object.id, into: &object.links[index])
                } else if let column = toOneColumn[relationship.name], !rows.isNull(column) {
                    object.links[index].append(rows.int64(column))
                }
            }
            try body(object)
        }
    }
}

/// A join table read in owner order, one owner at a time, alongside the owners' own table.
private final class JoinCursor {
    let statement: any SQLStatement
    private var pending: (owner: Int64, target: Int64)?
    private var done = false

    init(_ statement: any SQLStatement) { self.statement = statement }

    /// Appends the targets of `owner` (skipping rows of smaller owners, which have no object).
    func targets(of owner: Int64, into targets: inout [Int64]) throws {
        while true {
            if pending == nil {
                guard !done else { return }
                guard try statement.step() else {
                    done = true
                    return
                }
                pending = (statement.int64(0), statement.int64(1))
            }
            guard let row = pending, row.owner <= owner else { return }
            if row.owner == owner { targets.append(row.target) }
            pending = nil
        }
    }
}

extension Objects {
    /// The largest identifier each entity ever handed out, deleted objects included, where the engine records
    /// it: what `molt export` writes so that an import hands none of them out again.
    package func identifierMarks(of entities: [Entity]) throws -> [String: Int64] {
        var marks: [String: Int64] = [:]
        for entity in entities {
            if let mark = try db.identifierMark(of: layout.physicalTable(entity.name)) { marks[entity.name] = mark }
        }
        return marks
    }
}
