/// Foreign keys are not enforced during a migration: after objects are deleted in bulk (a stage's deletes, a
/// version's declared deletion of a sub-entity), the links to and from them are unlinked here, one statement per
/// relationship that may hold such a link: to-one columns set to null, join-table rows deleted.
enum LinkSweep {
    /// Unlinks, in the tables `layout` gives `schema`'s entities, every link whose object is gone from one of
    /// `tables` (physical table names), or from any table when `tables` is nil (a cascade may reach any).
    static func sweep(
        _ schema: Schema, _ layout: StoreLayout, from tables: Set<String>?, in db: any SQLConnection
    ) throws {
        if let tables, tables.isEmpty { return }
        let q = db.dialect.quote
        let id = q(StoreLayout.idColumn)
        let touched = { (entity: String) in tables?.contains(layout.physicalTable(entity)) ?? true }
        for entity in schema.entities {
            for relationship in entity.relationships {
                let destination = layout.table(relationship.destination)
                switch relationship.kind {
                case .toOne where touched(relationship.destination):
                    let column = layout.column(entity.name, relationship.name)
                    try db.execute(
                        .update,
                        "UPDATE \(layout.table(entity.name)) SET \(column) = NULL WHERE \(column) IS NOT NULL AND \(column) NOT IN (SELECT \(id) FROM \(destination))"
                    )
                case .toMany where touched(relationship.destination) || touched(entity.name):
                    try db.execute(
                        .update,
                        """
                        DELETE FROM \(layout.joinTable(entity.name, relationship.name))
                        WHERE \(q(StoreLayout.ownerColumn)) NOT IN (SELECT \(id) FROM \(layout.table(entity.name)))
                           OR \(q(StoreLayout.targetColumn)) NOT IN (SELECT \(id) FROM \(destination))
                        """)
                default:
                    continue
                }
            }
        }
    }
}
