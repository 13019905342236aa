/// What a migration stage watches on the new side of the objects it hands out: every write, before it
/// happens (so that the old side can keep what it reads), and what the write did (for the run's counts).
package protocol StageObserver: AnyObject {
    /// Called before the new side writes to a table (its unquoted name): the columns an update sets, or nil
    /// when rows are inserted or deleted.
    func willWrite(table: String, columns: [String]?) throws
    /// Called after the new side inserted objects of an entity.
    func didInsert(_ entity: String, count: Int)
    /// Called after the new side changed the stored values of an object.
    func didUpdate(_ entity: String, id: Int64)
    /// Called after the new side deleted objects of an entity.
    func didDelete(_ entity: String, count: Int)
}

/// Where the old side of a stage reads: the old version's tables, or the snapshot of those the new side has
/// written to since the stage began.
package protocol StageLayoutSource: AnyObject {
    /// The layout of the old version, as it must be read now.
    var oldLayout: StoreLayout { get }
    /// Called when the old side hands out objects of an entity with every attribute: the stage has seen
    /// them, so values the new version removes may live on elsewhere rather than be lost.
    func didRead(_ entity: String)
}
