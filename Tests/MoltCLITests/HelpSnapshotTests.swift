import Foundation
import Testing
import MoltTesting

/// `molt --help` and every subcommand's help, compared with the files in `__Snapshots__/`.
///
/// Run with `MOLT_RECORD_SNAPSHOTS=1` to record them again after a deliberate change (never on CI: recording is
/// refused when `CI` is set).
@Suite("Help snapshots")
struct HelpSnapshotTests {
    static let commands = [
        "", "demo", "info", "schema", "diff", "plan", "migrate", "rehearse", "export", "import", "check", "recover",
        "convert-model", "adopt",
    ]

    @Test("molt help matches its snapshot", arguments: commands)
    func help(command: String) throws {
        let arguments = command.isEmpty ? ["--help"] : ["help", command]
        let result = try Molt.run(arguments)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty)
        try assertSnapshot(result.stdout, named: command.isEmpty ? "molt--help" : "molt-help-\(command)")
    }

    @Test("the root help documents every exit code")
    func exitCodesDocumented() throws {
        let help = try Molt.run(["--help"]).stdout
        for line in [
            "0  success", "2  usage error", "3  bad input file", "4  version conflict",
            "5  the migration cannot be inferred",
        ] {
            #expect(help.contains(line), "missing: \(line)")
        }
    }
}

struct SnapshotMismatch: Error, CustomStringConvertible {
    var description: String
}

/// Compares `text` with `__Snapshots__/<name>.txt`, or records it when `MOLT_RECORD_SNAPSHOTS` asks (and not on CI).
func assertSnapshot(_ text: String, named name: String, filePath: String = #filePath) throws {
    let folder = URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("__Snapshots__")
    let file = folder.appendingPathComponent("\(name).txt")
    // The same rule as schema snapshots (MoltTesting's RecordMode): `MOLT_RECORD_SNAPSHOTS=1` records, CI never does.
    if SchemaSnapshots.RecordMode.environment != .never {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return
    }
    guard let expected = FileManager.default.contents(atPath: file.path) else {
        throw SnapshotMismatch(description: "No snapshot at \(file.path); record it with MOLT_RECORD_SNAPSHOTS=1.")
    }
    #expect(text == String(decoding: expected, as: UTF8.self), "\(name) differs from its snapshot")
}
