import Foundation
import Molt

/// A whole Core Data history written as Molt snapshots `1 … N`.
package struct CoreDataHistoryConversion {
    /// The snapshots, version `i + 1` for the `i`-th Core Data version.
    package var schemas: [Schema]
    /// The Core Data version names, in the same order.
    package var versionNames: [String]
    package var approximations: [CoreDataApproximation]
    package var transients: [String]
    package var notes: [String]

    /// The approximations grouped by construct: the same entity, property and change across versions is one line,
    /// followed by the versions it is found in.
    package var groupedApproximations: [(approximation: CoreDataApproximation, versions: String)] {
        var order: [String] = []
        var groups: [String: (CoreDataApproximation, [Int])] = [:]
        for approximation in approximations {
            let key =
                "\(approximation.kind.rawValue)|\(approximation.entity)|\(approximation.property ?? "")|\(approximation.what)"
            let index = versionNames.firstIndex(of: approximation.version) ?? 0
            if groups[key] == nil {
                order.append(key)
                groups[key] = (approximation, [index])
            } else if groups[key]!.1.last != index {
                groups[key]!.1.append(index)
            }
        }
        return order.map { key in
            let (approximation, indexes) = groups[key]!
            return (approximation, Self.describe(indexes.map { versionNames[$0] }, indexes))
        }
    }

    /// `'Model 30'`, or `'Model 30' … 'Model 117'` for a run of consecutive versions, runs separated by commas.
    package static func describe(_ names: [String], _ indexes: [Int]) -> String {
        var runs: [String] = []
        var start = 0
        for i in indexes.indices {
            if i + 1 < indexes.count && indexes[i + 1] == indexes[i] + 1 { continue }
            runs.append(i == start ? "'\(names[i])'" : "'\(names[start])' … '\(names[i])'")
            start = i + 1
        }
        return runs.joined(separator: ", ")
    }
}

extension CoreDataHistory {
    /// Writes every version as a Molt schema, resolving each version's renames against the one before.
    ///
    /// - Parameter accepted: The kinds of approximation the user accepted with `--approximate`.
    /// - Throws: `MoltError` (`failure`) listing every construct that needs an approximation not accepted, each
    ///   with the versions it is in and the `--approximate` value that accepts it; the errors of
    ///   ``CoreDataModel/conversion(version:previous:)``.
    /// - Parameter hierarchies: Whether sub-entities are written as Molt sub-entities (see
    ///   ``CoreDataModel/conversion(version:previous:hierarchies:)``).
    package func conversion(
        accepting accepted: AcceptedApproximations, hierarchies: Bool = false
    ) throws
        -> CoreDataHistoryConversion
    {
        var result = CoreDataHistoryConversion(
            schemas: [], versionNames: models.map(\.name), approximations: [], transients: [], notes: [])
        var seenTransients = Set<String>()
        for (index, model) in models.enumerated() {
            let converted = try model.conversion(
                version: index + 1, previous: index > 0 ? models[index - 1] : nil, hierarchies: hierarchies)
            result.schemas.append(converted.schema)
            result.approximations += converted.approximations
            result.notes += converted.notes
            for name in converted.transients where seenTransients.insert(name).inserted {
                result.transients.append(name)
            }
        }
        let refused = result.groupedApproximations.filter { !accepted.accepts($0.approximation.kind) }
        guard refused.isEmpty else {
            let kinds = Set(refused.map(\.approximation.kind)).sorted()
            let lines = refused.map {
                "  \(Self.line($0.approximation, $0.versions)) (accept: --approximate \($0.approximation.kind.rawValue))"
            }
            throw ApproximationsRefused(
                message: """
                    \(refused.count) construct\(refused.count == 1 ? "" : "s") of the model cannot be written exactly as a Molt schema, so nothing was written:
                    \(lines.joined(separator: "\n"))
                    Molt cannot state these yet (issue 22). Once you have checked that the closest form suits your data, accept them with \(kinds.map { "--approximate \($0.rawValue)" }.joined(separator: " ")) (or --approximate all).
                    """)
        }
        return result
    }

    /// `Order.total: Decimal is written as double (…), in 'Model 30' … 'Model 117'`.
    package static func line(_ approximation: CoreDataApproximation, _ versions: String) -> String {
        "\(approximation.entity)\(approximation.property.map { ".\($0)" } ?? ""): \(approximation.what), in \(versions)"
    }
}

/// The converter met constructs that a Molt schema states only approximately, and none of their kinds was
/// accepted: the message lists each with the option that accepts it.
package struct ApproximationsRefused: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
