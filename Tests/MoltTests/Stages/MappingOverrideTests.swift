import Foundation
import Testing
@testable import Molt

/// A mapping's per-engine overrides: the portable expression where it is enough, the engine's own SQL where not.
@Suite("Mappings: per-engine overrides")
struct MappingOverrideTests {
    static let v1 = Schema(version: 1) {
        Entity("Item") {
            Attribute("number", .int); Attribute("label", .string)
        }
    }
    static let v2 = Schema(version: 2) {
        Entity("Item") {
            Attribute("number", .int); Attribute("label", .string); Attribute("code", .string, default: "-")
        }
    }

    static func makeStore(_ location: StoreLocation, kind: StoreKind) throws {
        let store = try Store.open(at: location, schema: v1, options: kind.options)
        defer { try? store.close() }
        try store.write { objects in
            for (number, label) in [(42, "keep"), (7, "drop"), (123_456, "keep")] {
                try objects.insert("Item", ["number": .int(Int64(number)), "label": .string(label)])
            }
        }
    }

    /// `code` zero-padded to at least five digits: `printf` exists only in SQLite, `repeat` and `::` only in PostgreSQL
    /// (whose `lpad` would cut 123456 to five characters).
    static let padded = EntityMapping(
        destination: "Item", filter: "label = 'keep'", attributes: ["code": "printf('%05d', number)"],
        overrides: [.postgresql: .init(attributes: ["code": "repeat('0', 5 - length(number::text)) || number::text"])])

    /// What migrating a fresh store of `kind` with `mapping` gives: each item's `code`, or the refusal (and
    /// whether the store was left as it was).
    struct Outcome {
        var codes: [String?]?
        var error: MoltError?
        var unchanged: Bool
    }

    static func migrate(_ mapping: EntityMapping, kind: StoreKind) throws -> Outcome {
        let dir = TemporaryDirectory()
        let location = try kind.location(in: dir)
        try makeStore(location, kind: kind)
        let before = FileState(location)
        let plan = try MigrationPlan(schemas: [v1, v2], stages: [.mapping(from: 1, to: 2, [mapping])])
        do {
            let store = try Store.open(at: location, schema: v2, options: kind.options.migrating(with: plan))
            defer { try? store.close() }
            return Outcome(codes: try store.read { try $0.fetch("Item").map { $0["code"].string } }, unchanged: false)
        } catch let error as MoltError {
            return Outcome(error: error, unchanged: FileState(location) == before)
        }
    }

    @Test("each engine runs its own expression and the results agree", arguments: StoreKind.durable)
    func eachEngineItsOwn(kind: StoreKind) throws {
        #expect(try Self.migrate(Self.padded, kind: kind).codes == ["00042", "-", "123456"])
    }

    @Test("an override's filter replaces the portable one on its engine only", arguments: StoreKind.durable)
    func filterOverride(kind: StoreKind) throws {
        // Each engine's own filter keeps the same object: SQLite's GLOB, PostgreSQL's regular expression.
        let mapping = EntityMapping(
            destination: "Item", filter: "label GLOB 'k*' AND number < 100", attributes: ["code": "'short ' || label"],
            overrides: [.postgresql: .init(filter: "label ~ '^k' AND number < 100")])
        #expect(try Self.migrate(mapping, kind: kind).codes == ["short keep", "-", "-"])
    }

    @Test(
        "without the override, the engine that cannot run the expression refuses it, naming it; nothing is written",
        arguments: StoreKind.durable)
    func missingOverrideRefused(kind: StoreKind) throws {
        // One engine's spelling only: SQLite has no `repeat` and no `::`; PostgreSQL has no `printf`.
        let engineOwn =
            kind == .postgres ? "printf('%05d', number)" : "repeat('0', 5 - length(number::text)) || number::text"
        let outcome = try Self.migrate(EntityMapping(destination: "Item", attributes: ["code": engineOwn]), kind: kind)
        #expect(outcome.error?.message.contains("`\(engineOwn)`") == true, "\(String(describing: outcome.error))")
        #expect(outcome.unchanged)
    }

    @Test(
        "an override naming an attribute the destination lacks is refused on every engine, naming the engine",
        arguments: StoreKind.durable)
    func overrideOfUnknownAttribute(kind: StoreKind) throws {
        var mapping = Self.padded
        mapping.overrides[.postgresql]?.attributes["cod"] = "'x'"
        let outcome = try Self.migrate(mapping, kind: kind)
        #expect(
            outcome.error?.message
                == "The PostgreSQL override of the mapping into 'Item' sets 'cod', which is not an attribute of 'Item' in version 2."
        )
        #expect(outcome.unchanged)

        mapping = Self.padded
        mapping.overrides[.sqlite] = .init(sourceKeys: ["folder": "_id"])
        let linkOutcome = try Self.migrate(mapping, kind: kind)
        #expect(
            linkOutcome.error?.message
                == "The SQLite override of the mapping into 'Item' gives a source key for 'folder', which is not one of the mapping's links; add the link to `links`."
        )
        #expect(linkOutcome.unchanged)
    }

    @Test("overrides round-trip through JSON keyed by engine; an unknown engine is named")
    func json() throws {
        let data = try JSONEncoder().encode(Self.padded)
        #expect(try JSONDecoder().decode(EntityMapping.self, from: data) == Self.padded)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(text.contains(#""overrides":{"postgresql":{"#))
        // A mapping without overrides encodes as before: no "overrides" key.
        let plain = try JSONEncoder().encode(EntityMapping(destination: "Item", attributes: ["code": "'x'"]))
        #expect(String(data: plain, encoding: .utf8)?.contains("overrides") == false)

        let unknown = Data(#"{"destination": "Item", "overrides": {"postgres": {"attributes": {"code": "'x'"}}}}"#.utf8)
        #expect {
            try JSONDecoder().decode(EntityMapping.self, from: unknown)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription
                == "unknown engine 'postgres' in the overrides; the engines are 'sqlite' and 'postgresql'"
        }
    }
}
