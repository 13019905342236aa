import Foundation
import Molt

extension RealmObjectSchema {
    /// Copies every object of `file` through `importer`, a cluster at a time: each object keeps its Realm object
    /// key as its identity (`_id` = key + 1, so that links need no lookup), every value converted exactly
    /// (``RealmValues``) and every link given; returns each entity's digest of what was read, for the proof.
    ///
    /// - Throws: `MoltError` naming the object, class and property of a value Molt does not store, or of damage.
    func copy(_ file: RealmFile, into importer: ObjectImporter) throws -> [String: AdoptionDigest] {
        var digests: [String: AdoptionDigest] = [:]
        for objectClass in classes {
            let entity = objectClass.entity, table = objectClass.table, name = Self.className(table)
            let skipping = filledFromInverse[entity.name] ?? []
            var digest = AdoptionDigest()
            try file.forEachObject(in: table) { object in
                let id = try Self.identity(object.key, of: name)
                var values: [String: Value] = [:]
                for (attribute, column) in zip(entity.attributes, objectClass.attributeColumns) {
                    values[attribute.name] = try RealmValues.value(
                        object.values[column], table.columns[column], of: name, key: object.key)
                }
                var links: [String: [Int64]] = [:]
                for (relationship, column) in objectClass.linkColumns {
                    links[relationship] = try Self.targets(object.values[column], of: name, key: object.key)
                }
                try importer.insert(entity, fileID: id, values: values, links: links)
                digest.add(id: id, values: values, links: links, of: entity, skipping: skipping)
            }
            digests[entity.name] = digest
        }
        return digests
    }

    /// The Molt identity of the object with Realm key `key`.
    private static func identity(_ key: Int64, of name: String) throws -> Int64 {
        // A live object's key is never negative (realm-core's negative keys are the tombstones of sync).
        guard key >= 0, key < Int64.max else {
            throw MoltError(
                .unsupportedFormat,
                "The Realm class '\(name)' has an object with the key \(key), which only Realm's sync writes (an unresolved link's tombstone); Molt adopts local files. Nothing was adopted.",
                entity: name)
        }
        return key + 1
    }

    /// The identities a link, a list or a set of links points to.
    private static func targets(_ value: RealmValue, of name: String, key: Int64) throws -> [Int64] {
        switch value {
        case .null: return []
        case .link(_, let target): return [try identity(target, of: name)]
        case .list(let items), .set(let items):
            return try items.map { item in
                guard case .link(_, let target) = item else {
                    throw MoltError(
                        .corruptStore,
                        "The Realm object \(key) of class '\(name)' holds \(item) in a list of links: the file is damaged, so it was not adopted.",
                        entity: name)
                }
                return try identity(target, of: name)
            }
        default:
            throw MoltError(
                .corruptStore,
                "The Realm object \(key) of class '\(name)' holds \(value) in a link column: the file is damaged, so it was not adopted.",
                entity: name)
        }
    }
}
