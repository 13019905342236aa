import Logging
import NIOCore
import PostgresNIO

/// Sends an import's queued rows (``PostgresInsertQueue``) with postgres-nio's `copyFrom`, an `async` call, from
/// the synchronous session of a ``PostgresLink`` without waiting for it and without depending on Swift's
/// cooperative pool.
///
/// The copy runs as a task whose executor is the connection's own event loop (``EventLoopTaskExecutor``): its
/// first step writes the `COPY` to the channel as a job of that loop, queued before anything the session sends
/// afterwards (which the channel also writes from that loop), so statements keep their order; and a caller that
/// later waits for its result (a thread of Molt's, or one of the cooperative pool) waits for the event loop only,
/// as for any other statement. Where task executors are not available (Apple systems before 2024), the copy is
/// awaited at once instead, so that nothing is sent before it.
struct PostgresCopy {
    let eventLoop: any EventLoop

    /// Starts the `COPY` of `rows` and returns its outcome, completed on the event loop.
    func send(_ rows: PostgresInsertQueue, on connection: PostgresConnection, logger: Logger) -> EventLoopFuture<Void> {
        let promise = eventLoop.makePromise(of: Void.self)
        let (table, columns, data) = (rows.table, rows.columns, rows.data)
        let copy: @Sendable () async -> Void = {
            do {
                try await connection.copyFrom(table: table, columns: columns, format: .text(.init()), logger: logger) {
                    writer in try await writer.write(data)
                }
                promise.succeed(())
            } catch {
                promise.fail(error)
            }
        }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *) {
            Task(executorPreference: EventLoopTaskExecutor(eventLoop), operation: copy)
            return promise.futureResult
        }
        Task(operation: copy)
        _ = try? promise.futureResult.wait()
        return promise.futureResult
    }
}

/// A task executor that runs its jobs on one event loop, in the order they come.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
