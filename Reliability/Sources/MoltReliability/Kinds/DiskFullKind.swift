import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `disk-full`: a rebuild migration that runs out of room, on a small tmpfs (needs root, to mount it) and under
/// `ulimit -f` (`sh -c 'ulimit -f N; exec molt migrate …'`).
///
/// The room left ranges from nothing to more than the rebuild needs, so the migration stops at different moments
/// (or succeeds). It must not die by a signal (SIGXFSZ), and it ends either with exit 0 and the store at version 2,
/// or with exit 1, the store exactly at version 1 with the pristine objects, and a message that says the disk is
/// full (``Expectations/diskFullPhrases``) or the file-size limit was reached
/// (``Expectations/fileSizeLimitPhrases``).
struct DiskFullKind: CampaignKind {
    let name = "disk-full"
    let summary =
        "a rebuild on a full tmpfs and under `ulimit -f`: old version intact, no SIGXFSZ, a message that says the disk is full"

    /// How the cases ended, by row: migrated (enough room), stopped (exit 1), died (a signal or the time limit).
    private let tally = LockedBox([String: [String: Int]]())

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let objects = campaign.profile.diskFullObjects
        guard
            let references = try campaign.references(
                .rebuild, objects: objects, checkExport: objects <= 20_000,
                skipping: ["disk-full tmpfs", "disk-full ulimit -f"], in: &result)
        else { return result }
        let folder = try campaign.folder("disk-full")
        var random = campaign.random("disk-full")
        if geteuid() != 0 {
            result.skip("disk-full tmpfs", because: "mounting a tmpfs needs root; this runs as uid \(geteuid())")
        } else {
            result.merge(try tmpfs(references, folder: folder, random: &random, campaign: campaign))
        }
        result.merge(try fileSizeLimit(references, folder: folder, random: &random, campaign: campaign))
        for (row, counts) in tally.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            result.notes.append(
                "\(row): \(counts["migrated", default: 0]) migrated (enough room), \(counts["stopped", default: 0]) stopped with exit 1, \(counts["died", default: 0]) died"
            )
        }
        return result
    }

    // MARK: tmpfs

    private func tmpfs(
        _ references: [JournalMode: ReferenceMigration], folder: URL, random: inout SeededGenerator, campaign: Campaign
    ) throws -> KindResult {
        var result = KindResult()
        let row = "disk-full tmpfs"
        for index in 0..<campaign.profile.tmpfsCases {
            // From no room at all to more than a rebuild needs.
            let (mode, reference, pristine, size, fraction) = try setup(
                index, of: campaign.profile.tmpfsCases, from: 0, to: 2.2, references, random: &random, campaign)
            let room = Int(Double(size) * fraction)
            let bytes = (size + room + 4095) / 4096 * 4096 + 4096
            let mountPoint = try StoreFiles.freshFolder(folder.appendingPathComponent("tmpfs-\(index)"))
            let mount = try campaign.molt.runCommand([
                "/usr/bin/env", "mount", "-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", mountPoint.path,
            ])
            guard mount.exitCode == 0 else {
                result.skip(
                    row,
                    because:
                        "`mount -t tmpfs` failed (\(mount.outcome)): \(mount.stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
                )
                return result
            }
            let store = mountPoint.appendingPathComponent("store.sqlite")
            let after = folder.appendingPathComponent("after-\(index)/store.sqlite")
            var verdict = Verdict(
                row: row,
                name: "case \(index): \(mode.rawValue), \(size) bytes, \(bytes)-byte tmpfs (\(room) bytes of room)")
            do {
                defer { _ = try? campaign.molt.runCommand(["/usr/bin/env", "umount", mountPoint.path]) }
                try StoreFiles.copy(pristine, to: store)
                let run = try campaign.molt.run(
                    try campaign.fixtures.migrateArguments(store, .rebuild),
                    timeout: campaign.migrationTimeout(objects: reference.objects))
                try FileManager.default.createDirectory(
                    at: after.deletingLastPathComponent(), withIntermediateDirectories: true)
                try StoreFiles.copy(store, to: after)
                judge(
                    run, store: after, reference: reference, phrases: Expectations.diskFullPhrases,
                    what: "the disk is full", verdict: &verdict, campaign: campaign)
            }
            if !verdict.failed { try? FileManager.default.removeItem(at: after.deletingLastPathComponent()) }
            try? FileManager.default.removeItem(at: mountPoint)
            result.add(verdict)
        }
        return result
    }

    // MARK: ulimit -f

    private func fileSizeLimit(
        _ references: [JournalMode: ReferenceMigration], folder: URL, random: inout SeededGenerator, campaign: Campaign
    ) throws -> KindResult {
        var result = KindResult()
        let row = "disk-full ulimit -f"
        let block = try ulimitBlockSize(folder, campaign)
        for index in 0..<campaign.profile.ulimitCases {
            let (mode, reference, pristine, size, fraction) = try setup(
                index, of: campaign.profile.ulimitCases, from: 0.2, to: 2.0, references, random: &random, campaign)
            let blocks = max(1, Int(Double(size) * fraction) / block)
            let caseFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("ulimit-\(index)"))
            let store = caseFolder.appendingPathComponent("store.sqlite")
            try StoreFiles.copy(pristine, to: store)
            var verdict = Verdict(
                row: row,
                name: "case \(index): \(mode.rawValue), \(size) bytes, ulimit -f \(blocks) (\(blocks * block) bytes)")
            let command =
                ["/bin/sh", "-c", "ulimit -f \(blocks) && exec \"$0\" \"$@\""]
                + campaign.molt.command(try campaign.fixtures.migrateArguments(store, .rebuild))
            let run = try campaign.molt.runCommand(
                command, timeout: campaign.migrationTimeout(objects: reference.objects))
            judge(
                run, store: store, reference: reference, phrases: Expectations.fileSizeLimitPhrases,
                what: "the file-size limit was reached", verdict: &verdict, campaign: campaign)
            if !verdict.failed { try? FileManager.default.removeItem(at: caseFolder) }
            result.add(verdict)
        }
        return result
    }

    /// The bytes of one `ulimit -f` block in `/bin/sh` (POSIX says 512; some shells use 1024): a shell limited to
    /// one block writes that many bytes of zeros before SIGXFSZ stops it.
    private func ulimitBlockSize(_ folder: URL, _ campaign: Campaign) throws -> Int {
        let probe = folder.appendingPathComponent("ulimit-probe")
        defer { try? FileManager.default.removeItem(at: probe) }
        _ = try campaign.molt.runCommand([
            "/bin/sh", "-c", "ulimit -f 1 && exec head -c 8192 /dev/zero > \"$0\"", probe.path,
        ])
        let size = StoreFiles.size(probe)
        guard size == 512 || size == 1024 else {
            throw HarnessError("could not tell the size of a `ulimit -f` block (a 1-block file took \(size) bytes)")
        }
        return size
    }

    // MARK: Cases

    /// Case `index` of `count`: its journal mode (alternating), reference, pristine store and size, and a fraction
    /// of that size between `low` and `high`, spread over the cases so that each gets another part of the range.
    private func setup(
        _ index: Int, of count: Int, from low: Double, to high: Double, _ references: [JournalMode: ReferenceMigration],
        random: inout SeededGenerator, _ campaign: Campaign
    ) throws -> (JournalMode, ReferenceMigration, URL, Int, Double) {
        let mode: JournalMode = index % 2 == 0 ? .wal : .rollback
        let reference = references[mode]!
        let pristine = try campaign.pristine(objects: reference.objects).url(mode)
        let fraction = low + (Double(index) + Double.random(in: 0..<1, using: &random)) / Double(count) * (high - low)
        return (mode, reference, pristine, StoreFiles.size(pristine), fraction)
    }

    // MARK: Judging

    /// Exit 0 and version 2, or exit 1 with version 1 intact and a message with one of `phrases`; never a signal.
    private func judge(
        _ run: ProcessRun, store: URL, reference: ReferenceMigration, phrases: [String], what: String,
        verdict: inout Verdict,
        campaign: Campaign
    ) {
        let ending = run.timedOut || run.termination.isCrash ? "died" : (run.exitCode == 0 ? "migrated" : "stopped")
        tally.withLock { $0[verdict.outcome.row, default: [:]][ending, default: 0] += 1 }
        guard verdict.checkSurvived(run) else {
            verdict.checkAtOneVersion(store, reference.ends, molt: campaign.molt)
            return
        }
        if run.exitCode == 0 {
            verdict.checkAtOneVersion(store, reference.ends, allowed: [2], molt: campaign.molt)
            return
        }
        verdict.checkExit(run, in: [1], expected: "exit 1 (the work failed: \(what))")
        verdict.checkMessage(run)
        let message = run.stderr.lowercased()
        if !phrases.contains(where: { message.contains($0) }) {
            verdict.fail(
                .wrongMessage,
                "the message must say that \(what) (one of: \(phrases.map { "\"\($0)\"" }.joined(separator: ", ")))",
                run: run)
        }
        verdict.checkAtOneVersion(store, reference.ends, allowed: [1], molt: campaign.molt)
    }
}
