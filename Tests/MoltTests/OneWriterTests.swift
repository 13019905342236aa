import Foundation
import Testing

/// Molt's tables should have one writer, the core, reached through its seam (issue 34). Until the adoption's SQL
/// copy is rebuilt on that seam, the files outside `Sources/Molt` that import GRDB, and the one place that reaches
/// the GRDB database behind a store (`SQLiteAccess.database(of:)`), are pinned here: a new one fails this test, so
/// the number of writers of the storage format cannot grow while the redesign is pending.
@Suite("GRDB outside the core: pinned until the one-writer redesign")
struct GRDBOutsideCoreTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Files that read other engines' SQLite files through GRDB (Core Data stores, GRDB and plain databases), and
    /// the adoption's SQL copy and proof, which write and check Molt's tables: the ones issue 34 moves into core.
    static let pinned: Set<String> = [
        "Sources/MoltAdoption/Adoption/CoreDataAdoptionRun.swift",
        "Sources/MoltAdoption/Adoption/ExactText.swift",
        "Sources/MoltAdoption/Adoption/PairWalk.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataCopy.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataSQLCopy.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataSQLDigest.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataSQLProof.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataSQLValue.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataStoreFile+ModelCache.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataStoreFile.swift",
        "Sources/MoltAdoption/CoreDataStore/CoreDataValues.swift",
        "Sources/MoltAdoption/SQLiteDatabase/SQLiteDatabaseReader.swift",
        "Sources/MoltAdoption/SQLiteDatabase/SQLiteDatabaseValues.swift",
    ]

    /// The Swift files under `Sources/` outside the core, relative to the package, with their code (comments and
    /// strings removed).
    static func filesOutsideCore() throws -> [(path: String, code: String)] {
        let sources = root.appendingPathComponent("Sources")
        let files =
            FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.compactMap { file in
            let path = String(file.path.dropFirst(root.path.count + 1))
            guard !path.hasPrefix("Sources/Molt/") else { return nil }
            return (path, try ArchitectureTests.code(file))
        }
    }

    @Test("no file outside the core imports GRDB but the pinned ones")
    func grdbImports() throws {
        let importing = try Self.filesOutsideCore().filter { file in
            file.code.range(of: #"(?m)^\s*import\s+GRDB\s*$"#, options: .regularExpression) != nil
        }
        let unexpected = Set(importing.map(\.path)).subtracting(Self.pinned)
        #expect(unexpected.isEmpty, "import GRDB outside the core: \(unexpected.sorted()); go through the seam")
        #expect(importing.count >= 1, "the scan found no import at all: the test reads nothing")
    }

    @Test("only the adoption's SQL copy reaches the GRDB database behind a store")
    func sqliteAccess() throws {
        let reaching = try Self.filesOutsideCore().filter { $0.code.contains("SQLiteAccess") }.map(\.path)
        #expect(reaching == ["Sources/MoltAdoption/CoreDataStore/CoreDataSQLCopy.swift"])
    }
}
