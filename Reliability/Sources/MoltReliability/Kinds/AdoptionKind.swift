import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `adoption`: `molt adopt` of a real Core Data store (`../shared/foreign-stores/wibosco-progressive`, 7,995 posts
/// and 7,995 colors, model version 3, walked to 4) killed with SIGKILL at random moments, refused on damaged
/// stores, and run under `ulimit -f`.
///
/// After a kill the store's path holds the original, byte for byte, or a Molt store at version 4 (or the swap's
/// work folder marked done, which the next run finishes); a second `molt adopt` then ends at version 4 with every
/// object. A damaged store or a wrong model is refused with a message and no file changed; a file-size limit
/// ends in a message, with the original unchanged.
struct AdoptionKind: CampaignKind {
    let name = "adoption"
    let summary = "`molt adopt` of a real Core Data store: SIGKILL, damaged stores, a wrong model, `ulimit -f`"

    static var fixtures: URL {
        Molt.repository.deletingLastPathComponent().appendingPathComponent("shared/foreign-stores/wibosco-progressive")
    }
    static var model: String { fixtures.appendingPathComponent("model/CoreDataMigration_Example.xcdatamodeld").path }

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let store = Self.fixtures.appendingPathComponent("CoreDataMigration_Example_3.sqlite")
        guard FileManager.default.fileExists(atPath: store.path) else {
            for row in ["adoption sigkill", "adoption damaged", "adoption ulimit -f"] {
                result.skip(row, because: "\(Self.fixtures.path) is absent (the real Core Data store adopted)")
            }
            return result
        }
        let folder = try campaign.folder("adoption")
        let snapshots = folder.appendingPathComponent("snapshots")
        try? FileManager.default.removeItem(at: snapshots)
        let converted = try campaign.molt.run([
            "convert-model", Self.model, "--out", snapshots.path, "--approximate", "all",
        ])
        guard converted.exitCode == 0 else { throw HarnessError("molt convert-model failed: \(converted.stderr)") }
        let reference = try referenceSeconds(store, snapshots, folder, campaign)
        result.merge(try kills(store, snapshots, folder, reference, campaign))
        result.merge(try damaged(store, snapshots, folder, campaign))
        result.merge(try fileSizeLimit(store, snapshots, folder, campaign))
        return result
    }

    private func arguments(_ store: URL, _ snapshots: URL, model: String = AdoptionKind.model) -> [String] {
        ["adopt", store.path, "--model", model, "--to", snapshots.path]
    }

    /// A writable copy of the original in a fresh folder.
    private func fresh(_ original: URL, in folder: URL) throws -> URL {
        let caseFolder = try StoreFiles.freshFolder(folder)
        let store = caseFolder.appendingPathComponent("Posts.sqlite")
        try FileManager.default.copyItem(at: original, to: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store.path)
        return store
    }

    private func referenceSeconds(
        _ original: URL, _ snapshots: URL, _ folder: URL, _ campaign: Campaign
    ) throws -> Double {
        let store = try fresh(original, in: folder.appendingPathComponent("reference"))
        let run = try campaign.molt.run(arguments(store, snapshots))
        guard run.exitCode == 0 else { throw HarnessError("the reference adoption failed: \(run.stderr)") }
        return run.seconds
    }

    /// The store ends at version 4 with every object, as `molt info --json --count` says.
    private func checkComplete(_ store: URL, _ campaign: Campaign, _ verdict: inout Verdict) throws {
        let info = try campaign.molt.run(["info", store.path, "--json", "--count"])
        let json = try? JSON(parsing: info.stdout)
        let counts = (json?["entities"]?.arrayValue ?? []).map { $0["count"]?.intValue }
        if json?["version"]?.intValue != 4 || counts != [7995, 7995] {
            verdict.fail(
                .lostData, "after the adoption finished, the store is not at version 4 with 7,995 posts and colors",
                run: info)
        }
    }

    private func kills(
        _ original: URL, _ snapshots: URL, _ folder: URL, _ reference: Double, _ campaign: Campaign
    ) throws -> KindResult {
        var result = KindResult()
        var random = campaign.random("adoption-sigkill")
        var found: [String: Int] = [:]
        for trial in 0..<campaign.profile.trials {
            let delay = Double.random(in: 0..<reference, using: &random)
            let store = try fresh(original, in: folder.appendingPathComponent("sigkill-\(trial)"))
            let pristine = FileState(of: store.deletingLastPathComponent())
            var verdict = Verdict(
                row: "adoption sigkill",
                name: String(format: "trial %d (kill at %.0f ms of %.0f ms)", trial, delay * 1000, reference * 1000))
            let child = try campaign.molt.spawn(arguments(store, snapshots))
            let deadline = child.started + .nanoseconds(Int64(delay * 1e9))
            while ContinuousClock.now < deadline, !child.poll() { usleep(100) }
            if !child.poll() { child.killNow() }
            let run = child.result()
            if run.exitCode != nil { verdict.checkSurvived(run) }
            let now = FileState(of: store.deletingLastPathComponent())
            let work = store.deletingLastPathComponent().appendingPathComponent(".Posts.sqlite.molt-adoption")
            if now.entries["Posts.sqlite"] == pristine.entries["Posts.sqlite"] {
                found["original", default: 0] += 1
            } else if FileManager.default.fileExists(atPath: work.appendingPathComponent("READY").path) {
                found["swapping", default: 0] += 1
            } else if try campaign.molt.run(["info", store.path]).exitCode == 0 {
                found["adopted", default: 0] += 1
            } else {
                verdict.fail(
                    .neitherVersion,
                    "after the kill the path holds neither the original, nor a Molt store, nor a swap marked done",
                    run: run)
            }
            let again = try campaign.molt.run(arguments(store, snapshots))
            if verdict.checkSurvived(again) {
                verdict.checkExit(again, in: [0], expected: "exit 0: the adoption finishes")
            }
            try checkComplete(store, campaign, &verdict)
            if !verdict.failed { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            result.add(verdict)
        }
        result.notes.append(
            String(
                format: "adoption sigkill: uninterrupted run %.0f ms; after the kill: %@", reference * 1000,
                found.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")))
        return result
    }

    /// Damaged stores and a wrong model: refused with a message, no file changed.
    private func damaged(_ original: URL, _ snapshots: URL, _ folder: URL, _ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let damages: [(String, (URL) throws -> Void, String?)] = [
            (
                "truncated to half",
                { url in
                    let data = try Data(contentsOf: url)
                    try data.prefix(data.count / 2).write(to: url)
                }, nil
            ),
            (
                "zeros over page 2",
                { url in
                    var data = try Data(contentsOf: url)
                    data.replaceSubrange(4096..<8192, with: Data(count: 4096))
                    try data.write(to: url)
                }, nil
            ),
            ("not a database", { url in try Data(repeating: 0x41, count: 8192).write(to: url) }, nil),
            (
                "empty Z_METADATA",
                { url in
                    let run = Process()
                    run.executableURL = URL(fileURLWithPath: "/bin/sh")
                    run.arguments = ["-c", "sqlite3 \"$0\" 'DELETE FROM Z_METADATA'", url.path]
                    try run.run()
                    run.waitUntilExit()
                }, nil
            ),
            ("the model's first version only", { _ in }, Self.model + "/CoreDataMigration_Example.xcdatamodel"),
        ]
        for (index, (label, damage, model)) in damages.enumerated() {
            let store = try fresh(original, in: folder.appendingPathComponent("damaged-\(index)"))
            try damage(store)
            let before = FileState(of: store.deletingLastPathComponent())
            let run = try campaign.molt.run(arguments(store, snapshots, model: model ?? Self.model))
            let after = FileState(of: store.deletingLastPathComponent())
            var verdict = Verdict(row: "adoption damaged", name: label)
            if verdict.checkSurvived(run) {
                verdict.checkExit(run, in: [1, 3], expected: "exit 3 (bad input) or 1, naming the problem")
                verdict.checkMessage(run)
            }
            verdict.checkUnchanged(
                before: before, after: after, because: "a refused adoption must write nothing", run: run)
            if !verdict.failed { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            result.add(verdict)
        }
        return result
    }

    /// `ulimit -f` smaller than the adopted store: a message, no crash, the original unchanged.
    private func fileSizeLimit(
        _ original: URL, _ snapshots: URL, _ folder: URL, _ campaign: Campaign
    ) throws -> KindResult {
        var result = KindResult()
        for (index, blocks) in [64, 1024].enumerated() {
            let store = try fresh(original, in: folder.appendingPathComponent("ulimit-\(index)"))
            let pristine = FileState(of: store.deletingLastPathComponent())
            let command =
                ["/bin/sh", "-c", "ulimit -f \(blocks) && exec \"$0\" \"$@\""]
                + campaign.molt.command(arguments(store, snapshots))
            let run = try campaign.molt.runCommand(command)
            var verdict = Verdict(row: "adoption ulimit -f", name: "ulimit -f \(blocks)")
            if verdict.checkSurvived(run) {
                verdict.checkExit(run, in: [1], expected: "exit 1: the disk (file size limit) is full")
                verdict.checkMessage(run)
            }
            let after = FileState(of: store.deletingLastPathComponent())
            verdict.checkUnchanged(
                before: pristine, after: after,
                because: "an adoption that could not finish must leave the original as it was", run: run)
            if !verdict.failed { try? FileManager.default.removeItem(at: store.deletingLastPathComponent()) }
            result.add(verdict)
        }
        return result
    }
}
