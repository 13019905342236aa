/// A to-many relationship whose minimum count a step of a run adds or raises (or whose destination it changes),
/// named as the run's target version names it: the existing objects under it are kept and listed in the step's
/// history entry, or refused when the step's version says so (``Schema/ShortOwners``).
///
/// Core Data checks a minimum count only for the objects a save changes, never during a lightweight migration;
/// Molt keeps the same rule, so that a store its app shipped through such a version is never stranded.
package struct RaisedMinimum: Hashable, Sendable {
    /// The step that raised it, by its versions.
    package let fromVersion: Int
    package let toVersion: Int
    /// The entity that declares the relationship, at the run's target.
    package let entity: String
    /// The relationship, at the run's target.
    package let relationship: String
    /// Whether the step refuses owners under it (``Schema/ShortOwners/refused``).
    package let isStrict: Bool

    /// `Entity.relationship` at the run's target.
    package var key: String { "\(entity).\(relationship)" }

    /// The raised minimums of `path`, each named as its last version names it and kept once (the last step that
    /// raised it records it; it is strict when any step that raised it is). A relationship a later step removes,
    /// or whose minimum it drops, is left out.
    package static func along(_ path: [MigrationStep]) -> [RaisedMinimum] {
        var found: [String: RaisedMinimum] = [:]
        for (index, step) in path.enumerated() {
            for raised in step.diff.raisedMinimums() {
                guard
                    let (entity, relationship) = carried(
                        raised.entity, raised.relationship.name, through: path[(index + 1)...])
                else { continue }
                let key = "\(entity).\(relationship)"
                let strict = step.to.shortOwners == .refused || found[key]?.isStrict == true
                found[key] = RaisedMinimum(
                    fromVersion: step.from.version, toVersion: step.to.version, entity: entity,
                    relationship: relationship, isStrict: strict)
            }
        }
        return found.values.sorted { ($0.fromVersion, $0.key) < ($1.fromVersion, $1.key) }
    }

    /// The names, in the last step's newer version, of `entity.relationship` of the version the steps start from
    /// (following each step's `originalName` hints), or nil when a step removes it or its minimum count.
    private static func carried(
        _ entity: String, _ relationship: String, through steps: ArraySlice<MigrationStep>
    ) -> (String, String)? {
        var (entity, relationship) = (entity, relationship)
        for step in steps {
            guard
                let next = step.to.entities.first(where: { step.diff.originalName(ofEntity: $0.name) == entity }),
                let link = step.to.effectiveEntity(named: next.name)?.relationships.first(where: {
                    $0.kind == .toMany
                        && (step.diff.originalName(ofProperty: $0.name, inEntity: next.name) == relationship)
                }),
                link.toManyMinimum != nil
            else { return nil }
            (entity, relationship) = (next.name, link.name)
        }
        return (entity, relationship)
    }
}

extension Migrator {
    /// The lines that list, per raised minimum the run keeps, the objects under it (none when every owner meets
    /// it), by the step that raised it: what its history entry records (``MigrationStepRecord/underMinimumCount``).
    static func shortOwners(
        _ raised: [RaisedMinimum], in db: any SQLConnection, target: Schema
    ) throws -> [[Int]: [String]] {
        let layout = StoreLayout.standard(target, dialect: db.dialect)
        var lines: [[Int]: [String]] = [:]
        for minimum in raised where !minimum.isStrict {
            guard
                let relationship = target.effectiveEntity(named: minimum.entity)?.relationship(
                    named: minimum.relationship),
                let short = try EmptyRequiredLink.shortToMany(
                    in: db, entity: minimum.entity, relationship, layout: layout, scope: .everyObject)
            else { continue }
            lines[[minimum.fromVersion, minimum.toVersion], default: []].append(short.keptPhrase)
        }
        return lines
    }
}
