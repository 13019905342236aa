import Foundation

/// `rerun`: the same `molt migrate --to N [--mapping F]` run again on a store it already brought to version N.
///
/// The second run has nothing to do: it must exit 0, say ``Expectations/alreadyAtVersion(_:)``, and write nothing
/// (no byte of the store, no backup left behind). The previous campaign found that a re-run with `--mapping` exits 2.
struct RerunKind: CampaignKind {
    let name = "rerun"
    let summary = "`molt migrate --to N [--mapping F]` again on a store already at N: exit 0, says so, writes nothing"
    static let row = "rerun"

    /// A way to run the same migration twice: the migration kind and extra options.
    private struct Variant {
        var kind: MigrationKind
        var options: [String]
        var label: String
    }

    private static let variants = [
        Variant(kind: .mapping, options: [], label: "mapping"),
        Variant(kind: .split, options: [], label: "split with links"),
        Variant(kind: .addAttribute, options: [], label: "add-attribute, no mapping"),
        Variant(kind: .mapping, options: ["--json"], label: "mapping, --json"),
        Variant(kind: .mapping, options: ["--backup"], label: "mapping, --backup"),
    ]

    func run(_ campaign: Campaign) throws -> KindResult {
        var result = KindResult()
        let folder = try campaign.folder("rerun")
        let pristine = try campaign.pristine(objects: campaign.profile.damagedObjects)
        for (index, variant) in Self.variants.enumerated() {
            for mode in JournalMode.allCases {
                let caseFolder = try StoreFiles.freshFolder(folder.appendingPathComponent("\(index)-\(mode.rawValue)"))
                let store = caseFolder.appendingPathComponent("store.sqlite")
                try StoreFiles.copy(pristine.url(mode), to: store)
                var verdict = Verdict(row: Self.row, name: "\(variant.label), \(mode.rawValue)")
                let arguments = try campaign.fixtures.migrateArguments(store, variant.kind) + variant.options
                let first = try campaign.molt.run(arguments)
                guard first.exitCode == 0 else {
                    verdict.fail(
                        .wrongExit, "the first run must migrate the store (exit 0) before it can be re-run", run: first)
                    result.add(verdict)
                    continue
                }
                let before = FileState(of: caseFolder)
                let second = try campaign.molt.run(arguments)
                let after = FileState(of: caseFolder)
                if verdict.checkSurvived(second) {
                    verdict.checkExit(
                        second, in: [0], expected: "exit 0: the store is already at version 2, nothing to do")
                    verdict.checkMessage(second)
                    if second.exitCode == 0 {
                        checkSaysSo(second, json: variant.options.contains("--json"), verdict: &verdict)
                    }
                }
                verdict.checkUnchanged(
                    before: before, after: after, because: "a re-run has nothing to do and must write nothing",
                    run: second)
                if !verdict.failed { try? FileManager.default.removeItem(at: caseFolder) }
                result.add(verdict)
            }
        }
        return result
    }

    /// The re-run says the store is already at version 2: in its text, or in JSON with both versions 2.
    private func checkSaysSo(_ run: ProcessRun, json: Bool, verdict: inout Verdict) {
        if json {
            let report = try? JSON(parsing: run.stdout)
            if report?["fromVersion"]?.intValue != 2 || report?["toVersion"]?.intValue != 2 {
                verdict.fail(
                    .wrongMessage, "the JSON report of a re-run must show fromVersion 2 and toVersion 2", run: run)
            }
        } else if !run.stdoutText.contains(Expectations.alreadyAtVersion(2)) {
            verdict.fail(.wrongMessage, "a re-run must say \"\(Expectations.alreadyAtVersion(2))\"", run: run)
        }
    }
}
