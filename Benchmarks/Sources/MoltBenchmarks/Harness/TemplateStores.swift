import Foundation

/// Fresh copies of a scenario's own stores of any size, from templates made once per process in the runner's
/// folder, measured the way ``Runner/measure(_:repetitions:)`` measures the memo stores: jobs in rounds
/// (A B C, A B C), each on a fresh, flushed copy.
final class TemplateStores {
    let runner: Runner
    /// What the stores hold, for file names and the log: "people".
    let name: String
    private let create: (Int, URL) throws -> Void
    private var templates: [Int: URL] = [:]
    private var copies = 0

    /// Stores made by `create(count, url)`.
    init(_ runner: Runner, name: String, create: @escaping (Int, URL) throws -> Void) {
        self.runner = runner
        self.name = name
        self.create = create
    }

    /// The template of `count` objects, made on first use.
    func template(count: Int) throws -> URL {
        if let existing = templates[count] { return existing }
        let url = runner.folder.appendingPathComponent("\(name)-\(count).sqlite")
        let start = ContinuousClock.now
        try create(count, url)
        log(
            "  made template of \(Runner.label(count)) \(name) in \(format(seconds: (ContinuousClock.now - start).seconds))"
        )
        templates[count] = url
        return url
    }

    func freshStore(count: Int) throws -> URL {
        let template = try template(count: count)
        copies += 1
        let copy = runner.folder.appendingPathComponent("\(name)-store-\(copies).sqlite")
        try Fixture.copy(template, to: copy)
        return copy
    }

    func measure(_ jobs: [Runner.Job], repetitions: Int) throws -> [Measurement] {
        try runner.measure(jobs, repetitions: repetitions, freshStore: freshStore(count:))
    }
}
