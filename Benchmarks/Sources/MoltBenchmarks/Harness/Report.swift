import Foundation

/// Prints the comparisons as a table for people or as JSON for machines.
enum Report {
    /// One line per comparison: Molt's and the baseline's minimum and median, the rounds each ran (`n`), the
    /// ratio of the medians (what the target judges) and of the minimums (the least disturbed rounds, for a
    /// loaded machine), the target and whether it is met, and the peak memory of each side.
    static func table(_ comparisons: [Comparison]) -> String {
        let header = [
            "scenario", "compared", "Molt min", "Molt median", "baseline min", "baseline median", "baseline is", "n",
            "ratio",
            "min ratio", "target", "result", "peak MiB (Molt/base)",
        ]
        var rows = [header]
        for c in comparisons {
            let peaks = [c.molt.peakMemoryMiB, c.baseline.peakMemoryMiB].map {
                $0.map { String(format: "%.0f", $0) } ?? "-"
            }
            let result: String
            switch c.passed {
            case true?: result = "PASS"
            case false?: result = c.molt.capped ? "FAIL (capped)" : "FAIL"
            case nil: result = c.target == nil ? "-" : "? (capped)"
            }
            rows.append([
                c.scenario, c.label, c.molt.formattedMinimum, c.molt.formattedMedian, c.baseline.formattedMinimum,
                c.baseline.formattedMedian, c.baselineDescription,
                "\(c.molt.samples.count)/\(c.baseline.samples.count)",
                (c.molt.capped ? "≥ " : "") + String(format: "%.2fx", c.ratio),
                (c.molt.capped && c.molt.samples.count == 1 ? "≥ " : "")
                    + String(format: "%.2fx", c.molt.minimum / c.baseline.minimum),
                c.target?.description ?? "info", result,
                peaks.joined(separator: " / "),
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            String(
                row.indices.map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(
                    separator: "  "
                )
                .reversed().drop { $0 == " " }.reversed())
        }
        lines.insert(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "), at: 1)
        return lines.joined(separator: "\n")
    }

    static func json(_ comparisons: [Comparison], environment: [String: String]) throws -> String {
        struct Document: Encodable {
            var environment: [String: String]
            var comparisons: [Comparison]
            var passed: Bool
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let passed = comparisons.allSatisfy { $0.passed ?? true }
        let data = try encoder.encode(Document(environment: environment, comparisons: comparisons, passed: passed))
        return String(decoding: data, as: UTF8.self)
    }
}
