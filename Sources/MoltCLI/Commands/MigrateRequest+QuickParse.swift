extension MigrateRequest {
    /// Reads `molt migrate STORE --to PATH` and its usual options without argument-parser, or returns nil.
    ///
    /// It takes the store and the long options of ``MigrateCommand``, each at most once, as `--name value` or
    /// `--name=value`, in any order. Anything else (help, an unknown or repeated option, a value that looks like an
    /// option, a combination argument-parser would refuse) returns nil, and the command line goes through
    /// argument-parser, which says what is wrong. A request read here is the one argument-parser would make of the
    /// same arguments (the CLI tests compare them).
    ///
    /// - Parameter arguments: The arguments without the program's name.
    init?(quickParsing arguments: [String]) {
        guard arguments.first == "migrate" else { return nil }
        var reader = QuickArguments(arguments.dropFirst())
        guard reader.read(), let store = reader.positional, let to = reader.to, !to.isEmpty else { return nil }
        self.init(store: store, to: to)
        if let value = reader.toVersion {
            guard let version = Int(value), version >= 0 else { return nil }
            toVersion = version
        }
        if let value = reader.mapping {
            guard !value.isEmpty else { return nil }
            mapping = value
        }
        if let value = reader.secureDelete {
            guard value == "fast" || value == "default" else { return nil }
            fastSecureDelete = value == "fast"
        }
        (backup, keepBackup, skipCheck, json) = (reader.backup, reader.keepBackup, reader.skipCheck, reader.json)
        guard usageProblem == nil else { return nil }
    }
}

/// The tokens of a command line that ``MigrateRequest/init(quickParsing:)`` understands.
///
/// Plain stored properties rather than sets and dictionaries keyed by name: in a binary with the runtime linked
/// statically, the first use of each generic collection type costs a scan of every protocol conformance.
private struct QuickArguments {
    var tokens: ArraySlice<String>
    var positional: String?
    var to, toVersion, mapping, secureDelete: String?
    var backup = false, keepBackup = false, skipCheck = false, json = false

    init(_ tokens: ArraySlice<String>) { self.tokens = tokens }

    /// Reads every token; false when one is not a token this reader knows, or comes twice.
    mutating func read() -> Bool {
        while let token = tokens.popFirst() {
            guard token.hasPrefix("-") else {
                guard positional == nil, !token.isEmpty else { return false }
                positional = token
                continue
            }
            guard token.hasPrefix("--") else { return false }
            let body = token.dropFirst(2)
            let name = body.firstIndex(of: "=").map { body[..<$0] } ?? body
            let inline = body.firstIndex(of: "=").map { String(body[body.index(after: $0)...]) }
            if let option = Self.option(String(name)) {
                guard self[keyPath: option] == nil else { return false }
                if let inline {
                    self[keyPath: option] = inline
                } else {
                    guard let value = tokens.popFirst(), !value.hasPrefix("-") else { return false }
                    self[keyPath: option] = value
                }
            } else {
                guard inline == nil, let flag = Self.flag(String(name)), !self[keyPath: flag] else { return false }
                self[keyPath: flag] = true
            }
        }
        return true
    }

    private static func option(_ name: String) -> WritableKeyPath<Self, String?>? {
        switch name {
        case "to": \.to
        case "to-version": \.toVersion
        case "mapping": \.mapping
        case "secure-delete": \.secureDelete
        default: nil
        }
    }

    private static func flag(_ name: String) -> WritableKeyPath<Self, Bool>? {
        switch name {
        case "backup": \.backup
        case "keep-backup": \.keepBackup
        case "skip-check": \.skipCheck
        case "json": \.json
        default: nil
        }
    }
}
