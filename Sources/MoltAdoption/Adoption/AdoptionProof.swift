import Foundation
import Molt

/// The comparison of an adopted store with its original, made inside the adoption's transaction before it
/// commits: per entity, the objects counted and the digest of their values and links on each side.
public struct AdoptionComparison: Sendable, CustomStringConvertible {
    /// One entity's line of the comparison.
    public struct Line: Sendable {
        public var entity: String
        public var originalCount: Int
        public var adoptedCount: Int
        public var digestsAgree: Bool
    }

    /// One line per entity, in the schema's order.
    public var lines: [Line]

    /// Whether every entity has as many objects and the same digest on both sides.
    public var agrees: Bool { lines.allSatisfy { $0.originalCount == $0.adoptedCount && $0.digestsAgree } }

    /// `Post: 1,001 objects, 1,001 adopted, digest equal`, one line per entity.
    public var description: String {
        lines.map { line in
            "\(line.entity): \(line.originalCount) original, \(line.adoptedCount) adopted, \(line.digestsAgree ? "values and links equal" : "VALUES OR LINKS DIFFER")"
        }.joined(separator: "\n")
    }
}

enum AdoptionProof {
    /// Reads back every object the copy wrote and compares it with what was read from the original.
    ///
    /// - Throws: `MoltError/Code/validationFailed` naming the first entity that differs: the adoption then
    ///   rolls back and the original is left as it was.
    static func compare(
        _ objects: Objects, original: [String: AdoptionDigest], skipping: [String: [String]]
    ) throws -> AdoptionComparison {
        var lines: [AdoptionComparison.Line] = []
        for declared in objects.schema.entities where !declared.isAbstract {
            let entity = objects.schema.effectiveEntity(named: declared.name) ?? declared
            guard let expected = original[entity.name] else { continue }
            var digest = AdoptionDigest()
            try objects.scan(entity) { object in
                var values: [String: Value] = [:]
                for (index, attribute) in entity.attributes.enumerated() {
                    values[attribute.name] = object.values[index]
                }
                var links: [String: [Int64]] = [:]
                for (index, relationship) in entity.relationships.enumerated() {
                    links[relationship.name] = object.links[index]
                }
                digest.add(
                    id: object.id, values: values, links: links, of: entity, skipping: skipping[entity.name] ?? [])
            }
            lines.append(
                AdoptionComparison.Line(
                    entity: entity.name, originalCount: expected.count, adoptedCount: digest.count,
                    digestsAgree: digest == expected))
        }
        return try verdict(lines)
    }

    /// The comparison of `lines`.
    ///
    /// - Throws: `MoltError/Code/validationFailed` naming the first entity that differs.
    static func verdict(_ lines: [AdoptionComparison.Line]) throws -> AdoptionComparison {
        let comparison = AdoptionComparison(lines: lines)
        if let first = lines.first(where: { $0.originalCount != $0.adoptedCount || !$0.digestsAgree }) {
            throw MoltError(
                .validationFailed,
                "The adopted store does not hold what the original holds for '\(first.entity)' (\(first.originalCount) objects in the original, \(first.adoptedCount) adopted\(first.digestsAgree ? "" : ", values or links differ")), so nothing was adopted and the original was left as it was. This is a defect of Molt: please report it with the store's model.",
                entity: first.entity)
        }
        return comparison
    }
}
