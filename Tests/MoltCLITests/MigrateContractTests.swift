import Foundation
import Molt
import Testing

/// What `molt migrate` promises beyond a plain run: re-runs that say so, processes that waited for another one,
/// a damaged store refused before the first write, the file-size limit, and imports that refuse contradictions.
@Suite("migrate and import contracts")
struct MigrateContractTests {
    @Test("a re-run with --mapping on a store already at the target exits 0, says so and writes nothing")
    func rerunWithMapping() throws {
        let dir = TemporaryDirectory()
        try Fixtures.memoStore(at: dir.file("s.sqlite"))
        try Fixtures.write(Fixtures.memoV1NeedsCode, to: dir.file("1.json"))
        try Data(
            #"{"mappings": [{"destination": "UserMemo", "attributes": {"memoDescription": "memoTitle || '!'"}}]}"#.utf8
        )
        .write(to: dir.file("m.json"))
        let first = try Molt.run(["migrate", "s.sqlite", "--to", "1.json", "--mapping", "m.json"], in: dir.url)
        #expect(first.status == 0, "\(first)")
        let before = try snapshotOfFiles(in: dir.url)
        let again = try Molt.run(["migrate", "s.sqlite", "--to", "1.json", "--mapping", "m.json"], in: dir.url)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "The store is already at version 1 with this schema: nothing to do.\n")
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }

    @Test("processes that waited for another one's migration say so instead of claiming it")
    func waitersSayAnotherProcessMigrated() throws {
        let dir = TemporaryDirectory()
        let url = try Fixtures.memoStore(at: dir.file("s.sqlite"), count: 200)
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        var options = Store.Options()
        options.journalMode = .rollback
        let gate = try Store.open(at: url, schema: Fixtures.memoV0, options: options)
        let locked = DispatchSemaphore(value: 0)
        let holder = Thread {
            try? gate.write { objects in
                _ = try objects.insert(
                    "UserMemo", ["objectID": .uuid(UUID()), "memoTitle": "gate", "memoDate": .date(Date())])
                locked.signal()
                Thread.sleep(forTimeInterval: 4)
            }
        }
        holder.start()
        locked.wait()
        let results = LockedResults()
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                results.append(Result { try Molt.run(["migrate", "s.sqlite", "--to", "1.json"], in: dir.url) })
                group.leave()
            }.start()
        }
        group.wait()
        try gate.close()
        let runs = try results.all.map { try $0.get() }
        #expect(runs.allSatisfy { $0.status == 0 }, "\(runs)")
        #expect(
            runs.filter { $0.stdout.hasPrefix("Migrated \(url.path) from version 0 to 1 in ") }.count == 1, "\(runs)")
        #expect(
            runs.filter {
                $0.stdout == "The store is already at version 1 (migrated by another process): nothing to do.\n"
            }.count == 2, "\(runs)")
        #expect(try Store.inspect(at: url).history.count == 1)
    }

    @Test(
        "a damaged table the migration rewrites is refused by quick_check before the first write: exit 3, one line, files unchanged"
    )
    func damagedStoreRefused() throws {
        let dir = TemporaryDirectory()
        let url = try Fixtures.memoStore(at: dir.file("s.sqlite"), count: 300)
        // memoSubtitle becomes required with a default: the table is rebuilt, so it is checked first.
        var rewriting = Fixtures.memoV0.withVersion(1)
        rewriting.entities[0].attributes[3] = Attribute("memoSubtitle", .string, default: "")
        try Fixtures.write(rewriting, to: dir.file("1.json"))
        try damageLastPage(url)
        let before = try snapshotOfFiles(in: dir.url)
        let result = try Molt.run(["migrate", "s.sqlite", "--to", "1.json"], in: dir.url)
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.hasPrefix("error: The store at \(url.path) is damaged (SQLite's quick_check: "))
        #expect(
            result.stderr.hasSuffix(
                "), so it was not migrated; it is still at version 0 and nothing was written. Restore it from a backup; `molt export` may still save the objects that read.\n"
            ))
        #expect(try snapshotOfFiles(in: dir.url) == before)
    }

    @Test("past `ulimit -f`, a rebuild stops with exit 1 and a message, not SIGXFSZ; the store keeps its version")
    func fileSizeLimit() throws {
        let dir = TemporaryDirectory()
        let url = try Fixtures.memoStore(at: dir.file("s.sqlite"), count: 3000, schema: Fixtures.memoV1)
        var widened = Fixtures.memoV1.withVersion(2)
        widened.entities[0].attributes[5] = Attribute("count", .double, default: 100)  // int → double: a rebuild
        try Fixtures.write(widened, to: dir.file("2.json"))
        let blocks = (try Data(contentsOf: url).count + 2048) / 1024
        let result = try Molt.run(
            ["-c", "ulimit -f \(blocks); molt migrate s.sqlite --to 2.json --secure-delete fast"], in: dir.url,
            shell: true)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("the process's file size limit (`ulimit -f`) was reached"), "\(result)")
        #expect(result.stderr.contains("This migration may need up to "), "\(result)")
        #expect(try Store.inspect(at: url).version == 1)
    }

    @Test(
        "import refuses relationship sides that disagree and duplicate _ids: exit 3, one line, nothing written",
        arguments: [
            (
                #"{"Folder": [{"_id": 1, "name": "a", "notes": []}], "Note": [NOTE]}"#,
                "error: The two sides of 'Folder.notes' and its inverse 'Note.folder' disagree: 'Note' _id 1 lists 'Folder' _id 1 in 'folder', but 'Folder' _id 1 does not list it back in 'notes'. Make both sides say the same, or leave one side out of the file.\n"
            ),
            (
                #"{"Folder": [{"_id": 1, "name": "a", "notes": [1]}, {"_id": 1, "name": "b", "notes": []}], "Note": [NOTE]}"#,
                "error: 'Folder' _id 1 is given twice, or collides with a unique value of another object (A constraint was violated: UNIQUE constraint failed: Folder._id.); each object needs its own `_id` and unique values.\n"
            ),
        ])
    func importRefusals(entities: String, message: String) throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        let note =
            #"{"_id": 1, "key": "6F1B2C3D-0000-4000-8000-000000000001", "text": "t", "count": 1, "created": 0, "folder": 1, "related": []}"#
        let file =
            #"{"format": "molt-data", "formatVersion": 1, "entities": "#
            + entities.replacingOccurrences(of: "NOTE", with: note) + "}"
        try Data(file.utf8).write(to: dir.file("data.json"))
        try Fixtures.fillEverything(at: dir.file("existing.sqlite"))
        let before = try snapshotOfFiles(in: dir.url)
        for store in ["new.sqlite", "existing.sqlite"] {
            let result = try Molt.run(["import", store, "--schema", "schema.json", "data.json"], in: dir.url)
            #expect(result.status == 3, "\(store): \(result)")
            #expect(result.stderr == message, "\(store)")
            #expect(try snapshotOfFiles(in: dir.url) == before, "\(store)")
        }
    }

    @Test("a side of a relationship left out of the file is filled from its inverse")
    func oneSideGiven() throws {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.everything, to: dir.file("schema.json"))
        let notes = (1...3).map {
            #"{"_id": \#($0), "key": "6F1B2C3D-0000-4000-8000-00000000000\#($0)", "text": "t", "count": 1, "created": 0}"#
        }
        let file =
            #"{"format": "molt-data", "formatVersion": 1, "entities": {"Folder": [{"_id": 1, "name": "a", "notes": [3, 1]}], "Note": ["#
            + notes.joined(separator: ", ") + "]}}"
        try Data(file.utf8).write(to: dir.file("data.json"))
        let result = try Molt.run(["import", "new.sqlite", "--schema", "schema.json", "data.json"], in: dir.url)
        #expect(result.status == 0, "\(result)")
        let store = try Store.openReadOnly(at: dir.file("new.sqlite"))
        try store.read { objects in
            let folder = try #require(try objects.object("Folder", id: 1))
            #expect(try objects.destinations("notes", of: folder).map(\.id) == [3, 1])
            #expect(try objects.fetch("Note").map { try objects.destination("folder", of: $0)?.id } == [1, nil, 1])
        }
        try store.close()
    }
}

/// Overwrites the b-tree page header of a store's last page: damage that SQLite's checks find, away from the
/// metadata that opening reads.
func damageLastPage(_ url: URL) throws {
    var bytes = try Data(contentsOf: url)
    let page = 4096 * (bytes.count / 4096 - 1)
    for i in page..<page + 12 { bytes[i] = 0xAB }
    try bytes.write(to: url)
}

/// Results gathered from concurrent runs.
private final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<Molt.Result, any Error>] = []

    func append(_ result: Result<Molt.Result, any Error>) { lock.withLock { results.append(result) } }
    var all: [Result<Molt.Result, any Error>] { lock.withLock { results } }
}
