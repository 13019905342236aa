import Foundation
import Molt
import MoltTooling

/// The objects a store holds, in `molt export`'s JSON form: entity → `_id` → attribute or relationship → value
/// (a to-one relationship is an `_id` or null, a to-many one an array of `_id`s).
struct HistoryState: Equatable {
    var objects: [String: [Int64: [String: JSONValue]]] = [:]
    /// The to-many relationships (`Entity.name`) whose order is known: carried from an ordered relationship, or
    /// generated. The others are compared as sets.
    var knownOrder: Set<String> = []

    /// Reads `molt export`'s output.
    init(export data: Data) throws {
        let file = try JSONDecoder().decode(DataFile.self, from: data)
        for (entity, rows) in file.entities {
            var byID: [Int64: [String: JSONValue]] = [:]
            for var row in rows {
                guard case .int(let id)? = row.removeValue(forKey: "_id") else { continue }
                byID[id] = row
            }
            objects[entity] = byID
        }
    }

    init() {}

    /// The data file `molt import` reads.
    func dataFile(version: Int) throws -> Data {
        var entities: [String: JSONValue] = [:]
        for (entity, byID) in objects {
            entities[entity] = .array(
                byID.keys.sorted().map { id in
                    var row = byID[id]!
                    row["_id"] = .int(id)
                    return .object(row)
                })
        }
        let file: JSONValue = .object([
            "format": .string(DataFile.formatName), "formatVersion": .int(Int64(DataFile.currentFormatVersion)),
            "schemaVersion": .int(Int64(version)), "entities": .object(entities),
        ])
        return try JSONEncoder().encode(file)
    }

    func ids(_ value: JSONValue?) -> [Int64] {
        switch value {
        case .int(let id)?: return [id]
        case .array(let items)?: return items.compactMap { if case .int(let id) = $0 { return id } else { return nil } }
        default: return []
        }
    }
}

/// One difference between the state a step should leave and the one it left.
struct HistoryDifference: CustomStringConvertible {
    var description: String
}

extension HistoryState {
    /// Every difference between `self` (expected) and `actual` under `schema`: objects missing or unexpected,
    /// values that differ, links that differ (to-many as sets unless the order is known).
    func differences(from actual: HistoryState, schema: Schema, limit: Int = 8) -> [HistoryDifference] {
        var result: [HistoryDifference] = []
        func add(_ text: String) { if result.count < limit { result.append(HistoryDifference(description: text)) } }
        for entity in schema.entities {
            let expected = objects[entity.name] ?? [:], found = actual.objects[entity.name] ?? [:]
            let missing = Set(expected.keys).subtracting(found.keys), extra = Set(found.keys).subtracting(expected.keys)
            if !missing.isEmpty { add("'\(entity.name)': objects \(missing.sorted()) missing") }
            if !extra.isEmpty { add("'\(entity.name)': objects \(extra.sorted()) present, expected none of them") }
            for id in expected.keys.sorted() {
                guard let row = found[id], let want = expected[id] else { continue }
                for attribute in entity.attributes {
                    let a = want[attribute.name] ?? .null, b = row[attribute.name] ?? .null
                    // Compared as values of the attribute's type: JSON writes the double 3.0 as 3.
                    if a != b,
                        DataFile.value(a, for: attribute.type) == nil
                            || DataFile.value(a, for: attribute.type) != DataFile.value(b, for: attribute.type)
                    {
                        add("'\(entity.name).\(attribute.name)' of _id \(id): expected \(a), found \(b)")
                    }
                }
                for relationship in entity.relationships {
                    let key = "\(entity.name).\(relationship.name)"
                    let a = ids(want[relationship.name]), b = ids(row[relationship.name])
                    let same =
                        relationship.kind == .toMany && !knownOrder.contains(key) ? a.sorted() == b.sorted() : a == b
                    if !same { add("'\(key)' of _id \(id): expected links \(a), found \(b)") }
                }
            }
        }
        return result
    }

    /// Every link whose two sides disagree: `E.r` of `x` holds `y`, and `D.s` of `y` does not hold `x`.
    func disagreeingSides(schema: Schema, limit: Int = 8) -> [HistoryDifference] {
        var result: [HistoryDifference] = []
        let byName = Dictionary(schema.entities.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for entity in schema.entities {
            for relationship in entity.relationships {
                guard let inverse = relationship.inverse,
                    byName[relationship.destination]?.relationship(named: inverse) != nil
                else { continue }
                for (id, row) in (objects[entity.name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                    for target in ids(row[relationship.name]) {
                        let back = ids(objects[relationship.destination]?[target]?[inverse])
                        if !back.contains(id), result.count < limit {
                            result.append(
                                HistoryDifference(
                                    description:
                                        "'\(entity.name).\(relationship.name)' of _id \(id) holds \(target), but '\(relationship.destination).\(inverse)' of \(target) holds \(back)"
                                ))
                        }
                    }
                }
            }
        }
        return result
    }
}
