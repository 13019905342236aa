/// Where the values of a step's hierarchies are stored on each side of it: for each concrete entity of a
/// hierarchy in the newer version and each of its attributes and relationships, the column (or to-many storage
/// name) in the newer version and the one its values came from.
///
/// Two siblings that declare a property of the same name each have a column (``Schema/storedName(of:in:)``),
/// named after the version alone: a sibling added before another, or removed, or a property moved down into
/// two siblings, changes which column an entity's values belong to. A column whose values all go to one new
/// column that did not exist is renamed (``renames``, through the storage diff); other values are moved row by
/// row, for the rows of their entity (``moves``), before the tables change when the new column already exists,
/// after it when the old column stays.
struct HierarchyColumns {
    /// The values of one property of one entity's objects that change column.
    struct Move: Equatable {
        var entity: String
        var property: String
        var table: String
        /// The table's name in the older version, where a move that runs `before` the tables change writes.
        var oldTable: String
        var from: String
        var to: String
        /// Whether the target column exists before the step: the move runs before the tables change.
        var before: Bool
    }

    /// One property of one concrete entity whose values are in another column after the step than before.
    private struct Pair {
        var entity: String
        var property: String
        /// Its name in the older version.
        var oldProperty: String
        var table: String
        var column: String
        /// Its column in the older version.
        var origin: String
        var toMany: Bool
    }

    /// Old column → new column, per table of the newer version.
    private(set) var renames: [String: [String: String]] = [:]
    private(set) var moves: [Move] = []
    /// The moves Molt cannot infer, worded for a refusal.
    private(set) var refusals: [String] = []

    init(_ diff: SchemaDiff) {
        let (source, destination) = (diff.source, diff.destination)
        var pairs: [Pair] = []
        for entity in destination.entities where !entity.isAbstract && destination.isInHierarchy(entity.name) {
            guard let old = diff.originalName(ofEntity: entity.name),
                let effective = destination.effectiveEntity(named: entity.name),
                let table = destination.rootEntity(of: entity.name)?.name,
                source.rootEntity(of: old)?.name == diff.originalName(ofEntity: table)
            else { continue }
            let properties =
                effective.attributes.map { ($0.name, false) }
                + effective.relationships.map { ($0.name, $0.kind == .toMany) }
            for (property, toMany) in properties {
                let oldProperty = diff.originalName(ofProperty: property, inEntity: entity.name) ?? property
                guard let origin = source.storedName(of: oldProperty, in: old),
                    let column = destination.storedName(of: property, in: entity.name), origin != column
                else { continue }
                pairs.append(
                    Pair(
                        entity: entity.name, property: property, oldProperty: oldProperty, table: table, column: column,
                        origin: origin, toMany: toMany))
            }
        }
        let stored = (
            old: Self.columns(of: source.storageSchema), new: Self.columns(of: destination.storageSchema)
        )
        for pair in pairs {
            let oldTable = diff.originalName(ofEntity: pair.table) ?? pair.table
            let existed = stored.old[oldTable]?.contains(pair.column) == true
            let stays = stored.new[pair.table]?.contains(pair.origin) == true
            let sameOrigin = pairs.allSatisfy {
                $0.table != pair.table || ($0.column == pair.column) == ($0.origin == pair.origin)
            }
            if !existed, !stays, sameOrigin {
                renames[pair.table, default: [:]][pair.origin] = pair.column
                continue
            }
            // A row-by-row move writes a column the entity's objects do not use on that side, and keeps the
            // type (a type change is converted by the storage diff, column by column).
            let old = diff.originalName(ofEntity: pair.entity) ?? pair.entity
            let free =
                existed
                ? !Self.uses(source, entity: old, column: pair.column)
                : !Self.uses(destination, entity: pair.entity, column: pair.origin)
            let sameType =
                source.effectiveEntity(named: old)?.attribute(named: pair.oldProperty)?.type
                == destination.effectiveEntity(named: pair.entity)?.attribute(named: pair.property)?.type
            if !pair.toMany, existed || stays, free, sameType {
                moves.append(
                    Move(
                        entity: pair.entity, property: pair.property, table: pair.table, oldTable: oldTable,
                        from: pair.origin, to: pair.column, before: existed))
            } else {
                refusals.append(
                    "the values of '\(pair.entity).\(pair.property)' would move from column '\(pair.origin)' to '\(pair.column)' of the table of '\(pair.table)' (entities of the hierarchy that declare a property of one name each have a column, the first by entity name keeping the name), and Molt cannot infer that move in this step. Add a version in between so that the values move in two steps (for example one where only one entity of the hierarchy declares '\(pair.property)')."
                )
            }
        }
    }

    /// Whether an object of `entity` holds one of its properties in `column` of its hierarchy's table.
    private static func uses(_ schema: Schema, entity: String, column: String) -> Bool {
        guard let effective = schema.effectiveEntity(named: entity) else { return false }
        return (effective.attributes.map(\.name) + effective.relationships.map(\.name)).contains {
            schema.storedName(of: $0, in: entity) == column
        }
    }

    /// The column names of each table of a storage schema.
    private static func columns(of storage: Schema) -> [String: Set<String>] {
        Dictionary(
            storage.entities.map { ($0.name, Set($0.attributes.map(\.name) + $0.relationships.map(\.name))) },
            uniquingKeysWith: { first, _ in first })
    }

    /// Copies the values of the moves that run at this point (`before` the tables change, or after) into their
    /// new column, and clears them in the old one, for the rows of their entity only (by its new name: the
    /// entities renamed are renamed first, ``HierarchyRenames``).
    func move(before: Bool, in db: any SQLConnection) throws {
        let q = db.dialect.quote
        for move in moves where move.before == before {
            try db.execute(
                .update,
                "UPDATE \(q(before ? move.oldTable : move.table)) SET \(q(move.to)) = \(q(move.from)), \(q(move.from)) = NULL WHERE \(q(StoreLayout.entityColumn)) = ?",
                [.string(move.entity)])
        }
    }
}
