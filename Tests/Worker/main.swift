import Foundation
import Molt
import MoltAdoption
import MoltPostgres

// A child process for MoltTests' crash and concurrency tests.
//
//     molt-test-worker open STORE SCHEMA.json rollback|wal|postgres [--hold] [--adopt-coredata MODEL] [--adopt-realm]
//
// With `--adopt-coredata MODEL`, a Core Data store found at STORE is adopted first (MoltAdoption), with the model
// at MODEL (an .xcdatamodeld or .xcdatamodel folder); with `--adopt-realm`, a Realm file found there.
// Opens (and so migrates) the store at STORE (a file, or with `postgres` a `postgres://…?schema=NAMESPACE` URL) with the schema read from SCHEMA.json (a `snapshotJSON()`), then
// prints "opened VERSION" and exits 0. While a migration runs it prints "migrating" when the first progress
// report comes, so that a test can kill it mid-migration. With `--hold` it also prints "holding" when the
// progress reaches 100 % (every row written, nothing committed yet) and then sleeps until it is killed.
// Errors print "error CODE: MESSAGE" and exit 1.

/// Prints a line at once (stdout is a pipe, which `print` would buffer).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    say("error usage: \(message)")
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 4, arguments[0] == "open" else {
    fail("molt-test-worker open STORE SCHEMA.json rollback|wal|postgres [--hold]")
}
let holds = arguments.dropFirst(4).contains("--hold")
let adoptedModel = arguments.firstIndex(of: "--adopt-coredata").flatMap {
    arguments.indices.contains($0 + 1) ? URL(fileURLWithPath: arguments[$0 + 1]) : nil
}

do {
    let schema = try Schema(snapshotJSON: Data(contentsOf: URL(fileURLWithPath: arguments[2])))
    var options = Store.Options()
    let location: StoreLocation
    switch arguments[3] {
    case "wal":
        options.journalMode = .wal
        location = .file(URL(fileURLWithPath: arguments[1]))
    case "rollback":
        options.journalMode = .rollback
        location = .file(URL(fileURLWithPath: arguments[1]))
    case "postgres":
        guard let url = URL(string: arguments[1]) else { fail("not a URL: \(arguments[1])") }
        location = try .postgres(url)
    default: fail("the engine must be rollback, wal or postgres, not \(arguments[3])")
    }
    let started = LockedFlag()
    options.progress = { progress in
        if started.setOnce() { say("migrating") }
        if holds && progress.fractionCompleted >= 1 {
            say("holding")
            // Killed by the test long before this; never outlive a test run that died.
            sleep(120)
            say("error timeout: held for 120 s without being killed")
            exit(3)
        }
    }
    if let adoptedModel { options = options.adopting(.coreData(model: adoptedModel)) }
    if arguments.contains("--adopt-realm") { options = options.adopting(.realm()) }
    let store = try Store.open(at: location, schema: schema, options: options)
    let version = store.schema.version
    try store.close()
    say("opened \(version)")
    exit(0)
} catch let error as MoltError {
    say("error \(error.code): \(error.message)")
    exit(1)
} catch {
    say("error other: \(error)")
    exit(1)
}

/// A flag set once, from whichever thread reports progress.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var isSet = false

    /// Sets the flag; returns whether this call set it.
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if isSet { return false }
        isSet = true
        return true
    }
}
