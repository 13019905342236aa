import ArgumentParser
import Foundation

/// `molt-reliability`: the black-box reliability campaign of issue 11 (item 9).
///
/// It drives a release-built `molt` binary as a user would: kills migrations, runs eight at once, reads while
/// one runs, feeds it damaged stores and inputs, fills its disk, and re-runs finished migrations. It prints a
/// table of cases, passes and failures by class, and exits 1 when any case fails.
@main
struct MoltReliability: ParsableCommand {
    static let kinds: [any CampaignKind] = [
        SigkillKind(), ConcurrentMigratorsKind(), ReadersDuringMigrationKind(), DamagedStoreKind(), DamagedInputKind(),
        DiskFullKind(), RerunKind(), AdoptionKind(),
    ]

    static let configuration = CommandConfiguration(
        commandName: "molt-reliability",
        abstract: "Run molt's black-box reliability campaign and print what fails.",
        discussion: """
            Kinds:
            \(kinds.map { "  \($0.name.padding(toLength: 26, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))

            Failure classes: crash (killed by a signal, or exit >= 128), hang (killed at the time limit), changed (a \
            file changed by a read or refused command), wrong-exit, wrong-message, lost-data, neither-version, slow.

            Exit status: 0 when every case passes, 1 when one fails, 2 when the harness itself cannot run.
            """)

    @Option(
        help: ArgumentHelp(
            "The molt binary to test (default: build it with `swift build -c release --product molt` in the repository).",
            valueName: "path"))
    var molt: String?

    @Option(help: "The seed of every random choice: the same seed makes the same cases.")
    var seed: UInt64 = 1109

    @Flag(help: "The CI form: small stores, few trials (a minute or two).")
    var quick = false

    @Flag(help: "Between quick and full: 20k-object stores, 30 trials per migration kind.")
    var medium = false

    @Option(help: ArgumentHelp("SIGKILL trials per migration kind (full: 200).", valueName: "n"))
    var trials: Int?

    @Option(
        help: ArgumentHelp("Objects in the SIGKILL (but split) and concurrency stores (full: 200,000).", valueName: "n")
    )
    var objects: Int?

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Run only these kinds.", valueName: "kind"))
    var only: [String] = []

    @Option(
        help: ArgumentHelp(
            "Seconds after which a command counts as hung and is killed (quick: 20, else 60).", valueName: "seconds"))
    var timeout: Double?

    @Option(help: ArgumentHelp("Independent, untimed cases run at once.", valueName: "n"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print JSON instead of the table.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Where stores and reproducers go (default: a new folder in the temporary folder).", valueName: "path"))
    var workDir: String?

    @Flag(help: "Keep the work folder even when every case passes.")
    var keep = false

    func validate() throws {
        if quick && medium { throw ValidationError("Choose --quick or --medium, not both.") }
        if let trials, trials < 1 { throw ValidationError("--trials needs at least 1.") }
        if let objects, objects < 16 { throw ValidationError("--objects needs at least 16.") }
        if jobs < 1 { throw ValidationError("--jobs needs at least 1.") }
        if let timeout, timeout <= 0 { throw ValidationError("--timeout needs a positive number of seconds.") }
        let unknown = only.filter { name in !Self.kinds.contains { $0.name == name } }
        if !unknown.isEmpty {
            throw ValidationError(
                "Unknown kind(s): \(unknown.joined(separator: ", ")). Kinds: \(Self.kinds.map(\.name).joined(separator: ", "))."
            )
        }
    }

    func run() throws {
        var profile = quick ? Profile.quick : (medium ? Profile.medium : Profile.full)
        if let trials { profile.trials = trials }
        if let objects { profile.objects = objects }
        if let timeout { profile.timeout = timeout }
        let work = URL(
            fileURLWithPath: workDir
                ?? FileManager.default.temporaryDirectory
                .appendingPathComponent("molt-reliability-\(ProcessInfo.processInfo.processIdentifier)").path)
        let report: Report
        do {
            let binary = try molt.map(Self.checkedBinary) ?? Molt.build(repository: Molt.repository, log: log)
            let start = ContinuousClock.now
            try StoreFiles.freshFolder(work)
            let scratch = try StoreFiles.freshFolder(work.appendingPathComponent("scratch"))
            let campaign = try Campaign(
                molt: Molt(path: binary, scratch: scratch, timeout: profile.timeout), profile: profile, seed: seed,
                jobs: jobs, work: work)
            log("molt-reliability: profile \(profile.name), seed \(seed), molt \(binary), work folder \(work.path)")
            var result = KindResult()
            for kind in Self.kinds where only.isEmpty || only.contains(kind.name) {
                let kindStart = ContinuousClock.now
                log("== \(kind.name)")
                result.merge(try kind.run(campaign))
                log(String(format: "   %@ took %.1f s", kind.name, (ContinuousClock.now - kindStart).seconds))
            }
            report = Report(
                result, seed: seed, profile: profile.name, molt: binary, seconds: (ContinuousClock.now - start).seconds)
        } catch let error as HarnessError {
            log("molt-reliability: \(error.description)")
            log("work folder: \(work.path)")
            throw ExitCode(2)
        }
        print(json ? try report.json() : report.text())
        if report.passed && !keep {
            try? FileManager.default.removeItem(at: work)
        } else {
            log("work folder kept (stores and reproducers of the failures): \(work.path)")
        }
        if !report.passed { throw ExitCode(1) }
    }

    private static func checkedBinary(_ path: String) throws -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard FileManager.default.isExecutableFile(atPath: absolute) else {
            throw HarnessError("--molt \(path): there is no executable there")
        }
        return absolute
    }

    private func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
