import Foundation
import Testing

/// Molt's format has one writer, the core, reached through its seam (issue 34): the object API, the importer
/// (`ObjectImporter`) and the bulk copy (`RowCopy`, which the adoptions describe by meaning and the engine renders).
/// Outside the core and its engines (`MoltPostgres`), no module names Molt's tables or columns, writes SQL, or
/// reaches the database behind a store; GRDB is imported only by the readers of other engines' SQLite files.
@Suite("One writer of Molt's format: the core and its engines")
struct OneWriterTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Files that read other engines' SQLite files through GRDB (Core Data stores, GRDB and plain databases), in
    /// their own format: none writes or reads Molt's.
    static let foreignReaders: Set<String> = [
        "Sources/MoltAdoption/Adoption/CoreDataAdoptionRun.swift",
        "Sources/MoltAdoption/Adoption/ExactText.swift",
        "Sources/MoltAdoption/Adoption/PairWalk.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataCopy.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataSQLCopy.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataStoreFile+ModelCache.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataStoreFile.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataValues.swift",
        "Sources/MoltAdoption/SQLiteDatabase/SQLiteDatabaseReader.swift",
        "Sources/MoltAdoption/SQLiteDatabase/SQLiteDatabaseValues.swift",
    ]

    /// What names Molt's format: its layout's names and renderings, its own tables, and statements that write.
    static let formatNames: [(pattern: String, what: String)] = [
        (#"\bStoreLayout\b"#, "Molt's layout"),
        (#"\.(joinTable|ownRowsCondition|physicalTable)\("#, "Molt's tables"),
        (#"\blayout\.(table|column)\("#, "Molt's tables"),
        (#"_molt_"#, "Molt's own tables"),
        (#"\bSQLiteAccess\b|\bsqliteConnection\b"#, "the database behind a store"),
        // A statement a string begins with (a message may show the user a statement for their own database).
        (#"(?i)"\s*(INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b"#, "a write in SQL"),
    ]

    /// The Swift files under `Sources/` outside the core and its engine modules, relative to the package, with
    /// their code; `keepingStrings` keeps string literals (SQL is written in them), comments always removed.
    static func filesOutsideCore(keepingStrings: Bool = false) throws -> [(path: String, code: String)] {
        let sources = root.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.compactMap { file in
            let path = String(file.path.dropFirst(root.path.count + 1))
            guard !path.hasPrefix("Sources/Molt/"), !path.hasPrefix("Sources/MoltPostgres/") else { return nil }
            let code = try keepingStrings ? Self.withoutComments(file) : ArchitectureTests.code(file)
            return (path, code)
        }
    }

    /// A file's text without its comment lines (`//`, `///`), strings kept.
    static func withoutComments(_ url: URL) throws -> String {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.joined(separator: "\n")
    }

    @Test("no module but the core and its engines names Molt's tables, writes SQL or reaches a store's database")
    func oneWriter() throws {
        let files = try Self.filesOutsideCore(keepingStrings: true)
        #expect(files.count > 50, "the scan found \(files.count) files: it reads nothing")
        var found: [String] = []
        for file in files {
            for name in Self.formatNames where file.code.range(of: name.pattern, options: .regularExpression) != nil {
                found.append("\(file.path): \(name.what)")
            }
        }
        #expect(found.isEmpty, "outside the core: \(found); go through Objects, ObjectImporter or RowCopy")
    }

    @Test("the scan finds each kind of name it looks for")
    func scanFinds() {
        let samples = [
            "let t = StoreLayout.idColumn", "objects.layout.joinTable(e, r)", "layout.table(name)",
            "\"SELECT * FROM _molt_history\"", "SQLiteAccess.database(of: db)", "\"insert into \\\"T\\\" VALUES (1)\"",
        ]
        for (sample, name) in zip(samples, Self.formatNames) {
            #expect(sample.range(of: name.pattern, options: .regularExpression) != nil, "\(sample)")
        }
        let write = Self.formatNames[5].pattern
        #expect("\"UPDATE t SET a = 1\"".range(of: write, options: .regularExpression) != nil)
        #expect("\"Make them blobs (UPDATE t SET a = 1)\"".range(of: write, options: .regularExpression) == nil)
    }

    @Test("GRDB is imported outside the core only by the readers of other engines' SQLite files")
    func grdbImports() throws {
        let importing = try Self.filesOutsideCore().filter { file in
            file.code.range(of: #"(?m)^\s*import\s+GRDB\s*$"#, options: .regularExpression) != nil
        }
        let unexpected = Set(importing.map(\.path)).subtracting(Self.foreignReaders)
        #expect(unexpected.isEmpty, "import GRDB outside the core: \(unexpected.sorted()); go through the seam")
        #expect(importing.count >= 1, "the scan found no import at all: the test reads nothing")
    }
}
