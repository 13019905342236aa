import Foundation

/// The campaign's pristine stores and input files, made once per run and shared by the kinds.
///
/// A pristine store is made by `molt import` from generated data at version 1 (WAL, as molt creates stores); its
/// rollback-journal twin is the same file switched with `PRAGMA journal_mode = DELETE`. Kinds copy them; they never
/// change them.
final class Fixtures: @unchecked Sendable {
    /// A store of version 1 with known objects.
    struct Pristine: Sendable {
        var objects: Int
        var data: ClinicData
        var wal: URL
        var rollback: URL
        /// The digest of its tables (``StoreProbe``), the same for both journal modes.
        var digest: UInt64

        func url(_ mode: JournalMode) -> URL { mode == .wal ? wal : rollback }
    }

    let folder: URL
    let molt: Molt
    let seed: UInt64
    private let lock = NSLock()
    private var stores: [Int: Pristine] = [:]
    private var exports: [Int: URL] = [:]
    private var targets: [String: (snapshot: URL, mapping: URL?)] = [:]

    /// Version 1's snapshot file, `1.json`.
    let version1: URL

    init(folder: URL, molt: Molt, seed: UInt64) throws {
        self.folder = try StoreFiles.freshFolder(folder)
        self.molt = molt
        self.seed = seed
        version1 = folder.appendingPathComponent("1.json")
        try StoreFiles.write(ClinicSchema.version1.text(), to: version1)
    }

    /// The target snapshot (`<kind>/2.json`) and mapping file of a migration kind.
    func files(for kind: MigrationKind) throws -> (snapshot: URL, mapping: URL?) {
        lock.lock()
        defer { lock.unlock() }
        if let files = targets[kind.name] { return files }
        let kindFolder = try StoreFiles.freshFolder(folder.appendingPathComponent(kind.name))
        let snapshot = kindFolder.appendingPathComponent("2.json")
        try StoreFiles.write(kind.target.text(), to: snapshot)
        var mapping: URL?
        if let mappingJSON = kind.mapping {
            mapping = kindFolder.appendingPathComponent("mapping.json")
            try StoreFiles.write(mappingJSON.text(), to: mapping!)
        }
        targets[kind.name] = (snapshot, mapping)
        return (snapshot, mapping)
    }

    /// `migrate STORE --to 2.json [--mapping mapping.json]` for a migration kind.
    func migrateArguments(_ store: URL, _ kind: MigrationKind) throws -> [String] {
        let (snapshot, mapping) = try files(for: kind)
        return ["migrate", store.path, "--to", snapshot.path] + (mapping.map { ["--mapping", $0.path] } ?? [])
    }

    /// The pristine store of `objects` objects, made on first use.
    func pristine(objects: Int, log: (String) -> Void) throws -> Pristine {
        lock.lock()
        defer { lock.unlock() }
        if let store = stores[objects] { return store }
        let start = ContinuousClock.now
        let data = ClinicData.generate(objects: objects, seed: seed)
        let dataFile = folder.appendingPathComponent("data-\(objects).json")
        try StoreFiles.write(data.importFile(), to: dataFile)
        let wal = folder.appendingPathComponent("pristine-\(objects).sqlite")
        StoreFiles.remove(wal)
        let run = try molt.run(
            ["import", wal.path, "--schema", version1.path, dataFile.path], timeout: 120 + Double(objects) * 0.003)
        guard run.exitCode == 0, !run.timedOut else {
            throw HarnessError("could not make the pristine store: \(run.commandLine) → \(run.outcome)\n\(run.excerpt)")
        }
        let rollback = folder.appendingPathComponent("pristine-\(objects)-rollback.sqlite")
        try StoreFiles.copy(wal, to: rollback)
        try JournalMode.rollback.apply(to: rollback)
        let probeCopy = folder.appendingPathComponent("probe-\(objects).sqlite")
        try StoreFiles.copy(wal, to: probeCopy)
        let probe = try StoreProbe(probeCopy)
        StoreFiles.remove(probeCopy)
        guard probe.isSound, probe.version == 1 else {
            throw HarnessError(
                "the pristine store \(wal.path) made by molt import is not sound: \(probe.problems.joined(separator: "; "))"
            )
        }
        let store = Pristine(objects: objects, data: data, wal: wal, rollback: rollback, digest: probe.digest)
        stores[objects] = store
        log(
            String(
                format: "  made the pristine store of %d objects in %.1f s", objects,
                (ContinuousClock.now - start).seconds))
        return store
    }

    /// `molt export` of the pristine store of `objects` objects, in a file, made on first use.
    func pristineExport(objects: Int, log: (String) -> Void) throws -> (file: URL, run: ProcessRun?) {
        let store = try pristine(objects: objects, log: log)
        lock.lock()
        defer { lock.unlock() }
        if let file = exports[objects] { return (file, nil) }
        let copy = folder.appendingPathComponent("export-source-\(objects).sqlite")
        try StoreFiles.copy(store.wal, to: copy)
        defer { StoreFiles.remove(copy) }
        let file = folder.appendingPathComponent("export-\(objects).json")
        let run = try molt.run(["export", copy.path], timeout: 120 + Double(objects) * 0.002, stdoutFile: file)
        guard run.exitCode == 0, !run.timedOut else {
            throw HarnessError(
                "could not export the pristine store: \(run.commandLine) → \(run.outcome)\n\(run.excerpt)")
        }
        exports[objects] = file
        return (file, run)
    }
}
