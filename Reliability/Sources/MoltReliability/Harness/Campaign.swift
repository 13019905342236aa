import Foundation

/// One kind of the campaign (`sigkill`, `damaged-store`, …): it makes its cases, runs molt on them and judges
/// the results.
protocol CampaignKind: Sendable {
    /// The name `--only` takes.
    var name: String { get }
    /// One line for `--help` and the README.
    var summary: String { get }
    /// Runs every case.
    ///
    /// - Throws: ``HarnessError`` when the harness itself cannot go on (a fixture cannot be made); findings
    ///   about molt are outcomes, never errors.
    func run(_ campaign: Campaign) throws -> KindResult
}

/// What every kind shares: molt, the profile, the seed, the work folder and the fixtures.
final class Campaign: Sendable {
    let molt: Molt
    let profile: Profile
    let seed: UInt64
    /// Cases run at once by kinds whose cases are independent and untimed.
    let jobs: Int
    let work: URL
    let fixtures: Fixtures
    /// Uninterrupted migrations, by kind, size and journal mode (see ``reference(_:objects:mode:checkExport:)``).
    let references = LockedBox([String: ReferenceMigration]())

    init(molt: Molt, profile: Profile, seed: UInt64, jobs: Int, work: URL) throws {
        self.molt = molt
        self.profile = profile
        self.seed = seed
        self.jobs = jobs
        self.work = work
        fixtures = try Fixtures(folder: work.appendingPathComponent("fixtures"), molt: molt, seed: seed)
    }

    /// The random stream of one kind (or one part of a kind), the same whichever kinds run.
    func random(_ stream: String) -> SeededGenerator {
        SeededGenerator(seed: seed, stream: stream)
    }

    /// A fresh, empty folder under the work folder.
    func folder(_ path: String) throws -> URL {
        try StoreFiles.freshFolder(work.appendingPathComponent(path))
    }

    /// The pristine store of `objects` objects (see ``Fixtures``).
    func pristine(objects: Int) throws -> Fixtures.Pristine {
        try fixtures.pristine(objects: objects, log: log)
    }

    /// A progress line on standard error.
    @Sendable func log(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// `body` applied to every item, `jobs` at a time, results in the items' order.
    func parallelMap<Item: Sendable, Result: Sendable>(
        _ items: [Item], _ body: @escaping @Sendable (Item) -> Result
    ) -> [Result] {
        let results = LockedBox([Result?](repeating: nil, count: items.count))
        let next = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, items.count))) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < items.count else { return }
                let result = body(items[index])
                results.withLock { $0[index] = result }
            }
        }
        return results.withLock { $0.map { $0! } }
    }
}

/// A value shared between threads behind a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
