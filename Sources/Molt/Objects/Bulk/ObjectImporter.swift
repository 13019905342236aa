import Foundation

/// Writes the objects of an export file into a store, one object at a time, in the caller's write transaction:
/// what `molt import` streams a file of any size through.
///
/// Each object is one execution of one cached `INSERT` per entity (its to-one links are columns of that row) and
/// of one per to-many relationship; identifiers of the file are kept (a new store) or shifted past the store's
/// largest (an existing one), so that links need no lookup. Reference checks are deferred to ``finish()``,
/// which then, in SQL over whole tables:
/// - refuses a link to an object that is not in the file, naming both;
/// - refuses the two sides of a relationship and its inverse when they disagree (an owner lists a pet whose
///   `owner` is someone else);
/// - fills a side the file left out entirely from its inverse.
///
/// ```swift
/// try store.write { objects in
///     let importer = try ObjectImporter(objects, keepingIDs: true)
///     try importer.insert(folder, fileID: 1, values: ["name": "Inbox"], links: ["notes": [4, 1]])
///     try importer.finish()
/// }
/// ```
package final class ObjectImporter {
    let objects: Objects
    var db: any SQLConnection { objects.db }
    private(set) var offsets: [String: Int64] = [:]
    let keepingIDs: Bool
    /// `Entity.relationship` of every side the file gave for at least one object.
    private(set) var givenSides: Set<String> = []
    /// The objects inserted so far.
    package private(set) var count = 0
    /// The prepared `INSERT` of each entity and of each join table, made once.
    private var inserts: [String: any SQLStatement] = [:]
    private var linkInserts: [String: any SQLStatement] = [:]
    /// The quoted columns of each entity's rows, and of each join table's.
    private var columns: [String: [String]] = [:]
    /// The same, unquoted, for the engine's batched inserts.
    private var unquotedColumns: [String: [String]] = [:]

    /// - Parameters:
    ///   - objects: The objects of a write transaction.
    ///   - keepingIDs: Whether objects keep the file's `_id`s (a new store) or are shifted past the store's
    ///     largest `_id` of their entity (an existing store).
    package init(_ objects: Objects, keepingIDs: Bool) throws {
        try objects.requireWritable()
        self.objects = objects
        self.keepingIDs = keepingIDs
        try objects.db.deferReferenceChecks()
        for entity in objects.schema.entities {
            guard !keepingIDs else {
                offsets[entity.name] = 0
                continue
            }
            // Past every identifier the store ever handed out, not only past those still in use.
            let largest =
                try objects.db.fetchInt("SELECT MAX(\(objects.idColumn)) FROM \(objects.layout.table(entity.name))")
                ?? 0
            let mark = try objects.db.identifierMark(of: objects.layout.physicalTable(entity.name)) ?? 0
            offsets[entity.name] = max(largest, mark)
        }
    }

    private func label(_ entity: Entity, _ fileID: Int64?) -> String {
        fileID.map { "'\(entity.name)' _id \($0)" } ?? "an object of '\(entity.name)'"
    }

    /// Inserts one object: its attribute values (missing ones take their default) and the file `_id`s its
    /// relationships point to.
    ///
    /// - Throws: ``MoltError/Code/invalidValue`` for a value that does not fit, a to-one given several objects, an
    ///   `_id` given twice.
    package func insert(_ entity: Entity, fileID: Int64?, values: [String: Value], links: [String: [Int64]]) throws {
        // An entity of a hierarchy: its inherited members too, its row in the root's table, named by `_entity`.
        let inHierarchy = objects.layout.hierarchy(entity.name) != nil
        let entity = inHierarchy ? objects.schema.effectiveEntity(named: entity.name) ?? entity : entity
        if entity.isAbstract {
            throw MoltError(
                .invalidValue,
                "\(label(entity, fileID)) is of an abstract entity, which has no objects of its own: give it one of its sub-entities.",
                entity: entity.name)
        }
        let checked = try objects.checkedValues(values, for: entity, applyingDefaults: true)
        var arguments: [Value] = [try fileID.map { .int(try storeID($0, of: entity.name)) } ?? .null]
        arguments.reserveCapacity(checked.count + entity.relationships.count + 1)
        arguments += checked.map(\.1)
        let columns = checked.map(\.0.name)
        for relationship in entity.relationships where relationship.kind == .toOne {
            guard let ids = links[relationship.name] else {
                arguments.append(.null)
                continue
            }
            givenSides.insert(side(entity, relationship))
            guard ids.count <= 1 else {
                throw MoltError(
                    .invalidValue,
                    "\(label(entity, fileID)) gives \(ids.count) objects to the to-one relationship '\(entity.name).\(relationship.name)'; give one `_id` or null.",
                    entity: entity.name, property: relationship.name)
            }
            arguments.append(try ids.first.map { .int(try storeID($0, of: relationship.destination)) } ?? .null)
        }
        if inHierarchy { arguments.append(.string(entity.name)) }
        let id: Int64
        do {
            id = try insertRow(entity, columns, arguments)
        } catch let error as MoltError where error.code == .constraintViolation && fileID != nil {
            throw MoltError(
                .invalidValue,
                "\(label(entity, fileID)) is given twice, or collides with a unique value of another object (\(error.message)); each object needs its own `_id` and unique values.",
                entity: entity.name, cause: error)
        }
        for relationship in entity.relationships where relationship.kind == .toMany {
            guard let ids = links[relationship.name] else { continue }
            givenSides.insert(side(entity, relationship))
            try link(entity, relationship, owner: id, fileID: fileID, targets: ids)
        }
        count += 1
    }

    /// Records that rows written by other means than ``insert(_:fileID:values:links:)`` (an adoption's
    /// `INSERT … SELECT`) gave `relationship` of `entity` for at least one object, as an insert that gives it
    /// does: ``finish(identifierMarks:)`` then checks it against its inverse, or fills the inverse from it.
    func noteGiven(_ entity: Entity, _ relationship: Relationship) {
        givenSides.insert(side(entity, relationship))
    }

    /// `Entity.relationship` as ``finish(identifierMarks:)`` names a side: by the entity that declares it (a
    /// sub-entity's inherited relationship is its parent's).
    private func side(_ entity: Entity, _ relationship: Relationship) -> String {
        var name = entity.name
        while let declared = objects.schema.entity(named: name), declared.relationship(named: relationship.name) == nil,
            let parent = declared.parent
        {
            name = parent
        }
        return "\(name).\(relationship.name)"
    }

    /// Inserts the object's row and returns its `_id`: batched by the engine when the file gave the `_id` (see
    /// ``SQLConnection/insertBatched(into:columns:values:)``), else through the entity's `INSERT`, which returns
    /// the `_id` the store numbered.
    private func insertRow(_ entity: Entity, _ attributes: [String], _ arguments: [Value]) throws -> Int64 {
        objects.recordWrite(table: objects.layout.physicalTable(entity.name))
        if case .int(let id) = arguments[0] {
            if try db.insertBatched(
                into: objects.layout.physicalTable(entity.name), columns: batchedColumns(entity, attributes),
                values: arguments)
            {
                objects.didInsertObject(entity.name, id: id)
                return id
            }
        }
        let id = try insertStatement(entity, attributes).insert(arguments)
        objects.didInsertObject(entity.name, id: id)
        return id
    }

    /// `_id`, the attributes, the to-one columns of an entity's rows, unquoted, as a batched insert takes them.
    private func batchedColumns(_ entity: Entity, _ attributes: [String]) -> [String] {
        if let columns = unquotedColumns[entity.name] { return columns }
        let layout = objects.layout
        let result =
            [StoreLayout.idColumn] + attributes.map { layout.physicalColumn(entity.name, $0) }
            + entity.relationships.filter { $0.kind == .toOne }.map { layout.physicalColumn(entity.name, $0.name) }
            + (layout.hierarchy(entity.name) != nil ? [StoreLayout.entityColumn] : [])
        unquotedColumns[entity.name] = result
        return result
    }

    /// The same columns, quoted, for the entity's `INSERT`, made once per entity.
    private func rowColumns(_ entity: Entity, _ attributes: [String]) throws -> [String] {
        if let columns = columns[entity.name] { return columns }
        let result = batchedColumns(entity, attributes).map(objects.dialect.quote)
        columns[entity.name] = result
        return result
    }

    /// `INSERT INTO entity (_id, attributes…, to-one columns…)`, prepared once per entity; `attributes` are those
    /// `checkedValues` gives, which (with defaults applied) are all of them, in order.
    private func insertStatement(_ entity: Entity, _ attributes: [String]) throws -> any SQLStatement {
        if let statement = inserts[entity.name] { return statement }
        let layout = objects.layout
        let columns = try rowColumns(entity, attributes)
        let statement = try db.cachedStatement(
            .insert(into: layout.physicalTable(entity.name), explicitID: true),
            "INSERT INTO \(layout.table(entity.name)) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        )
        inserts[entity.name] = statement
        return statement
    }

    /// The quoted columns of a relationship's join table: owner, target, and position when it is ordered.
    private static func unquotedLinkColumns(_ relationship: Relationship) -> [String] {
        [StoreLayout.ownerColumn, StoreLayout.targetColumn]
            + (relationship.isOrdered ? [StoreLayout.positionColumn] : [])
    }

    private func linkColumns(_ relationship: Relationship) -> [String] {
        let q = objects.dialect.quote
        var columns = [q(StoreLayout.ownerColumn), q(StoreLayout.targetColumn)]
        if relationship.isOrdered { columns.append(q(StoreLayout.positionColumn)) }
        return columns
    }

    private func linkStatement(_ entity: Entity, _ relationship: Relationship) throws -> any SQLStatement {
        let key = "\(entity.name).\(relationship.name)"
        if let statement = linkInserts[key] { return statement }
        let columns = linkColumns(relationship)
        let statement = try db.cachedStatement(
            .insert(into: objects.layout.physicalJoinTable(entity.name, relationship.name), explicitID: false),
            "INSERT INTO \(objects.layout.joinTable(entity.name, relationship.name)) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        )
        linkInserts[key] = statement
        return statement
    }

    private func link(
        _ entity: Entity, _ relationship: Relationship, owner: Int64, fileID: Int64?, targets: [Int64]
    ) throws {
        let ordered = relationship.isOrdered
        objects.recordLinksAdded(table: objects.layout.physicalJoinTable(entity.name, relationship.name))
        for (position, target) in targets.enumerated() {
            var arguments: [Value] = [.int(owner), .int(try storeID(target, of: relationship.destination))]
            if ordered { arguments.append(.int(Int64(position + 1))) }
            do {
                if try db.insertBatched(
                    into: objects.layout.physicalJoinTable(entity.name, relationship.name),
                    columns: Self.unquotedLinkColumns(relationship), values: arguments)
                {
                    continue
                }
                try linkStatement(entity, relationship).execute(arguments)
            } catch let error as MoltError where error.code == .constraintViolation {
                throw MoltError(
                    .invalidValue,
                    "\(label(entity, fileID)) lists '\(relationship.destination)' _id \(target) twice in '\(entity.name).\(relationship.name)'; list each object once.",
                    entity: entity.name, property: relationship.name, cause: error)
            }
        }
    }
}
