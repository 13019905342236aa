import Foundation
import Molt
import Testing

@Suite("molt plan, migrate and rehearse")
struct MigrationCommandTests {
    /// A folder with a memo store at version 0 and snapshots of versions 1 (inferable) and 1-needs-code.
    struct Setup {
        let dir = TemporaryDirectory()
        let store: URL

        init(count: Int = 20) throws {
            store = try Fixtures.memoStore(at: dir.file("memos.sqlite"), count: count)
            try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
            try Fixtures.write(Fixtures.memoV1NeedsCode, to: dir.file("1-code.json"))
        }

        func files() throws -> [String: Data] { try snapshotOfFiles(in: dir.url) }
    }

    @Test("plan prints the steps and the exact SQL, and writes nothing")
    func plan() throws {
        let setup = try Setup()
        let before = try setup.files()
        let result = try Molt.run(["plan", setup.store.path, "--to", "1.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout == """
                Plan for \(setup.store.path): version 0 → 1 (dry run, nothing written)

                Steps:
                  0 → 1 inferred: Attribute 'UserMemo.count' has been added.

                SQL:
                  ALTER TABLE "UserMemo" ADD COLUMN "count" INTEGER NOT NULL DEFAULT 100;

                Changes: no object changed

                """)
        #expect(try setup.files() == before)
    }

    @Test("plan --json lists statements; a table rebuild shows its INSERT … SELECT")
    func planRebuild() throws {
        let setup = try Setup()
        var v1 = Fixtures.memoV0.withVersion(1)
        v1.entities[0].attributes[3] = Attribute("memoSubtitle", .string, default: "none")
        try Fixtures.write(v1, to: setup.dir.file("required.json"))
        let before = try setup.files()
        let result = try Molt.run(["plan", setup.store.path, "--to", "required.json", "--json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let statements = json["statements"] as! [String]
        #expect(statements.contains { $0.hasPrefix("INSERT INTO \"_molt_new_UserMemo\"") && $0.contains("COALESCE") })
        #expect(statements.contains("DROP TABLE \"UserMemo\""))
        // Only what changes the store is listed: the step's counting queries and the transaction's bounds are not.
        #expect(!statements.contains { $0.hasPrefix("SELECT") || $0.hasPrefix("BEGIN") || $0.hasPrefix("SAVEPOINT") })
        // The memos whose null subtitle takes the new default (7 of the 20) are the objects the step changes.
        #expect(json["objectsTouched"] as? Int == 7)
        let records = json["stepRecords"] as? [[String: Any]]
        #expect(records?.first?["objectsUpdated"] as? Int == 7)
        #expect(try setup.files() == before)
    }

    @Test("migrate brings the store to the snapshot's version and records it")
    func migrate() throws {
        let setup = try Setup()
        let result = try Molt.run(["migrate", setup.store.path, "--to", "1.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("Migrated \(setup.store.path) from version 0 to 1 in "))
        #expect(lines[0].hasSuffix(" (no object changed)."))
        #expect(lines[1] == "  0 → 1 inferred: Attribute 'UserMemo.count' has been added.")
        let info = try Store.inspect(at: setup.store)
        #expect(info.version == 1)
        #expect(info.objectCounts == ["UserMemo": 20])
        #expect(
            try Store.open(at: setup.store, schema: Fixtures.memoV1).read { try $0.fetch("UserMemo") }.allSatisfy {
                $0["count"] == 100
            })
        // A second run has nothing to do.
        let again = try Molt.run(["migrate", setup.store.path, "--to", "1.json"], in: setup.dir.url)
        #expect(again.status == 0)
        #expect(again.stdout == "The store is already at version 1 with this schema: nothing to do.\n")
    }

    @Test(
        "migrate --backup removes the copy after success; --keep-backup keeps it: a store with the original's objects")
    func backup() throws {
        let setup = try Setup()
        let removed = try Molt.run(["migrate", "memos.sqlite", "--to", "1.json", "--backup"], in: setup.dir.url)
        #expect(removed.status == 0, "\(removed)")
        #expect(!FileManager.default.fileExists(atPath: setup.store.path + ".backup-0"))

        let other = try Setup()
        let original = try Self.exported("memos.sqlite", in: other.dir.url)
        let kept = try Molt.run(
            ["migrate", "memos.sqlite", "--to", "1.json", "--backup", "--keep-backup"], in: other.dir.url)
        #expect(kept.status == 0, "\(kept)")
        #expect(kept.stdout.hasSuffix("Backup kept at \(other.store.path).backup-0.\n"))
        #expect(try Store.inspect(at: URL(fileURLWithPath: other.store.path + ".backup-0")).version == 0)
        // SQLite's online backup: the same pages, not the same header bytes (its change counter is its own).
        #expect(try Self.exported("memos.sqlite.backup-0", in: other.dir.url) == original)
        #expect(
            try snapshotOfFiles(in: other.dir.url).keys.sorted() == [
                "1-code.json", "1.json", "memos.sqlite", "memos.sqlite.backup-0",
            ])
    }

    @Test("--backup never overwrites an earlier backup")
    func backupExists() throws {
        let setup = try Setup()
        try Data("earlier".utf8).write(to: URL(fileURLWithPath: setup.store.path + ".backup-0"))
        let before = try setup.files()
        let result = try Molt.run(["migrate", "memos.sqlite", "--to", "1.json", "--backup"], in: setup.dir.url)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr
                == "error: \(setup.store.path).backup-0 already exists: move that earlier backup away, or migrate without --backup; nothing was written.\n"
        )
        #expect(try setup.files() == before)
    }

    @Test("--keep-backup without --backup is a usage error")
    func keepBackupNeedsBackup() throws {
        let setup = try Setup()
        let result = try Molt.run(["migrate", "memos.sqlite", "--to", "1.json", "--keep-backup"], in: setup.dir.url)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: --keep-backup needs --backup.\n"))
    }

    @Test("a step that needs code exits 5 with the refusal, writes nothing and leaves no backup")
    func notInferable() throws {
        let setup = try Setup()
        let before = try setup.files()
        for command in ["plan", "migrate", "rehearse"] {
            let result = try Molt.run(
                [command, "memos.sqlite", "--to", "1-code.json", "--backup"].filter {
                    command == "migrate" || $0 != "--backup"
                }, in: setup.dir.url)
            #expect(result.status == 5, "\(command): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(
                result.stderr == """
                    error: Molt cannot infer the migration from version 0 to 1:
                    - Attribute 'UserMemo.memoDescription' has been added as required with no default value between versions 0 and 1, so existing objects would have no value. Give it a default (`default: …`), make it optional, or set its value in a custom stage from version 0 to 1.

                    """)
            #expect(try setup.files() == before, "\(command) wrote something")
        }
    }

    @Test("migrate --mapping computes what inference cannot, with SQL expressions from a file")
    func mapping() throws {
        let setup = try Setup()
        try Data(
            """
            { "mappings": [ { "destination": "UserMemo",
                              "attributes": { "memoDescription": "memoTitle || ' / ' || COALESCE(memoSubtitle, '-')" } } ] }
            """.utf8
        ).write(to: setup.dir.file("mapping.json"))
        let before = try setup.files()
        let plan = try Molt.run(
            ["plan", "memos.sqlite", "--to", "1-code.json", "--mapping", "mapping.json", "--json"], in: setup.dir.url)
        #expect(plan.status == 0, "\(plan)")
        let statements =
            (try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as! [String: Any])["statements"]
            as! [String]
        // The table is rebuilt anyway (memoDescription is required), so the expression is computed in the rebuild:
        // one pass, no UPDATE before it.
        #expect(
            statements.contains {
                $0.hasPrefix("INSERT INTO \"_molt_new_UserMemo\"")
                    && $0.contains("memoTitle || ' / ' || COALESCE(memoSubtitle, '-')")
            }, "\(statements)")
        #expect(!statements.contains { $0.hasPrefix("UPDATE") }, "\(statements)")
        let rehearsal = try Molt.run(
            ["rehearse", "memos.sqlite", "--to", "1-code.json", "--mapping", "mapping.json"], in: setup.dir.url)
        #expect(rehearsal.status == 0, "\(rehearsal)")
        #expect(rehearsal.stdout.contains("  UserMemo: 20 → 20\n"))
        #expect(try setup.files() == before)

        let result = try Molt.run(
            ["migrate", "memos.sqlite", "--to", "1-code.json", "--mapping", "mapping.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let memos = try Store.open(at: setup.store, schema: Fixtures.memoV1NeedsCode).read { try $0.fetch("UserMemo") }
        #expect(memos.count == 20)
        for memo in memos {
            #expect(
                memo["memoDescription"].string == "\(memo["memoTitle"].string!) / \(memo["memoSubtitle"].string ?? "-")"
            )
        }
    }

    @Test("a mapping file that is not a list of mappings is bad input, and nothing is written")
    func badMapping() throws {
        let setup = try Setup()
        try Data("{ \"stages\": 3 }".utf8).write(to: setup.dir.file("mapping.json"))
        let before = try setup.files()
        let result = try Molt.run(
            ["migrate", "memos.sqlite", "--to", "1-code.json", "--mapping", "mapping.json"], in: setup.dir.url)
        #expect(result.status == 3)
        #expect(
            result.stderr
                == "error: mapping.json is not a mapping file: it must be JSON with a \"mappings\" array of objects with \"destination\" and \"attributes\" (SQL expressions), and optionally \"overrides\" keyed by engine (\"sqlite\", \"postgresql\").\n"
        )
        #expect(try setup.files() == before)
    }

    @Test(
        "a mapping file's per-engine overrides run on their engine; an unknown engine is named, and nothing is written")
    func mappingOverrides() throws {
        let setup = try Setup()
        // `printf` is SQLite's own, `concat` PostgreSQL's (SQLite 3.40 has none); the portable expression is not run.
        try Data(
            """
            { "mappings": [ { "destination": "UserMemo",
                              "attributes": { "memoDescription": "'portable'" },
                              "overrides": { "sqlite": { "attributes": { "memoDescription": "printf('%s!', memoTitle)" } },
                                             "postgresql": { "attributes": { "memoDescription": "concat(memoTitle, '!')" } } } } ] }
            """.utf8
        ).write(to: setup.dir.file("mapping.json"))
        try Data(
            """
            { "mappings": [ { "destination": "UserMemo", "attributes": { "memoDescription": "memoTitle" },
                              "overrides": { "postgres": { "attributes": { "memoDescription": "memoTitle" } } } } ] }
            """.utf8
        ).write(to: setup.dir.file("misspelled.json"))
        let before = try setup.files()
        let refused = try Molt.run(
            ["migrate", "memos.sqlite", "--to", "1-code.json", "--mapping", "misspelled.json"], in: setup.dir.url)
        #expect(refused.status == 3)
        #expect(
            refused.stderr.hasPrefix(
                "error: misspelled.json is not a mapping file (at mappings[0].overrides: unknown engine 'postgres' in the overrides; the engines are 'sqlite' and 'postgresql'): "
            ), "\(refused)")
        #expect(try setup.files() == before)

        let result = try Molt.run(
            ["migrate", "memos.sqlite", "--to", "1-code.json", "--mapping", "mapping.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let memos = try Store.open(at: setup.store, schema: Fixtures.memoV1NeedsCode).read { try $0.fetch("UserMemo") }
        #expect(memos.count == 20)
        for memo in memos { #expect(memo["memoDescription"].string == "\(memo["memoTitle"].string!)!") }
    }

    @Test("rehearse migrates a copy, reports counts before and after, and leaves the original byte for byte")
    func rehearse() throws {
        let setup = try Setup(count: 25)
        let before = try setup.files()
        let result = try Molt.run(["rehearse", "memos.sqlite", "--to", "1.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0] == "Rehearsal of \(setup.store.path): version 0 → 1, on a copy (the store is untouched)")
        #expect(lines.contains("  UserMemo: 25 → 25"))
        #expect(lines.contains("  0 → 1 inferred: Attribute 'UserMemo.count' has been added."))
        #expect(lines.contains { $0.hasPrefix("Time:        ") })
        #expect(lines.contains { $0.hasPrefix("Peak memory: ") && $0.hasSuffix(" MB") })
        #expect(try setup.files() == before)
        #expect(try Store.inspect(at: setup.store).version == 0)

        let json = try Molt.run(["rehearse", "memos.sqlite", "--to", "1.json", "--json"], in: setup.dir.url)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(
            (object["entities"] as! [[String: Any]]).map {
                [
                    $0["entity"] as? String, ($0["before"] as? Int).map(String.init),
                    ($0["after"] as? Int).map(String.init),
                ]
            } == [["UserMemo", "25", "25"]])
        #expect((object["peakMemoryBytes"] as? Int ?? 0) > 0)
        #expect(try setup.files() == before)
    }

    @Test("plan on a store already at the snapshot has nothing to do")
    func planNothing() throws {
        let setup = try Setup()
        try Fixtures.write(Fixtures.memoV0, to: setup.dir.file("0.json"))
        let result = try Molt.run(["plan", "memos.sqlite", "--to", "0.json"], in: setup.dir.url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "The store is already at version 0 with this schema: nothing to do.\n")
    }

    @Test("a migration that fails on the data exits 1, leaves the store as it was and keeps the backup")
    func failureKeepsBackup() throws {
        let setup = try Setup()
        var unique = Fixtures.memoV0.withVersion(1)
        unique.entities[0].indexes = [Index(["favorite"], unique: true)]
        try Fixtures.write(unique, to: setup.dir.file("unique.json"))
        let original = try Data(contentsOf: setup.store)
        let export = try Self.exported("memos.sqlite", in: setup.dir.url)
        let result = try Molt.run(["migrate", "memos.sqlite", "--to", "unique.json", "--backup"], in: setup.dir.url)
        #expect(result.status == 1, "\(result)")
        #expect(
            result.stderr == """
                note: the store was left as it was; a copy is at \(setup.store.path).backup-0.
                error: Cannot add the uniqueness constraint on 'UserMemo'(favorite) in version 1: the value (false) is held by 10 objects. Make the values unique in a custom stage before this version, or drop the constraint.

                """)
        #expect(try Store.inspect(at: setup.store).version == 0)
        #expect(try Data(contentsOf: setup.store) == original)
        #expect(try Self.exported("memos.sqlite.backup-0", in: setup.dir.url) == export)
    }

    /// `molt export STORE`'s output, which must succeed and hold objects (two failed exports would compare equal).
    static func exported(_ store: String, in directory: URL) throws -> String {
        let result = try Molt.run(["export", store], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("\"_id\""), "the export of \(store) holds no object")
        return result.stdout
    }
}
