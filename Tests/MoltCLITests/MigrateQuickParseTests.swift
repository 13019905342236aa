import ArgumentParser
import Testing

@testable import MoltCLI

/// `molt migrate`'s usual command lines are read without argument-parser (start-up is most of what a small
/// migration costs); whatever that reader accepts must mean exactly what argument-parser makes of it, and
/// everything else must be left to argument-parser.
@Suite("molt migrate's quick argument reader")
struct MigrateQuickParseTests {
    /// argument-parser's request for `arguments`, or nil when it refuses them.
    private func parsedByArgumentParser(_ arguments: [String]) -> MigrateRequest? {
        (try? MoltCommand.parseAsRoot(arguments) as? MigrateCommand)?.request
    }

    @Test(
        "the usual forms are read quickly, as argument-parser reads them",
        arguments: [
            ["migrate", "s.sqlite", "--to", "2.json"],
            ["migrate", "--to", "2.json", "s.sqlite"],
            ["migrate", "s.sqlite", "--to=2.json", "--skip-check", "--json"],
            ["migrate", "s.sqlite", "--to", "snapshots", "--to-version", "4"],
            ["migrate", "s.sqlite", "--to", "2.json", "--mapping", "m.json", "--backup", "--keep-backup"],
            ["migrate", "postgres://u@h/db", "--to", "2.json", "--secure-delete", "fast"],
            ["migrate", "s.sqlite", "--secure-delete=default", "--to", "2.json", "--to-version=0"],
        ])
    func usualForms(arguments: [String]) throws {
        let quick = try #require(MigrateRequest(quickParsing: arguments))
        #expect(quick == parsedByArgumentParser(arguments))
    }

    @Test(
        "help, mistakes and anything unusual go to argument-parser, which explains them",
        arguments: [
            ["migrate", "--help"], ["migrate", "-h"], ["migrate", "s.sqlite"], ["migrate", "--to", "2.json"],
            ["migrate", "s.sqlite", "--to", "2.json", "--keep-backup"],
            ["migrate", "s.sqlite", "--to", "2.json", "--to-version", "-1"],
            ["migrate", "s.sqlite", "--to", "2.json", "--to", "3.json"],
            ["migrate", "s.sqlite", "--to", "2.json", "--json", "--json"],
            ["migrate", "s.sqlite", "--to", "2.json", "--secure-delete", "slow"],
            ["migrate", "s.sqlite", "--to", "2.json", "--frobnicate"],
            ["migrate", "s.sqlite", "t.sqlite", "--to", "2.json"], ["migrate", "--", "s.sqlite", "--to", "2.json"],
            ["migrate", "s.sqlite", "--to", "--json"], ["migrate", "s.sqlite", "--to="],
            ["migrate", "", "--to", "2.json"],
            ["plan", "s.sqlite", "--to", "2.json"], ["--version"], [],
        ])
    func leftToArgumentParser(arguments: [String]) {
        #expect(MigrateRequest(quickParsing: arguments) == nil)
    }

    @Test("on 3,000 generated command lines, every one read quickly means what argument-parser makes of it")
    func generatedCommandLines() {
        // Units of one or two tokens, valid and not; most lines get a store and a --to somewhere among them.
        let units: [[String]] = [
            ["t.sqlite"], ["--to", "3.json"], ["--to=3.json"], ["--to="], ["--to"], ["--to-version", "3"],
            ["--to-version", "-1"], ["--to-version=2"], ["--to-version", "x"], ["--mapping", "m.json"],
            ["--mapping="], ["--secure-delete", "fast"], ["--secure-delete", "default"], ["--secure-delete", "slow"],
            ["--secure-delete=fast"], ["--backup"], ["--keep-backup"], ["--skip-check"], ["--json"], ["--json=1"],
            ["--help"], ["-h"], ["--"], [""], ["--unknown"], ["-x"],
        ]
        var generator = SplitMix64(seed: 20_261_126)
        func pick(_ count: Int) -> Int { Int(generator.next() % UInt64(count)) }
        var readQuickly = 0
        for _ in 0..<3_000 {
            var line = (0..<pick(4)).map { _ in units[pick(units.count)] }
            if pick(10) < 8 { line.insert(["s.sqlite"], at: pick(line.count + 1)) }
            if pick(10) < 8 { line.insert(["--to", "2.json"], at: pick(line.count + 1)) }
            let arguments = ["migrate"] + line.flatMap { $0 }
            guard let quick = MigrateRequest(quickParsing: arguments) else { continue }
            readQuickly += 1
            #expect(parsedByArgumentParser(arguments) == quick, "\(arguments)")
        }
        // The generator must reach the quick reader often enough for the comparison to mean something.
        #expect(readQuickly >= 500, "only \(readQuickly) command lines were read quickly")
    }
}

/// A small seeded generator, so that a failing command line can be reproduced.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
