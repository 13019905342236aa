import Foundation

extension ObjectImporter {
    /// Checks the links of every inserted object and completes the sides the file left out; call it once, after
    /// the last ``insert(_:fileID:values:links:)``, before the transaction commits.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` naming the object, the relationship and the missing object or
    ///   the disagreeing inverse.
    ///
    /// - Parameter identifierMarks: The largest identifier each entity of the exporting store ever handed out
    ///   (an export's `identifierMarks`): the store hands out none of them again, as the exporting store would
    ///   not have.
    package func finish(identifierMarks: [String: Int64] = [:]) throws {
        for (name, mark) in identifierMarks.sorted(by: { $0.key < $1.key }) {
            guard objects.schema.entity(named: name) != nil, let offset = offsets[name] else { continue }
            let (shifted, overflow) = mark.addingReportingOverflow(offset)
            if !overflow { try db.raiseIdentifierMark(of: objects.layout.physicalTable(name), to: shifted) }
        }
        for entity in objects.schema.entities {
            for relationship in entity.relationships {
                try checkDestinations(entity, relationship)
            }
        }
        var done: Set<String> = []
        for entity in objects.schema.entities {
            for relationship in entity.relationships {
                guard let inverseName = relationship.inverse,
                    let destination = objects.schema.entity(named: relationship.destination),
                    let inverse = destination.relationship(named: inverseName)
                else { continue }
                let side = "\(entity.name).\(relationship.name)", other = "\(destination.name).\(inverseName)"
                guard !done.contains(side) else { continue }
                done.formUnion([side, other])
                switch (givenSides.contains(side), givenSides.contains(other)) {
                case (true, true): try checkAgreement(entity, relationship, destination, inverse)
                case (true, false): try fill(destination, inverse, from: entity, relationship)
                case (false, true): try fill(entity, relationship, from: destination, inverse)
                case (false, false): break
                }
            }
        }
    }

    /// `(owner, target)` pairs of a relationship side, as SQL over its column or its join table: those of the
    /// imported objects only (in an existing store, the owners past the store's largest `_id`).
    private func pairs(_ entity: Entity, _ relationship: Relationship) -> String {
        let q = objects.dialect.quote, layout = objects.layout
        let offset = offsets[entity.name] ?? 0
        switch relationship.kind {
        case .toOne:
            let (id, column) = (objects.idColumn, layout.column(entity.name, relationship.name))
            return "SELECT \(id) AS o, \(column) AS t FROM \(layout.table(entity.name)) WHERE \(column) IS NOT NULL"
                + (keepingIDs ? "" : " AND \(id) > \(offset)")
        case .toMany:
            let owner = q(StoreLayout.ownerColumn)
            return
                "SELECT \(owner) AS o, \(q(StoreLayout.targetColumn)) AS t FROM \(layout.joinTable(entity.name, relationship.name))"
                + (keepingIDs ? "" : " WHERE \(owner) > \(offset)")
        }
    }

    private func fileID(_ id: Int64, of entity: String) -> Int64 { id - (offsets[entity] ?? 0) }

    /// The `_id` an object of the file gets in the store: its own, or, in an existing store, shifted past the
    /// store's largest. A shift needs positive file `_id`s (the imported objects are told apart by being past the
    /// store's) and must not overflow.
    func storeID(_ id: Int64, of entity: String) throws -> Int64 {
        guard !keepingIDs else { return id }
        let (shifted, overflow) = id.addingReportingOverflow(offsets[entity] ?? 0)
        guard id > 0, !overflow else {
            throw MoltError(
                .invalidValue,
                "'\(entity)' _id \(id) cannot be added to this store: imported objects are numbered after the store's own (past \(offsets[entity] ?? 0)), which needs `_id`s from 1 to \(Int64.max - (offsets[entity] ?? 0)). Renumber the file's objects; nothing was written.",
                entity: entity)
        }
        return shifted
    }

    private func checkDestinations(_ entity: Entity, _ relationship: Relationship) throws {
        let sql =
            "SELECT o, t FROM (\(pairs(entity, relationship))) AS p WHERE t NOT IN (SELECT \(objects.idColumn) FROM \(objects.layout.table(relationship.destination))) LIMIT 1"
        let rows = try db.fetchRows(sql, types: [.int, .int])
        guard let row = rows.first, case .int(let owner) = row[0], case .int(let target) = row[1] else { return }
        throw MoltError(
            .invalidValue,
            "'\(entity.name)' _id \(fileID(owner, of: entity.name)) points through '\(relationship.name)' to '\(relationship.destination)' _id \(fileID(target, of: relationship.destination)), which is not in the file.",
            entity: entity.name, property: relationship.name)
    }

    private func checkAgreement(
        _ entity: Entity, _ relationship: Relationship, _ destination: Entity, _ inverse: Relationship
    ) throws {
        let mine = pairs(entity, relationship),
            theirs = "SELECT t AS o, o AS t FROM (\(pairs(destination, inverse))) AS p"
        for (sql, forward) in [("\(mine) EXCEPT \(theirs)", true), ("\(theirs) EXCEPT \(mine)", false)] {
            let rows = try db.fetchRows("SELECT o, t FROM (\(sql)) AS d LIMIT 1", types: [.int, .int])
            guard let row = rows.first, case .int(let owner) = row[0], case .int(let target) = row[1] else { continue }
            let (a, b) = (fileID(owner, of: entity.name), fileID(target, of: destination.name))
            let (says, denies) =
                forward
                ? (
                    "'\(entity.name)' _id \(a) lists '\(destination.name)' _id \(b) in '\(relationship.name)'",
                    "'\(destination.name)' _id \(b) does not list it back in '\(inverse.name)'"
                )
                : (
                    "'\(destination.name)' _id \(b) lists '\(entity.name)' _id \(a) in '\(inverse.name)'",
                    "'\(entity.name)' _id \(a) does not list it back in '\(relationship.name)'"
                )
            throw MoltError(
                .invalidValue,
                "The two sides of '\(entity.name).\(relationship.name)' and its inverse '\(destination.name).\(inverse.name)' disagree: \(says), but \(denies). Make both sides say the same, or leave one side out of the file.",
                entity: entity.name, property: relationship.name)
        }
    }

    /// Refuses a to-one `side` that the file's `source` side would give two targets: two objects that name one
    /// object through `source`, when its inverse can name only one of them (a one-to-one, or a to-many listing
    /// an object another already lists). The object API unlinks the first when a second is linked; a file says
    /// both at once, so which one it means cannot be told.
    private func checkOneTarget(
        _ entity: Entity, _ side: Relationship, from sourceEntity: Entity, _ source: Relationship, mirror: String
    ) throws {
        let rows = try db.fetchRows(
            "SELECT o, MIN(t), MAX(t) FROM (\(mirror)) AS m GROUP BY o HAVING COUNT(*) > 1 ORDER BY o LIMIT 1",
            types: [.int, .int, .int])
        guard let row = rows.first, case .int(let owner) = row[0], case .int(let first) = row[1],
            case .int(let second) = row[2]
        else { return }
        let (a, b) = (fileID(first, of: sourceEntity.name), fileID(second, of: sourceEntity.name))
        let target = fileID(owner, of: entity.name)
        let how = source.kind == .toOne ? "name" : "list"
        throw MoltError(
            .invalidValue,
            "'\(sourceEntity.name)' _id \(a) and _id \(b) both \(how) '\(entity.name)' _id \(target) in '\(source.name)', but its inverse '\(entity.name).\(side.name)' is to-one: it can name only one of them. Link '\(entity.name)' _id \(target) from one '\(sourceEntity.name)' only; nothing was written.",
            entity: sourceEntity.name, property: source.name)
    }

    /// Writes `side` as the mirror of `source`, for a side the file left out.
    private func fill(_ entity: Entity, _ side: Relationship, from sourceEntity: Entity, _ source: Relationship) throws
    {
        let q = objects.dialect.quote, layout = objects.layout
        let mirror = "SELECT t AS o, o AS t FROM (\(pairs(sourceEntity, source))) AS p"
        if side.kind == .toOne {
            objects.recordWrite(table: layout.physicalTable(entity.name))
        } else {
            objects.recordLinksAdded(table: layout.physicalJoinTable(entity.name, side.name))
        }
        switch side.kind {
        case .toOne:
            try checkOneTarget(entity, side, from: sourceEntity, source, mirror: mirror)
            let table = layout.table(entity.name), column = layout.column(entity.name, side.name)
            let imported = keepingIDs ? "" : " WHERE \(objects.idColumn) > \(offsets[entity.name] ?? 0)"
            try db.execute(
                .update,
                "UPDATE \(table) SET \(column) = (SELECT t FROM (\(mirror)) AS m WHERE m.o = \(table).\(objects.idColumn) LIMIT 1)\(imported)"
            )
        case .toMany:
            let ordered = side.isOrdered
            let columns =
                [q(StoreLayout.ownerColumn), q(StoreLayout.targetColumn)]
                + (ordered ? [q(StoreLayout.positionColumn)] : [])
            let select =
                ordered
                ? "SELECT o, t, ROW_NUMBER() OVER (PARTITION BY o ORDER BY t) FROM (\(mirror)) AS m"
                : "SELECT o, t FROM (\(mirror)) AS m"
            try db.execute(
                .insert(into: layout.physicalJoinTable(entity.name, side.name), explicitID: false),
                "INSERT INTO \(layout.joinTable(entity.name, side.name)) (\(columns.joined(separator: ", "))) \(select)"
            )
        }
    }
}
