import Foundation
import GRDB

/// `molt-benchmarks [--json] [--quick] [--small N] [--large N] [--repetitions N] [--cap S | --no-cap] [--in-process] [scenario…]`
///
/// Runs each scenario in a child process of its own (so that peak memory figures do not mix), then prints
/// one table (or `--json`) of Molt against baselines measured in the same run. Exits 1 when a target is missed.
@main
struct MoltBenchmarks {
    struct Arguments {
        var json = false
        var inProcess = false
        var worker: String?
        var small: Int?
        var large: Int?
        var repetitions: Int?
        /// Seconds after which a capped run is stopped; nil (`--no-cap`) for none.
        var cap: Double? = 60
        var quick = false
        var names: [String] = []

        init(_ arguments: [String]) throws {
            var iterator = arguments.makeIterator()
            func number(_ option: String) throws -> Int {
                guard let text = iterator.next(), let value = Int(text), value > 0 else {
                    throw BenchmarkError(description: "\(option) needs a positive number")
                }
                return value
            }
            var capGiven = false
            while let argument = iterator.next() {
                switch argument {
                case "--json": json = true
                case "--in-process": inProcess = true
                case "--worker": worker = iterator.next()
                case "--small": small = try number(argument)
                case "--large": large = try number(argument)
                case "--repetitions": repetitions = try number(argument)
                case "--quick": quick = true
                case "--no-cap": (cap, capGiven) = (nil, true)
                case "--cap":
                    guard let text = iterator.next(), let value = Double(text), value > 0 else {
                        throw BenchmarkError(description: "--cap needs a positive number of seconds")
                    }
                    (cap, capGiven) = (value, true)
                case "--help", "-h":
                    print(MoltBenchmarks.usage)
                    exit(0)
                default:
                    if argument.hasPrefix("-") {
                        throw BenchmarkError(description: "unknown option \(argument)\n\(MoltBenchmarks.usage)")
                    }
                    names.append(argument)
                }
            }
            if quick && !capGiven { cap = 30 }
        }

        // `--quick` makes every size small and the rounds few, unless an option says otherwise.
        var smallCount: Int { small ?? (quick ? 100 : 1_000) }
        var largeCount: Int { large ?? (quick ? 10_000 : 1_000_000) }
        var rounds: Int { repetitions ?? (quick ? 2 : 5) }

        /// The options a child process needs to run one scenario (or one job) like its parent would.
        var childArguments: [String] {
            var result = ["--small", "\(smallCount)", "--large", "\(largeCount)", "--repetitions", "\(rounds)"]
            result += cap.map { ["--cap", "\($0)"] } ?? ["--no-cap"]
            if quick { result.append("--quick") }
            return result
        }

        func runner() throws -> Runner {
            try Runner(
                smallCount: smallCount, largeCount: largeCount, repetitions: rounds, cap: cap, quick: quick,
                workerArguments: childArguments)
        }
    }

    static var usage: String {
        """
        usage: molt-benchmarks [--json] [--quick] [--small N] [--large N] [--repetitions N] [--cap SECONDS | --no-cap]
                               [--in-process] [scenario…]
          --quick          smoke run: 10k objects, 2 rounds, 30 s cap (figures are not measurements)
          --large N        objects in the large store (default 1,000,000); --small N (default 1,000)
          --repetitions N  rounds (default 5; millisecond operations get 5x, at least 15)
          --cap SECONDS    stop a run that the current code makes catastrophically slow after this long
                           (default 60); its figure is printed as "≥ cap" and not repeated. --no-cap: none
          --in-process     no child process per scenario (for a profiler)
        scenarios:
        \(Scenarios.all.map { "  \($0.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))
        """
    }

    static func main() {
        do {
            let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
            if let worker = arguments.worker {
                try runWorker(worker, arguments)
                return
            }
            let unknown = arguments.names.filter { name in !Scenarios.all.contains { $0.name == name } }
            guard unknown.isEmpty else {
                throw BenchmarkError(description: "unknown scenario \(unknown.joined(separator: ", "))\n\(usage)")
            }
            let selected =
                arguments.names.isEmpty ? Scenarios.all : Scenarios.all.filter { arguments.names.contains($0.name) }
            let clock = ContinuousClock()
            let start = clock.now
            var comparisons: [Comparison] = []
            for scenario in selected {
                log("\(scenario.name): \(scenario.summary)")
                comparisons +=
                    arguments.inProcess ? try scenario.run(arguments.runner()) : try runChild(scenario.name, arguments)
            }
            log("total \(format(seconds: (clock.now - start).seconds))")
            if arguments.json {
                print(try Report.json(comparisons, environment: environment(arguments)))
            } else {
                print(Report.table(comparisons))
                print(
                    environment(arguments).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(
                        separator: "; "))
            }
            exit(comparisons.allSatisfy { $0.passed ?? true } ? 0 : 1)
        } catch {
            log("molt-benchmarks: \(error)")
            exit(2)
        }
    }

    /// In a child: runs one scenario and writes its comparisons as JSON on standard output.
    static func runWorker(_ name: String, _ arguments: Arguments) throws {
        guard let scenario = Scenarios.all.first(where: { $0.name == name }) else {
            throw BenchmarkError(description: "unknown scenario \(name)")
        }
        let runner = try arguments.runner()
        if let job = ProcessInfo.processInfo.environment[Runner.jobVariable] {
            try runner.runJob(job, of: scenario)
            return
        }
        let comparisons = try scenario.run(runner)
        FileHandle.standardOutput.write(try JSONEncoder().encode(comparisons))
    }

    /// Runs one scenario in a child process of this executable and reads its comparisons back.
    static func runChild(_ name: String, _ arguments: Arguments) throws -> [Comparison] {
        let process = Process()
        process.executableURL = ChildProcess.selfExecutable()
        process.arguments = ["--worker", name] + arguments.childArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError(description: "scenario \(name) failed (exit \(process.terminationStatus))")
        }
        return try JSONDecoder().decode([Comparison].self, from: data)
    }

    static func environment(_ arguments: Arguments) -> [String: String] {
        var result = [
            "small": "\(arguments.smallCount)", "large": "\(arguments.largeCount)",
            "repetitions": "\(arguments.rounds)",
            "cap": arguments.cap.map { format(seconds: $0) } ?? "none",
        ]
        if arguments.quick { result["quick"] = "yes (smoke run: not measurements)" }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent(
            "molt-benchmarks-probe-\(ProcessInfo.processInfo.processIdentifier).sqlite")
        if (try? Fixture.create(rows: 1, at: probe)) != nil, let settings = try? Fixture.settings(at: probe) {
            result["journal"] = "\(settings) (Molt's migration connection and the baselines)"
        }
        Fixture.remove(probe)
        if let queue = try? DatabaseQueue(),
            let version = try? queue.read({ try String.fetchOne($0, sql: "SELECT sqlite_version()") }),
            let secure = try? queue.read({ try Int.fetchOne($0, sql: "PRAGMA secure_delete") })
        {
            result["sqlite"] = version
            result["secure_delete default"] = secure == 1 ? "on" : "\(secure)"
        }
        result["cpus"] = "\(ProcessInfo.processInfo.activeProcessorCount)"
        return result
    }
}
