import Foundation

extension Migration {
    /// Enumerates the objects of several concrete entities of one hierarchy's table in one pass over it, in
    /// identifier order, each row's entity told by its `_entity`: what `enumerateObjects(ofType:)` of a parent
    /// does, so that a stage over a hierarchy reads its table once rather than once per entity.
    ///
    /// - Returns: False, having read nothing, when the entities cannot be read together (a column two of them
    ///   read as different types, or new objects in different tables): then each entity takes a pass of its own.
    func enumerateTogether(
        _ members: [(old: Entity, new: Entity)], label: String, counts: [String: Int],
        _ body: (MigrationObject, inout MigrationObject) throws -> Void
    ) throws -> Bool {
        guard Set(members.map { workspace.newLayout.table($0.new.name) }).count == 1 else { return false }
        var writers = members.map { EnumerationWriter(self, $0.old, $0.new) }
        var pass = EnumerationPass(
            migration: self,
            members: zip(members, writers).map {
                EnumerationPass.Member(oldEntity: $0.0.old, newEntity: $0.0.new, newColumns: $0.1.newColumns)
            })
        guard pass.isConsistent else { return false }
        let oldShapes = members.map {
            ObjectShape(
                entity: $0.old, version: fromVersion, aliases: renamedProperties[$0.old.name] ?? [:], tracksReads: true)
        }
        defer {
            for (shape, member) in zip(oldShapes, members) {
                workspace.didRead(shape.readAttributes, of: member.old.name)
            }
        }
        var olds = oldShapes.map { MigrationObject(shape: $0) }
        var news = writers.map { MigrationObject(shape: $0.newShape) }
        run.begin(
            "enumerating '\(label)'", entity: label, total: members.reduce(0) { $0 + (counts[$1.old.name] ?? 0) })
        var done = 0
        while try pass.next() {
            let batch = pass.reader.batch
            for row in 0..<batch.count {
                guard let member = pass.member(ofRow: row) else { continue }
                let id = batch.ids[row]
                olds[member].refill(id: id, from: batch, row: row, slots: pass.members[member].oldSlots)
                if news[member].shape !== writers[member].newShape
                    || news[member].values.count != pass.members[member].newSlots.count
                {
                    news[member] = MigrationObject(shape: writers[member].newShape)
                }
                news[member].refill(id: id, from: batch, row: row, slots: pass.members[member].newSlots)
                try body(olds[member], &news[member])
                try writers[member].save(news[member], id: id)
            }
            done += batch.count
            run.report(completed: done)
            try run.checkCancellation()
        }
        return true
    }
}
