import Foundation
import Molt

/// A `molt-test-worker` child process (Tests/Worker/main.swift) that opens a store and reports on its stdout.
final class Worker: @unchecked Sendable {
    enum Failure: Error, CustomStringConvertible {
        case binaryNotFound([String])
        case unexpectedEnd(String)

        var description: String {
            switch self {
            case .binaryNotFound(let places):
                return "molt-test-worker was not found in \(places.joined(separator: ", "))"
            case .unexpectedEnd(let output): return "the worker ended before the expected line; it printed: \(output)"
            }
        }
    }

    /// The worker binary: `MOLT_TEST_WORKER`, or the build folder that holds the test bundle.
    static func binary() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["MOLT_TEST_WORKER"] { return URL(fileURLWithPath: path) }
        var starts: [URL] = []
        if let url = Bundle.main.executableURL { starts.append(url) }
        starts.append(URL(fileURLWithPath: CommandLine.arguments[0]))
        starts += Bundle.allBundles.map(\.bundleURL)
        var looked: [String] = []
        for start in starts {
            var folder = start.resolvingSymlinksInPath().deletingLastPathComponent()
            // From .build/debug/X.xctest[/Contents/MacOS/X] up to the build folder.
            for _ in 0..<5 {
                let candidate = folder.appendingPathComponent("molt-test-worker")
                looked.append(folder.path)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder.deleteLastPathComponent()
            }
        }
        throw Failure.binaryNotFound(looked)
    }

    let process = Process()
    private let output = Pipe()
    private var lines: [String] = []
    private var buffer = Data()

    /// Starts `molt-test-worker open STORE SCHEMA rollback|wal [--hold]`, the schema written beside the store.
    convenience init(open store: URL, schema: Schema, kind: StoreKind, hold: Bool = false) throws {
        try self.init(
            store: store.path, schemaFolder: store.deletingLastPathComponent(), schema: schema, kind: kind, hold: hold)
    }

    /// Starts a worker on this kind's store in `directory` (a file, or the directory's PostgreSQL namespace).
    convenience init(in directory: TemporaryDirectory, schema: Schema, kind: StoreKind, hold: Bool = false) throws {
        let store: String
        if kind == .postgres {
            var components = URLComponents(url: try PostgresTestServer.requireURL(), resolvingAgainstBaseURL: false)!
            components.queryItems =
                (components.queryItems ?? []) + [URLQueryItem(name: "schema", value: directory.namespace())]
            store = components.string!
        } else {
            store = directory.file().path
        }
        try self.init(store: store, schemaFolder: directory.url, schema: schema, kind: kind, hold: hold)
    }

    private init(store: String, schemaFolder: URL, schema: Schema, kind: StoreKind, hold: Bool) throws {
        let schemaURL = schemaFolder.appendingPathComponent("schema-\(schema.version)-\(UUID().uuidString).json")
        try schema.snapshotJSON().write(to: schemaURL)
        process.executableURL = try Worker.binary()
        process.arguments = ["open", store, schemaURL.path, kind.journalArgument] + (hold ? ["--hold"] : [])
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // A worker that hangs (waiting on a lock that never frees) is killed, so that the test fails instead of
        // hanging: its pipe then closes and `waitForLine` throws.
        let process = self.process
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) {
            if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        }
    }

    /// Reads stdout until a line equal to `expected` (or starting with "error"); returns the line.
    @discardableResult
    func waitForLine(_ expected: String) throws -> String {
        while true {
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                lines.append(line)
                if line == expected || line.hasPrefix("error") { return line }
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw Failure.unexpectedEnd(lines.joined(separator: " | ")) }
            buffer.append(chunk)
        }
    }

    /// Sends SIGKILL and waits for the process to end.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits for the process to end; returns every line it printed and its exit status.
    func finish() -> (lines: [String], status: Int32) {
        let rest = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        buffer.append(rest)
        lines += String(decoding: buffer, as: UTF8.self).split(separator: "\n").map(String.init)
        buffer.removeAll()
        return (lines, process.terminationStatus)
    }
}
