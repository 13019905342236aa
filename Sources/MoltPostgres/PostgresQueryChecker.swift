import Foundation
import Molt

/// Checks an app's query (a mapping's expression, filter or source key, already in PostgreSQL's spelling) by an
/// allow-list, before it runs inside the migration's transaction.
///
/// PostgreSQL has no authorizer to consult while a statement is compiled, so every word of the query must be
/// known: a keyword of the read-only subset, a function of ``functions`` (a word before `(`), a type (after `AS`
/// or `::`), or a name of the old version's entities and attributes. Anything else is refused, naming the word:
/// a function with side effects (`set_config`, `pg_sleep`, `lo_export`…), a statement (`UPDATE`, `COPY`…), a
/// table of another namespace or of the catalog (`pg_shadow`), or a dollar-quoted string.
struct PostgresQueryChecker: SQLQueryChecker {
    /// The functions a mapping may call: PostgreSQL's string, math and aggregate functions without side effects.
    static let functions: Set<String> = [
        "abs", "coalesce", "nullif", "greatest", "least", "length", "char_length", "character_length", "octet_length",
        "bit_length", "lower", "upper", "initcap", "substr", "substring", "trim", "btrim", "ltrim", "rtrim", "replace",
        "translate", "concat", "concat_ws", "left", "right", "lpad", "rpad", "position", "strpos", "split_part",
        "reverse", "repeat", "md5", "starts_with", "round", "floor", "ceil", "ceiling", "trunc", "mod", "power", "sqrt",
        "cbrt", "exp", "ln", "log", "log10", "sign", "pi", "degrees", "radians", "sin", "cos", "tan", "asin", "acos",
        "atan", "atan2", "count", "sum", "min", "max", "avg", "string_agg", "bool_and", "bool_or", "every",
        "row_number", "rank", "dense_rank", "to_hex", "encode", "decode", "convert_to", "convert_from", "chr", "ascii",
        "regexp_replace", "regexp_match", "cast", "exists", "any", "all", "some", "in",
    ]

    /// The keywords of the read-only subset.
    static let keywords: Set<String> = [
        "select", "from", "where", "and", "or", "not", "null", "is", "in", "exists", "case", "when", "then", "else",
        "end", "as", "like", "ilike", "between", "distinct", "true", "false", "order", "by", "asc", "desc", "limit",
        "offset", "group", "having", "join", "inner", "left", "right", "full", "outer", "cross", "on", "cast", "any",
        "all", "some", "similar", "to", "escape", "collate", "nulls", "first", "last", "union", "intersect", "except",
        "for", "both", "leading", "trailing", "over", "partition", "symmetric", "unknown", "isnull", "notnull",
    ]

    /// The types a value may be cast to (after `AS` or `::`).
    static let types: Set<String> = [
        "text", "varchar", "char", "character", "varying", "integer", "int", "int2", "int4", "int8", "bigint",
        "smallint", "real", "double", "precision", "float", "float4", "float8", "numeric", "decimal", "boolean", "bool",
        "bytea", "uuid",
    ]

    /// The entities' tables and the attributes' and relationships' columns, as declared and in lower case.
    let names: Set<String>

    init(schema: Schema) {
        var names: Set<String> = [StoreLayout.idColumn]
        for entity in schema.entities {
            names.insert(entity.name)
            for attribute in entity.attributes { names.insert(attribute.name) }
            for relationship in entity.relationships { names.insert(relationship.name) }
        }
        for table in StoreLayout.tableNames(schema) { names.insert(table) }
        self.names = names
    }

    func problem(in query: String) -> String? {
        let lowercaseNames = Set(names.map { $0.lowercased() })
        let scalars = Array(query.unicodeScalars)
        var i = 0
        var previous = ""  // the previous word or symbol, lower-cased
        while i < scalars.count {
            let c = scalars[i]
            if c == "'" {
                guard let end = Self.closing(c, in: scalars, after: i) else { return "a quote is not closed" }
                i = end + 1
                previous = "'"
                continue
            }
            if c == "\"" {
                guard let end = Self.closing(c, in: scalars, after: i) else { return "a quoted name is not closed" }
                let name = String(String.UnicodeScalarView(scalars[(i + 1)..<end])).replacingOccurrences(
                    of: "\"\"", with: "\"")
                guard names.contains(name) || previous == "collate" && name == "C" else {
                    return "it names \"\(name)\", which is not an entity, attribute or relationship of the old version"
                }
                i = end + 1
                previous = "\""
                continue
            }
            if c == "$" {
                return "it contains '$' (a dollar-quoted string or a parameter), which a mapping may not use"
            }
            if c == ";" { return "it contains ';', which ends a statement" }
            if ("0"..."9").contains(c) {  // a number, exponent included (1e5)
                while i < scalars.count,
                    ("0"..."9").contains(scalars[i]) || scalars[i] == "." || scalars[i] == "e" || scalars[i] == "E"
                {
                    i += 1
                }
                previous = "0"
                continue
            }
            guard c == "_" || c.properties.isAlphabetic else {
                if !c.properties.isWhitespace { previous = String(c) }
                i += 1
                continue
            }
            var end = i
            while end < scalars.count,
                scalars[end] == "_" || scalars[end].properties.isAlphabetic || ("0"..."9").contains(scalars[end])
            {
                end += 1
            }
            let word = String(String.UnicodeScalarView(scalars[i..<end])).lowercased()
            var next = end
            while next < scalars.count, scalars[next].properties.isWhitespace { next += 1 }
            let isCall = next < scalars.count && scalars[next] == "("
            if let problem = wordProblem(word, isCall: isCall, after: previous, lowercaseNames: lowercaseNames) {
                return problem
            }
            previous = word
            i = end
        }
        return nil
    }

    /// Why a mapping may not use `word` (a call when `isCall`) where it stands after `previous`; nil when it may:
    /// a keyword, a function without side effects, a name of the old version, a type after `AS` or `::`.
    private func wordProblem(
        _ word: String, isCall: Bool, after previous: String, lowercaseNames: Set<String>
    ) -> String? {
        let isType = previous == "as" || previous == ":" || Self.types.contains(previous)
        let known =
            isCall
            ? Self.functions.contains(word) || Self.keywords.contains(word)
            : Self.keywords.contains(word) || lowercaseNames.contains(word) || isType && Self.types.contains(word)
        guard !known else { return nil }
        if isCall {
            return
                "it calls \(word)(), which a mapping may not call on PostgreSQL (functions without side effects only)"
        }
        return
            "it names '\(word)', which is neither a name of the old version's entities nor a word of the read-only SQL a mapping may use"
    }

    /// The index of the quote that closes the one at `start` (a doubled quote is part of the text), if any.
    private static func closing(_ quote: Unicode.Scalar, in scalars: [Unicode.Scalar], after start: Int) -> Int? {
        var j = start + 1
        while j < scalars.count {
            if scalars[j] == quote {
                if j + 1 < scalars.count && scalars[j + 1] == quote {
                    j += 2
                    continue
                }
                return j
            }
            j += 1
        }
        return nil
    }
}

extension PostgresDialect {
    package func queryChecker(for schema: Schema) throws -> any SQLQueryChecker { PostgresQueryChecker(schema: schema) }
}
