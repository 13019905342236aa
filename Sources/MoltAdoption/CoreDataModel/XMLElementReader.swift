import Foundation

/// A reader of the elements of an XML document, for the `contents` file of a Core Data model.
///
/// It reports each element's start (name and attributes, with references such as `&amp;` and `&#10;` replaced) and
/// end, skips text, comments, processing instructions, CDATA sections and a document type declaration, and refuses
/// a document that is not well-formed (an unclosed or mismatched element, a duplicate attribute, an unknown entity,
/// text after the root element) naming the line. It reads UTF-8, the encoding Xcode writes.
///
/// Foundation's `XMLParser` would do on Apple platforms, but on Linux it needs libxml2 (and through it ICU) loaded
/// by every process of the `molt` command, for the one command that reads models: most of the start-up of a small
/// `molt migrate`.
///
/// ```swift
/// var reader = XMLElementReader(Array(data))
/// try reader.read(
///     start: { name, attributes, line in print("<\(name)>", attributes) },
///     end: { name in print("</\(name)>") })
/// ```
package struct XMLElementReader {
    /// Why a document is not well-formed, and the line where the reader found it.
    package struct Malformed: Error, Equatable {
        /// The line, counted from 1.
        package var line: Int
        /// What is wrong, in a few words.
        package var reason: String

        /// A fault at `line`.
        ///
        /// - Parameters:
        ///   - line: The line, counted from 1.
        ///   - reason: What is wrong, in a few words.
        package init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    private let bytes: [UInt8]
    private var position = 0
    private var open: [String] = []
    private var sawRoot = false
    /// Lines counted so far: the line of the byte at `offset`.
    private var counted = (offset: 0, line: 1)

    /// A reader of `bytes`, a document in UTF-8.
    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Reads the whole document, calling `start` and `end` for each element in document order.
    ///
    /// - Parameters:
    ///   - start: Called with an element's name, its attributes and the line of its start tag.
    ///   - end: Called with an element's name at its end (right after `start` for an empty element, `<a/>`).
    /// - Throws: ``Malformed`` for a document that is not well-formed; whatever `start` or `end` throw.
    package mutating func read(
        start: (String, [String: String], Int) throws -> Void, end: (String) throws -> Void
    ) throws {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        while position < bytes.count {
            guard bytes[position] == UInt8(ascii: "<") else {
                try skipText()
                continue
            }
            if try skipMarkup() { continue }
            if peek(1) == UInt8(ascii: "/") {
                try end(try readEndTag())
                continue
            }
            let tagLine = currentLine()
            let (name, attributes, isEmpty) = try readStartTag()
            try start(name, attributes, tagLine)
            if isEmpty {
                try end(name)
                closed()
            }
        }
        if let unclosed = open.last { throw fail("<\(unclosed)> is never closed") }
        guard sawRoot else { throw fail("the document has no element") }
    }

    // MARK: - Tags

    private mutating func readStartTag() throws -> (String, [String: String], Bool) {
        guard open.isEmpty == false || !sawRoot else { throw fail("an element follows the root element") }
        position += 1
        let name = try readName()
        var attributes: [String: String] = [:]
        while true {
            let spaced = skipSpace()
            switch peek() {
            case UInt8(ascii: ">"):
                position += 1
                open.append(name)
                sawRoot = true
                return (name, attributes, false)
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: ">"):
                position += 2
                open.append(name)
                sawRoot = true
                return (name, attributes, true)
            case nil:
                throw fail("the start tag of <\(name)> is not finished")
            default:
                guard spaced else { throw fail("attributes of <\(name)> must be separated by spaces") }
                let attribute = try readName()
                skipSpace()
                guard peek() == UInt8(ascii: "=") else { throw fail("attribute '\(attribute)' has no value") }
                position += 1
                skipSpace()
                let value = try readAttributeValue()
                guard attributes.updateValue(value, forKey: attribute) == nil else {
                    throw fail("<\(name)> has attribute '\(attribute)' twice")
                }
            }
        }
    }

    private mutating func readEndTag() throws -> String {
        position += 2
        let name = try readName()
        skipSpace()
        guard peek() == UInt8(ascii: ">") else { throw fail("the end tag of </\(name)> is not finished") }
        position += 1
        guard open.last == name else {
            throw fail(open.last.map { "</\(name)> closes <\($0)>" } ?? "</\(name)> closes no element")
        }
        closed()
        return name
    }

    private mutating func closed() { open.removeLast() }

    private mutating func readName() throws -> String {
        let start = position
        while let byte = peek(), !Self.isSpace(byte), !"/>=<\"'&".utf8.contains(byte) { position += 1 }
        guard position > start else { throw fail("a name is missing") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func readAttributeValue() throws -> String {
        guard let quote = peek(), quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            throw fail("an attribute value is not quoted")
        }
        position += 1
        var value: [UInt8] = []
        while let byte = peek(), byte != quote {
            switch byte {
            case UInt8(ascii: "<"): throw fail("'<' in an attribute value")
            case UInt8(ascii: "&"): value += try readReference()
            // Attribute-value normalization: a literal tab, line feed or carriage return reads as a space.
            case 0x09, 0x0A, 0x0D:
                if byte == 0x0D, peek(1) == 0x0A { position += 1 }
                value.append(UInt8(ascii: " "))
                position += 1
            default:
                value.append(byte)
                position += 1
            }
        }
        guard peek() == quote else { throw fail("an attribute value is not closed") }
        position += 1
        return String(decoding: value, as: UTF8.self)
    }

    // MARK: - References, text and other markup

    /// `&lt;`, `&gt;`, `&amp;`, `&quot;`, `&apos;`, `&#N;` or `&#xN;`, as UTF-8 bytes.
    private mutating func readReference() throws -> [UInt8] {
        guard let semicolon = bytes[position...].prefix(12).firstIndex(of: UInt8(ascii: ";")) else {
            throw fail("'&' does not start a reference (write &amp;)")
        }
        let name = String(decoding: bytes[(position + 1)..<semicolon], as: UTF8.self)
        let character: Character?
        switch name {
        case "lt": character = "<"
        case "gt": character = ">"
        case "amp": character = "&"
        case "quot": character = "\""
        case "apos": character = "'"
        case _ where name.hasPrefix("#x"): character = UInt32(name.dropFirst(2), radix: 16).flatMap(Self.character)
        case _ where name.hasPrefix("#"): character = UInt32(name.dropFirst(), radix: 10).flatMap(Self.character)
        default: character = nil
        }
        guard let character else { throw fail("unknown reference '&\(name);'") }
        position = semicolon + 1
        return Array(String(character).utf8)
    }

    private static func character(_ scalar: UInt32) -> Character? {
        Unicode.Scalar(scalar).map(Character.init)
    }

    private mutating func skipText() throws {
        while let byte = peek(), byte != UInt8(ascii: "<") {
            if byte == UInt8(ascii: "&") {
                _ = try readReference()
                continue
            }
            if open.isEmpty, !Self.isSpace(byte) {
                throw fail(sawRoot ? "text after the root element" : "text before the root element")
            }
            position += 1
        }
    }

    /// Skips a comment, a processing instruction (the XML declaration included), a CDATA section or a document
    /// type declaration at the reader's position; false when the position holds a tag instead.
    private mutating func skipMarkup() throws -> Bool {
        if starts("<?") {
            let isDeclaration = starts("<?xml ")
            let declaration = try skip(to: "?>")
            if isDeclaration, !Self.isUTF8(declaration) {
                throw fail("the document is not in UTF-8; save the model again in Xcode")
            }
            return true
        }
        if starts("<!--") {
            try skip(to: "-->")
            return true
        }
        if starts("<![CDATA[") {
            guard !open.isEmpty else { throw fail("a CDATA section outside the root element") }
            try skip(to: "]]>")
            return true
        }
        if starts("<!DOCTYPE") {
            guard !sawRoot else { throw fail("a document type declaration after the root element") }
            try skip(
                to: bytes[position...].prefix(while: { $0 != UInt8(ascii: ">") }).contains(UInt8(ascii: "["))
                    ? "]>" : ">")
            return true
        }
        if starts("<!") { throw fail("unknown markup '<!'") }
        return false
    }

    /// Skips past the next `terminator`, returning what it skipped (the opening included).
    @discardableResult
    private mutating func skip(to terminator: String) throws -> String {
        let pattern = Array(terminator.utf8)
        var index = position + 2
        while index + pattern.count <= bytes.count {
            if bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                let skipped = String(decoding: bytes[position..<index], as: UTF8.self)
                position = index + pattern.count
                return skipped
            }
            index += 1
        }
        throw fail(
            "'\(String(decoding: bytes[position..<min(position + 4, bytes.count)], as: UTF8.self))' is never closed")
    }

    /// Whether an XML declaration names UTF-8 (or no encoding, which means UTF-8).
    private static func isUTF8(_ declaration: String) -> Bool {
        guard let range = declaration.range(of: "encoding") else { return true }
        let rest = declaration[range.upperBound...].lowercased().filter { !" =\"'".contains($0) }
        return rest.hasPrefix("utf-8") || rest.hasPrefix("utf8")
    }

    // MARK: - Bytes

    private func peek(_ offset: Int = 0) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    private func starts(_ text: String) -> Bool {
        bytes[position...].starts(with: text.utf8)
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while let byte = peek(), Self.isSpace(byte) { position += 1 }
        return position > start
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The line of the reader's position, counted from 1 (lines are counted once, as the position moves on).
    private mutating func currentLine() -> Int {
        let end = min(position, bytes.count)
        if end > counted.offset {
            counted.line += bytes[counted.offset..<end].reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            counted.offset = end
        }
        return counted.line
    }

    private mutating func fail(_ reason: String) -> Malformed {
        Malformed(line: currentLine(), reason: reason)
    }
}
