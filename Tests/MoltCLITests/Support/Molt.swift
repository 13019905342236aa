import Foundation
import Testing

/// The built `molt` executable, run as a child process the way a user or a script runs it.
///
/// It is found next to the test bundle (SwiftPM puts every product of the package in one folder), or at the path
/// in the `MOLT_BINARY` environment variable.
enum Molt {
    /// What one run of `molt` did.
    struct Result: CustomStringConvertible {
        var status: Int32
        var stdout: String
        var stderr: String

        var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    struct NotBuilt: Error, CustomStringConvertible {
        var description: String
    }

    static let binary: URL? = {
        if let path = ProcessInfo.processInfo.environment["MOLT_BINARY"] { return URL(fileURLWithPath: path) }
        var folders: [URL] = []
        if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return folders.map { $0.appendingPathComponent("molt") }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }()

    /// Runs `molt` with these arguments, in `directory` if given, with a fixed terminal width and no colour.
    ///
    /// With `shell`, the arguments go to `/bin/bash` instead, with `molt` on its `PATH`.
    static func run(_ arguments: [String], in directory: URL? = nil, shell: Bool = false) throws -> Result {
        guard let binary else {
            throw NotBuilt(
                description:
                    "The molt executable was not found next to the test bundle; build it (`swift build`) or set MOLT_BINARY."
            )
        }
        let process = Process()
        process.executableURL = shell ? URL(fileURLWithPath: "/bin/bash") : binary
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["COLUMNS"] = "100"
        process.environment = environment
        // Files rather than pipes: the child never blocks on a full pipe, whatever it prints.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("molt-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        let outData = try Data(contentsOf: outURL), errData = try Data(contentsOf: errURL)
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// A temporary folder, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("molt-cli-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Every file in a folder with its bytes, to prove that a command wrote nothing.
func snapshotOfFiles(in folder: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
        result[name] = try Data(contentsOf: folder.appendingPathComponent(name))
    }
    return result
}
