import Foundation
import Molt
import Testing

/// The results an observation delivered, its error, and how many times its read ran: what the observation
/// suites wait on (with generous timeouts, never a fixed sleep) and compare.
final class ObservationRecorder<Value: Sendable>: Sendable {
    private let state = LockedValue((values: [Value](), error: (any Error)?.none, ended: false))
    private let runCount = LockedValue(0)

    var values: [Value] { state.withLock { $0.values } }
    var error: (any Error)? { state.withLock { $0.error } }
    var runs: Int { runCount.withLock { $0 } }

    func append(_ value: Value) { state.withLock { $0.values.append(value) } }
    func fail(_ error: any Error) { state.withLock { $0.error = error } }
    func didRun() { runCount.withLock { $0 += 1 } }

    /// Starts `read` observed on `store`, recording its runs and results.
    func start(
        _ store: Store, dedupe: Bool = true, _ read: @escaping @Sendable (Objects) throws -> Value
    ) -> ObservationToken where Value: Equatable {
        let observation = store.observe { objects in
            self.didRun()
            return try read(objects)
        }
        return (dedupe ? observation.removeDuplicates() : observation).start(
            onError: { self.fail($0) }, onChange: { self.append($0) })
    }

    /// Waits until the delivered results satisfy `condition`; records an issue after `timeout`.
    @discardableResult
    func wait(
        timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([Value]) -> Bool
    ) async throws -> [Value] {
        try await Self.eventually(timeout: timeout, sourceLocation: sourceLocation) { condition(self.values) }
        return values
    }

    /// Waits until the observation failed; records an issue after `timeout`.
    func waitForError(
        timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> (any Error)?
    {
        try await Self.eventually(timeout: timeout, sourceLocation: sourceLocation) { self.error != nil }
        return error
    }

    /// Waits until `condition` holds, checking every few milliseconds; records an issue after `timeout`.
    static func eventually(
        isolation: isolated (any Actor)? = #isolation, timeout: Duration = .seconds(120),
        sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(timeout)", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
    }
}
