/// How big a campaign run is: store sizes, trials and case counts of every kind.
///
/// `quick` is the CI form (a minute or two); `full` is the campaign ("Done means": at least 200 SIGKILL
/// trials per migration kind at 200k objects, 1,000 damaged-store runs, 500 damaged inputs); `medium` sits between,
/// for a run while working on a fix.
struct Profile: Sendable {
    var name: String
    /// Objects in the stores of the add-attribute, rebuild and mapping SIGKILL kinds, and of concurrent migrators.
    var objects: Int
    /// Objects in the store of the split SIGKILL kind (the split's cost grows faster than linearly).
    var splitObjects: Int
    /// SIGKILL trials per migration kind, alternating WAL and rollback-journal stores.
    var trials: Int
    /// Processes migrating one store at once, and rounds of them.
    var processes: Int
    var rounds: Int
    /// Objects in the store that readers export while it migrates; rounds per journal mode.
    var readersObjects: Int
    var readersRounds: Int
    /// Objects in the stores of the damaged-store, damaged-input and rerun kinds (small, so that damage hits every
    /// kind of page).
    var damagedObjects: Int
    /// Random bit-flip and truncation damages, on top of the fixed ones.
    var randomDamages: Int
    /// Keep every n-th fixed damage of each family (1: all of them).
    var damageSampling: Int
    /// Random mutations per input family (snapshots, mappings, data files), on top of the fixed ones.
    var randomInputs: Int
    /// Disk-full cases on a tmpfs, and under `ulimit -f`.
    var tmpfsCases: Int
    var ulimitCases: Int
    var diskFullObjects: Int
    /// Seconds after which a command counts as hung.
    var timeout: Double

    static let quick = Profile(
        name: "quick", objects: 2_000, splitObjects: 1_000, trials: 6, processes: 8, rounds: 4, readersObjects: 2_000,
        readersRounds: 1, damagedObjects: 120, randomDamages: 6, damageSampling: 2, randomInputs: 3, tmpfsCases: 2,
        ulimitCases: 2, diskFullObjects: 2_000, timeout: 20)

    static let medium = Profile(
        name: "medium", objects: 20_000, splitObjects: 4_000, trials: 30, processes: 8, rounds: 8,
        readersObjects: 50_000,
        readersRounds: 1, damagedObjects: 120, randomDamages: 60, damageSampling: 1, randomInputs: 15, tmpfsCases: 10,
        ulimitCases: 6, diskFullObjects: 20_000, timeout: 60)

    static let full = Profile(
        name: "full", objects: 200_000, splitObjects: 12_500, trials: 200, processes: 8, rounds: 16,
        readersObjects: 1_000_000, readersRounds: 2, damagedObjects: 120, randomDamages: 120, damageSampling: 1,
        randomInputs: 40, tmpfsCases: 56, ulimitCases: 30, diskFullObjects: 200_000, timeout: 60)

    static func named(_ name: String) -> Profile? {
        [quick, medium, full].first { $0.name == name }
    }
}
