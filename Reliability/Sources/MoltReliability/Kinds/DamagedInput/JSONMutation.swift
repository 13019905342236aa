/// Random damage to a JSON document: one value, somewhere in it, replaced by a value of another kind.
enum JSONMutation {
    /// Values that fit no field of a snapshot, a mapping or a data file, or only some of them.
    static let replacements: [JSON] = [
        .null, true, 0, -1, .int(.max), .int(.min), .number("1e400"), .number("-0"), 1.5, "", "x", "Infinity",
        .string(String(repeating: "é", count: 10_000)), [], [:], [[[]]], ["_id": 1],
    ]

    /// Replaces one randomly chosen value of `json` (possibly the whole document) and returns its path, such as
    /// `entities[1].attributes[2].type`.
    @discardableResult
    static func mutate(_ json: inout JSON, random: inout SeededGenerator) -> String {
        let replacement = replacements[Int.random(in: 0..<replacements.count, using: &random)]
        return replace(&json, path: "", depth: 0, with: replacement, random: &random)
    }

    private static func replace(
        _ json: inout JSON, path: String, depth: Int, with replacement: JSON, random: inout SeededGenerator
    ) -> String {
        // Go deeper with a probability that leaves every level a fair chance.
        let stopHere = random.chance(depth == 0 ? 0.05 : 0.3)
        switch json {
        case .object(var fields) where !fields.isEmpty && !stopHere:
            let key = fields.keys.sorted()[Int.random(in: 0..<fields.count, using: &random)]
            var child = fields[key]!
            let childPath = replace(
                &child, path: path.isEmpty ? key : "\(path).\(key)", depth: depth + 1, with: replacement,
                random: &random)
            fields[key] = child
            json = .object(fields)
            return childPath
        case .array(var items) where !items.isEmpty && !stopHere:
            let index = Int.random(in: 0..<items.count, using: &random)
            let childPath = replace(
                &items[index], path: "\(path)[\(index)]", depth: depth + 1, with: replacement, random: &random)
            json = .array(items)
            return childPath
        default:
            json = replacement
            return (path.isEmpty ? "(document)" : path) + "=" + Shell.shorten(replacement.text(), 12)
        }
    }
}
