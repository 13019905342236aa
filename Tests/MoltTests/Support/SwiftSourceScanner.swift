import Foundation

/// Reads Swift source well enough to measure it: comments and the text of string literals blanked out (their
/// interpolations kept as code), then each function's and initializer's body found by brace matching.
enum SwiftSourceScanner {
    /// A function or initializer with a body.
    struct Function: CustomStringConvertible {
        var name: String
        var line: Int
        var lines: Int
        var description: String { "\(name) (line \(line)): \(lines) lines" }
    }

    /// The functions and initializers of `source` that have a body, with the lines from the declaration to its
    /// closing brace.
    static func functions(in source: String) -> [Function] {
        let code = blankingCommentsAndStrings(source)
        let bytes = Array(code.utf8)
        let pattern = try! NSRegularExpression(pattern: #"(?<![.\w])(func\s+[^\s(<]+|init[?!]?)\s*[(<]"#)
        var result: [Function] = []
        for match in pattern.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
            let start = code.utf8.distance(from: code.utf8.startIndex, to: Range(match.range, in: code)!.lowerBound)
            guard let open = bodyStart(in: bytes, after: start), let close = matchingBrace(in: bytes, from: open) else {
                continue
            }
            let name = (code as NSString).substring(with: match.range(at: 1)).replacingOccurrences(
                of: "func ", with: "")
            let firstLine = bytes[..<start].filter { $0 == UInt8(ascii: "\n") }.count + 1
            let lastLine = firstLine + bytes[start...close].filter { $0 == UInt8(ascii: "\n") }.count
            result.append(Function(name: name, line: firstLine, lines: lastLine - firstLine + 1))
        }
        return result
    }

    /// The `{` that opens the body of the declaration at `start`, or nil when a line ends (outside the
    /// parameter list) first: a protocol requirement.
    private static func bodyStart(in bytes: [UInt8], after start: Int) -> Int? {
        var depth = 0
        for i in start..<bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "("), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: ")"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: "{") where depth == 0: return i
            case UInt8(ascii: "\n") where depth == 0: return nil
            default: break
            }
        }
        return nil
    }

    private static func matchingBrace(in bytes: [UInt8], from open: Int) -> Int? {
        var depth = 0
        for i in open..<bytes.count {
            if bytes[i] == UInt8(ascii: "{") { depth += 1 }
            if bytes[i] == UInt8(ascii: "}") {
                depth -= 1
                if depth == 0 { return i }
            }
        }
        return nil
    }

    private enum Context {
        case code(parentheses: Int)
        case string(multiline: Bool, hashes: Int)
    }

    /// `source` with every byte of a comment or of a string literal's text replaced by a space (newlines kept),
    /// so that braces and keywords in them are not read as code; the code of interpolations is kept.
    static func blankingCommentsAndStrings(_ source: String) -> String {
        var bytes = Array(source.utf8)
        let quote = UInt8(ascii: "\""), hash = UInt8(ascii: "#"), slash = UInt8(ascii: "/"), star = UInt8(ascii: "*")
        let newline = UInt8(ascii: "\n"), backslash = UInt8(ascii: "\\"), space = UInt8(ascii: " ")
        func at(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }
        func blank(_ range: Range<Int>) { for i in range where bytes[i] != newline { bytes[i] = space } }
        func run(of byte: UInt8, from i: Int) -> Int { var n = 0; while at(i + n) == byte { n += 1 }; return n }
        var stack: [Context] = [.code(parentheses: 0)]
        var i = 0
        while i < bytes.count {
            switch stack[stack.count - 1] {
            case .code(let parentheses):
                let c = bytes[i]
                if c == slash, at(i + 1) == slash {
                    var end = i
                    while end < bytes.count, bytes[end] != newline { end += 1 }
                    blank(i..<end)
                    i = end
                } else if c == slash, at(i + 1) == star {
                    var depth = 0, end = i
                    repeat {
                        if at(end) == slash, at(end + 1) == star {
                            depth += 1; end += 2
                        } else if at(end) == star, at(end + 1) == slash {
                            depth -= 1; end += 2
                        } else {
                            end += 1
                        }
                    } while depth > 0 && end < bytes.count
                    blank(i..<min(end, bytes.count))
                    i = end
                } else if c == quote || (c == hash && at(i + run(of: hash, from: i)) == quote) {
                    let hashes = run(of: hash, from: i)
                    let multiline = run(of: quote, from: i + hashes) >= 3
                    let opening = hashes + (multiline ? 3 : 1)
                    stack.append(.string(multiline: multiline, hashes: hashes))
                    i += opening
                } else if c == UInt8(ascii: "(") {
                    stack[stack.count - 1] = .code(parentheses: parentheses + 1)
                    i += 1
                } else if c == UInt8(ascii: ")") {
                    if parentheses == 0 && stack.count > 1 {
                        stack.removeLast()
                    } else {
                        stack[stack.count - 1] = .code(parentheses: parentheses - 1)
                    }
                    i += 1
                } else {
                    i += 1
                }
            case .string(let multiline, let hashes):
                let c = bytes[i]
                if c == backslash, run(of: hash, from: i + 1) == hashes {
                    if at(i + 1 + hashes) == UInt8(ascii: "(") {
                        blank(i..<(i + 1 + hashes))
                        stack.append(.code(parentheses: 0))
                        i += 2 + hashes
                    } else {
                        blank(i..<min(i + 2 + hashes, bytes.count))
                        i += 2 + hashes
                    }
                } else if c == quote, run(of: quote, from: i) >= (multiline ? 3 : 1),
                    run(of: hash, from: i + (multiline ? 3 : 1)) >= hashes
                {
                    stack.removeLast()
                    i += (multiline ? 3 : 1) + hashes
                } else {
                    blank(i..<(i + 1))
                    i += 1
                }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
