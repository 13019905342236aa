import Foundation
import Molt

/// One object of a Realm table: its key and one value per column, in the table's column order.
package struct RealmObject: Sendable, Equatable {
    package var key: Int64
    package var values: [RealmValue]
}

extension RealmFile {
    /// Calls `body` with each object of `table`, in key order, one at a time: only the current cluster's
    /// leaves are read, so memory stays bounded whatever the file's size.
    ///
    /// A cluster tree is a leaf (slot 0 the object keys, or their count when they are 0..<n; then one leaf
    /// per column at the column's index + 1) or an inner node (slot 0 the children's key offsets, or none
    /// when child `i` starts at `i << (8 × depth)`; slot 1 the depth, slot 2 the size, both tagged; then the
    /// children). Keys must increase across the whole tree, which also refuses a subtree referenced twice.
    ///
    /// - Throws: `MoltError.corruptStore` for a damaged tree or value; `.unsupportedFormat` for a value
    ///   Molt does not read yet (named).
    func forEachObject(in table: RealmTable, _ body: (RealmObject) throws -> Void) throws {
        let budget = RealmTraversalBudget(bytes)
        let reader = RealmCollectionReader(bytes, budget: budget, formatVersion: formatVersion)
        try RealmClusterTree(bytes: bytes, reader: reader).forEachObject(in: table, body)
    }

    /// Every object of `table`, in key order (for small tables and tests; ``forEachObject(in:_:)`` streams).
    func objects(in table: RealmTable) throws -> [RealmObject] {
        var objects: [RealmObject] = []
        try forEachObject(in: table) { objects.append($0) }
        return objects
    }
}

/// The walk of one cluster tree (a table's objects, or a map's entries in formats 22 and older), with the
/// budget of the traversal it is part of.
struct RealmClusterTree {
    /// realm-core's largest cluster (`cluster_node_size`, 256 objects) and its key shift per inner level.
    static let maximumClusterSize = 256
    private static let clusterShift = 8

    let bytes: RealmFileBytes
    let reader: RealmCollectionReader
    var budget: RealmTraversalBudget { reader.budget }

    /// Calls `body` with each object of `table` in key order (see ``RealmFile/forEachObject(in:_:)``).
    func forEachObject(in table: RealmTable, _ body: (RealmObject) throws -> Void) throws {
        let root = try RealmNode(bytes, at: table.clusterRef, "the objects of table '\(table.name)'")
        var lastKey: Int64?
        try visit(root, offset: 0, depth: 0, table: table, budget: budget, reader: reader, lastKey: &lastKey, body)
    }

    private func visit(
        _ node: RealmNode, offset: Int64, depth: Int, table: RealmTable, budget: RealmTraversalBudget,
        reader: RealmCollectionReader, lastKey: inout Int64?, _ body: (RealmObject) throws -> Void
    ) throws {
        let what = "the objects of table '\(table.name)'"
        try budget.visit(bytes, depth: depth, what)
        guard node.hasRefs, node.count >= 1 else {
            throw bytes.damaged("a node of \(what) (offset \(node.ref)) is not a cluster")
        }
        if node.isInnerNode {
            guard node.count >= 4, node.count - 3 <= Self.maximumClusterSize else {
                throw bytes.damaged("an inner node of \(what) (offset \(node.ref)) has \(node.count) slots")
            }
            let subDepth = try node.tagged(1, "the depth of a node of \(what)")
            guard subDepth >= 0, subDepth < 7 else {
                throw bytes.damaged("an inner node of \(what) states the depth \(subDepth)")
            }
            let offsets = try node.child(0, "the key offsets of a node of \(what)")
            if let offsets {
                try offsets.requireIntegers("the key offsets of a node of \(what)")
                guard offsets.count == node.count - 3 else {
                    throw bytes.damaged(
                        "an inner node of \(what) has \(node.count - 3) children but \(offsets.count) offsets")
                }
            }
            for child in 0..<(node.count - 3) {
                let start =
                    offsets.map { Int64(bitPattern: $0.unsigned(child)) } ?? Int64(child)
                    << (subDepth * Int64(Self.clusterShift))
                guard let childNode = try node.child(child + 3, "a child of \(what)") else {
                    throw bytes.damaged("an inner node of \(what) has an empty child slot")
                }
                let (sum, overflow) = offset.addingReportingOverflow(start)
                guard !overflow else { throw bytes.damaged("the key offsets of \(what) overflow") }
                try visit(
                    childNode, offset: sum, depth: depth + 1, table: table, budget: budget, reader: reader,
                    lastKey: &lastKey, body)
            }
            return
        }
        try visitLeaf(node, offset: offset, table: table, reader: reader, lastKey: &lastKey, body)
    }

    private func visitLeaf(
        _ node: RealmNode, offset: Int64, table: RealmTable, reader: RealmCollectionReader, lastKey: inout Int64?,
        _ body: (RealmObject) throws -> Void
    ) throws {
        let what = "a cluster of table '\(table.name)' (offset \(node.ref))"
        try node.requireIntegers(what)
        let first = node.int(0)
        let keys: RealmNode?
        let count: Int
        if first & 1 == 1 {
            keys = nil
            count = Int(clamping: first >> 1)
        } else {
            guard let node = try node.child(0, "the keys of \(what)") else {
                throw bytes.damaged("\(what) has no keys")
            }
            try node.requireIntegers("the keys of \(what)")
            keys = node
            count = node.count
        }
        guard count >= 0, count <= Self.maximumClusterSize else {
            throw bytes.damaged("\(what) states \(count) objects; a cluster holds at most \(Self.maximumClusterSize)")
        }
        if count == 0 { return }
        let leaves = try columnLeaves(node, count: count, table: table, reader: reader, what)
        for row in 0..<count {
            let local = keys.map { Int64(bitPattern: $0.unsigned(row)) } ?? Int64(row)
            let (key, overflow) = offset.addingReportingOverflow(local)
            guard !overflow, key >= 0, lastKey.map({ key > $0 }) ?? true else {
                throw bytes.damaged(
                    "the object keys of table '\(table.name)' do not increase (key \(key) after \(lastKey ?? 0))")
            }
            lastKey = key
            var values: [RealmValue] = []
            values.reserveCapacity(table.columns.count)
            for (index, column) in table.columns.enumerated() {
                if let leaf = leaves[index] {
                    values.append(try leaf.value(row))
                } else {
                    values.append(try collection(column, node: node, row: row, table: table, reader: reader, key: key))
                }
            }
            try body(RealmObject(key: key, values: values))
        }
    }

    /// The leaf of each column of the cluster `node` of `count` objects (nil for a collection column, whose
    /// slot holds one ref per object), each checked to hold `count` values.
    private func columnLeaves(
        _ node: RealmNode, count: Int, table: RealmTable, reader: RealmCollectionReader, _ what: String
    ) throws -> [RealmLeaf?] {
        var leaves: [RealmLeaf?] = []
        leaves.reserveCapacity(table.columns.count)
        for column in table.columns {
            let columnWhat = "column '\(table.name).\(column.name.isEmpty ? "backlink" : column.name)'"
            guard column.leafSlot < node.count,
                let leafNode = try node.child(column.leafSlot, "\(columnWhat) in \(what)")
            else { throw bytes.damaged("\(what) has no leaf for \(columnWhat)") }
            if column.collection != .none {
                try leafNode.requireIntegers(columnWhat)
                guard leafNode.count == count else {
                    throw bytes.damaged("\(what) has \(count) objects but \(leafNode.count) values of \(columnWhat)")
                }
                leaves.append(nil)
                continue
            }
            let leaf = try RealmLeaf(
                bytes, leafNode, kind: column.kind, nullable: column.isNullable, inList: false,
                target: column.targetTableKey, reader: reader, "\(columnWhat) in \(what)")
            guard leaf.count == count else {
                throw bytes.damaged("\(what) has \(count) objects but \(leaf.count) values of \(columnWhat)")
            }
            leaves.append(leaf)
        }
        return leaves
    }

    /// The list, set or map of `column` for the object at `row` of the cluster `node`.
    private func collection(
        _ column: RealmColumn, node: RealmNode, row: Int, table: RealmTable, reader: RealmCollectionReader, key: Int64
    ) throws -> RealmValue {
        let what = "\(table.name).\(column.name) of object \(key)"
        guard let refs = try node.child(column.leafSlot, what) else { throw bytes.damaged("\(what) has no leaf") }
        let ref = refs.int(row)
        guard ref >= 0, ref & 1 == 0 else { throw bytes.damaged("\(what) is not a ref (\(ref))") }
        switch column.collection {
        case .none: return .null
        case .list, .set:
            let elements =
                ref == 0
                ? []
                : try reader.elements(
                    ref: Int(ref), kind: column.kind, nullable: column.isNullable, target: column.targetTableKey, what)
            return column.collection == .list ? .list(elements) : .set(elements)
        case .dictionary(let keyKind):
            guard keyKind == .string else {
                throw MoltError(
                    .unsupportedFormat,
                    "The map \(table.name).\(column.name) in the Realm file at \(bytes.url.path) has \(keyKind) keys; Molt reads maps with String keys (all Realm Swift writes).",
                    entity: table.name, property: column.name)
            }
            if ref == 0 { return .dictionary([]) }
            var entries = try reader.dictionary(ref: Int(ref), what)
            // A map of links holds typed links (table and key): the target is the column's.
            if column.kind == .link, let target = column.targetTableKey {
                entries = entries.map { entry in
                    if case .link(_, let key) = entry.value {
                        return RealmMapEntry(key: entry.key, value: .link(table: target, key: key))
                    }
                    return entry
                }
            }
            return .dictionary(entries)
        }
    }
}
