import Foundation

/// The store during a custom stage from version A to version B: A's tables, untouched, plus what B adds beside
/// them (new columns, new tables, new join tables), so that old and new data are visible together.
///
/// Preparing the workspace only adds: an `ALTER TABLE … ADD COLUMN` per new or retyped attribute (values that
/// convert safely are filled in), a `CREATE TABLE` per new entity or relationship. A's objects keep their
/// identifiers and are B's objects of the matching entity. When the stage ends, ``finalizer`` brings the
/// tables to B's exact layout, rebuilding a table at most once, and can absorb the inferred steps that follow.
///
/// **The old side stays version A.** B's objects share A's rows; a write of the new side that would change
/// what the old side reads (an insert or delete in a shared table, an update of one of A's columns, a link in
/// one of A's join tables) first copies that table as A has it into a temporary snapshot, and the old side
/// reads the snapshot from then on. A stage that only writes B's new columns copies nothing.
final class StageWorkspace: StageObserver, StageLayoutSource {
    /// The step: from A to B, with the deletions it declares.
    let diff: SchemaDiff
    /// The step as its tables see it (``MigrationStep/storageDiff``): a hierarchy is one entity, its root's
    /// table. The step's own diff when neither version has a hierarchy.
    let storage: SchemaDiff
    var from: Schema { diff.source }
    var to: Schema { diff.destination }
    /// Where B's objects live during the stage.
    let newLayout: StoreLayout
    /// B's entity → A's entity, for entities that existed in A.
    let origins: [String: String]
    /// The change from the workspace to B, not yet applied; a mapping can compute its columns in it.
    var finalizer: LightweightMigration
    /// Required attributes of B whose workspace column may still hold nulls: entity → (attribute, column).
    let requiredWithoutDefault: [String: [(attribute: String, column: String)]]
    /// Where the old side reads now.
    private(set) var oldLayout: StoreLayout
    /// Bumped by every snapshot, so that readers prepared before it prepare again.
    private(set) var generation = 0
    /// What the stage did, for the run's counts.
    let counts = StageCounts()
    /// Required attributes that the rebuild ending the stage computes (a folded mapping): not checked for
    /// nulls before it, since they are filled by it.
    var computedLater = AttributeSet()
    private var db: (any SQLConnection)?
    /// A's tables → the columns of A they hold (nil for join tables, whose every column is A's).
    private let oldTables: [String: Set<String>?]
    /// A's tables already copied, and the name of their copy.
    private var snapshots: [String: String] = [:]
    /// The tables the stage wrote to, by the names they have in B (or A's for tables B drops): where links may
    /// have broken, for validation to check rather than the whole store.
    private(set) var writtenTables: Set<String> = []
    /// Workspace table → the name it has in B.
    private let finalNames: [String: String]
    /// The objects the stage inserted and the owners it removed links of, by workspace tables: for the check of
    /// minimum counts that the step keeps (``StoreValidator/requiredLinkScope(_:_:from:linkedTables:changes:raised:)``).
    let changes = TableAccess()
    /// Old entities whose objects the stage read whole (`migration.old.fetch`), and old attributes it read
    /// one by one or named in a mapping.
    private var wholeEntitiesRead: Set<String> = []
    private var lastReadEntity: String?
    var attributesRead = AttributeSet()
    /// The tables (by B's names) of the sides filled from their inverse when the workspace was prepared.
    private(set) var filledInverseTables: Set<String> = []

    /// A workspace whose tables are laid out as `tables` (by the storage entities of B), and B's entities as
    /// `newLayout` (the same, with each entity of a hierarchy placed in its root's table).
    init(
        diff: SchemaDiff, storage: SchemaDiff, tables: StoreLayout, newLayout: StoreLayout,
        finalizer: LightweightMigration, requiredWithoutDefault: [String: [(attribute: String, column: String)]]
    ) {
        self.diff = diff
        self.storage = storage
        self.newLayout = newLayout
        var origins: [String: String] = [:]
        for entity in diff.destination.entities {
            if let old = diff.originalName(ofEntity: entity.name), diff.source.entity(named: old) != nil {
                origins[entity.name] = old
            }
        }
        self.origins = origins
        self.finalizer = finalizer
        self.requiredWithoutDefault = requiredWithoutDefault
        self.oldLayout = .standard(diff.source, dialect: newLayout.dialect)
        var oldTables: [String: Set<String>?] = [:]
        for entity in storage.source.entities {
            oldTables[entity.name] = Set(
                entity.attributes.map(\.name) + entity.relationships.filter { $0.kind == .toOne }.map(\.name))
            for relationship in entity.relationships where relationship.kind == .toMany {
                oldTables[Entity.joinTableName(entity: entity.name, relationship: relationship.name)] = .some(nil)
            }
        }
        self.oldTables = oldTables
        var finalNames: [String: String] = [:]
        for (entity, layout) in tables.entities {
            finalNames[layout.table] = entity
            for (relationship, joinTable) in layout.joinTables {
                finalNames[joinTable] = StoreLayout.joinTableName(entity: entity, relationship: relationship)
            }
        }
        self.finalNames = finalNames
    }

    /// Fills each side of B that starts empty while its inverse holds links (in A's data), so that the stage
    /// reads both sides alike; a to-one side that the inverse links from several objects is left empty for
    /// the stage to decide, and validation refuses the step if the stage does not.
    /// Which sides start empty is the diff's rule (``SchemaDiff/startsEmpty(_:_:)``), the one the test kit's
    /// data dependencies read too.
    func fillNewInverses(in db: any SQLConnection) throws {
        let sides = InverseLink.sidesToFill(in: to) { diff.startsEmpty($0, $1) }
        for side in sides where origins[side.entity] != nil && origins[side.destination] != nil {
            if try side.overfull(in: db, layout: newLayout) != nil {
                filledInverseTables.formUnion(side.tables)
                continue
            }
            try side.fill(in: db, layout: newLayout)
            filledInverseTables.formUnion(side.tables)
        }
    }

    /// The name a workspace table has in B (A's for a table B drops).
    func finalName(of table: String) -> String { finalNames[table] ?? table }

    /// Connects the workspace to the run's connection, for the snapshots it takes.
    func attach(_ db: any SQLConnection) { self.db = db }

    // MARK: - StageObserver

    func willWrite(table: String, columns: [String]?) throws {
        writtenTables.insert(finalNames[table] ?? table)
        guard snapshots[table] == nil, let entry = oldTables[table] else { return }
        if let columns, let oldColumns = entry, columns.allSatisfy({ !oldColumns.contains($0) }) { return }
        try snapshot(table)
    }

    func didInsert(_ entity: String, count: Int) { counts.inserted += count }
    func didUpdate(_ entity: String, id: Int64) { counts.updated(entity, id: id) }
    func didDelete(_ entity: String, count: Int) {
        guard count > 0 else { return }
        counts.deleted += count
        counts.deletedEntities.insert(entity)
    }

    // MARK: - StageLayoutSource

    func didRead(_ entity: String) {
        guard lastReadEntity != entity else { return }
        lastReadEntity = entity
        wholeEntitiesRead.insert(entity)
        // What the step drops is named after its tables: a hierarchy's, its root.
        if let root = from.rootEntity(of: entity)?.name, root != entity { wholeEntitiesRead.insert(root) }
    }

    /// Notes the old attributes of `entity` that the stage read one by one (`old["street"]`).
    func didRead(_ attributes: [String], of entity: String) {
        for attribute in attributes { attributesRead.insert(attribute, of: entity) }
        guard let root = from.rootEntity(of: entity)?.name, from.isInHierarchy(entity) else { return }
        for attribute in attributes {
            attributesRead.insert(from.storedName(of: attribute, in: entity) ?? attribute, of: root)
        }
    }

    /// Whether the stage read the old values of `attribute` of `entity` (A's names): through `old` in an
    /// enumeration, as whole objects of the old side, or in a mapping's expression.
    func read(_ attribute: String, of entity: String) -> Bool {
        wholeEntitiesRead.contains(entity) || attributesRead.contains(attribute, of: entity)
    }

    /// Whether the stage read objects or values of `entity` (A's name) at all.
    func readAnything(of entity: String) -> Bool {
        wholeEntitiesRead.contains(entity) || attributesRead.contains(anyOf: entity)
    }

    /// Whether the old side reads `table` from a snapshot.
    func isSnapshotted(_ table: String) -> Bool { snapshots[table] != nil }

    /// Copies A's table as it is now (A's data, since nothing the old side reads has been written yet) into a
    /// temporary table, and points the old side at it.
    private func snapshot(_ table: String) throws {
        guard let db else { return }
        let dialect = db.dialect
        let q = dialect.quote
        // Stages drop their snapshots when they end, so the name is free.
        let copy = "_molt_old_\(table)"
        if let entity = storage.source.entity(named: table) {
            // A's own columns, with the references as plain integers: the copy is read, never linked to.
            var definition = entity
            definition.attributes += entity.relationships.filter { $0.kind == .toOne }.map {
                Attribute($0.name, .int, isOptional: true)
            }
            definition.relationships = []
            let columns = ([StoreLayout.idColumn] + definition.attributes.map(\.name)).map(q).joined(separator: ", ")
            try db.change(
                .createTable(SchemaDDL(dialect: dialect).table(for: definition, named: copy, temporary: true)))
            try db.execute(
                .insert(into: copy, explicitID: true),
                "INSERT INTO \(dialect.temporaryTable(copy)) (\(columns)) SELECT \(columns) FROM \(q(table))")
        } else {
            try db.execute(.create, "CREATE TEMP TABLE \(q(copy)) AS SELECT * FROM \(q(table))")
            try db.execute(
                .create, dialect.temporaryIndex(copy + "_owner", on: q(copy), columns: q(StoreLayout.ownerColumn)))
        }
        snapshots[table] = copy
        retarget(table, to: copy)
        generation += 1
    }

    /// Points every use of `table` in the old layout at its copy.
    private func retarget(_ table: String, to copy: String) {
        for (entity, var layout) in oldLayout.entities {
            if layout.table == table { layout.table = copy }
            for (relationship, joinTable) in layout.joinTables where joinTable == table {
                layout.joinTables[relationship] = copy
            }
            oldLayout.entities[entity] = layout
        }
        oldLayout.temporaryTables.insert(copy)
    }

    /// Drops the snapshots; called when the stage ends.
    func dropSnapshots() throws {
        guard let db else { return }
        for copy in snapshots.values {
            try db.execute(.alter, "DROP TABLE IF EXISTS \(db.dialect.temporaryTable(copy))")
        }
        snapshots = [:]
    }

    /// Names for what the workspace adds beside the old data: the preferred name when it is free (as SQLite
    /// compares names, ignoring case), otherwise `_molt_new_<name>`, numbered if needed.
    struct FreeNames {
        private var taken: Set<String>

        init(taken: [String]) { self.taken = Set(taken.map { $0.lowercased() }) }

        mutating func claim(_ preferred: String) -> String {
            var name = preferred
            var n = 1
            while taken.contains(name.lowercased()) {
                name = "_molt_new_\(preferred)" + (n > 1 ? "_\(n)" : "")
                n += 1
            }
            taken.insert(name.lowercased())
            return name
        }
    }

    static func zeroValue(of type: AttributeType) -> Value {
        switch type {
        case .string: return .string("")
        case .int, .int16, .int32: return .int(0)
        case .double, .float: return .double(0)
        case .decimal: return .decimal(0)
        case .bool: return .bool(false)
        case .date: return .date(Date(timeIntervalSince1970: 0))
        case .data: return .data(.init())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        }
    }
}

/// A set of attributes of entities.
struct AttributeSet {
    private var names: Set<String> = []
    mutating func insert(_ attribute: String, of entity: String) { names.insert(entity + "." + attribute) }
    func contains(_ attribute: String, of entity: String) -> Bool { names.contains(entity + "." + attribute) }
    func contains(anyOf entity: String) -> Bool { names.contains { $0.hasPrefix(entity + ".") } }
}

/// What a stage did: objects inserted, updated (each counted once however often it is written) and deleted.
final class StageCounts {
    var inserted = 0
    var deleted = 0
    /// The entities some of whose objects were deleted, so that links to them are cleaned once at the end.
    var deletedEntities: Set<String> = []
    private var updatedIDs: [String: IDSet] = [:]
    /// Entities whose rows a set operation updated (a mapping, `renameProperty`): how many, at most.
    private var bulkUpdated: [String: Int] = [:]

    func updated(_ entity: String, id: Int64) { updatedIDs[entity, default: IDSet()].insert(id) }

    /// Notes that one statement updated `count` objects of `entity` (every object of it, usually).
    func updatedAll(_ entity: String, count: Int) { bulkUpdated[entity] = max(bulkUpdated[entity] ?? 0, count) }

    /// Objects updated, each counted once.
    var updated: Int {
        Set(updatedIDs.keys).union(bulkUpdated.keys).reduce(0) { total, entity in
            total + max(updatedIDs[entity]?.count ?? 0, bulkUpdated[entity] ?? 0)
        }
    }
}

/// A set of identifiers as a bitmap of 64-id words, cheap for the dense, increasing ids a stage walks.
struct IDSet {
    private var words: [Int64: UInt64] = [:]
    private var lastKey = Int64.min
    private var lastWord: UInt64 = 0
    private(set) var count = 0

    mutating func insert(_ id: Int64) {
        let key = id >> 6
        let bit = UInt64(1) << UInt64(id & 63)
        if key != lastKey {
            if lastKey != .min { words[lastKey] = lastWord }
            lastKey = key
            lastWord = words[key] ?? 0
        }
        if lastWord & bit == 0 {
            lastWord |= bit
            count += 1
        }
    }
}
