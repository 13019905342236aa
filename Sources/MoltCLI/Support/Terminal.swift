import Foundation
import Molt

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to the terminal: standard output, standard error, JSON, and a progress bar.
enum Terminal {
    /// Whether standard output is a terminal (not a pipe or a file).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) != 0 }

    /// Flushes nothing (writes are unbuffered) and ends the process with `status`.
    static func exit(_ status: ExitStatus) -> Never {
        #if canImport(Glibc)
        Glibc.exit(status.rawValue)
        #else
        Darwin.exit(status.rawValue)
        #endif
    }

    /// Writes one line to standard output.
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes one line to standard error.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Writes a value as pretty-printed JSON with sorted keys, followed by a newline.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(value)
        data.append(0x0A)
        FileHandle.standardOutput.write(data)
    }

    /// A progress handler for ``Store/Options/progress`` that draws a bar on the terminal, or nil when standard
    /// output is not a terminal (a script reading the output never sees it).
    static func progressBar(title: String) -> ProgressBar? {
        isInteractive ? ProgressBar(title: title, handle: .standardOutput) : nil
    }

    /// A bar drawn on standard error when it is a terminal, for commands whose standard output is data
    /// (`molt export > data.json`) or that print nothing until they end (`molt import`).
    static func progressBarOnStandardError(title: String) -> ProgressBar? {
        isatty(STDERR_FILENO) != 0 ? ProgressBar(title: title, handle: .standardError) : nil
    }
}

/// A one-line progress bar redrawn in place with a carriage return.
final class ProgressBar: @unchecked Sendable {
    private let title: String
    private let handle: FileHandle
    /// Whether a bar is on screen, and the percentage and key last drawn.
    private let state = LockedValue<(drawn: Bool, last: (percent: Int, key: String)?)>((false, nil))

    init(title: String, handle: FileHandle) {
        self.title = title
        self.handle = handle
    }

    /// The closure to put in ``Store/Options/progress``.
    var handler: @Sendable (MigrationProgress) -> Void {
        { [self] progress in
            let step = "\(progress.fromVersion) → \(progress.toVersion)"
            self.draw(progress.fractionCompleted, key: step, step)
        }
    }

    /// Draws `done` of `total` bytes of an input file.
    func update(bytes done: Int, of total: Int) {
        draw(
            total == 0 ? 1 : Double(done) / Double(total), key: "bytes",
            "\(Format.bytes(done)) of \(Format.bytes(total))")
    }

    /// Draws `done` of `total` objects.
    func update(_ done: Int, of total: Int) {
        draw(total == 0 ? 1 : Double(done) / Double(total), key: "", "\(done) of \(Format.count(total, "object"))")
    }

    private func draw(_ fraction: Double, key: String, _ detail: String) {
        state.withLock { state in draw(fraction, key: key, detail, &state) }
    }

    private func draw(
        _ fraction: Double, key: String, _ detail: String,
        _ state: inout (drawn: Bool, last: (percent: Int, key: String)?)
    ) {
        let width = 30
        let fraction = min(max(fraction, 0), 1)
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        // Redraw only when the percentage changes: a migration may report thousands of batches.
        if let last = state.last, last == (percent, key) { return }
        state.last = (percent, key)
        let text = "\r\u{1B}[K\(title) [\(bar)] \(percent)% (\(detail))"
        handle.write(Data(text.utf8))
        state.drawn = true
    }

    /// Erases the bar, so that the next line starts clean.
    func finish() {
        state.withLock { state in
            if state.drawn { handle.write(Data("\r\u{1B}[K".utf8)) }
            state.drawn = false
        }
    }
}

/// Formatting helpers shared by the commands.
enum Format {
    /// A duration in seconds as milliseconds or seconds: `0.8 ms`, `1.24 s`.
    static func duration(_ seconds: Double) -> String {
        seconds < 1 ? "\(fixed(seconds * 1000, decimals: 1)) ms" : "\(fixed(seconds, decimals: 2)) s"
    }

    /// A non-negative number with `decimals` digits after the point, as `%.Nf` prints it, without
    /// `String(format:)`: its first call loads Foundation's string formatting, ~0.6 ms of a `molt migrate`
    /// that takes ~10 ms.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite, value >= 0, value < 1e15 else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((value * scale).rounded())
        let divisor = Int(scale)
        guard decimals > 0 else { return "\(scaled)" }
        let fraction = String(scaled % divisor)
        return "\(scaled / divisor).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }

    /// A byte count as `12.3 MB`.
    static func bytes(_ count: Int) -> String {
        String(format: "%.1f MB", Double(count) / 1_048_576)
    }

    /// `1 object`, `2 objects`.
    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// What a run (or a step) changed, exactly: `120 objects updated; dropped 300 values of 'UserMemo.count'`,
    /// or `no object changed`.
    static func changes(_ steps: [MigrationStepRecord]) -> String { MigrationStepRecord.changes(of: steps) }

    /// An ISO 8601 timestamp in UTC, to the second.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// How an attribute reads in `molt info`: `count double = 0`, `memoSubtitle string?`.
    static func attribute(_ attribute: Attribute, primaryKey: String?) -> String {
        var text = "\(attribute.name): \(attribute.type.rawValue)\(attribute.isOptional ? "?" : "")"
        if let value = attribute.defaultValue { text += " = \(value)" }
        if attribute.name == primaryKey { text += " (primary key)" }
        return text
    }

    /// How a relationship reads in `molt info`: `notes: [Note] ordered, inverse folder, cascade`;
    /// `author: User (required)`; `options: [Option] (at least 2)`.
    static func relationship(_ relationship: Relationship) -> String {
        var text = "\(relationship.name): "
        text += relationship.kind == .toMany ? "[\(relationship.destination)]" : relationship.destination
        var notes: [String] = []
        if relationship.kind == .toOne && !relationship.isOptional { notes.append("required") }
        if relationship.kind == .toMany && relationship.minimumCount > 0 {
            notes.append("at least \(relationship.minimumCount)")
        }
        if relationship.isOrdered { notes.append("ordered") }
        if let inverse = relationship.inverse { notes.append("inverse \(inverse)") }
        if relationship.deleteRule != .nullify { notes.append(relationship.deleteRule.rawValue) }
        return notes.isEmpty ? text : text + " (" + notes.joined(separator: ", ") + ")"
    }
}
