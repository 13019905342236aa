import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a program as a child process, timed from spawn to exit, with its peak resident memory (`ru_maxrss` from
/// `wait4`) and an optional time cap after which it is killed.
///
/// The CLI scenarios time the `molt` binary and the `sqlite3` tool this way; the scenarios whose current code is
/// catastrophically slow run their Molt side in a worker process through it, so that the cap can stop them.
enum ChildProcess {
    struct Outcome {
        /// Wall-clock seconds from spawn to exit (or to the kill, for a capped run).
        var seconds: Double
        /// The child's peak resident memory in MiB (`ru_maxrss`).
        var peakMiB: Double
        /// Whether the cap was reached and the child killed.
        var capped: Bool
        /// The exit status (or 128 + the signal).
        var status: Int32
        /// The child's process identifier (gone by the time this is returned).
        var pid: pid_t
    }

    /// Runs `executable` with `arguments`, standard output written to `stdout` (or discarded), standard error
    /// shared with this process, the environment of this process plus `environment`.
    ///
    /// - Throws: ``BenchmarkError`` when the program cannot be started.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], stdout: URL? = nil,
        cap: Double? = nil
    ) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let outputPath = stdout?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }

        // Linux's ru_maxrss keeps the high-water mark of the memory a spawned child shared with this process
        // until its exec: reset ours to the current size, and remember it as the floor under which ru_maxrss says
        // nothing of the child.
        PeakMemory.reset()
        let floor = PeakMemory.currentPeakMiB() ?? 0
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchmarkError(description: "cannot start \(executable.path): \(String(cString: strerror(spawned)))")
        }
        let watchdog = Watchdog(pid: pid, cap: cap)
        // Wait without reaping first, so that the watchdog never reads or signals a pid that was reused.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        let end = clock.now
        let (capped, sampled) = watchdog.finish()
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        #if os(Linux)
        let maxrss = Double(usage.ru_maxrss) / 1024  // KiB on Linux
        #else
        let maxrss = Double(usage.ru_maxrss) / 1_048_576  // bytes on Darwin
        #endif
        // Above the floor, ru_maxrss is the child's own peak, exactly; at the floor, the child stayed below it and
        // its `VmHWM`, read every few milliseconds while it ran, is the figure.
        let peak = maxrss > floor + 0.5 || sampled == 0 ? maxrss : sampled
        return Outcome(
            seconds: capped ? (cap ?? 0) : (end - start).seconds, peakMiB: peak, capped: capped, status: exit, pid: pid)
    }

    /// Reads a running child's `VmHWM` every few milliseconds, and kills it when the cap is reached.
    private final class Watchdog: @unchecked Sendable {
        private let lock = NSLock()
        private let pid: pid_t
        private var done = false
        private var killed = false
        private var peak = 0.0
        private let finished = DispatchSemaphore(value: 0)

        init(pid: pid_t, cap: Double?) {
            self.pid = pid
            let deadline = cap.map { DispatchTime.now() + $0 }
            Thread.detachNewThread { [self] in
                var reads = 0
                while true {
                    // Every millisecond at first, so that a short run is read at least once; then every 5 ms.
                    let next = DispatchTime.now() + .milliseconds(reads < 20 ? 1 : 5)
                    reads += 1
                    if finished.wait(timeout: deadline.map { min($0, next) } ?? next) == .success { return }
                    lock.lock()
                    defer { lock.unlock() }
                    if done { return }
                    if let hwm = PeakMemory.peakMiB(ofProcess: self.pid) { peak = max(peak, hwm) }
                    if let deadline, DispatchTime.now() >= deadline {
                        kill(self.pid, SIGKILL)
                        killed = true
                        return
                    }
                }
            }
        }

        /// Marks the child as exited (not yet reaped); tells whether it was killed, and its highest `VmHWM` read.
        func finish() -> (killed: Bool, peak: Double) {
            lock.lock()
            done = true
            let result = (killed, peak)
            lock.unlock()
            finished.signal()
            return result
        }
    }

    /// The `molt` CLI to time: `$MOLT_BINARY`, else the `molt` built next to this executable (the benchmark
    /// package depends on the `molt` product, so `swift build -c release --package-path Benchmarks` builds both),
    /// else the root package's `.build/release/molt`.
    static func moltBinary() throws -> URL {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["MOLT_BINARY"] {
            candidates.append(URL(fileURLWithPath: path))
        }
        candidates.append(selfExecutable().deletingLastPathComponent().appendingPathComponent("molt"))
        let here = URL(fileURLWithPath: #filePath)  // Benchmarks/Sources/MoltBenchmarks/Harness/ChildProcess.swift
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/release/molt"))
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw BenchmarkError(
                description:
                    "no molt binary: build it with `swift build -c release --package-path Benchmarks` (or set MOLT_BINARY); looked at \(candidates.map(\.path).joined(separator: ", "))"
            )
        }
        return found
    }

    /// The `sqlite3` command-line tool, from the `PATH`.
    static func sqlite3Binary() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("sqlite3")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw BenchmarkError(description: "no sqlite3 on the PATH: install it (Debian: apt-get install sqlite3)")
    }

    /// This benchmark's own executable, to start workers.
    static func selfExecutable() -> URL {
        let link = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return FileManager.default.fileExists(atPath: link.path) && link.path != "/proc/self/exe"
            ? link : URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    }

    /// Runs `sqlite3` on a database with SQL and dot-commands given as arguments, and returns its standard output
    /// (for untimed checks).
    static func sqlite3Output(_ database: String, _ commands: [String], scratch: URL) throws -> String {
        let output = scratch.appendingPathComponent("sqlite3-output-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        let outcome = try run(try sqlite3Binary(), [database] + commands, stdout: output)
        guard outcome.status == 0 else {
            throw BenchmarkError(description: "sqlite3 failed (exit \(outcome.status)) on \(commands)")
        }
        return try String(contentsOf: output, encoding: .utf8)
    }
}
