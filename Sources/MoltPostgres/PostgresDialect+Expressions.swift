import Molt

extension PostgresDialect {
    package func temporaryIndex(_ name: String, on table: String, columns: String) -> String {
        "CREATE INDEX \(quote(name)) ON pg_temp.\(table) (\(columns))"
    }

    /// Quotes the bare names of entities, attributes and relationships an expression uses, matched as written,
    /// else without regard to case as SQLite matches them, so that `firstName || ' ' || lastName` reads the columns
    /// `"firstName"` and `"lastName"` rather than `firstname`. Function names (a name before `(`), names after
    /// `AS` (types of a `CAST`), string literals and quoted names are left alone.
    ///
    /// ```swift
    /// PostgresDialect.shared.portableExpression("upper(firstName) || 'x'", names: ["firstName"])
    /// // upper("firstName") || 'x'
    /// ```
    package func portableExpression(_ expression: String, names: Set<String>) -> String {
        var byLowercase: [String: String] = [:]
        for name in names { byLowercase[name.lowercased()] = name }
        let scalars = Array(expression.unicodeScalars)
        var output = String.UnicodeScalarView()
        var previousWord = ""
        var i = 0
        func isStart(_ s: Unicode.Scalar) -> Bool { s == "_" || s.properties.isAlphabetic }
        func isPart(_ s: Unicode.Scalar) -> Bool { isStart(s) || ("0"..."9").contains(s) || s == "$" }
        while i < scalars.count {
            let s = scalars[i]
            if s == "'" || s == "\"" {
                var j = i + 1
                while j < scalars.count {
                    if scalars[j] == s {
                        if j + 1 < scalars.count && scalars[j + 1] == s { j += 2; continue }
                        break
                    }
                    j += 1
                }
                let end = min(j + 1, scalars.count)
                output.append(contentsOf: scalars[i..<end])
                i = end
                previousWord = ""
                continue
            }
            guard isStart(s), i == 0 || !isPart(scalars[i - 1]) && scalars[i - 1] != ":" else {
                output.append(s)
                if !s.properties.isWhitespace { previousWord = "" }
                i += 1
                continue
            }
            var j = i
            while j < scalars.count && isPart(scalars[j]) { j += 1 }
            let word = String(String.UnicodeScalarView(scalars[i..<j]))
            var k = j
            while k < scalars.count && scalars[k].properties.isWhitespace { k += 1 }
            let isCall = k < scalars.count && scalars[k] == "("
            if !isCall, previousWord.uppercased() != "AS",
                let name = names.contains(word) ? word : byLowercase[word.lowercased()]
            {
                output.append(contentsOf: quote(name).unicodeScalars)
            } else {
                output.append(contentsOf: word.unicodeScalars)
            }
            previousWord = word
            i = j
        }
        return String(output)
    }
}
