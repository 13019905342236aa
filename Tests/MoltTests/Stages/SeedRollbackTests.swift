import Foundation
import Testing
@testable import Molt

/// Each seed's migration, made to throw in its middle — after its stage did its work, before the run commits —
/// leaves the store byte for byte as it was, still opening at its old version with every object.
@Suite("Seeds: a thrown error in the middle leaves the store untouched")
struct SeedRollbackTests {
    struct Injected: Error {}

    /// The stage, doing all its work and then throwing.
    static func throwing(after stage: MigrationStage) -> MigrationStage {
        let body: MigrationStage.Body
        switch stage.kind {
        case .custom(let bodies):
            body = { migration in
                for b in bodies { try b(migration) }; throw Injected()
            }
        case .mapping(let mappings, let hook):
            body = { migration in
                try migration.apply(mappings); try hook?(migration); throw Injected()
            }
        case .lightweight:
            body = { _ in throw Injected() }
        }
        return .custom(from: stage.fromVersion, to: stage.toVersion, body)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable (URL) throws -> Void
        let startVersion: Int
        let target: Schema
        let schemas: [Schema]
        let stages: [MigrationStage]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "000 memo",
            make: {
                try Seed000MemoTests.makeStore(at: .file($0), version: 3, memos: Seed000MemoTests.memos(30), kind: .wal)
            },
            startVersion: 3, target: Seed000MemoTests.schema(6), schemas: (0...6).map(Seed000MemoTests.schema),
            stages: Seed000MemoTests.plan.stages),
        Case(
            name: "001 split", make: { try Seed001SplitTests.makeV1(.file($0), .wal) }, startVersion: 1,
            target: Seed001SplitTests.v2,
            schemas: [Seed001SplitTests.v1, Seed001SplitTests.v2],
            stages: [
                .mapping(
                    from: 1, to: 2,
                    [
                        EntityMapping(
                            destination: "Person", attributes: ["fullName": "firstName || ' ' || lastName"],
                            links: [.init(relationship: "address", to: "Address")]),
                        EntityMapping(
                            destination: "Address", source: "Person", filter: "street IS NOT NULL",
                            attributes: ["street": "street", "city": "city"]),
                    ])
            ]),
        Case(
            name: "002 notes", make: { _ = try Seed002NotesTests.makeStore(.file($0), version: 2, kind: .wal) },
            startVersion: 2,
            target: Seed002NotesTests.v4,
            schemas: [Seed002NotesTests.v1, Seed002NotesTests.v2, Seed002NotesTests.v3, Seed002NotesTests.v4],
            stages: [Seed002NotesTests.imagesMapping, Seed002NotesTests.attachmentsStage]),
        Case(
            name: "003 basics",
            make: { url in
                let store = try Store.open(at: url, schema: Seed003And004Tests.person1)
                try store.write { objects in
                    try objects.insert("Person", ["firstName": "Taro", "lastName": "Yamada", "age": 30])
                    try objects.insert("Person", ["firstName": "Hanako", "lastName": "Sato", "age": 25])
                }
                try store.close()
                try Store.open(at: url, schema: Seed003And004Tests.person2).close()
            }, startVersion: 1, target: Seed003And004Tests.person3,
            schemas: [Seed003And004Tests.person1, Seed003And004Tests.person2, Seed003And004Tests.person3],
            stages: [Seed003And004Tests.combineStage]),
        Case(
            name: "004 tastings",
            make: { url in
                let store = try Store.open(at: url, schema: Seed003And004Tests.notes1)
                try store.write { objects in
                    for (kind, field) in Seed003And004Tests.kinds {
                        try objects.insert(
                            "\(kind)Note", ["name": .string(kind), field: .string("\(field) 1"), "rating": 4])
                    }
                }
                try store.close()
            }, startVersion: 1, target: Seed003And004Tests.notes2,
            schemas: [Seed003And004Tests.notes1, Seed003And004Tests.notes2], stages: [Seed003And004Tests.tastingStage]),
    ]

    @Test("the store keeps every byte, its version and its objects", arguments: cases)
    func rollback(seed: Case) throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        try seed.make(url)
        let before = try Data(contentsOf: url)
        let info = try Store.inspect(at: url)
        // Throw in the last stage, after the earlier ones (and the inferred steps between) ran.
        var stages = seed.stages
        stages[stages.count - 1] = Self.throwing(after: stages[stages.count - 1])
        let plan = try MigrationPlan(schemas: seed.schemas, stages: stages)
        #expect(throws: Injected.self) {
            try Store.open(at: url, schema: seed.target, options: StoreKind.wal.options.migrating(with: plan))
        }
        #expect(try Data(contentsOf: url) == before)
        let after = try Store.inspect(at: url)
        #expect(after.version == seed.startVersion)
        #expect(after.objectCounts == info.objectCounts)
        #expect(after.history == info.history)
        // And the real plan still migrates it.
        let store = try Store.open(
            at: url, schema: seed.target,
            options: StoreKind.wal.options.migrating(
                with: try MigrationPlan(schemas: seed.schemas, stages: seed.stages)))
        #expect(store.schema.version == seed.target.version)
    }
}
