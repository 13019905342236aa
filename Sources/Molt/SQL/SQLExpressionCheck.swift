/// Checks that a piece of SQL an app supplies (a mapping's expression, filter or source key) is one expression
/// and nothing else, before Molt places it inside a statement of its own.
///
/// The text is read as SQL tokens — strings, quoted names, numbers, words, punctuation — and refused when, at the
/// outermost level, it could end Molt's statement or continue it: a `;`, a `,`, a clause keyword (`FROM`,
/// `WHERE`, `SELECT`, `UNION`, …), unbalanced parentheses or quotes, or a comment (which could hide the rest of
/// the statement). What is inside parentheses is the engine's to check (``SQLQueryChecker``).
package enum SQLExpressionCheck {
    /// Keywords that start a clause or a statement: at the outermost level, they would leave the expression.
    static let clauseKeywords: Set<String> = [
        "SELECT", "FROM", "WHERE", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT",
        "WINDOW", "RETURNING", "INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "ATTACH", "DETACH",
        "PRAGMA", "BEGIN", "COMMIT", "ROLLBACK", "END", "SAVEPOINT", "RELEASE", "VACUUM", "ANALYZE", "REINDEX", "WITH",
        "VALUES", "SET", "INTO", "ON", "USING", "JOIN", "COPY", "GRANT", "REVOKE", "TRUNCATE", "DO", "EXECUTE",
    ]

    /// Why `text` is not one expression, or nil when it is.
    package static func problem(in text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        guard !scalars.allSatisfy({ $0.properties.isWhitespace }) else { return "it is empty" }
        var depth = 0
        var caseDepth = 0
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            switch c {
            case "'", "\"", "`", "[":
                let close: Unicode.Scalar = c == "[" ? "]" : c
                guard let end = scalars[(i + 1)...].firstIndex(of: close) else {
                    return "a quote or bracket is not closed"
                }
                i = end + 1
                continue
            case "(":
                depth += 1
            case ")":
                depth -= 1
                if depth < 0 { return "it closes a parenthesis it did not open" }
            case ";":
                return "it contains ';', which ends a statement"
            case "," where depth == 0:
                return "it is a list, not one expression (a ',' outside parentheses)"
            case "-" where i + 1 < scalars.count && scalars[i + 1] == "-",
                "/" where i + 1 < scalars.count && scalars[i + 1] == "*":
                return "it contains a comment"
            default:
                if c.properties.isAlphabetic || c == "_" {
                    var end = i
                    while end < scalars.count,
                        scalars[end].properties.isAlphabetic || scalars[end] == "_"
                            || ("0"..."9").contains(scalars[end])
                    {
                        end += 1
                    }
                    let word = String(String.UnicodeScalarView(scalars[i..<end])).uppercased()
                    var next = end
                    while next < scalars.count, scalars[next].properties.isWhitespace { next += 1 }
                    let isCall = next < scalars.count && scalars[next] == "("  // replace(…) is a function, not REPLACE
                    if word == "CASE" { caseDepth += 1 }
                    if word == "END" && caseDepth > 0 {
                        caseDepth -= 1
                    } else if depth == 0 && !isCall && clauseKeywords.contains(word) {
                        return "it contains the keyword \(word) outside parentheses"
                    }
                    i = end
                    continue
                }
            }
            i += 1
        }
        return depth == 0 ? nil : "a parenthesis is not closed"
    }

    /// The names an expression may read a column by: its bare words that call no function, and its
    /// double-quoted names, unquoted. Keywords are among them; callers match the names against columns.
    package static func names(in text: String) -> Set<String> {
        let scalars = Array(text.unicodeScalars)
        var names: Set<String> = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "'" || c == "`" || c == "[" || c == "\"" {
                let close: Unicode.Scalar = c == "[" ? "]" : c
                guard let end = scalars[(i + 1)...].firstIndex(of: close) else { break }
                if c != "'" { names.insert(String(String.UnicodeScalarView(scalars[(i + 1)..<end]))) }
                i = end + 1
                continue
            }
            if c.properties.isAlphabetic || c == "_" {
                var end = i
                while end < scalars.count,
                    scalars[end].properties.isAlphabetic || scalars[end] == "_" || ("0"..."9").contains(scalars[end])
                {
                    end += 1
                }
                var next = end
                while next < scalars.count, scalars[next].properties.isWhitespace { next += 1 }
                if next >= scalars.count || scalars[next] != "(" {
                    names.insert(String(String.UnicodeScalarView(scalars[i..<end])))
                }
                i = end
                continue
            }
            i += 1
        }
        return names
    }
}

/// Checks that a query an app supplies only reads the old version's data, as an engine can tell: one statement,
/// one result column, reads of the application's tables only, functions without side effects, nothing written.
package protocol SQLQueryChecker {
    /// Why `query` is refused, or nil when it is a read the engine allows.
    func problem(in query: String) -> String?
}
