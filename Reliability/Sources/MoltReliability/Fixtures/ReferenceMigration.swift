import Foundation

/// An uninterrupted migration of a pristine store: how long it takes, and the digest of the state it leaves,
/// which interrupted and concurrent runs are compared with.
///
/// It is a case of its own (row `reference`): molt must migrate the store with exit 0, keep its journal mode,
/// leave it sound at version 2, and — checked through `molt export` — hold exactly the objects that the
/// migration kind computes from the data, independently of molt.
struct ReferenceMigration: Sendable {
    static let row = "reference"

    var kind: MigrationKind
    var mode: JournalMode
    var objects: Int
    /// Wall time of the whole `molt migrate` process, from start to exit.
    var seconds: Double
    var ends: MigrationEnds
    /// The migrated store (a copy owned by the reference; copy it before changing it).
    var migrated: URL
    /// Whether the migration succeeded and left a sound store at version 2.
    var usable: Bool
    var outcome: CaseOutcome
}

extension Campaign {
    /// Seconds a migration of `objects` objects may take before it counts as a hang.
    func migrationTimeout(objects: Int) -> Double {
        max(molt.timeout, 60 + Double(objects) * 0.002)
    }

    /// The reference migration of `kind` on the pristine store of `objects` objects in `mode`, made on first use.
    ///
    /// - Parameter checkExport: Also compare `molt export` of the result with the expected objects (slow on large
    ///   stores: about 0.2 ms per object).
    /// - Returns: The reference, and whether this call made it (then its outcome is the caller's to report).
    func reference(
        _ kind: MigrationKind, objects: Int, mode: JournalMode, checkExport: Bool = true
    ) throws -> (ReferenceMigration, fresh: Bool) {
        let key = "\(kind.name)-\(objects)-\(mode.rawValue)"
        if let cached = references.withLock({ $0[key] }) { return (cached, false) }
        let pristine = try self.pristine(objects: objects)
        let folder = try self.folder("reference/\(key)")
        let store = folder.appendingPathComponent("store.sqlite")
        try StoreFiles.copy(pristine.url(mode), to: store)
        var verdict = Verdict(row: ReferenceMigration.row, name: "\(kind.name), \(objects) objects, \(mode.rawValue)")
        let run = try molt.run(try fixtures.migrateArguments(store, kind), timeout: migrationTimeout(objects: objects))
        var ends = MigrationEnds(oldDigest: pristine.digest, newDigest: 0)
        var usable = false
        if verdict.checkSurvived(run) {
            verdict.checkExit(run, in: [0], expected: "exit 0 (an uninterrupted migration)")
            verdict.checkMessage(run)
        }
        if run.exitCode == 0 {
            if JournalMode(ofFileAt: store) != mode {
                verdict.fail(
                    .changed,
                    "the store was in \(mode.rawValue) mode and must stay so; it is now \(JournalMode(ofFileAt: store)?.rawValue ?? "unknown")",
                    run: run)
            }
            do {
                let probe = try StoreProbe(store)
                if probe.problems.isEmpty, probe.version == 2, probe.historyCount == 1 {
                    ends.newDigest = probe.digest
                    usable = true
                } else {
                    verdict.fail(
                        .neitherVersion,
                        "after exit 0 the store must be sound at version 2 with one history row; found version \(probe.version.map(String.init) ?? "none"), \(probe.historyCount) row(s). \(probe.problems.joined(separator: " "))",
                        run: run)
                }
            } catch {
                verdict.fail(.neitherVersion, "after exit 0 SQLite cannot read the store: \(error)", run: run)
            }
            if usable && checkExport {
                try checkExportedObjects(store, kind: kind, data: pristine.data, verdict: &verdict)
            }
        }
        let reference = ReferenceMigration(
            kind: kind, mode: mode, objects: objects, seconds: run.seconds, ends: ends, migrated: store, usable: usable,
            outcome: verdict.outcome)
        references.withLock { $0[key] = reference }
        return (reference, true)
    }

    /// The reference migrations of `kind` in both journal modes, or nil when one of them fails; the reference cases
    /// this call made are added to `result` (row `reference`), and when one fails `rows` are skipped.
    func references(
        _ kind: MigrationKind, objects: Int, checkExport: Bool = true, skipping rows: [String],
        in result: inout KindResult
    ) throws -> [JournalMode: ReferenceMigration]? {
        var references: [JournalMode: ReferenceMigration] = [:]
        for mode in JournalMode.allCases {
            let (reference, fresh) = try reference(kind, objects: objects, mode: mode, checkExport: checkExport)
            if fresh { result.add(reference.outcome) }
            references[mode] = reference
        }
        guard references.values.allSatisfy(\.usable) else {
            for row in rows {
                result.skip(
                    row,
                    because:
                        "the uninterrupted \(kind.name) migration fails (see row `reference`), so there is no new version to compare with"
                )
            }
            return nil
        }
        return references
    }

    /// Compares `molt export` of a migrated store with the objects `kind` computes from `data`.
    private func checkExportedObjects(
        _ store: URL, kind: MigrationKind, data: ClinicData, verdict: inout Verdict
    ) throws {
        let copy = store.deletingLastPathComponent().appendingPathComponent("export-source.sqlite")
        try StoreFiles.copy(store, to: copy)
        defer { StoreFiles.remove(copy) }
        let file = store.deletingLastPathComponent().appendingPathComponent("export.json")
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try molt.run(["export", copy.path], timeout: 120 + Double(data.count) * 0.002, stdoutFile: file)
        guard verdict.checkSurvived(run), run.exitCode == 0 else {
            verdict.fail(.wrongExit, "molt export of the migrated store must succeed", run: run)
            return
        }
        do {
            let exported = try ObjectTable(export: JSON(parsing: Data(contentsOf: file, options: .alwaysMapped)))
            let (lines, total) = kind.canonical(exported).differences(from: kind.expected(data))
            if total > 0 {
                verdict.fail(
                    .lostData,
                    "the migrated objects differ from what \(kind.name) must produce in \(total) place(s): \(lines.joined(separator: "; "))",
                    run: run)
            }
        } catch {
            verdict.fail(.lostData, "the export of the migrated store cannot be read: \(error)", run: run)
        }
    }
}
