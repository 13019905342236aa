import ArgumentParser
import Foundation
import Molt

/// `molt recover STORE`: applies or discards what a process that died while writing left beside a store (a
/// rollback journal, a write-ahead log), which the read commands report instead of touching.
struct RecoverCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recover",
        abstract: "Recover a store left by a process that died while writing it (a journal or a write-ahead log).",
        discussion: """
            A process killed in the middle of a write leaves a rollback journal (STORE-journal) or a write-ahead log \
            with committed changes (STORE-wal) beside the store. Any command that writes recovers it first, as \
            SQLite does; the read commands (info, schema, export, plan, rehearse, check) never write, so they \
            report it and point here. recover rolls back the unfinished write, or copies the log's committed \
            changes into the store, and changes nothing else. A store with nothing to recover is not written.
            """)

    @Argument(
        help: ArgumentHelp(
            "The store's file (a PostgreSQL store rolls back in the server on its own).", valueName: "store"))
    var store: String

    func validate() throws {
        if store.isEmpty { throw ValidationError("The store's path is empty.") }
    }

    func run() throws {
        let url = try Files.existingStoreURL(store)
        guard let done = try Store.recover(at: url) else {
            Terminal.line(
                "Nothing to recover: \(url.path) has no journal or log left by a process that stopped while writing.")
            return
        }
        Terminal.line("Recovered \(url.path): \(done).")
    }
}
