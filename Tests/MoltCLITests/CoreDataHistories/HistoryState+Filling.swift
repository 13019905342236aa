import Foundation
import Molt
import MoltTooling

extension HistoryState {
    /// Objects per entity that the walk keeps in the store.
    static let objectsPerEntity = 3

    /// Fills what `schema` has and the state lacks: each entity up to ``objectsPerEntity`` objects, every attribute
    /// that no object holds a value of, every relationship that holds no link (both sides, as the cardinalities of
    /// the two sides allow). Values are distinct per object and attribute. Returns whether anything was added.
    @discardableResult
    mutating func fill(_ schema: Schema) -> Bool {
        var changed = false
        for entity in schema.entities {
            var rows = objects[entity.name] ?? [:]
            var next = (rows.keys.max() ?? 0) + 1
            while rows.count < Self.objectsPerEntity {
                rows[next] = [:]
                next += 1
                changed = true
            }
            for (k, attribute) in entity.attributes.enumerated() {
                let empty = rows.values.allSatisfy { ($0[attribute.name] ?? .null) == .null }
                let nulls = rows.keys.filter { (rows[$0]![attribute.name] ?? .null) == .null }
                guard empty || !attribute.isOptional && !nulls.isEmpty else { continue }
                for id in rows.keys.sorted() where (rows[id]![attribute.name] ?? .null) == .null {
                    rows[id]![attribute.name] = Self.value(
                        attribute.type, entity: entity.name, attribute: attribute.name, k: k, n: Int(id))
                    changed = true
                }
            }
            objects[entity.name] = rows
        }
        let byName = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        var done = Set<String>()
        for entity in schema.entities {
            for relationship in entity.relationships where !done.contains("\(entity.name).\(relationship.name)") {
                done.insert("\(entity.name).\(relationship.name)")
                let inverse = relationship.inverse.flatMap { byName[relationship.destination]?.relationship(named: $0) }
                if let inverse { done.insert("\(relationship.destination).\(inverse.name)") }
                let hasLinks =
                    (objects[entity.name] ?? [:]).values.contains { !ids($0[relationship.name]).isEmpty }
                    || inverse.map { inv in
                        (objects[relationship.destination] ?? [:]).values.contains { !ids($0[inv.name]).isEmpty }
                    } ?? false
                guard !hasLinks else { continue }
                link(entity.name, relationship, inverse)
                changed = true
            }
        }
        return changed
    }

    /// Links the objects of `source` through `relationship` (and `inverse`, when there is one), as the two
    /// cardinalities allow: every object of the to-one side gets one link, every object of a to-many side at least
    /// one when the other side is to-many too.
    private mutating func link(_ source: String, _ relationship: Relationship, _ inverse: Relationship?) {
        let destination = relationship.destination
        let from = (objects[source] ?? [:]).keys.sorted(), to = (objects[destination] ?? [:]).keys.sorted()
        guard !from.isEmpty, !to.isEmpty else { return }
        var pairs: [(Int64, Int64)] = []
        switch (relationship.kind, inverse?.kind) {
        case (.toOne, .toOne?):
            let count = min(from.count, to.count)
            // A self-relationship pairs each object with the next, so that no object links to itself.
            pairs = (0..<count).map { (from[$0], source == destination ? to[($0 + 1) % count] : to[$0]) }
        case (.toOne, _):
            pairs = from.enumerated().map { ($1, to[($0 + 1) % to.count]) }
        case (.toMany, .toOne?):
            pairs = to.enumerated().map { (from[($0 + 1) % from.count], $1) }
        case (.toMany, _):
            pairs = from.enumerated().flatMap { i, id in [(id, to[i % to.count]), (id, to[(i + 1) % to.count])] }
        }
        if let inverse, inverse.name == relationship.name, source == destination {
            // Its own inverse (`User.friends` ↔ `User.friends`): the links are symmetric, and a to-one pairs
            // objects two by two.
            if relationship.kind == .toOne {
                pairs = []
                for i in stride(from: 0, to: from.count - 1, by: 2) {
                    pairs.append((from[i], from[i + 1]))
                    pairs.append((from[i + 1], from[i]))
                }
            } else {
                let reversed: [(Int64, Int64)] = pairs.map { ($0.1, $0.0) }
                pairs += reversed
            }
        }
        var unique: [(Int64, Int64)] = []
        for pair in pairs where !unique.contains(where: { $0 == pair }) { unique.append(pair) }
        write(unique, source, relationship)
        if let inverse, !(inverse.name == relationship.name && source == destination) {
            write(unique.map { ($1, $0) }, destination, inverse)
        }
    }

    /// Sets `relationship` of every object of `entity` from `pairs`; a to-many holds its links in descending
    /// `_id` order, so that a store that loses an ordered relationship's order is caught.
    private mutating func write(_ pairs: [(Int64, Int64)], _ entity: String, _ relationship: Relationship) {
        for id in (objects[entity] ?? [:]).keys {
            let targets = pairs.filter { $0.0 == id }.map(\.1)
            switch relationship.kind {
            case .toOne: objects[entity]![id]![relationship.name] = targets.first.map { .int($0) } ?? .null
            case .toMany: objects[entity]![id]![relationship.name] = .array(targets.sorted(by: >).map { .int($0) })
            }
        }
        if relationship.kind == .toMany && relationship.isOrdered {
            knownOrder.insert("\(entity).\(relationship.name)")
        }
    }

    /// A value of `type` that no other object or attribute of the walk holds, and that fits every type Core Data
    /// had (integers stay within 16 bits).
    static func value(_ type: AttributeType, entity: String, attribute: String, k: Int, n: Int) -> JSONValue {
        switch type {
        case .string: return .string("\(entity).\(attribute) #\(n)")
        case .int, .int16, .int32: return .int(Int64(100 * (k % 300) + n + 1))
        case .double, .float: return .double(Double(k) + Double(n) / 4 + 0.5)
        case .decimal: return .string("\(100 * (k % 300) + n + 1).05")
        case .bool: return .bool(n % 2 == 1)
        case .date: return .double(1_600_000_000 + Double(k * 1000 + n) + 0.25)
        case .data: return .string(Data("\(entity).\(attribute) #\(n)".utf8).base64EncodedString())
        case .uuid:
            return .string(
                String(
                    format: "%08lX-%04lX-4000-8000-%012lX", k, n % 0xFFFF,
                    entity.unicodeScalars.reduce(0) { ($0 &* 31 &+ Int($1.value)) & 0xFFFF_FFFF_FFFF }))
        }
    }
}
