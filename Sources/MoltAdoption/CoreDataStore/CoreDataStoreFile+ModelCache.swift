import Foundation
import GRDB
import Molt

extension CoreDataStoreFile {
    /// The model the store carries in `Z_MODELCACHE` (``CoreDataModelCache``).
    ///
    /// - Throws: `MoltError` (`invalidSchema`) when the store has no model cache (older stores, or one Core Data
    ///   removed) or it cannot be read, naming what to give instead.
    package func storedModel() throws -> CoreDataModel {
        let blob = try queue.read { db -> [UInt8]? in
            guard columns["Z_MODELCACHE"] != nil else { return nil }
            return try Data.fetchOne(db, sql: "SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").map(Array.init)
        }
        guard let blob, !blob.isEmpty else {
            throw MoltError(
                .invalidSchema,
                "The store at \(originalPath) carries no copy of its model (Core Data keeps one in Z_MODELCACHE since iOS 10 and macOS 10.12): give the app's Core Data model (--model), or Molt schemas of its entities (--schema). Nothing was adopted and the store was left as it was."
            )
        }
        return try CoreDataModelCache.model(from: blob, name: "the model in Z_MODELCACHE")
    }
}
