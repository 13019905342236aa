import ArgumentParser
import Foundation
import Molt

/// The `molt` command line: look into Molt stores, compare schemas, and plan, rehearse and run migrations.
///
/// The `molt` executable only calls ``main()``; every subcommand lives in this library so that it can be tested
/// and reused.
///
/// ```swift
/// // Sources/molt/main.swift
/// import MoltCLI
/// MoltCommand.main()
/// ```
///
/// Errors print one line on standard error, `error: ` followed by the message of the ``MoltError`` (which names
/// the problem and the fix), and exit with a code from the table in the discussion of `molt --help`.
public struct MoltCommand: ParsableCommand {
    /// The command's name, abstract, discussion (with the exit codes) and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "molt",
        abstract: "Look into Molt stores, compare schemas, and plan, rehearse and run migrations.",
        discussion: """
            A store is a Molt SQLite file; a schema snapshot is the JSON that Schema.snapshotJSON() writes. \
            Start with `molt demo`, then `molt info` on the store it leaves behind.

            Read commands print text, or JSON with --json. Nothing is written to a store except by `migrate`, \
            `import` and `recover`: the read commands open it read-only, and report a journal or log left by a \
            process that died instead of recovering it. A store that cannot be read is never touched.

            \(ExitStatus.helpText)
            """,
        version: "0.1.0",
        subcommands: [
            DemoCommand.self, InfoCommand.self, SchemaCommand.self, DiffCommand.self, PlanCommand.self,
            MigrateCommand.self, RehearseCommand.self, ExportCommand.self, ImportCommand.self, CheckCommand.self,
            RecoverCommand.self, ConvertModelCommand.self, AdoptCommand.self,
        ])

    /// Creates the command; argument-parser calls it.
    public init() {}

    /// Parses the process's arguments, runs the chosen command and exits with its status.
    ///
    /// A ``MoltError`` or a failure of the command line prints `error: <message>` on standard error and exits
    /// with its code; usage errors print argument-parser's message and usage, and exit with code 2.
    ///
    /// - Parameter arguments: The arguments without the program name; the process's own when nil.
    public static func main(_ arguments: [String]?) -> Never {
        // Past `ulimit -f`, a write fails with EFBIG (reported as a full disk, the store intact) instead of the
        // signal killing the process mid-transaction.
        signal(SIGXFSZ, SIG_IGN)
        do {
            // `molt migrate` adding a column is mostly start-up: its usual forms skip argument-parser's reflection.
            if let request = MigrateRequest(quickParsing: arguments ?? Array(CommandLine.arguments.dropFirst())) {
                try request.run()
            } else {
                var command = try parseAsRoot(arguments)
                try command.run()
            }
            Terminal.exit(.success)
        } catch let error as MoltError {
            Terminal.error("error: \(error.message)")
            Terminal.exit(ExitStatus(for: error))
        } catch let failure as CLIFailure {
            Terminal.error("error: \(failure.message)")
            Terminal.exit(failure.status)
        } catch {
            // argument-parser exits 64 (EX_USAGE) for usage errors; molt documents 2, as most command lines do.
            if exitCode(for: error) == .validationFailure {
                Terminal.error(fullMessage(for: error))
                Terminal.exit(.usage)
            }
            exit(withError: error)
        }
    }

    /// Runs `molt` with the process's arguments and exits; see ``main(_:)``.
    public static func main() -> Never { main(nil) }
}
