import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `sigkill`: `molt migrate` killed with SIGKILL at a random moment, uniform over the duration of an uninterrupted
/// run, for each migration kind, alternating WAL and rollback-journal stores.
///
/// After each kill the store must be at exactly the old version with the pristine objects, or exactly the new
/// version with the expected ones (``Verdict/checkAtOneVersion(_:_:allowed:molt:)``), and a rollback-journal store
/// must still be one.
struct SigkillKind: CampaignKind {
    let name = "sigkill"
    let summary =
        "SIGKILL at a random moment of `molt migrate` (add attribute, rebuild, mapping, split; WAL and rollback journal)"

    /// Failing trials whose files are kept for a reproducer, per migration kind.
    static let keptFailures = 5

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        for kind in MigrationKind.all {
            result.merge(try trials(of: kind, campaign))
        }
        return result
    }

    private func trials(of kind: MigrationKind, _ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let row = "sigkill \(kind.name)"
        let objects = kind.name == "split" ? campaign.profile.splitObjects : campaign.profile.objects
        campaign.log("sigkill \(kind.name): \(campaign.profile.trials) trials on \(objects) objects")
        guard let references = try campaign.references(kind, objects: objects, skipping: [row], in: &result),
            let wal = references[.wal], let rollback = references[.rollback]
        else { return result }
        if wal.ends.newDigest != rollback.ends.newDigest {
            result.notes.append(
                "\(row): WAL and rollback-journal migrations leave different tables (digests \(hex(wal.ends.newDigest)) and \(hex(rollback.ends.newDigest))); each trial is compared with its own mode's"
            )
        }
        var random = campaign.random("sigkill-\(kind.name)")
        let folder = try campaign.folder("sigkill/\(kind.name)")
        var atOld = 0, atNew = 0, finishedFirst = 0, kept = 0
        for trial in 0..<campaign.profile.trials {
            let mode: JournalMode = trial % 2 == 0 ? .wal : .rollback
            let reference = references[mode]!
            let delay = Double.random(in: 0..<reference.seconds, using: &random)
            let trialFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("trial-\(trial)"))
            let store = trialFolder.appendingPathComponent("store.sqlite")
            try StoreFiles.copy(campaign.fixtures.pristine(objects: objects, log: campaign.log).url(mode), to: store)
            var verdict = Verdict(
                row: row,
                name: String(
                    format: "trial %d (%@, kill at %.1f ms of %.1f ms)", trial, mode.rawValue, delay * 1000,
                    reference.seconds * 1000))

            let arguments = try campaign.fixtures.migrateArguments(store, kind)
            let child = try campaign.molt.spawn(arguments)
            let deadline = child.started + .nanoseconds(Int64(delay * 1e9))
            while ContinuousClock.now < deadline, !child.poll() { usleep(100) }
            let killed = !child.poll()
            if killed { child.killNow() }
            let run = child.result()
            if !killed {
                finishedFirst += 1
                if verdict.checkSurvived(run) {
                    verdict.checkExit(run, in: [0], expected: "exit 0 (it finished before the kill)")
                }
            }
            // Keep the files as the kill left them, for a reproducer.
            let asKilled = trialFolder.appendingPathComponent("as-killed")
            try FileManager.default.createDirectory(at: asKilled, withIntermediateDirectories: true)
            try StoreFiles.copy(store, to: asKilled.appendingPathComponent("store.sqlite"))

            let version = verdict.checkAtOneVersion(store, reference.ends, molt: campaign.molt)
            if version == 1 { atOld += 1 }
            if version == 2 { atNew += 1 }
            if mode == .rollback, let found = JournalMode(ofFileAt: store), found != .rollback {
                verdict.fail(
                    .changed, "the store was in rollback-journal mode and must stay so; it is now \(found.rawValue)",
                    run: run)
            }
            if verdict.failed {
                kept += 1
                let files = kept <= Self.keptFailures ? "files as killed: \(asKilled.path)" : "files not kept"
                verdict.outcome.failures = verdict.outcome.failures.map { failure in
                    var failure = failure
                    failure.detail +=
                        " [migration: \(Shell.quote(campaign.molt.command(arguments))), \(killed ? "killed" : run.outcome); \(files)]"
                    return failure
                }
            }
            if !verdict.failed || kept > Self.keptFailures {
                try? FileManager.default.removeItem(at: trialFolder)
            }
            result.add(verdict)
        }
        result.notes.append(
            String(
                format:
                    "%@: uninterrupted run %.0f ms (WAL), %.0f ms (rollback); after the kill %d at version 1, %d at version 2; %d finished before the kill",
                row, references[.wal]!.seconds * 1000, references[.rollback]!.seconds * 1000, atOld, atNew,
                finishedFirst))
        return result
    }
}
