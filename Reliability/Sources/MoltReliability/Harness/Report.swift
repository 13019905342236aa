import Foundation

/// The campaign's results: a table of rows (kind, cases, passes, failures by class), one example per row and
/// failure class, and notes; or all of it as JSON.
struct Report: Encodable {
    struct Row: Encodable {
        var kind: String
        var cases: Int
        var passes: Int
        var failures: [String: Int]
        var skipped: String?
    }

    var seed: UInt64
    var profile: String
    var molt: String
    var seconds: Double
    var rows: [Row]
    var notes: [String]
    var failures: [CaseOutcome]

    init(_ result: KindResult, seed: UInt64, profile: String, molt: String, seconds: Double) {
        self.seed = seed
        self.profile = profile
        self.molt = molt
        self.seconds = seconds
        notes = result.notes
        failures = result.outcomes.filter { !$0.passed }
        rows = result.rows.map { name in
            let outcomes = result.outcomes.filter { $0.row == name }
            var counts: [String: Int] = [:]
            for failureClass in FailureClass.allCases {
                counts[failureClass.rawValue] = outcomes.filter { $0.classes.contains(failureClass) }.count
            }
            return Row(
                kind: name, cases: outcomes.count, passes: outcomes.filter(\.passed).count, failures: counts,
                skipped: result.skipped[name])
        }
    }

    var passed: Bool { failures.isEmpty }

    /// The table, the examples and the notes, as text.
    func text() -> String {
        let classes = FailureClass.allCases.map(\.rawValue)
        let header = ["kind", "cases", "passes"] + classes
        var lines = [header]
        for row in rows {
            lines.append(
                [row.kind, String(row.cases), String(row.passes)] + classes.map { String(row.failures[$0] ?? 0) })
        }
        let total =
            ["total", String(rows.map(\.cases).reduce(0, +)), String(rows.map(\.passes).reduce(0, +))]
            + classes.map { name in String(rows.map { $0.failures[name] ?? 0 }.reduce(0, +)) }
        lines.append(total)
        let widths = header.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ")
        }
        var output = [format(header), String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))]
        output += lines.dropFirst().dropLast().map(format)
        output.append(String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1)))
        output.append(format(total))
        for row in rows {
            if let skipped = row.skipped { output.append("skipped \(row.kind): \(skipped)") }
        }
        output.append(String(format: "seed %llu, profile %@, %.0f s, molt %@", seed, profile, seconds, molt))

        if !failures.isEmpty {
            output.append("")
            output.append("One example per kind and failure class (all of them with --json):")
            for row in rows {
                for failureClass in FailureClass.allCases {
                    guard
                        let outcome = failures.first(where: { $0.row == row.kind && $0.classes.contains(failureClass) }
                        ),
                        let failure = outcome.failures.first(where: { $0.failureClass == failureClass })
                    else { continue }
                    output.append("")
                    output.append("[\(row.kind)] \(failureClass.rawValue): \(outcome.name)")
                    output.append("  \(failure.detail)")
                    if let command = failure.command { output.append("  $ \(command)") }
                    if let outcome = failure.outcome { output.append("  → \(outcome)") }
                    if let text = failure.output {
                        output += text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8).map {
                            "    " + $0
                        }
                    }
                }
            }
        }
        if !notes.isEmpty {
            output.append("")
            output.append("Notes:")
            output += notes.map { "  " + $0 }
        }
        return output.joined(separator: "\n")
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
