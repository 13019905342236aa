import Foundation
import Molt
import Testing

/// Bad input gets one line on standard error naming the problem, a non-zero exit code, and nothing written:
/// every file of the folder keeps its bytes, and no file appears.
@Suite("Bad input")
struct BadInputTests {
    /// A store file that is wrong in one way, and the line `molt` must print for it.
    enum BadStore: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case missing, empty, plainSQLite, truncated, garbage, scrambled

        var testDescription: String { rawValue }

        /// Writes the bad file at `url` (from a real Molt store for the damaged ones).
        func make(at url: URL, scratch: URL) throws {
            switch self {
            case .missing: return
            case .empty: try Data().write(to: url)
            case .plainSQLite: try Self.plainSQLite().write(to: url)
            case .garbage: try Data(String(repeating: "not a database\n", count: 300).utf8).write(to: url)
            case .truncated, .scrambled:
                let good = try Fixtures.memoStore(at: scratch.appendingPathComponent("good.sqlite"), count: 300)
                var bytes = try Data(contentsOf: good)
                if self == .truncated {
                    bytes = bytes.prefix(3000)
                } else {
                    for i in 4096..<bytes.count { bytes[i] = 0xAB }
                }
                try bytes.write(to: url)
            }
        }

        func message(_ url: URL) -> String {
            switch self {
            case .missing: return "There is no store at \(url.path). Check the path."
            case .empty:
                return
                    "The file at \(url.path) is empty: it is not a Molt store. Choose another path; nothing was written."
            case .plainSQLite:
                return
                    "The file at \(url.path) is an SQLite database but not a Molt store (it has no _molt_metadata table). Choose another path; if Core Data, SwiftData, GRDB or another app wrote it, adopt it (`molt adopt`, or `Store.Options.adopting(_:)` with MoltAdoption); nothing was written."
            case .truncated, .scrambled:
                return
                    "The file at \(url.path) is not a readable Molt store: database disk image is malformed. It is damaged or is not a database; restore it from a backup or choose another path. Nothing was written."
            case .garbage:
                return
                    "The file at \(url.path) is not a readable Molt store: file is not a database. It is damaged or is not a database; restore it from a backup or choose another path. Nothing was written."
            }
        }

        /// A 1 KB SQLite database with one table `notes`, built from its non-zero byte runs.
        static func plainSQLite() -> Data {
            var bytes = [UInt8](repeating: 0, count: 1024)
            let runs: [(Int, String)] = [
                (0, "53514c69746520666f726d61742033000200010100402020"), (27, "02"), (31, "02"), (43, "01"), (47, "04"),
                (59, "01"), (95, "02002e63010d"), (104, "0101ca0001ca"),
                (
                    458,
                    "34010617171701497461626c656e6f7465736e6f74657302435245415445205441424c45206e6f7465732028746578742054455854290d"
                ),
                (516, "0101f70001f7"), (1015, "0701021768656c6c6f"),
            ]
            for (offset, hex) in runs {
                var index = hex.startIndex
                var position = offset
                while index < hex.endIndex {
                    let next = hex.index(index, offsetBy: 2)
                    bytes[position] = UInt8(hex[index..<next], radix: 16)!
                    index = next
                    position += 1
                }
            }
            return Data(bytes)
        }
    }

    /// Every command that reads a store, with the arguments that would otherwise succeed.
    static let storeCommands: [[String]] = [
        ["info"], ["info", "--json"], ["schema"], ["export"], ["export", "--format", "csv", "--entity", "UserMemo"],
        ["plan", "--to", "1.json"], ["migrate", "--to", "1.json", "--backup"], ["rehearse", "--to", "1.json"],
        ["import", "--schema", "0.json", "data.json"],
    ]

    /// Runs `arguments` in `dir` and checks the exit status, the one line and that no file changed.
    func expectRefusal(_ arguments: [String], in dir: TemporaryDirectory, status: Int32, message: String) throws {
        let before = try snapshotOfFiles(in: dir.url)
        let result = try Molt.run(arguments, in: dir.url)
        #expect(result.status == status, "\(arguments): \(result)")
        #expect(result.stderr == "error: \(message)\n", "\(arguments)")
        #expect(result.stdout.isEmpty, "\(arguments)")
        #expect(try snapshotOfFiles(in: dir.url) == before, "\(arguments) wrote something")
    }

    /// A folder with valid snapshots 0.json and 1.json and an empty export of version 0, besides the store.
    func folder() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        try Fixtures.write(Fixtures.memoV0, to: dir.file("0.json"))
        try Fixtures.write(Fixtures.memoV1, to: dir.file("1.json"))
        try Data(#"{"format": "molt-data", "formatVersion": 1, "entities": {"UserMemo": []}}"#.utf8).write(
            to: dir.file("data.json"))
        return dir
    }

    @Test(
        "a missing, empty, foreign, truncated or damaged store: one line, exit 3, nothing written",
        arguments: BadStore.allCases)
    func badStore(kind: BadStore) throws {
        let dir = try folder()
        let scratch = TemporaryDirectory()
        let store = dir.file("store.sqlite")
        try kind.make(at: store, scratch: scratch.url)
        for command in Self.storeCommands {
            if kind == .missing && command[0] == "import" { continue }  // a missing store is created by import
            var arguments = command
            arguments.insert("store.sqlite", at: 1)
            try expectRefusal(arguments, in: dir, status: 3, message: kind.message(store))
        }
    }

    @Test("invalid JSON, a schema that does not validate, or a missing snapshot: one line, exit 3, nothing written")
    func badSchema() throws {
        let dir = try folder()
        try Fixtures.memoStore(at: dir.file("store.sqlite"), count: 5)
        try Data(#"{ "version": 1, "entities": [ "#.utf8).write(to: dir.file("broken.json"))
        var duplicate = Fixtures.memoV1
        duplicate.entities[0].attributes.append(Attribute("memoTitle", .string))
        try Data(String(decoding: try JSONEncoder().encode(duplicate), as: UTF8.self).utf8).write(
            to: dir.file("invalid.json"))
        let cases: [(file: String, message: String)] = [
            ("broken.json", "broken.json: The schema snapshot is not valid JSON: The given data was not valid JSON."),
            (
                "invalid.json",
                "invalid.json: Invalid schema version 1: property 'UserMemo.memoTitle' is declared twice."
            ),
            ("absent.json", "There is no schema snapshot at \(dir.file("absent.json").path). Check the path."),
        ]
        for (file, message) in cases {
            for arguments in [
                ["diff", "0.json", file], ["diff", file, "1.json"], ["plan", "store.sqlite", "--to", file],
                ["migrate", "store.sqlite", "--to", file], ["rehearse", "store.sqlite", "--to", file],
                ["import", "new.sqlite", "--schema", file, "data.json"],
            ] {
                try expectRefusal(arguments, in: dir, status: 3, message: message)
            }
        }
    }

    @Test("a store newer than the schema: one line, exit 4, nothing written")
    func newerStore() throws {
        let dir = try folder()
        try Fixtures.memoStore(at: dir.file("store.sqlite"), count: 5, schema: Fixtures.memoV1)
        let message =
            "The store is at schema version 1, newer than this app's version 0: a newer version of the app wrote it. Nothing was written. Update the app, or open the store with a schema of version 1 or later."
        for arguments in [
            ["plan", "store.sqlite", "--to", "0.json"], ["migrate", "store.sqlite", "--to", "0.json", "--backup"],
            ["rehearse", "store.sqlite", "--to", "0.json"],
            ["import", "store.sqlite", "--schema", "0.json", "data.json"],
        ] {
            try expectRefusal(arguments, in: dir, status: 4, message: message)
        }
    }

    @Test("a store older than the import's schema is refused: migrate it first")
    func olderStoreImport() throws {
        let dir = try folder()
        try Fixtures.memoStore(at: dir.file("store.sqlite"), count: 5)
        try Data(#"{"format": "molt-data", "formatVersion": 1, "entities": {"UserMemo": []}}"#.utf8).write(
            to: dir.file("data.json"))
        try expectRefusal(
            ["import", "store.sqlite", "--schema", "1.json", "data.json"], in: dir, status: 4,
            message:
                "The store is at version 0, but the schema is version 1: bring the store to version 1 with `molt migrate` first; nothing was written."
        )
    }

    @Test("usage errors are argument-parser's, exit 2")
    func usage() throws {
        for arguments in [["info"], ["nope"], ["export", "x.sqlite", "--format", "xml"], ["plan", "x.sqlite"]] {
            let result = try Molt.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result)")
            #expect(result.stderr.hasPrefix("Error: "), "\(arguments)")
        }
    }
}
