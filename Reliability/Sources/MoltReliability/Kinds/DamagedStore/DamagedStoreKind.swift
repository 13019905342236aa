import Foundation

/// `damaged-store`: `info`, `schema`, `export`, `plan` and `migrate` on damaged copies of a valid store.
///
/// The valid store is at version 2 (add-attribute) with one migration in its history, in WAL and rollback-journal
/// forms; `plan` and `migrate` target a version 3 that adds `Owner.phone`. Each command runs on its own copy of
/// the damaged files and must: not crash, not hang, exit with a documented status other than a usage error, print
/// one line `error: …` for exit 3, and change no file when it only reads (`info`, `schema`, `export`, `plan`)
/// or when it refused (`migrate` with a non-zero status). A `migrate` that succeeds must leave a store that
/// `molt info` reads at version 3.
struct DamagedStoreKind: CampaignKind {
    let name = "damaged-store"
    let summary =
        "info/schema/export/plan/migrate on damaged stores: no crash, no hang, documented exit, no file changed by a read or refusal"

    /// A command run on each damaged store.
    struct Command: Sendable {
        var name: String
        var readsOnly: Bool
        var arguments: @Sendable (_ store: URL, _ target: URL) -> [String]
    }

    static let commands = [
        Command(name: "info", readsOnly: true) { store, _ in ["info", "--json", store.path] },
        Command(name: "schema", readsOnly: true) { store, _ in ["schema", store.path] },
        Command(name: "export", readsOnly: true) { store, _ in ["export", store.path] },
        Command(name: "plan", readsOnly: true) { store, target in ["plan", store.path, "--to", target.path] },
        Command(name: "migrate", readsOnly: false) { store, target in ["migrate", store.path, "--to", target.path] },
    ]

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let folder = try campaign.folder("damaged-store")
        let (bases, target) = try makeBases(folder, campaign)
        let duration = try measureMigration(bases[.wal]!, target: target, folder: folder, campaign)
        let baseSize = StoreFiles.size(bases[.wal]!)
        let pageSize = Self.pageSize(of: bases[.wal]!)
        var random = campaign.random("damaged-store")
        let catalog =
            StoreDamage.metadata() + StoreDamage.history() + StoreDamage.pragmas()
            + StoreDamage.header(base: .wal)
            + StoreDamage.header(base: .rollback).filter { $0.name.contains("version") || $0.name.contains("magic") }
            + StoreDamage.bitFlips(
                pages: baseSize / pageSize, pageSize: pageSize, count: campaign.profile.randomDamages / 2,
                random: &random)
            + StoreDamage.truncations(
                size: baseSize, pageSize: pageSize,
                count: campaign.profile.randomDamages - campaign.profile.randomDamages / 2, random: &random)
            + StoreDamage.companions(random: &random)
            + StoreDamage.killedMigrations(target: target, duration: duration, random: &random)
            + StoreDamage.tables() + StoreDamage.notStores(random: &random)
        let damages = Self.sample(catalog, every: campaign.profile.damageSampling)
        campaign.log(
            "damaged-store: \(damages.count) damaged stores × \(Self.commands.count) commands (store of \(baseSize) bytes, pages of \(pageSize))"
        )

        let casesFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("cases"))
        var prepared: [(StoreDamage, URL)] = []
        for damage in damages {
            let caseFolder = try StoreFiles.freshFolder(casesFolder.appendingPathComponent(damage.name))
            let store = caseFolder.appendingPathComponent("store.sqlite")
            try StoreFiles.copy(bases[damage.base]!, to: store)
            do {
                try damage.apply(store, campaign)
                prepared.append((damage, store))
            } catch {
                result.notes.append("damaged-store: could not make \(damage.name) (\(error)); it was left out")
            }
        }
        let runsFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("runs"))
        let items = prepared.flatMap { damage, store in Self.commands.map { (damage, store, $0) } }
        let outcomes = campaign.parallelMap(items) { damage, store, command in
            Self.check(
                damage, original: store, command: command, target: target, runsFolder: runsFolder, campaign: campaign)
        }
        for outcome in outcomes { result.add(outcome) }
        for (damage, store) in prepared
        where outcomes.allSatisfy({ $0.passed || !$0.name.hasPrefix(damage.name + ":") }) {
            try? FileManager.default.removeItem(at: store.deletingLastPathComponent())
        }
        return result
    }

    /// Runs one command on a fresh copy of a damaged store and judges it.
    private static func check(
        _ damage: StoreDamage, original: URL, command: Command, target: URL, runsFolder: URL, campaign: Campaign
    ) -> CaseOutcome {
        var verdict = Verdict(row: "damaged-store \(damage.family)", name: "\(damage.name): \(command.name)")
        do {
            let runFolder = try StoreFiles.freshFolder(
                runsFolder.appendingPathComponent("\(damage.name)-\(command.name)"))
            let store = runFolder.appendingPathComponent("store.sqlite")
            try StoreFiles.copy(original, to: store)
            let before = FileState(of: runFolder)
            let run = try campaign.molt.run(command.arguments(store, target))
            let after = FileState(of: runFolder)
            let succeeded = verdict.checkFileCommand(run, before: before, after: after, readsOnly: command.readsOnly)
            if succeeded && !command.readsOnly {
                let info = try campaign.molt.run(["info", "--json", store.path])
                let version = (try? JSON(parsing: info.stdout))?["version"]?.intValue
                if info.exitCode != 0 || version != 3 {
                    verdict.fail(
                        .neitherVersion,
                        "migrate exited 0, so the store must read at version 3; molt info says \(version.map { "version \($0)" } ?? info.outcome)",
                        run: info)
                }
            }
            if verdict.failed {
                verdict.outcome.failures = verdict.outcome.failures.map { failure in
                    var failure = failure
                    failure.detail += " [damaged store: \(original.deletingLastPathComponent().path)]"
                    return failure
                }
            } else {
                try? FileManager.default.removeItem(at: runFolder)
            }
        } catch {
            verdict.fail(.wrongExit, "the harness could not run this case: \(error)")
        }
        return verdict.outcome
    }

    /// The valid stores to damage: the pristine store of `damagedObjects` objects migrated to add-attribute's
    /// version 2 (so that its history has a row), in both journal modes; and the version 3 snapshot.
    private func makeBases(_ folder: URL, _ campaign: Campaign) throws -> ([JournalMode: URL], URL) {
        let pristine = try campaign.pristine(objects: campaign.profile.damagedObjects)
        var bases: [JournalMode: URL] = [:]
        for mode in JournalMode.allCases {
            let store = folder.appendingPathComponent("base-\(mode.rawValue).sqlite")
            try StoreFiles.copy(pristine.url(mode), to: store)
            let run = try campaign.molt.run(try campaign.fixtures.migrateArguments(store, .addAttribute))
            guard run.exitCode == 0, JournalMode(ofFileAt: store) == mode, StoreFiles.existing(store).count == 1 else {
                throw HarnessError(
                    "could not make the damaged-store base (\(mode.rawValue)): \(run.commandLine) → \(run.outcome), files \(StoreFiles.existing(store).map(\.lastPathComponent))\n\(run.excerpt)"
                )
            }
            bases[mode] = store
        }
        let version3 = ClinicSchema.with(
            version: 3,
            ClinicSchema.editing(MigrationKind.addAttribute.target, entity: "Owner") { owner in
                ClinicSchema.adding([ClinicSchema.attribute("phone", "string", optional: true)], to: &owner)
            })
        let target = folder.appendingPathComponent("3.json")
        try StoreFiles.write(version3.text(), to: target)
        return (bases, target)
    }

    /// How long an undamaged `migrate --to 3.json` takes, for the kill moments of ``StoreDamage/killedMigrations``.
    private func measureMigration(_ base: URL, target: URL, folder: URL, _ campaign: Campaign) throws -> Double {
        let copy = folder.appendingPathComponent("timing.sqlite")
        try StoreFiles.copy(base, to: copy)
        defer { StoreFiles.remove(copy) }
        let run = try campaign.molt.run(["migrate", copy.path, "--to", target.path])
        guard run.exitCode == 0 else {
            throw HarnessError(
                "the undamaged base does not migrate to version 3: \(run.commandLine) → \(run.outcome)\n\(run.excerpt)")
        }
        return run.seconds
    }

    /// Every `n`-th damage of each family (the first one included), in catalog order.
    static func sample(_ damages: [StoreDamage], every n: Int) -> [StoreDamage] {
        guard n > 1 else { return damages }
        var seen: [String: Int] = [:]
        return damages.filter { damage in
            defer { seen[damage.family, default: 0] += 1 }
            return seen[damage.family, default: 0] % n == 0
        }
    }

    /// The page size in an SQLite header (bytes 16 and 17; 1 means 65,536).
    static func pageSize(of url: URL) -> Int {
        guard let data = try? Data(contentsOf: url), data.count >= 18 else { return 4096 }
        let value = Int(data[16]) << 8 | Int(data[17])
        return value == 1 ? 65_536 : max(512, value)
    }
}
