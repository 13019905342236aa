import Foundation

/// The two states a store may be in around one migration: exactly the old version with the pristine objects, or
/// exactly the new version with the expected ones.
struct MigrationEnds: Sendable {
    var oldVersion = 1
    var newVersion = 2
    /// ``StoreProbe/digest`` of the store before the migration, and after an uninterrupted one.
    var oldDigest: UInt64
    var newDigest: UInt64
    /// Rows of `_molt_history` before the migration (a successful one adds one).
    var oldHistory = 0
}

extension Verdict {
    /// Checks that the store at `url` is at exactly one of the `allowed` versions of `ends`: `molt info --json`
    /// reads it; then SQLite's integrity and foreign-key checks pass, the recorded version is that version, and
    /// every table holds exactly the objects of that version.
    ///
    /// `molt info` looks first, as a user would after a crash (running `molt recover` when it says to); the direct
    /// read comes second, as the app reopening the store would.
    ///
    /// - Returns: The version the store is at, or nil when it is at neither.
    @discardableResult
    mutating func checkAtOneVersion(_ url: URL, _ ends: MigrationEnds, allowed: Set<Int>? = nil, molt: Molt) -> Int? {
        let allowed = allowed ?? [ends.oldVersion, ends.newVersion]
        let wanted = allowed.sorted().map(String.init).joined(separator: " or ")
        var infoVersion: Int?
        var infoRun: ProcessRun?
        do {
            var run = try molt.run(["info", "--json", url.path])
            // A read command never recovers what a killed writer left: it names `molt recover`, which a user
            // runs before looking again.
            if run.exitCode == 3 && run.stderr.contains("Run `molt recover") {
                let recover = try molt.run(["recover", url.path])
                if checkSurvived(recover), recover.exitCode != 0 {
                    fail(.wrongExit, "molt recover must recover what a killed migration left; it failed", run: recover)
                }
                run = try molt.run(["info", "--json", url.path])
            }
            infoRun = run
            if checkSurvived(run), run.exitCode == 0 {
                infoVersion = (try? JSON(parsing: run.stdout))?["version"]?.intValue.map(Int.init)
            }
        } catch {
            fail(.neitherVersion, "molt info could not be started: \(error)")
        }
        let probe: StoreProbe
        do {
            probe = try StoreProbe(url)
        } catch {
            fail(.neitherVersion, "SQLite cannot read the store: \(error)", run: infoRun)
            return nil
        }
        guard probe.problems.isEmpty, let version = probe.version, allowed.contains(version) else {
            let found = probe.version.map { "version \($0)" } ?? "no version"
            fail(
                .neitherVersion,
                "the store must be at version \(wanted), intact; found \(found). \(probe.problems.joined(separator: " "))",
                run: infoRun)
            return nil
        }
        if let infoRun, infoVersion != version {
            if infoRun.exitCode == 0 {
                fail(
                    .neitherVersion,
                    "molt info reports version \(infoVersion.map(String.init) ?? "nothing"), but the store is at version \(version)",
                    run: infoRun)
            } else if !infoRun.timedOut && !infoRun.termination.isCrash {
                fail(.wrongExit, "molt info must read a store at version \(version); it failed", run: infoRun)
            }
        }
        let digest = version == ends.oldVersion ? ends.oldDigest : ends.newDigest
        if probe.digest != digest {
            fail(
                .lostData,
                "the store is at version \(version), but its objects differ from the ones of version \(version) (table digest \(hex(probe.digest)), expected \(hex(digest)))"
            )
        }
        let history = ends.oldHistory + (version == ends.newVersion ? 1 : 0)
        if probe.historyCount != history {
            fail(
                .neitherVersion,
                "at version \(version) the store must record \(history) migration(s) in _molt_history; it records \(probe.historyCount)"
            )
        }
        return version
    }
}

/// A digest as 16 hexadecimal digits.
func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 16 - digits.count) + digits
}
