import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `readers-during-migration`: one process loops `molt export`, another `molt info --json`, while `molt migrate`
/// rebuilds the store; on a WAL store and on a rollback-journal store.
///
/// Every read must succeed (a reader waits for the migration rather than fail) and see exactly the old or the new
/// version: an export byte for byte equal to the pristine store's or the migrated store's, an `info` equal to one
/// of theirs (without path and history). The migration must succeed, and not be starved: at most
/// ``Expectations/starvationFactor`` times its duration alone plus ``Expectations/starvationSlack``.
struct ReadersDuringMigrationKind: CampaignKind {
    let name = "readers-during-migration"
    let summary =
        "readers loop `molt export` and `molt info` while a migration runs: no half-migrated read, no failed read, no starved migration"

    /// What a read must equal: the pristine store's output or the migrated one's.
    private struct Expected {
        var oldExport: URL
        var newExport: URL
        var oldInfo: JSON
        var newInfo: JSON
    }

    private final class Reader {
        let arguments: (Int) -> [String]
        let output: (Int) -> URL?
        let label: String
        var child: ChildProcess?
        var runs = 0
        var readAfterMigration = false

        init(label: String, arguments: @escaping (Int) -> [String], output: @escaping (Int) -> URL?) {
            self.label = label
            self.arguments = arguments
            self.output = output
        }
    }

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let objects = campaign.profile.readersObjects
        let kind = MigrationKind.rebuild
        campaign.log(
            "readers-during-migration: \(objects) objects, \(campaign.profile.readersRounds) round(s) per journal mode")
        guard
            let references = try campaign.references(
                kind, objects: objects, checkExport: objects <= 200_000, skipping: JournalMode.allCases.map(row),
                in: &result)
        else { return result }
        let folder = try campaign.folder("readers")
        let expected = try self.expected(references[.wal]!, folder: folder, campaign: campaign)
        for mode in JournalMode.allCases {
            for round in 0..<campaign.profile.readersRounds {
                result.merge(
                    try self.round(
                        round, mode: mode, reference: references[mode]!, expected: expected, folder: folder,
                        campaign: campaign))
            }
        }
        return result
    }

    private func row(_ mode: JournalMode) -> String { "readers-during-migration (\(mode.rawValue))" }

    private func expected(_ reference: ReferenceMigration, folder: URL, campaign: Campaign) throws -> Expected {
        let oldExport = try campaign.fixtures.pristineExport(objects: reference.objects, log: campaign.log).file
        let copy = folder.appendingPathComponent("migrated.sqlite")
        try StoreFiles.copy(reference.migrated, to: copy)
        defer { StoreFiles.remove(copy) }
        let newExport = folder.appendingPathComponent("export-new.json")
        let exported = try campaign.molt.run(
            ["export", copy.path], timeout: 120 + Double(reference.objects) * 0.002, stdoutFile: newExport)
        guard exported.exitCode == 0 else {
            throw HarnessError("molt export of the migrated store failed: \(exported.excerpt)")
        }
        let pristineCopy = folder.appendingPathComponent("pristine.sqlite")
        try StoreFiles.copy(try campaign.pristine(objects: reference.objects).wal, to: pristineCopy)
        defer { StoreFiles.remove(pristineCopy) }
        return Expected(
            oldExport: oldExport, newExport: newExport, oldInfo: try info(of: pristineCopy, campaign),
            newInfo: try info(of: copy, campaign))
    }

    private func info(of store: URL, _ campaign: Campaign) throws -> JSON {
        let run = try campaign.molt.run(["info", "--json", store.path])
        guard run.exitCode == 0, let json = try? JSON(parsing: run.stdout) else {
            throw HarnessError("molt info of \(store.path) failed: \(run.excerpt)")
        }
        return Self.comparable(json)
    }

    /// `info --json` without what differs between two stores at the same version: the path and the history.
    private static func comparable(_ info: JSON) -> JSON {
        var copy = info
        copy["path"] = nil
        copy["history"] = nil
        return copy
    }

    private func round(
        _ round: Int, mode: JournalMode, reference: ReferenceMigration, expected: Expected, folder: URL,
        campaign: Campaign
    ) throws -> KindResult {
        var result = KindResult()
        let row = self.row(mode)
        let roundFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("\(mode.rawValue)-\(round)"))
        let outputs = try StoreFiles.freshFolder(roundFolder.appendingPathComponent("exports"))
        let store = roundFolder.appendingPathComponent("store.sqlite")
        try StoreFiles.copy(try campaign.pristine(objects: reference.objects).url(mode), to: store)
        let exportTimeout = 120 + Double(reference.objects) * 0.002
        let readers = [
            Reader(
                label: "export", arguments: { _ in ["export", store.path] },
                output: { outputs.appendingPathComponent("export-\($0).json") }),
            Reader(label: "info", arguments: { _ in ["info", "--json", store.path] }, output: { _ in nil }),
        ]
        func start(_ reader: Reader) throws {
            reader.child = try campaign.molt.spawn(
                reader.arguments(reader.runs), stdoutFile: reader.output(reader.runs))
        }
        for reader in readers { try start(reader) }
        usleep(300_000)
        let migration = try campaign.molt.spawn(try campaign.fixtures.migrateArguments(store, reference.kind))
        let migrationLimit = campaign.migrationTimeout(objects: reference.objects) * Expectations.starvationFactor
        var counts = ["old": 0, "new": 0, "failed": 0, "neither": 0]
        while true {
            let migrationDone = migration.poll()
            if !migrationDone, migration.isPast(migrationLimit) { migration.killForTimeout() }
            for reader in readers {
                guard let child = reader.child else { continue }
                let limit = reader.label == "export" ? exportTimeout : campaign.molt.timeout
                if !child.poll() {
                    guard child.isPast(limit) else { continue }
                    child.killForTimeout()
                }
                let run = child.result()
                let startedAfter = migration.ended.map { child.started > $0 } ?? false
                let timing = startedAfter ? "started after the migration ended" : "started during the migration"
                var verdict = Verdict(row: row, name: "round \(round): \(reader.label) #\(reader.runs) (\(timing))")
                check(
                    run, reader: reader, output: reader.output(reader.runs), expected: expected, verdict: &verdict,
                    counts: &counts)
                result.add(verdict)
                reader.runs += 1
                if startedAfter { reader.readAfterMigration = true }
                reader.child = nil
                if !migrationDone || !reader.readAfterMigration { try start(reader) }
            }
            if migrationDone && readers.allSatisfy({ $0.child == nil }) { break }
            usleep(1_000)
        }

        let run = migration.result()
        var verdict = Verdict(row: row, name: "round \(round): the migration")
        if verdict.checkSurvived(run) {
            verdict.checkExit(run, in: [0], expected: "exit 0 (readers must not make the migration fail)")
            verdict.checkMessage(run)
        }
        let budget = reference.seconds * Expectations.starvationFactor + Expectations.starvationSlack
        if run.exitCode == 0, run.seconds > budget {
            verdict.fail(
                .slow,
                String(
                    format:
                        "the migration took %.2f s with readers, %.2f s alone: held back by the readers (budget %.2f s)",
                    run.seconds, reference.seconds, budget), run: run)
        }
        if run.exitCode == 0 {
            verdict.checkAtOneVersion(store, reference.ends, allowed: [2], molt: campaign.molt)
        }
        result.add(verdict)
        result.notes.append(
            String(
                format:
                    "%@ round %d: migration %.2f s with readers, %.2f s alone; reads: %d old, %d new, %d failed, %d at neither version",
                row, round, run.seconds, reference.seconds, counts["old"]!, counts["new"]!, counts["failed"]!,
                counts["neither"]!))
        if !result.outcomes.contains(where: { !$0.passed }) { try? FileManager.default.removeItem(at: roundFolder) }
        return result
    }

    private func check(
        _ run: ProcessRun, reader: Reader, output: URL?, expected: Expected, verdict: inout Verdict,
        counts: inout [String: Int]
    ) {
        guard verdict.checkSurvived(run), run.exitCode == 0 else {
            counts["failed"]! += 1
            verdict.checkExit(run, in: [0], expected: "exit 0 (a reader waits for the migration rather than fail)")
            verdict.checkMessage(run)
            if let output { try? FileManager.default.removeItem(at: output) }
            return
        }
        if let output {
            defer { try? FileManager.default.removeItem(at: output) }
            if Self.sameBytes(output, expected.oldExport) {
                counts["old"]! += 1
            } else if Self.sameBytes(output, expected.newExport) {
                counts["new"]! += 1
            } else {
                counts["neither"]! += 1
                verdict.fail(
                    .neitherVersion,
                    "the export is neither the pristine store's nor the migrated store's (\(StoreFiles.size(output)) bytes; expected \(StoreFiles.size(expected.oldExport)) or \(StoreFiles.size(expected.newExport)))",
                    run: run)
            }
            return
        }
        let info = (try? JSON(parsing: run.stdout)).map(Self.comparable)
        if info == expected.oldInfo {
            counts["old"]! += 1
        } else if info == expected.newInfo {
            counts["new"]! += 1
        } else {
            counts["neither"]! += 1
            verdict.fail(.neitherVersion, "molt info shows neither the pristine store nor the migrated one", run: run)
        }
    }

    private static func sameBytes(_ a: URL, _ b: URL) -> Bool {
        guard StoreFiles.size(a) == StoreFiles.size(b) else { return false }
        guard let left = try? Data(contentsOf: a, options: .alwaysMapped),
            let right = try? Data(contentsOf: b, options: .alwaysMapped)
        else {
            return false
        }
        return left == right
    }
}
