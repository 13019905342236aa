import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, in a process group of its own, with every signal at its default
/// action (so that `SIGXFSZ` kills it unless the program itself handles it) and its standard output and error
/// written to files.
///
/// The harness never blocks on a child: it polls (`waitpid(WNOHANG)`), which lets one thread run several children
/// at once, kill one at a chosen moment, and stop one that runs past its time limit.
///
/// ```swift
/// let child = try ChildProcess.spawn(["/usr/bin/molt", "info", store.path], scratch: folder)
/// let run = child.wait(timeout: 30)
/// print(run.termination, run.stdoutText)
/// ```
final class ChildProcess {
    let pid: pid_t
    let command: [String]
    let started: ContinuousClock.Instant
    private(set) var ended: ContinuousClock.Instant?
    private(set) var termination: Termination?
    private var timedOut = false
    private let stdoutURL: URL
    private let stdoutIsCallers: Bool
    private let stderrURL: URL

    private init(pid: pid_t, command: [String], stdoutURL: URL, stdoutIsCallers: Bool, stderrURL: URL) {
        self.pid = pid
        self.command = command
        self.started = ContinuousClock.now
        self.stdoutURL = stdoutURL
        self.stdoutIsCallers = stdoutIsCallers
        self.stderrURL = stderrURL
    }

    /// Starts `command` (an absolute executable path, then its arguments).
    ///
    /// - Parameters:
    ///   - command: The executable's absolute path and the arguments.
    ///   - scratch: A folder for the captured output files.
    ///   - stdoutFile: Where standard output goes and stays (for large outputs, such as exports); nil to capture it
    ///     in memory.
    ///   - environment: Variables to set or replace in the child's environment (the rest is the harness's).
    /// - Throws: ``HarnessError`` when the process cannot be started.
    static func spawn(
        _ command: [String], scratch: URL, stdoutFile: URL? = nil, environment: [String: String] = [:]
    ) throws -> ChildProcess {
        let token = UUID().uuidString.prefix(12)
        let stdoutURL = stdoutFile ?? scratch.appendingPathComponent("\(token).out")
        let stderrURL = scratch.appendingPathComponent("\(token).err")

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrURL.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes,
            Int16(Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK) | Int32(POSIX_SPAWN_SETPGROUP)))

        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw HarnessError("could not start \(command[0]): \(String(cString: strerror(status)))")
        }
        return ChildProcess(
            pid: pid, command: command, stdoutURL: stdoutURL, stdoutIsCallers: stdoutFile != nil, stderrURL: stderrURL)
    }

    /// Whether the child has ended; reaps it when it has.
    @discardableResult
    func poll() -> Bool {
        if termination != nil { return true }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return false }
        ended = ContinuousClock.now
        termination = Termination(waitStatus: status)
        return true
    }

    /// Sends `signal` to the child's process group (the child and anything it started, such as `sh -c`'s program).
    func send(_ signal: Int32) {
        guard termination == nil else { return }
        kill(-pid, signal)
    }

    /// Kills the child at once (SIGKILL) and reaps it.
    func killNow() {
        send(SIGKILL)
        while !poll() { usleep(200) }
    }

    /// Kills the child because it ran past its time limit: its run is then a hang, not a crash.
    func killForTimeout() {
        guard termination == nil else { return }
        timedOut = true
        killNow()
    }

    /// Whether the child has run longer than `limit` seconds.
    func isPast(_ limit: Double) -> Bool {
        (ContinuousClock.now - started).seconds > limit
    }

    /// Waits for the child to end; after `timeout` seconds it is killed and the run is marked as timed out.
    func wait(timeout: Double?) -> ProcessRun {
        while !poll() {
            if let timeout, isPast(timeout) {
                killForTimeout()
                break
            }
            usleep(500)
        }
        return result()
    }

    /// The finished run: its termination, output and duration. Reads and removes the captured files.
    func result() -> ProcessRun {
        precondition(termination != nil, "result() before the child ended")
        let stdout = stdoutIsCallers ? Data() : ((try? Data(contentsOf: stdoutURL)) ?? Data())
        let stderr = (try? Data(contentsOf: stderrURL)) ?? Data()
        if !stdoutIsCallers { try? FileManager.default.removeItem(at: stdoutURL) }
        try? FileManager.default.removeItem(at: stderrURL)
        return ProcessRun(
            command: command, termination: termination!, timedOut: timedOut, stdout: stdout,
            stderr: String(decoding: stderr, as: UTF8.self), seconds: ((ended ?? .now) - started).seconds,
            started: started, ended: ended ?? .now)
    }
}

/// How a child process ended: an exit status, or a signal.
enum Termination: Sendable, Equatable, CustomStringConvertible {
    case exited(Int32)
    case signaled(Int32)

    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// The exit status, or nil when a signal ended the process.
    var exitCode: Int32? {
        if case .exited(let code) = self { return code }
        return nil
    }

    /// Killed by a signal, or an exit status of 128 or more (how a shell reports a death by signal).
    var isCrash: Bool {
        switch self {
        case .signaled: return true
        case .exited(let code): return code >= 128
        }
    }

    var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "killed by \(Termination.signalName(signal))"
        }
    }

    static func signalName(_ signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM", SIGXFSZ: "SIGXFSZ", SIGXCPU: "SIGXCPU",
        ]
        return "\(names[signal] ?? "signal") (\(signal))"
    }
}

/// A finished child process: what ran, how it ended, what it printed and how long it took.
struct ProcessRun: Sendable {
    var command: [String]
    var termination: Termination
    /// The harness killed it after its time limit.
    var timedOut: Bool
    var stdout: Data
    var stderr: String
    var seconds: Double
    var started: ContinuousClock.Instant
    var ended: ContinuousClock.Instant

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var exitCode: Int32? { termination.exitCode }

    /// The command as one shell line, to paste into a terminal.
    var commandLine: String { Shell.quote(command) }

    /// How the run ended, for a report: `exit 3`, `killed by SIGILL (4)`, `timed out after 30.0 s`.
    var outcome: String {
        timedOut ? String(format: "timed out after %.1f s (killed)", seconds) : termination.description
    }

    /// What it printed, shortened for a report: standard error first, then standard output.
    var excerpt: String {
        var parts: [String] = []
        let error = stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        let output = stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        if !error.isEmpty { parts.append("stderr: " + Shell.shorten(error, 900)) }
        if !output.isEmpty { parts.append("stdout: " + Shell.shorten(output, 600)) }
        return parts.isEmpty ? "(no output)" : parts.joined(separator: "\n")
    }
}

/// Shell quoting and shortening of text for reports.
enum Shell {
    /// Quotes each word for a POSIX shell when it needs it.
    static func quote(_ words: [String]) -> String {
        words.map { word in
            let safe = word.unicodeScalars.allSatisfy {
                CharacterSet.alphanumerics.contains($0) || "-_./=:,+@%".unicodeScalars.contains($0)
            }
            return safe && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    /// The text cut to `limit` characters, with a note of how much was left out.
    static func shorten(_ text: String, _ limit: Int) -> String {
        guard text.count > limit else { return text }
        return String(text.prefix(limit)) + "… (\(text.count - limit) more characters)"
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
