import Foundation

/// `damaged-input`: damaged and hostile input files (schema snapshots, mapping files with injected SQL, data files)
/// given to the commands that read them, next to a valid store at version 1.
///
/// Bad input must be refused with exit 3 and one line naming the problem, the store byte for byte unchanged and no
/// file created (see ``SnapshotInputs``, ``MappingInputs``, ``ImportInputs``). A snapshot of
/// ``Expectations/largeSnapshotEntities`` entities must go through `diff`, `plan` and `check` within
/// ``Expectations/largeSnapshotBudget`` each.
struct DamagedInputKind: CampaignKind {
    let name = "damaged-input"
    let summary =
        "damaged snapshots, mappings with injected SQL, damaged data files: refused with exit 3, nothing changed; a 10k-entity snapshot in < 1 s"

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let folder = try campaign.folder("damaged-input")
        let pristine = try campaign.pristine(objects: campaign.profile.damagedObjects)
        let store = folder.appendingPathComponent("store.sqlite")
        try StoreFiles.copy(pristine.wal, to: store)
        var random = campaign.random("damaged-input")
        let count = campaign.profile.randomInputs
        let cases =
            SnapshotInputs.cases(SnapshotInputs.fixed() + SnapshotInputs.random(count: count, random: &random))
            + (try MappingInputs.cases(fixtures: campaign.fixtures, randomCount: count, random: &random))
            + ImportInputs.cases(
                try ImportInputs.fixed(pristine.data)
                    + ImportInputs.random(pristine.data, count: count, random: &random),
                schema: campaign.fixtures.version1)
        let items = cases.flatMap { inputCase in inputCase.runs.map { (inputCase, $0) } }
        campaign.log("damaged-input: \(cases.count) input files, \(items.count) runs")
        let runs = try StoreFiles.freshFolder(folder.appendingPathComponent("runs"))
        for outcome in campaign.parallelMap(
            items, { inputCase, run in inputCase.check(run, store: store, runsFolder: runs, campaign: campaign) })
        {
            result.add(outcome)
        }
        result.merge(try largeSnapshot(store: store, runs: runs, campaign: campaign))
        return result
    }

    /// `diff`, `plan` and `check` of a snapshot that adds ``Expectations/largeSnapshotEntities`` entities, one at
    /// a time (they are timed), each within the budget; killed at ten times the budget (at least 10 s).
    private func largeSnapshot(store: URL, runs: URL, campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let count = Expectations.largeSnapshotEntities
        let budget = Expectations.largeSnapshotBudget
        let entities = (0..<count).map { index in
            ClinicSchema.entity(
                "Extra\(index)",
                attributes: [
                    ClinicSchema.attribute("label", "string", optional: true),
                    ClinicSchema.attribute("rank", "int", default: 0),
                ])
        }
        var snapshot = MigrationKind.addAttribute.target
        snapshot["entities"] = .array((snapshot["entities"]?.arrayValue ?? []) + entities)
        let data = snapshot.data()
        let version1 = ClinicSchema.version1.data()
        let sqliteSeconds = try Self.timeCreatingTables(count, in: runs)
        result.notes.append(
            String(
                format:
                    "damaged-input large-snapshot: SQLite creates %d such tables in one transaction in %.2f s (the C API)",
                count, sqliteSeconds))
        let commands: [(String, @Sendable (URL) -> [String])] = [
            (
                "diff",
                { ["diff", $0.appendingPathComponent("1.json").path, $0.appendingPathComponent("big.json").path] }
            ),
            (
                "plan",
                {
                    [
                        "plan", $0.appendingPathComponent("store.sqlite").path, "--to",
                        $0.appendingPathComponent("big.json").path,
                    ]
                }
            ),
            ("check", { ["check", $0.appendingPathComponent("snapshots").path] }),
        ]
        for (command, arguments) in commands {
            var budget = command == "plan" ? budget + Expectations.largeSnapshotPlanFactor * sqliteSeconds : budget
            let limit = max(10, budget * 10)
            var verdict = Verdict(row: "damaged-input large-snapshot", name: "\(count) entities: \(command)")
            let folder = try StoreFiles.freshFolder(runs.appendingPathComponent("large-snapshot-\(command)"))
            try StoreFiles.copy(store, to: folder.appendingPathComponent("store.sqlite"))
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent("snapshots"), withIntermediateDirectories: true)
            for (name, bytes) in [
                "1.json": version1, "big.json": data, "snapshots/1.json": version1, "snapshots/2.json": data,
            ] {
                try bytes.write(to: folder.appendingPathComponent(name))
            }
            let before = FileState(of: folder)
            let run = try campaign.molt.run(arguments(folder), timeout: limit)
            if run.timedOut {
                verdict.fail(
                    .slow, String(format: "still running after %.0f s (the budget is %.1f s); killed", limit, budget),
                    run: run)
            } else {
                if verdict.checkSurvived(run) {
                    verdict.checkExit(run, in: [0], expected: "exit 0: a valid snapshot with \(count) more entities")
                }
                if command == "plan", run.seconds > budget {
                    // One sample of SQLite's floor varies as much as the run it bounds on a shared machine (5 to 7 s
                    // in two runs of the same code): it is measured again right after, and the slower one counts.
                    let again = try Self.timeCreatingTables(count, in: runs)
                    result.notes.append(
                        String(
                            format: "damaged-input large-snapshot: SQLite's floor measured again after plan: %.2f s",
                            again))
                    budget = max(
                        budget, Expectations.largeSnapshotBudget + Expectations.largeSnapshotPlanFactor * again)
                }
                if run.seconds > budget {
                    verdict.fail(
                        .slow, String(format: "it took %.2f s; the budget is %.1f s", run.seconds, budget), run: run)
                }
            }
            verdict.checkUnchanged(
                before: before, after: FileState(of: folder), because: "\(command) only reads", run: run)
            result.notes.append(
                String(
                    format: "damaged-input large-snapshot: %@ of %d entities took %.2f s%@", command, count,
                    run.seconds, run.timedOut ? " (killed)" : ""))
            if !verdict.failed { try? FileManager.default.removeItem(at: folder) }
            result.add(verdict)
        }
        return result
    }

    /// How long SQLite itself takes to create `count` tables like the extra entities' in one transaction: the floor
    /// under any migration that adds them (`molt plan` runs the migration).
    private static func timeCreatingTables(_ count: Int, in folder: URL) throws -> Double {
        let url = folder.appendingPathComponent("tables-baseline.sqlite")
        try? FileManager.default.removeItem(at: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let db = try SQLiteConnection(url, creating: true)
        defer { db.close() }
        let statements = (0..<count).map {
            "CREATE TABLE \"Extra\($0)\" (\"_id\" INTEGER PRIMARY KEY, \"label\" TEXT, \"rank\" INTEGER NOT NULL DEFAULT 0);"
        }
        let start = Date()
        try db.execute("PRAGMA foreign_keys = ON; BEGIN IMMEDIATE; " + statements.joined(separator: " ") + " COMMIT;")
        return Date().timeIntervalSince(start)
    }
}
