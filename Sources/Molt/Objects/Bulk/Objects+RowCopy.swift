import Foundation

extension Objects {
    /// Writes a bulk copy (``RowCopy``) from another file, attached to this transaction's connection as
    /// ``RowCopy/sourceSchema`` (``Store/create(at:schema:attaching:_:)``), into the objects of a new store, and
    /// proves it before it is kept: the engine's `INSERT … SELECT` per entity and per relationship, then the checks
    /// of an import (``ObjectImporter/finish(identifierMarks:)``: every link's target exists, the sides of a
    /// relationship agree, a side the copy left out is filled from its inverse), then the proof that every row and
    /// pair of the source is in the store, converted exactly.
    ///
    /// - Parameter identifierMarks: The largest identifier each entity of the source ever handed out: the store
    ///   hands out none of them again.
    /// - Returns: The proof, entity by entity; or why the copy cannot be made exactly (a value it does not convert,
    ///   a statement that failed, an engine without a bulk copy), with nothing written, for the caller to copy
    ///   object by object.
    package func copyRows(_ copy: RowCopy, identifierMarks: [String: Int64]) throws -> RowCopy.Outcome {
        let importer = try ObjectImporter(self, keepingIDs: true)
        let outcome = try db.copyRows(copy, layout: layout, schema: schema) { given in
            for (entityName, relationshipName) in given {
                guard let entity = schema.effectiveEntity(named: entityName),
                    let relationship = entity.relationship(named: relationshipName)
                else { continue }
                importer.noteGiven(entity, relationship)
            }
            try importer.finish(identifierMarks: identifierMarks)
        }
        return outcome ?? .unfit("the store's engine has no bulk copy")
    }
}
