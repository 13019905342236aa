import Foundation
import Molt

/// Reads the collections an object's column refers to: lists and sets (a B+tree of elements), maps (slot 0 a
/// B+tree of keys, slot 1 a B+tree of Mixed values) and backlink lists, within one traversal's budget.
final class RealmCollectionReader {
    let file: RealmFileBytes
    let budget: RealmTraversalBudget
    private var nesting = 0
    /// Realm allows collections in a Mixed to nest 100 deep; a deeper file is damaged.
    static let maximumNesting = 100

    /// The file's format: maps are B+trees from format 23 on, cluster trees before.
    let formatVersion: Int

    init(_ file: RealmFileBytes, budget: RealmTraversalBudget, formatVersion: Int) {
        self.file = file
        self.budget = budget
        self.formatVersion = formatVersion
    }

    /// The elements of the list or set whose B+tree is at `ref`.
    func elements(
        ref: Int, kind: RealmColumn.Kind, nullable: Bool, target: Int64?, _ what: @autoclosure () -> String
    ) throws -> [RealmValue] {
        let name = what()
        let root = try RealmNode(file, at: ref, name)
        var values: [RealmValue] = []
        try RealmBPlusTree.forEachLeaf(file, root: root, budget: budget, name) { node in
            // A leaf larger than realm-core's node size must at least take real bytes (a file may have been
            // written with another node size), so that a damaged count cannot make a long loop over nothing.
            guard node.count <= RealmBPlusTree.maximumNodeSize + 1 || node.count <= node.payloadSize * 8 else {
                throw file.damaged("a leaf of \(name) holds \(node.count) elements, more than realm-core puts in one")
            }
            let leaf = try RealmLeaf(
                file, node, kind: kind, nullable: nullable, inList: true, target: target, reader: self, name)
            for index in 0..<leaf.count {
                let value = try leaf.value(index)
                // An unresolved link (a key of -2 or less: its target was deleted and is a tombstone) is one
                // Realm hides from the list.
                if case .link(_, let key) = value, key < 0 { continue }
                values.append(value)
            }
        }
        return values
    }

    /// The entries of the map whose top array is at `ref`.
    func dictionary(ref: Int, _ what: @autoclosure () -> String) throws -> [RealmMapEntry] {
        let name = what()
        if formatVersion < 23 { return try clusteredDictionary(ref: ref, name) }
        let top = try RealmNode(file, at: ref, name)
        guard top.hasRefs, top.count >= 2, let keysRef = try top.ref(0, "the keys of \(name)"),
            let valuesRef = try top.ref(1, "the values of \(name)")
        else { throw file.damaged("\(name) lacks its keys or its values") }
        let keys = try elements(ref: keysRef, kind: .string, nullable: false, target: nil, "the keys of \(name)")
        let values = try elements(ref: valuesRef, kind: .mixed, nullable: true, target: nil, "the values of \(name)")
        guard keys.count == values.count else {
            throw file.damaged("\(name) has \(keys.count) keys but \(values.count) values")
        }
        return try zip(keys, values).map { key, value in
            guard case .string(let text) = key else { throw file.damaged("\(name) has a key that is not a string") }
            return RealmMapEntry(key: text, value: value)
        }
    }

    /// A map of format 22 and older: a cluster tree keyed by the keys' hashes, column 0 the keys, column 1
    /// the Mixed values; entries are returned sorted by key, as realm-core 14 keeps them.
    private func clusteredDictionary(ref: Int, _ name: String) throws -> [RealmMapEntry] {
        let columns = [
            RealmColumn(
                name: "key", kind: .string, collection: .none, isNullable: false, isIndexed: false, isUnique: false,
                isFullTextIndexed: false, key: 0, targetTableKey: nil, originColumnKey: nil),
            RealmColumn(
                name: "value", kind: .mixed, collection: .none, isNullable: true, isIndexed: false, isUnique: false,
                isFullTextIndexed: false, key: 1, targetTableKey: nil, originColumnKey: nil),
        ]
        let table = RealmTable(name: name, columns: columns, clusterRef: ref)
        var entries: [RealmMapEntry] = []
        try RealmClusterTree(bytes: file, reader: self).forEachObject(in: table) { entry in
            guard case .string(let key) = entry.values[0] else {
                throw file.damaged("\(name) has a key that is not a string")
            }
            entries.append(RealmMapEntry(key: key, value: entry.values[1]))
        }
        return entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// The integers of the B+tree at `ref` (a backlink list).
    func integers(ref: Int, _ what: @autoclosure () -> String) throws -> [Int64] {
        try elements(ref: ref, kind: .int, nullable: false, target: nil, what()).map { value in
            guard case .int(let key) = value else { return -1 }
            return key
        }
    }

    /// A list or map nested in a Mixed value.
    func nested(ref: Int, isDictionary: Bool, _ what: @autoclosure () -> String) throws -> RealmValue {
        nesting += 1
        defer { nesting -= 1 }
        guard nesting <= Self.maximumNesting else {
            throw file.damaged("\(what()) nests collections more than \(Self.maximumNesting) deep")
        }
        if isDictionary { return .dictionary(try dictionary(ref: ref, what())) }
        return .list(try elements(ref: ref, kind: .mixed, nullable: true, target: nil, what()))
    }
}
