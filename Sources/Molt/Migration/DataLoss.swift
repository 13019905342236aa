/// Counts what a step's removals drop, and refuses the inferred removals that would lose stored data without a
/// declaration: an entity that holds objects, an attribute removed beside a compatible added one (a rename
/// whose `originalName` was forgotten).
enum DataLoss {
    /// - Parameters:
    ///   - diff: The step.
    ///   - refusing: Whether undeclared losses are refused (an inferred step); a custom stage or a mapping saw
    ///     the old data and handled it.
    ///   - count: The objects (entity), non-null values (attribute) or links (relationship) stored for a loss.
    /// - Returns: What the step drops.
    /// - Throws: ``MoltError/Code/dataLossRefused`` naming every refused loss, its count and the fixes.
    static func check(
        _ diff: SchemaDiff, refusing: Bool, count: (SchemaDiff.Loss) throws -> Int
    ) throws -> [DroppedData] {
        var dropped: [DroppedData] = []
        var refusals: [String] = []
        for loss in diff.losses {
            let stored = try count(loss)
            let isRelationship =
                loss.property.map { property in
                    diff.source.entity(named: loss.entity)?.relationship(named: property) != nil
                } ?? false
            dropped.append(
                DroppedData(
                    entity: loss.entity, property: loss.property, isRelationship: isRelationship, count: stored,
                    isDeclared: loss.isDeclared,
                    isReplaced: loss.isReplaced))
            if refusing && loss.mustBeDeclared && stored > 0 {
                refusals.append(refusal(loss, count: stored, diff: diff))
            }
        }
        guard !refusals.isEmpty else { return dropped }
        let first = diff.losses.first { $0.mustBeDeclared }
        throw MoltError(
            .dataLossRefused,
            "Molt will not migrate from version \(diff.source.version) to \(diff.destination.version): it would delete stored data that the schema does not declare deleted.\n\(refusals.map { "- " + $0 }.joined(separator: "\n"))\nNothing was written.",
            entity: first?.entity, property: first?.property)
    }

    private static func refusal(_ loss: SchemaDiff.Loss, count: Int, diff: SchemaDiff) -> String {
        let (from, to) = (diff.source.version, diff.destination.version)
        guard let property = loss.property else {
            var text =
                "Version \(to) removes entity '\(loss.entity)', which holds \(count) object\(count == 1 ? "" : "s"); they would be deleted."
            for target in loss.renamedTo {
                text +=
                    " If it was renamed to '\(target)', declare `originalName: \"\(loss.entity)\"` on entity '\(target)' (in a snapshot: \"originalName\" : \"\(loss.entity)\")."
            }
            text +=
                " If its objects become other objects, write a custom stage from version \(from) to \(to) that reads them (`migration.enumerateOldObjects(ofType: \"\(loss.entity)\")`)."
            text +=
                " If they are meant to go, declare it: `Schema(version: \(to), deleting: [.entity(\"\(loss.entity)\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"\(loss.entity)\"}])."
            return text
        }
        let label = "'\(loss.entity).\(property)'"
        if loss.isLikelyMove && !loss.isLikelyRename {
            let places = loss.movedTo.map { "'\($0).\(property)'" }.joined(separator: " or ")
            var text =
                "Version \(to) removes attribute \(label), which holds \(count) value\(count == 1 ? "" : "s"), and adds \(places) of the same name: a likely move (a split), and the values would be deleted."
            for move in diff.likelyMoves where move.entity == loss.entity && move.attribute == property {
                text += " " + move.fix(from: from, to: to)
            }
            return text
        }
        let targets = loss.renamedTo.map { "'\($0)'" }.joined(separator: " or ")
        var text =
            "Version \(to) removes attribute \(label), which holds \(count) value\(count == 1 ? "" : "s"), and adds \(targets) of the same type: a likely rename, and the values would be deleted."
        for target in loss.renamedTo {
            text +=
                " If it was renamed to '\(target)', declare `originalName: \"\(property)\"` on attribute '\(target)' (in a snapshot: \"originalName\" : \"\(property)\")."
        }
        text +=
            " If the values are meant to go, declare it: `Schema(version: \(to), deleting: [.property(\"\(property)\", of: \"\(loss.entity)\")])` (in a snapshot: \"deletions\" : [{\"entity\" : \"\(loss.entity)\", \"property\" : \"\(property)\"}])."
        return text
    }
}
