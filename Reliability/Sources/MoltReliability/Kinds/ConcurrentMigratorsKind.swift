import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `concurrent-migrators`: eight `molt migrate` processes on one store at once.
///
/// Exactly one may migrate and say `Migrated … from version 1 to 2`; every other one must exit 0 and say
/// ``Expectations/migratedByAnotherProcessTemplate``. The store ends sound at version 2 with one history row and
/// the reference migration's tables.
///
/// Rounds alternate between two starts. *Gated*: the harness holds the store's write lock
/// (`BEGIN IMMEDIATE`) while the processes start, so that every one of them reads version 1 and then waits for
/// the lock, the situation in which all eight used to claim the migration; then it lets go, and every process but
/// the one that migrates must say the waiter's text. *Ungated*: all start at once; one that looked after the
/// commit finds the store migrated without waiting, so the others may also just say
/// ``Expectations/alreadyAtVersion(_:)``.
struct ConcurrentMigratorsKind: CampaignKind {
    let name = "concurrent-migrators"
    let summary =
        "8 processes run `molt migrate` on one store at once: one migrates, the others say another process did"
    static let row = "concurrent-migrators"
    /// How long the gate holds the lock while the processes start.
    static let gateSeconds = 2.0

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let objects = campaign.profile.objects
        let kind = MigrationKind.rebuild
        campaign.log(
            "concurrent-migrators: \(campaign.profile.rounds) rounds of \(campaign.profile.processes) processes, \(objects) objects"
        )
        guard let references = try campaign.references(kind, objects: objects, skipping: [Self.row], in: &result) else {
            return result
        }
        let folder = try campaign.folder("concurrent-migrators")
        var summaries: [String] = []
        for round in 0..<campaign.profile.rounds {
            let mode: JournalMode = round / 2 % 2 == 0 ? .wal : .rollback
            let gated = round % 2 == 0
            let (verdict, summary) = try self.round(
                round, mode: mode, gated: gated, reference: references[mode]!, folder: folder, campaign: campaign)
            summaries.append("round \(round) (\(mode.rawValue), \(gated ? "gated" : "ungated")): \(summary)")
            result.add(verdict)
        }
        result.notes.append("concurrent-migrators: " + summaries.joined(separator: "; "))
        return result
    }

    private func round(
        _ round: Int, mode: JournalMode, gated: Bool, reference: ReferenceMigration, folder: URL, campaign: Campaign
    ) throws -> (Verdict, String) {
        let roundFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("round-\(round)"))
        let store = roundFolder.appendingPathComponent("store.sqlite")
        try StoreFiles.copy(try campaign.pristine(objects: reference.objects).url(mode), to: store)
        var verdict = Verdict(
            row: Self.row,
            name:
                "round \(round): \(campaign.profile.processes) processes, \(mode.rawValue), \(gated ? "gated" : "ungated")"
        )
        let arguments = try campaign.fixtures.migrateArguments(store, reference.kind)

        var gate: SQLiteConnection?
        if gated {
            gate = try SQLiteConnection(store)
            try gate!.execute("BEGIN IMMEDIATE")
        }
        let children = try (0..<campaign.profile.processes).map { _ in try campaign.molt.spawn(arguments) }
        if let gate {
            usleep(UInt32(Self.gateSeconds * 1_000_000))
            try gate.execute("ROLLBACK")
            gate.close()
        }
        let timeout = campaign.migrationTimeout(objects: reference.objects)
        while !children.allSatisfy({ $0.poll() }) {
            for child in children where child.isPast(timeout + Self.gateSeconds) { child.killForTimeout() }
            usleep(1_000)
        }
        let runs = children.map { $0.result() }

        let migratedText = Expectations.migrated(from: 1, to: 2)
        let waitedText = Expectations.migratedByAnotherProcess(version: 2)
        let alreadyText = Expectations.alreadyAtVersion(2)
        var claims: [ProcessRun] = []
        var silent: [ProcessRun] = []
        var waited = 0, found = 0
        for run in runs {
            guard verdict.checkSurvived(run) else { continue }
            verdict.checkExit(run, in: [0], expected: "exit 0 (the store ends migrated, by this process or another)")
            let output = run.stdoutText
            if output.contains("Migrated"), output.contains(migratedText) {
                claims.append(run)
            } else if output.contains(waitedText) {
                waited += 1
            } else if output.contains(alreadyText), !gated {
                found += 1
            } else {
                silent.append(run)
            }
        }
        if claims.count != 1 {
            verdict.fail(
                .wrongMessage,
                "exactly one process may say it migrated (\"Migrated … \(migratedText)\"); \(claims.count) of \(runs.count) did, and \(waited) said \"\(waitedText)\"",
                run: claims.dropFirst().first ?? claims.first ?? runs.first)
        }
        if let example = silent.first(where: { $0.exitCode == 0 }) {
            verdict.fail(
                .wrongMessage,
                "\(silent.count) process(es) neither migrated nor said \"\(waitedText)\"",
                run: example)
        }
        verdict.checkAtOneVersion(store, reference.ends, allowed: [2], molt: campaign.molt)
        if !verdict.failed { try? FileManager.default.removeItem(at: roundFolder) }
        let summary =
            "\(claims.count) said Migrated, \(waited) said migrated by another process, \(found) found it migrated, \(silent.count) other"
        return (verdict, summary)
    }
}
