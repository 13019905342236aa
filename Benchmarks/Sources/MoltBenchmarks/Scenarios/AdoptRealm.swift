import Foundation
import Molt

/// `molt adopt` of realm-core's 200,000-object file (`../shared/foreign-stores/realm/large_200k.realm`) into a new
/// store must take at most 1.5× `molt import` of the same objects from a JSON file (issue 37): the same CLI,
/// the same store written, one reading a Realm file without Realm (and proving every value against it), the
/// other streaming its own export format.
///
/// The JSON file is `molt export` of a store adopted once (untimed); both jobs are the whole process, from spawn
/// to exit, and both stores must hold the same rows (every value summed, checked each round). Skipped, saying
/// so, when `../shared` is not beside the checkout.
struct AdoptRealm: Scenario {
    let name = "adopt-realm"
    let summary = "molt adopt of a 200,000-object Realm file vs molt import of the same objects (JSON)"

    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("shared/foreign-stores/realm/large_200k.realm")

    func run(_ runner: Runner) throws -> [Comparison] {
        guard FileManager.default.fileExists(atPath: Self.file.path) else {
            log("  skipped: \(Self.file.path) is absent (../shared beside the checkout)")
            return []
        }
        let molt = try ChildProcess.moltBinary()
        let folder = runner.folder.appendingPathComponent("adopt-realm")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The same objects as JSON: an adopted store exported, and its schema.
        let reference = folder.appendingPathComponent("reference.sqlite")
        let data = folder.appendingPathComponent("items.json")
        let schema = folder.appendingPathComponent("schema.json")
        for (arguments, output) in [
            (["adopt", Self.file.path, "--from", "realm", "--into", reference.path], nil),
            (["export", reference.path], data), (["schema", reference.path], schema),
        ] as [([String], URL?)] {
            let outcome = try ChildProcess.run(molt, arguments, stdout: output)
            guard outcome.status == 0 else {
                throw BenchmarkError(
                    description: "molt \(arguments.joined(separator: " ")) failed (exit \(outcome.status))")
            }
        }
        let same = SameResult(tables: ["Item"])

        let adoptJob = Runner.Job(count: 0) { url, stopwatch in
            Fixture.remove(url)
            try stopwatch.timeProcess(
                molt, ["adopt", Self.file.path, "--from", "realm", "--into", url.path], cap: runner.cap)
            if !stopwatch.capped { try same.check(url) }
        }
        let importJob = Runner.Job(count: 0) { url, stopwatch in
            Fixture.remove(url)
            try stopwatch.timeProcess(molt, ["import", url.path, "--schema", schema.path, data.path], cap: runner.cap)
            if !stopwatch.capped { try same.check(url) }
        }
        let scratch = folder.appendingPathComponent("round.sqlite")
        let m = try runner.measure([adoptJob, importJob], repetitions: runner.repetitions) { _ in scratch }
        log("  200k: molt adopt \(perObject(m[0], 200_000)), molt import \(perObject(m[1], 200_000)) per object")
        return [
            Comparison(
                scenario: name, label: "molt adopt of a Realm file of 200k items",
                baselineDescription: "molt import of the same objects (JSON)", molt: m[0], baseline: m[1],
                target: .atMost(1.5)),
            Comparison(
                scenario: name, label: "peak RSS, molt adopt of 200k Realm items",
                baselineDescription: "molt import (peak RSS)", molt: m[0].peaks, baseline: m[1].peaks,
                target: .atMost(mebibytes: 64)),
        ]
    }
}
