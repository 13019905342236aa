import Foundation

/// The `molt` binary under test, run as a black box: arguments in; exit status, output and duration out.
///
/// ```swift
/// let run = try molt.run(["info", "--json", store.path])
/// if run.termination.isCrash { … }
/// ```
struct Molt: Sendable {
    /// The binary's absolute path.
    let path: String
    /// A folder for captured output.
    let scratch: URL
    /// Seconds after which a run counts as a hang and is killed.
    let timeout: Double

    /// Set in molt's environment: a crash still ends the process with its signal and Swift's one-line fatal error,
    /// but without the symbolicated backtrace, which takes about two seconds a crash.
    static let environment = ["SWIFT_BACKTRACE": "enable=no"]

    /// `molt ARGUMENTS` as a command line.
    func command(_ arguments: [String]) -> [String] { [path] + arguments }

    /// Runs `molt ARGUMENTS` to its end, or until its time limit.
    func run(_ arguments: [String], timeout: Double? = nil, stdoutFile: URL? = nil) throws -> ProcessRun {
        try spawn(arguments, stdoutFile: stdoutFile).wait(timeout: timeout ?? self.timeout)
    }

    /// Starts `molt ARGUMENTS` and returns at once.
    func spawn(_ arguments: [String], stdoutFile: URL? = nil) throws -> ChildProcess {
        try ChildProcess.spawn(
            command(arguments), scratch: scratch, stdoutFile: stdoutFile, environment: Self.environment)
    }

    /// Runs any command (an absolute path first; `sh -c '…; exec molt …'`) to its end, or until the time limit.
    func runCommand(_ command: [String], timeout: Double? = nil) throws -> ProcessRun {
        try ChildProcess.spawn(command, scratch: scratch, environment: Self.environment).wait(
            timeout: timeout ?? self.timeout)
    }

    /// Builds `molt` from the repository (`swift build -c release --product molt`) and returns its path.
    ///
    /// The build's output goes to standard error, so that a long first build shows its progress.
    static func build(repository: URL, log: (String) -> Void) throws -> String {
        let swift = [
            "/usr/bin/env", "swift", "build", "-c", "release", "--product", "molt", "--package-path", repository.path,
        ]
        log("building molt: \(Shell.quote(Array(swift.dropFirst())))")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: swift[0])
        process.arguments = Array(swift.dropFirst())
        process.standardOutput = FileHandle.standardError
        process.standardError = FileHandle.standardError
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw HarnessError(
                "`swift build -c release --product molt` failed (exit \(process.terminationStatus)); fix the build or give --molt PATH"
            )
        }
        let binary = repository.appendingPathComponent(".build/release/molt").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw HarnessError("the build succeeded but \(binary) is not there; give --molt PATH")
        }
        return binary
    }

    /// The repository that holds this package: two folders up from `Reliability/Package.swift`'s sources.
    static var repository: URL {
        URL(fileURLWithPath: #filePath)  // Reliability/Sources/MoltReliability/Harness/Molt.swift
            .deletingLastPathComponent()  // Harness
            .deletingLastPathComponent()  // MoltReliability
            .deletingLastPathComponent()  // Sources
            .deletingLastPathComponent()  // Reliability
            .deletingLastPathComponent()  // the repository
    }
}
