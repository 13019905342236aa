import Foundation
import Molt

/// Up to `size` resources (sessions, or the one turn of the store's writer), made on demand and lent to one
/// borrower at a time: a thread that borrows waits on a condition, a task suspends, and neither ever waits on an
/// event loop.
///
/// A borrower gives its resource back, or drops it when it is unusable (a session that went away); the next
/// borrower then gets a new one. Waiters are served in order, tasks and threads alike.
///
/// ```swift
/// let sessions = PostgresPool(size: 16) { try PostgresLink.connect(configuration, namespace: "notes", context: .objects) }
/// let link = try await sessions.borrow()
/// defer { sessions.giveBack(link) }
/// ```
final class PostgresPool<Resource>: @unchecked Sendable {
    private let condition = NSCondition()
    private let size: Int
    private let make: () throws -> Resource
    private var idle: [Resource] = []
    private var made = 0
    private var closed = false
    /// Whoever waits for a resource, first come first served: a thread (no continuation: it waits on the
    /// condition until its ticket is granted) or a task.
    private var waiters: [(ticket: Int, task: CheckedContinuation<Void, Never>?)] = []
    private var nextTicket = 0
    /// What the waiters that were served but have not woken up yet were granted.
    private var granted: [Int: Grant] = [:]
    private let closedError: @Sendable () -> MoltError

    /// What a borrower gets: an idle resource, or the right to make one.
    private enum Grant {
        case resource(Resource)
        case make
    }

    /// - Parameters:
    ///   - size: The most resources lent at once (at least 1).
    ///   - closedError: What borrowing after ``close()`` throws.
    ///   - make: Makes a resource when none is idle and fewer than `size` exist; called outside the pool's lock.
    init(size: Int, closedError: @escaping @Sendable () -> MoltError, make: @escaping () throws -> Resource) {
        self.size = max(1, size)
        self.closedError = closedError
        self.make = make
    }

    /// Lends a resource, waiting on the calling thread while all are lent.
    func borrow() throws -> Resource {
        condition.lock()
        let grant = Result { try grantOrWait() }
        condition.unlock()
        return try use(grant.get())
    }

    /// Lends a resource, suspending the task (not its thread) while all are lent.
    func borrow() async throws -> Resource {
        switch try grantOrQueue() {
        case .granted(let grant):
            return try use(grant)
        case .queued(let ticket):
            await withCheckedContinuation { attach($0, to: ticket) }
            return try use(claimAfterWaking(ticket))
        }
    }

    /// Gives a resource back to the next waiter, or to the idle ones.
    func giveBack(_ resource: Resource) {
        condition.lock()
        serve(.resource(resource))
    }

    /// Forgets a lent resource that is unusable: the next borrower makes a new one.
    func drop() {
        condition.lock()
        made -= 1
        serve(nil)
    }

    /// Refuses every later borrower, wakes the waiting ones (who throw) and returns the idle resources, for the
    /// caller to close; resources still lent are the borrowers' to close (``giveBack(_:)`` hands them back).
    @discardableResult
    func close() -> [Resource] {
        condition.lock()
        closed = true
        var resources = idle
        for case .resource(let resource) in granted.values { resources.append(resource) }
        idle = []
        granted = [:]
        let tasks = waiters.compactMap(\.task)
        waiters = []
        condition.broadcast()
        condition.unlock()
        for task in tasks { task.resume() }
        return resources
    }

    /// The resources given back after ``close()``, for the caller to close.
    func leftovers() -> [Resource] {
        condition.lock()
        defer { condition.unlock() }
        let resources = idle
        idle = []
        return resources
    }

    // MARK: - Under the lock

    private enum Turn {
        case granted(Grant)
        case queued(Int)
    }

    private func grantOrQueue() throws -> Turn {
        condition.lock()
        defer { condition.unlock() }
        if let grant = try grantNow() { return .granted(grant) }
        return .queued(enqueue(task: nil))
    }

    /// Lets the task wait for `ticket`, or resumes it at once when the ticket was served (or the pool closed)
    /// meanwhile.
    private func attach(_ task: CheckedContinuation<Void, Never>, to ticket: Int) {
        condition.lock()
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else {
            condition.unlock()
            task.resume()
            return
        }
        waiters[index].task = task
        condition.unlock()
    }

    private func grantOrWait() throws -> Grant {
        if let now = try grantNow() { return now }
        let ticket = enqueue(task: nil)
        while granted[ticket] == nil && !closed { condition.wait() }
        return try claim(ticket)
    }

    private func claimAfterWaking(_ ticket: Int) throws -> Grant {
        condition.lock()
        defer { condition.unlock() }
        return try claim(ticket)
    }

    /// An idle resource, or the right to make one when the pool may grow; nil when the caller must wait.
    private func grantNow() throws -> Grant? {
        if closed { throw closedError() }
        guard waiters.isEmpty else { return nil }
        if let resource = idle.popLast() { return .resource(resource) }
        guard made < size else { return nil }
        made += 1
        return .make
    }

    /// The resource, made when `grant` is the right to make one. Called outside the lock.
    private func use(_ grant: Grant) throws -> Resource {
        switch grant {
        case .resource(let resource): return resource
        case .make:
            do {
                return try make()
            } catch {
                drop()
                throw error
            }
        }
    }

    private func enqueue(task: CheckedContinuation<Void, Never>?) -> Int {
        nextTicket += 1
        waiters.append((nextTicket, task))
        return nextTicket
    }

    /// What `ticket` was granted; throws when the pool was closed instead.
    private func claim(_ ticket: Int) throws -> Grant {
        guard let grant = granted.removeValue(forKey: ticket) else { throw closedError() }
        return grant
    }

    /// Grants `grant` (nil: the right to make a resource, after one was dropped) to the first waiter, or keeps it
    /// idle. Locked on entry, unlocked on return.
    private func serve(_ grant: Grant?) {
        guard !closed, !waiters.isEmpty else {
            if case .resource(let resource) = grant { idle.append(resource) }
            condition.unlock()
            return
        }
        let waiter = waiters.removeFirst()
        if grant == nil { made += 1 }
        granted[waiter.ticket] = grant ?? .make
        if waiter.task == nil { condition.broadcast() }
        condition.unlock()
        waiter.task?.resume()
    }
}
