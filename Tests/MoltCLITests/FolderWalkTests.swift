import Foundation
import Molt
import MoltPostgres
import Testing

/// `molt migrate`, `plan` and `rehearse` given a folder of snapshots: every version walked in order, in one
/// transaction, with the folder's `FROM-to-TO.mapping.json` as the stage of its step.
@Suite("molt migrate, plan and rehearse over a folder of snapshots")
struct FolderWalkTests {
    /// Version 2 adds a required `memoDescription` that a mapping file computes; version 3 renames `memoTitle`.
    static let memoV2: Schema = {
        var schema = Fixtures.memoV1.withVersion(2)
        schema.entities[0].attributes.append(Attribute("memoDescription", .string))
        return schema
    }()
    static let memoV3: Schema = {
        var schema = memoV2.withVersion(3)
        schema.entities[0].attributes[1] = Attribute("title", .string, originalName: "memoTitle")
        return schema
    }()
    static let mapping =
        #"{ "mappings": [ { "destination": "UserMemo", "attributes": { "memoDescription": "memoTitle || '!'" } } ] }"#

    /// A memo store at version 0 beside `snapshots/` holding 0.json to 3.json and 1-to-2.mapping.json.
    struct Setup {
        let dir = TemporaryDirectory()
        let store: URL
        var snapshots: URL { dir.file("snapshots") }

        init(mapping: Bool = true) throws {
            store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: 6)
            try FileManager.default.createDirectory(at: dir.file("snapshots"), withIntermediateDirectories: true)
            for schema in [Fixtures.memoV0, Fixtures.memoV1, FolderWalkTests.memoV2, FolderWalkTests.memoV3] {
                try Fixtures.write(schema, to: snapshots.appendingPathComponent("\(schema.version).json"))
            }
            if mapping {
                try Data(FolderWalkTests.mapping.utf8).write(
                    to: snapshots.appendingPathComponent("1-to-2.mapping.json"))
            }
        }

        func storeBytes() throws -> Data { try Data(contentsOf: store) }
    }

    static let steps = [
        "  0 → 1 inferred: Attribute 'UserMemo.count' has been added.",
        "  1 → 2 mapping (1 entity mapping(s)): Attribute 'UserMemo.memoDescription' has been added.",
        "  2 → 3 inferred: Attribute 'UserMemo.memoTitle' has been renamed to 'title'.",
    ]

    @Test(
        "migrate --to DIR walks every version to the newest, with the mapping file of the step that needs one, in one run"
    )
    func migrateWalksTheFolder() throws {
        let setup = try Setup()
        let result = try Molt.run(["migrate", setup.store.path, "--to", "snapshots"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("Migrated \(setup.store.path) from version 0 to 3 in ") == true)
        #expect(Array(lines.dropFirst()) == Self.steps)
        let info = try Store.inspect(at: setup.store)
        #expect(info.version == 3)
        // One run, one transaction: one history record with every step.
        #expect(info.history.map { [$0.fromVersion, $0.toVersion, $0.steps.count] } == [[0, 3, 3]])
        let memos = try Store.open(at: setup.store, schema: Self.memoV3).read {
            try $0.fetch("UserMemo", orderBy: [.ascending("memoDate")])
        }
        #expect(memos.map { $0["title"] } == (0..<6).map { .string("Memo \($0)") })
        #expect(memos.map { $0["memoDescription"] } == (0..<6).map { .string("Memo \($0)!") })
        #expect(memos.allSatisfy { $0["count"] == 100 })
        let again = try Molt.run(["migrate", setup.store.path, "--to", "snapshots"], in: setup.dir.url)
        #expect(again.stdout == "The store is already at version 3 with this schema: nothing to do.\n")
    }

    @Test("plan --to DIR shows every step and writes nothing; --to-version stops the walk")
    func planShowsEveryStep() throws {
        let setup = try Setup()
        let before = try setup.storeBytes()
        let result = try Molt.run(["plan", setup.store.path, "--to", "snapshots", "--json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["toVersion"] as? Int == 3)
        #expect(json["steps"] as? [String] == Self.steps.map { String($0.dropFirst(2)) })
        let statements = json["statements"] as! [String]
        // The mapping's expression and the rename after it are folded into one rebuild of the table.
        #expect(
            statements.filter { $0.hasPrefix(#"INSERT INTO "_molt_new_UserMemo""#) }.map {
                $0.contains(#""memoTitle", "memoDate""#) && $0.contains("(memoTitle || '!')")
            } == [true])
        let partial = try Molt.run(
            ["plan", setup.store.path, "--to", "snapshots", "--to-version", "1"], in: setup.dir.url)
        #expect(partial.status == 0, "\(partial)")
        #expect(partial.stdout.contains("version 0 → 1 (dry run, nothing written)\n\nSteps:\n\(Self.steps[0])\n\nSQL:"))
        #expect(try setup.storeBytes() == before)
    }

    @Test("rehearse --to DIR runs every step on a copy and leaves the store byte for byte")
    func rehearseRunsEveryStep() throws {
        let setup = try Setup()
        let before = try setup.storeBytes()
        let result = try Molt.run(["rehearse", setup.store.path, "--to", "snapshots", "--json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(json["fromVersion"] as? Int == 0)
        #expect(json["toVersion"] as? Int == 3)
        #expect(json["steps"] as? [String] == Self.steps.map { String($0.dropFirst(2)) })
        #expect(try setup.storeBytes() == before)
        #expect(try Store.inspect(at: setup.store).version == 0)
    }

    @Test("a mapping file that jumps several versions is a shortcut, taken as the library's plan takes one")
    func shortcut() throws {
        let setup = try Setup(mapping: false)
        try Data(Self.mapping.utf8).write(to: setup.snapshots.appendingPathComponent("1-to-3.mapping.json"))
        // Walking to version 2 cannot take the shortcut past it: the step 1 → 2 then needs a file of its own.
        let partial = try Molt.run(
            ["plan", setup.store.path, "--to", "snapshots", "--to-version", "2"], in: setup.dir.url)
        #expect(partial.status == 5, "\(partial)")
        #expect(
            partial.stderr.contains(
                "Write what the step needs as the mapping file \(setup.snapshots.path)/1-to-2.mapping.json"))
        let result = try Molt.run(["migrate", setup.store.path, "--to", "snapshots"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.dropFirst().first == Self.steps[0])
        #expect(lines.last?.hasPrefix("  1 → 3 mapping (1 entity mapping(s)): ") == true)
        let memos = try Store.open(at: setup.store, schema: Self.memoV3).read {
            try $0.fetch("UserMemo", orderBy: [.ascending("memoDate")])
        }
        #expect(memos.map { $0["memoDescription"] } == (0..<6).map { .string("Memo \($0)!") })
    }

    @Test("a step that needs a mapping and has no file is refused with the file to write; nothing is written")
    func missingMappingIsNamed() throws {
        let setup = try Setup(mapping: false)
        let before = try setup.storeBytes()
        for command in ["migrate", "plan", "rehearse"] {
            let result = try Molt.run([command, setup.store.path, "--to", "snapshots"], in: setup.dir.url)
            #expect(result.status == 5, "\(result)")
            #expect(
                result.stderr == """
                    error: Molt cannot infer the migration from version 1 to 2:
                    - Attribute 'UserMemo.memoDescription' has been added as required with no default value between versions 1 and 2, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 1 to 2.
                    Write what the step needs as the mapping file \(setup.snapshots.path)/1-to-2.mapping.json (the format of --mapping; see `molt migrate --help`), or change 2.json (an originalName, a default, a declared deletion).

                    """)
        }
        #expect(try setup.storeBytes() == before)
    }

    @Test("what a folder walk cannot start from is refused naming the fix; nothing is written")
    func refusals() throws {
        let setup = try Setup()
        let before = try setup.storeBytes()
        func run(_ arguments: [String]) throws -> Molt.Result { try Molt.run(arguments, in: setup.dir.url) }
        let withMapping = try run(["migrate", setup.store.path, "--to", "snapshots", "--mapping", "x.json"])
        #expect(withMapping.status == 2)
        #expect(
            withMapping.stderr
                == "error: --mapping x.json gives the mapping of one step, but --to is a folder: put each step's mapping in the folder as <from>-to-<to>.mapping.json (for example 3-to-4.mapping.json), and leave out --mapping.\n"
        )
        let unknownVersion = try run(["migrate", setup.store.path, "--to", "snapshots", "--to-version", "7"])
        #expect(unknownVersion.status == 2)
        #expect(
            unknownVersion.stderr
                == "error: --to-version 7: the folder \(setup.snapshots.path) has no 7.json; its versions are 0, 1, 2, 3.\n"
        )
        let versionOfFile = try run(["migrate", setup.store.path, "--to", "snapshots/3.json", "--to-version", "3"])
        #expect(versionOfFile.status == 2)
        #expect(
            versionOfFile.stderr
                == "error: --to-version 3 picks a version of a folder of snapshots, but snapshots/3.json is not a folder; give the folder to --to, or leave out --to-version.\n"
        )
        try FileManager.default.removeItem(at: setup.snapshots.appendingPathComponent("0.json"))
        let noSnapshot = try run(["migrate", setup.store.path, "--to", "snapshots"])
        #expect(noSnapshot.status == 3)
        #expect(
            noSnapshot.stderr
                == "error: The store is at version 0, which has no snapshot in \(setup.snapshots.path) (its versions are 1, 2, 3). Record it from the store: `molt schema STORE > \(setup.snapshots.path)/0.json`.\n"
        )
        var edited = Fixtures.memoV0
        edited.entities[0].attributes.append(Attribute("extra", .int, default: 0))
        try Fixtures.write(edited, to: setup.snapshots.appendingPathComponent("0.json"))
        let changed = try run(["migrate", setup.store.path, "--to", "snapshots"])
        #expect(changed.status == 4)
        #expect(
            changed.stderr == """
                error: \(setup.snapshots.path)/0.json differs from the schema of version 0 recorded in the store:
                - Attribute 'UserMemo.extra' has been added.
                A shipped version must not change: restore 0.json as it shipped (or record it from the store: `molt schema STORE > \(setup.snapshots.path)/0.json`), and put the change in a new version.

                """)
        #expect(try setup.storeBytes() == before)
    }

    @Test("on PostgreSQL: plan and rehearse walk the folder in a transaction rolled back, migrate in one that commits")
    func walkOnPostgres() throws {
        let server = try PostgresImportTests.server()
        let namespace = PostgresImportTests.namespace()
        defer { try? PostgresMaintenance.dropNamespace(namespace, at: server) }
        let setup = try Setup()
        let store = try Store.open(at: .postgres(server, schema: namespace), schema: Fixtures.memoV0)
        try store.write { objects in
            for i in 0..<3 {
                try objects.insert(
                    "UserMemo",
                    [
                        "objectID": .uuid(UUID()), "memoTitle": .string("Memo \(i)"),
                        "memoDate": .date(Date(timeIntervalSince1970: Double(i))),
                    ])
            }
        }
        try store.close()
        let address = PostgresImportTests.store(server, namespace)
        for command in ["plan", "rehearse"] {
            let result = try Molt.run([command, address, "--to", "snapshots", "--json"], in: setup.dir.url)
            #expect(result.status == 0, "\(result)")
            let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
            #expect(json["steps"] as? [String] == Self.steps.map { String($0.dropFirst(2)) })
            #expect(try Store.inspect(at: .postgres(server, schema: namespace)).version == 0)
        }
        let migrate = try Molt.run(["migrate", address, "--to", "snapshots"], in: setup.dir.url)
        #expect(migrate.status == 0, "\(migrate)")
        #expect(Array(migrate.stdout.split(separator: "\n").dropFirst().map(String.init)) == Self.steps)
        let migrated = try Store.open(at: .postgres(server, schema: namespace), schema: Self.memoV3)
        defer { try? migrated.close() }
        #expect(
            try migrated.read { try $0.fetch("UserMemo", orderBy: [.ascending("title")]).map { $0["memoDescription"] } }
                == ["Memo 0!", "Memo 1!", "Memo 2!"])
        #expect(try migrated.history().map { [$0.fromVersion, $0.toVersion] } == [[0, 3]])
    }

    @Test("check DIR takes a step's mapping file as its stage, and names a misnamed one")
    func checkKnowsMappingFiles() throws {
        let setup = try Setup()
        let clean = try Molt.run(["check", "snapshots"], in: setup.dir.url)
        #expect(clean.status == 0, "\(clean)")
        // The step the mapping file covers is a stage: the required attribute it adds is the stage's to set, a
        // warning names the data (the lint does not read what the mapping computes).
        #expect(
            clean.stdout == """
                warning: 2.json: step 1 → 2 depends on the data: 'UserMemo.memoDescription' is added as required with no default: a store at version 1 where a 'UserMemo' object exists is refused. Set it for every object in the stage from version 1 to 2 (`new["memoDescription"] = …` in `enumerateObjects(ofType: "UserMemo")`), give it a default, or make it optional.
                Checked 4 versions (0, 1, 2, 3): 0 errors, 1 warning.

                """)
        try Data(#"{ "mappings": [ { "attributes": {} } ] }"#.utf8).write(
            to: setup.snapshots.appendingPathComponent("1-to-2.mapping.json"))
        let unreadable = try Molt.run(["check", "snapshots"], in: setup.dir.url)
        #expect(unreadable.status == 1)
        #expect(
            unreadable.stdout.contains(
                #"error: 1-to-2.mapping.json is not a mapping file (at mappings[0]: "destination" is missing): it must be JSON with a "mappings" array"#
            ))
        try FileManager.default.removeItem(at: setup.snapshots.appendingPathComponent("1-to-2.mapping.json"))
        try Data(Self.mapping.utf8).write(to: setup.snapshots.appendingPathComponent("1to2.mapping.json"))
        let misnamed = try Molt.run(["check", "snapshots"], in: setup.dir.url)
        #expect(misnamed.status == 1)
        #expect(
            misnamed.stdout.contains(
                "error: The snapshots folder \(setup.snapshots.path) holds '1to2.mapping.json', which is not named after a step; a mapping file is named '<from>-to-<to>.mapping.json' with <from> older than <to>, as '3-to-4.mapping.json'. Rename or remove it.\n"
            ))
        #expect(misnamed.stdout.contains("error: 2.json: step 1 → 2 cannot be inferred and no --stage covers it:"))
    }
}
