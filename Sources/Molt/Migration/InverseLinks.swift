/// Both sides of a relationship and its inverse hold the same links: Molt stores each side (a to-one column, a
/// to-many join table) and keeps them in step on every write. A step that adds a side whose inverse already
/// holds links (`Item.owner` exists; version 2 adds `Owner.items` as its inverse) starts that side empty, so it
/// is filled from its inverse before anything reads it; a store whose two sides disagree is refused by
/// validation, naming the objects.
struct InverseLink: Hashable {
    /// The entity that owns the side, in the newer schema.
    var entity: String
    /// The side.
    var relationship: Relationship
    /// Its inverse, on `relationship.destination`.
    var inverse: Relationship

    var destination: String { relationship.destination }
    var label: String { "'\(entity).\(relationship.name)'" }
    var inverseLabel: String { "'\(destination).\(inverse.name)'" }

    /// Every side of `schema` that has an inverse, each pair once (the side that sorts first by entity, then
    /// relationship name) unless `bothWays`.
    static func pairs(in schema: Schema, bothWays: Bool = false) -> [InverseLink] {
        var result: [InverseLink] = []
        for entity in schema.entities {
            for relationship in entity.relationships {
                guard let inverseName = relationship.inverse,
                    let inverse = schema.effectiveEntity(named: relationship.destination)?.relationship(
                        named: inverseName)
                else { continue }
                let link = InverseLink(entity: entity.name, relationship: relationship, inverse: inverse)
                if bothWays || (entity.name, relationship.name) <= (relationship.destination, inverseName) {
                    result.append(link)
                }
            }
        }
        return result
    }

    /// The sides that start empty in a step while their inverse holds links: `isNew` says which sides the step
    /// created (a new column or join table that no old relationship feeds).
    static func sidesToFill(
        in schema: Schema, isNew: (_ entity: String, _ relationship: String) -> Bool
    ) -> [InverseLink] {
        pairs(in: schema, bothWays: true).filter { link in
            isNew(link.entity, link.relationship.name) && !isNew(link.destination, link.inverse.name)
                && !(link.entity == link.destination && link.relationship.name == link.inverse.name)
        }
    }

    /// The tables that hold the two sides, by the names the schema gives them.
    var tables: [String] {
        func table(_ entity: String, _ relationship: Relationship) -> String {
            relationship.kind == .toOne
                ? entity : StoreLayout.joinTableName(entity: entity, relationship: relationship.name)
        }
        return [table(entity, relationship), table(destination, inverse)]
    }

    // MARK: - SQL

    /// One stored side: its entity's column or join table.
    private struct Side {
        let entity: String
        let relationship: Relationship

        /// The side's links as rows, its owner named `owner` and its destination `target`.
        func rows(_ layout: StoreLayout, owner: String, target: String) -> String {
            let q = layout.dialect.quote
            switch relationship.kind {
            case .toOne:
                let column = layout.column(entity, relationship.name)
                return
                    "SELECT \(q(StoreLayout.idColumn)) AS \(owner), \(column) AS \(target) FROM \(layout.table(entity)) WHERE \(column) IS NOT NULL"
            case .toMany:
                return
                    "SELECT \(q(StoreLayout.ownerColumn)) AS \(owner), \(q(StoreLayout.targetColumn)) AS \(target) FROM \(layout.joinTable(entity, relationship.name))"
            }
        }

        /// A condition true when the side holds the link from `owner` to `target` (SQL expressions).
        func holds(_ layout: StoreLayout, owner: String, target: String) -> String {
            let q = layout.dialect.quote
            switch relationship.kind {
            case .toOne:
                return
                    "EXISTS (SELECT 1 FROM \(layout.table(entity)) WHERE \(q(StoreLayout.idColumn)) = \(owner) AND \(layout.column(entity, relationship.name)) = \(target))"
            case .toMany:
                return
                    "EXISTS (SELECT 1 FROM \(layout.joinTable(entity, relationship.name)) WHERE \(q(StoreLayout.ownerColumn)) = \(owner) AND \(q(StoreLayout.targetColumn)) = \(target))"
            }
        }
    }

    private var side: Side { Side(entity: entity, relationship: relationship) }
    private var inverseSide: Side { Side(entity: destination, relationship: inverse) }

    /// The side's links as rows `(e, d)`: the owner (of `entity`) and the destination object.
    private func links(_ layout: StoreLayout) -> String { side.rows(layout, owner: "e", target: "d") }

    /// The inverse's links, turned around: rows `(e, d)` with `e` of `entity`.
    private func inverseLinks(_ layout: StoreLayout) -> String { inverseSide.rows(layout, owner: "d", target: "e") }

    /// An object of `entity` that the inverse links from more than one object, when the side is to-one and so
    /// can hold only one of them: the object and up to three of the objects linking to it.
    func overfull(
        in db: any SQLConnection, layout: StoreLayout
    ) throws -> (object: Int64, linkedFrom: [Int64], count: Int64)? {
        guard relationship.kind == .toOne else { return nil }
        let rows = try db.fetchRows(
            "SELECT e, COUNT(*) FROM (\(inverseLinks(layout))) AS x GROUP BY e HAVING COUNT(*) > 1 ORDER BY e LIMIT 1",
            types: [.int, .int])
        guard let row = rows.first, case .int(let object) = row[0], case .int(let count) = row[1] else { return nil }
        let from = try db.fetchInts(
            "SELECT d FROM (\(inverseLinks(layout))) AS x WHERE e = ? ORDER BY d LIMIT 3", [.int(object)])
        return (object, from, count)
    }

    /// Writes into the (empty) side every link its inverse holds.
    ///
    /// - Returns: The links written.
    @discardableResult
    func fill(in db: any SQLConnection, layout: StoreLayout) throws -> Int {
        let q = layout.dialect.quote
        let id = q(StoreLayout.idColumn)
        switch relationship.kind {
        case .toMany:
            let table = layout.joinTable(entity, relationship.name)
            var columns = [q(StoreLayout.ownerColumn), q(StoreLayout.targetColumn)]
            var values = "e, d"
            if relationship.isOrdered {
                // No order to keep: the inverse side had none. The destinations' identifiers give a stable one.
                columns.append(q(StoreLayout.positionColumn))
                values += ", ROW_NUMBER() OVER (PARTITION BY e ORDER BY d)"
            }
            return try db.execute(
                .insert(into: layout.physicalJoinTable(entity, relationship.name), explicitID: false),
                "INSERT INTO \(table) (\(columns.joined(separator: ", "))) SELECT \(values) FROM (\(inverseLinks(layout))) AS x ORDER BY e, d"
            )
        case .toOne:
            let table = layout.table(entity)
            return try db.execute(
                .update,
                "UPDATE \(table) SET \(layout.column(entity, relationship.name)) = x.d FROM (\(inverseLinks(layout))) AS x WHERE x.e = \(table).\(id)"
            )
        }
    }

    /// The links one side holds and the other does not, as a sentence naming the first of them and their count;
    /// nil when both sides agree.
    func disagreement(in db: any SQLConnection, layout: StoreLayout) throws -> String? {
        let missingInverse =
            "FROM (\(links(layout))) AS x WHERE NOT \(inverseSide.holds(layout, owner: "x.d", target: "x.e"))"
        let missingSide =
            "FROM (\(inverseLinks(layout))) AS x WHERE NOT \(side.holds(layout, owner: "x.e", target: "x.d"))"
        var problems: [String] = []
        var total: Int64 = 0
        for (from, sideLabel, otherLabel, reversed) in [
            (missingInverse, label, inverseLabel, false), (missingSide, inverseLabel, label, true),
        ] {
            let count = try db.fetchInt("SELECT COUNT(*) \(from)") ?? 0
            guard count > 0 else { continue }
            total += count
            guard let row = try db.fetchRows("SELECT e, d \(from) ORDER BY e, d LIMIT 1", types: [.int, .int]).first,
                case .int(let e) = row[0], case .int(let d) = row[1]
            else { continue }
            let (owner, ownerID, target, targetID) =
                reversed ? (destination, d, entity, e) : (entity, e, destination, d)
            problems.append(
                "\(sideLabel) of \(owner) #\(ownerID) holds \(target) #\(targetID), but \(otherLabel) of \(target) #\(targetID) does not hold \(owner) #\(ownerID)"
            )
        }
        guard !problems.isEmpty else { return nil }
        return "\(label) and its inverse \(inverseLabel) disagree on \(total) link\(total == 1 ? "" : "s"): "
            + problems.joined(separator: "; ")
    }
}
