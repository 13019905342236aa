extension EmptyRequiredLink {
    /// The objects of `entity` in `scope` that hold fewer destinations through the to-many `relationship` than
    /// its minimum count, if any: one query that counts each object's rows in the join table (by its owner
    /// column, the first of its primary key), so a small write costs a lookup per object it named.
    static func shortToMany(
        in db: any SQLConnection, entity: String, _ relationship: Relationship, layout: StoreLayout, scope: Scope
    ) throws -> EmptyRequiredLink? {
        guard let minimum = relationship.toManyMinimum else { return nil }
        let q = db.dialect.quote
        let id = "o.\(q(StoreLayout.idColumn))"
        let held =
            "(SELECT COUNT(*) FROM \(layout.joinTable(entity, relationship.name)) WHERE \(q(StoreLayout.ownerColumn)) = \(id))"
        let conditions = layout.entityCondition(entity).map { [$0] } ?? []
        func counted(_ extra: String?) -> String {
            let all = conditions + (extra.map { [$0] } ?? [])
            let filter = all.isEmpty ? "" : " WHERE \(all.joined(separator: " AND "))"
            return
                "(SELECT \(id) AS owner_id, \(held) AS held FROM \(layout.table(entity)) AS o\(filter)) AS counted WHERE held < \(minimum)"
        }
        var rows: [(id: Int64, held: Int64)] = []
        let count: Int64
        switch scope {
        case .everyObject:
            rows = try pairs(db, "SELECT owner_id, held FROM \(counted(nil)) ORDER BY owner_id LIMIT \(shownIDs)")
            count =
                rows.count < shownIDs ? Int64(rows.count) : try db.fetchInt("SELECT COUNT(*) FROM \(counted(nil))") ?? 0
        case .objects(let suspects):
            for chunk in chunks(of: suspects) {
                rows += try pairs(db, "SELECT owner_id, held FROM \(counted("\(id) IN (\(chunk))"))")
            }
            count = Int64(rows.count)
            rows = Array(rows.sorted { $0.id < $1.id }.prefix(shownIDs))
        }
        guard !rows.isEmpty else { return nil }
        return EmptyRequiredLink(
            entity: entity, relationship: relationship, ids: rows.map(\.id), count: count, held: rows.map(\.held))
    }

    private static func pairs(_ db: any SQLConnection, _ sql: String) throws -> [(id: Int64, held: Int64)] {
        try db.fetchRows(sql, [], types: [.int, .int]).compactMap { row in
            guard let id = row[0].int, let held = row[1].int else { return nil }
            return (id, held)
        }
    }

    /// `47 'Conversation' objects (_id 4, 7, 9, …) hold fewer than 1 'participantRoles'`, with each object's count
    /// for a minimum above 1 (`_id 4: 0, _id 7: 1`): what an adoption keeps.
    var keptPhrase: String {
        let minimum = relationship.minimumCount
        let shown =
            minimum > 1
            ? zip(ids, held).map { "_id \($0): \($1)" }.joined(separator: ", ")
            : "_id " + ids.map(String.init).joined(separator: ", ")
        let more = count > Int64(ids.count) ? ", …" : ""
        let objects =
            count == 1 ? "1 '\(entity)' object (\(shown)) holds" : "\(count) '\(entity)' objects (\(shown)\(more)) hold"
        return "\(objects) fewer than \(minimum) '\(relationship.name)'"
    }

    /// The refusal of a write transaction that leaves an object with fewer destinations than `minimum`.
    func shortWriteRefusal(_ minimum: Int) -> MoltError {
        let destination = relationship.destination
        let objects = minimum == 1 ? "1 object" : "\(minimum) objects"
        return MoltError(
            .constraintViolation,
            "Relationship \(label) must hold at least \(objects), so nothing was written: \(phrase) when the write ends. Link \(minimum == 1 ? Self.article(destination) : "enough") '\(destination)' to each in the same write (`objects.add(destination, to: \"\(relationship.name)\", of: object)`), or delete them.",
            entity: entity, property: relationship.name)
    }
}
