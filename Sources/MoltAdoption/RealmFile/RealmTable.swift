import Foundation
import Molt

/// One table of a Realm file: its name, key, columns, primary key and kind, and the root of its cluster tree.
///
/// A table's top array holds, by slot: the spec (0), a former column slot (1), the cluster tree (2), the table
/// key (3, tagged), the search indexes (4), the next column key (5), a version (6), the tables (7) and columns
/// (8) at the other end of each link column, a sequence number (9), a collision map (10), the primary key
/// column key (11, tagged), the flags (12, tagged: bits 0–1 top-level 0, embedded 1, asymmetric 2) and the
/// tombstones of unresolved links (13).
struct RealmTable: Sendable {
    /// How the table's objects live.
    enum Kind: Int, Sendable {
        case topLevel = 0, embedded = 1, asymmetric = 2
    }

    let name: String
    let key: Int64
    let kind: Kind
    /// Every column in spec order: the public ones first, then the backlink columns.
    let columns: [RealmColumn]
    /// The primary key column's key, if the table has one.
    let primaryKeyColumn: Int64?
    /// The root of the table's cluster tree.
    let clusterRef: Int

    /// The column with `name`, if any.
    func column(named name: String) -> RealmColumn? { columns.first { $0.name == name } }

    /// The primary key column, if any.
    var primaryKey: RealmColumn? { primaryKeyColumn.flatMap { pk in columns.first { $0.key == pk } } }

    /// A table described directly: a map's cluster tree in formats 22 and older (keys and values as columns).
    init(name: String, columns: [RealmColumn], clusterRef: Int) {
        self.name = name
        key = -1
        kind = .embedded
        self.columns = columns
        primaryKeyColumn = nil
        self.clusterRef = clusterRef
    }

    /// The table whose top array is at `ref`, named `name`.
    init(_ file: RealmFileBytes, name: String, at ref: Int) throws {
        self.name = name
        let what = "the top array of table '\(name)'"
        let top = try RealmNode(file, at: ref, what)
        guard top.hasRefs, top.count >= 9 else {
            throw file.damaged("\(what) has \(top.count) slots; a Realm table of format 22 or later has at least 9")
        }
        key = try top.tagged(3, "the key of table '\(name)'")
        guard let cluster = try top.ref(2, "the cluster tree of table '\(name)'") else {
            throw file.damaged("table '\(name)' has no cluster tree")
        }
        clusterRef = cluster
        if top.count > 11, try top.checkedInt(11, "the primary key of table '\(name)'") != 0 {
            primaryKeyColumn = try top.tagged(11, "the primary key of table '\(name)'")
        } else {
            primaryKeyColumn = nil
        }
        var flags: Int64 = 0
        if top.count > 12, try top.checkedInt(12, "the flags of table '\(name)'") != 0 {
            flags = try top.tagged(12, "the flags of table '\(name)'")
        }
        guard let kind = Kind(rawValue: Int(flags & 3)) else {
            throw file.damaged("table '\(name)' has the unknown kind \(flags & 3) in its flags")
        }
        self.kind = kind
        guard let specNode = try top.child(0, "the spec of table '\(name)'") else {
            throw file.damaged("table '\(name)' has no spec")
        }
        let opposite = try top.child(7, "the link targets of table '\(name)'")
        let oppositeColumns = try top.child(8, "the backlink origins of table '\(name)'")
        columns = try Self.columns(file, spec: specNode, table: name, targets: opposite, origins: oppositeColumns)
    }

    /// The columns a spec lists: types (slot 0), names (1), attributes (2), column keys (5).
    private static func columns(
        _ file: RealmFileBytes, spec: RealmNode, table: String, targets: RealmNode?, origins: RealmNode?
    ) throws -> [RealmColumn] {
        let what = "the spec of table '\(table)'"
        guard spec.hasRefs, spec.count >= 6 else {
            throw file.damaged("\(what) has \(spec.count) slots; a spec of format 22 or later has 6")
        }
        guard let types = try spec.child(0, "the column types of table '\(table)'"),
            let attributes = try spec.child(2, "the column attributes of table '\(table)'"),
            let keys = try spec.child(5, "the column keys of table '\(table)'")
        else { throw file.damaged("\(what) lacks its column types, attributes or keys") }
        let names = try spec.child(1, "the column names of table '\(table)'")
        let nameList = try names.map { try RealmStrings(file, $0, "the column names of table '\(table)'") }
        let count = types.count
        // Backlink columns come last and have no name.
        let named = nameList?.count ?? 0
        guard attributes.count == count, keys.count == count, named <= count else {
            throw file.damaged(
                "\(what) lists \(count) column types but \(attributes.count) attributes, \(keys.count) keys and \(named) names"
            )
        }
        try types.requireIntegers("the column types of table '\(table)'")
        try attributes.requireIntegers("the column attributes of table '\(table)'")
        try keys.requireIntegers("the column keys of table '\(table)'")
        if let enumKeys = try spec.child(4, "the string enumerations of table '\(table)'"), enumKeys.count > 0 {
            throw MoltError(
                .unsupportedFormat,
                "Table '\(table)' of the Realm file at \(file.url.path) has enumerated string columns (an optimization realm-core's `Table::enumerate_string_column` makes), which Molt does not read yet. Compact a copy with Realm (`writeCopy`) after converting them back, or report it.",
                entity: table)
        }
        var columns: [RealmColumn] = []
        for index in 0..<count {
            var typeValue = types.int(index)
            // Before format 24 a list of links had a type of its own (13, `LinkList`); realm-core 14 rewrites
            // it as a link column with the list attribute.
            if typeValue & 0xFFFF == 13 { typeValue = typeValue & ~0xFFFF | Int64(RealmColumn.Kind.link.rawValue) }
            let name = index < named ? try nameList?.string(index) ?? "" : ""
            guard let kind = RealmColumn.Kind(rawValue: Int(typeValue & 0xFFFF)) else {
                throw file.damaged(
                    "column \(index) ('\(name)') of table '\(table)' has the unknown type \(typeValue & 0xFFFF)")
            }
            guard (index < named) == (kind != .backlink) else {
                throw file.damaged(
                    "column \(index) of table '\(table)' is a \(kind) column but has \(index < named ? "a" : "no") name"
                )
            }
            let attr = attributes.int(index)
            let collection = try Self.collection(attr, typeValue, column: "'\(table).\(name)'", file)
            let key = keys.int(index)
            guard Int(key & 0xFFFF) < 0xFFFF else { throw file.damaged("column '\(table).\(name)' has a bad key") }
            let (target, origin) = try Self.otherEnd(
                of: kind, key: key, targets: targets, origins: origins, column: "'\(table).\(name)'", index, file)
            columns.append(
                RealmColumn(
                    name: name, kind: kind, collection: collection, isNullable: attr & 16 != 0,
                    isIndexed: attr & 1 != 0, isUnique: attr & 2 != 0, isFullTextIndexed: attr & 256 != 0, key: key,
                    targetTableKey: target, originColumnKey: origin))
        }
        return columns
    }

    /// The collection a column's attributes mark: none, list, set, or map (its key type in the type's high bits).
    private static func collection(
        _ attributes: Int64, _ typeValue: Int64, column: String, _ file: RealmFileBytes
    ) throws -> RealmColumn.Collection {
        switch attributes & (32 | 64 | 128) {
        case 0: return .none
        case 32: return .list
        case 128: return .set
        case 64:
            guard let keyKind = RealmColumn.Kind(rawValue: Int(typeValue >> 16)) else {
                throw file.damaged("map column \(column) has the unknown key type \(typeValue >> 16)")
            }
            return .dictionary(keyKind: keyKind)
        default:
            throw file.damaged("column \(column) is marked as more than one kind of collection")
        }
    }

    /// A link column's target table and, for a backlink, its origin column: listed by column index (the key's
    /// low 16 bits), not by spec position. Nil for other columns.
    private static func otherEnd(
        of kind: RealmColumn.Kind, key: Int64, targets: RealmNode?, origins: RealmNode?, column: String, _ index: Int,
        _ file: RealmFileBytes
    ) throws -> (target: Int64?, origin: Int64?) {
        guard kind == .link || kind == .backlink else { return (nil, nil) }
        let slot = Int(key & 0xFFFF)
        guard let targets, slot < targets.count, targets.scheme == .bits else {
            throw file.damaged("link column \(column) has no target table")
        }
        guard kind == .backlink else { return (targets.int(slot), nil) }
        guard let origins, slot < origins.count, origins.scheme == .bits else {
            throw file.damaged("backlink column \(index) of table \(column) has no origin column")
        }
        return (targets.int(slot), origins.int(slot))
    }
}
