import Foundation
import MoltAdoption
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Molt reads Core Data models with its own XML reader (Foundation's needs libxml2 and ICU in every `molt`
/// process). It must see exactly the elements and attributes Foundation's `XMLParser` sees, in every real model
/// of `../shared`, and refuse what `XMLParser` refuses.
@Suite("XML element reader")
struct XMLElementReaderTests {
    /// Every `contents` file of the real model histories and of the foreign stores' models.
    static let realModels: [URL] = {
        let shared = ForeignStores.folder.deletingLastPathComponent()
        return ["coredata-models", "foreign-stores"].flatMap { folder -> [URL] in
            let root = shared.appendingPathComponent(folder)
            let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            return (walk?.allObjects as? [URL] ?? []).filter { $0.lastPathComponent == "contents" }
        }
        .sorted { $0.path < $1.path }
    }()

    @Test(
        "reads every real Core Data model exactly as Foundation's XMLParser does",
        .enabled(if: ForeignStores.isPresent, "../shared is absent beside the package"))
    func realModelsReadAlike() throws {
        #expect(Self.realModels.count >= 200, "found \(Self.realModels.count) models")
        for url in Self.realModels {
            let data = try Data(contentsOf: url)
            let ours = try #require(try? events(ofOurReader: data), "\(url.path)")
            #expect(ours == events(ofFoundation: data), "\(url.path)")
            #expect(ours.count > 10, "\(url.path)")
        }
    }

    @Test(
        "reads references, quotes, empty elements and skipped markup as XMLParser does",
        arguments: [
            #"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><model a="1"><e/></model>"#,
            "\u{FEFF}<model><e x='single &apos;quoted&apos;' y=\"&lt;&gt;&amp;&quot;\"/></model>",
            "<model><e v=\"line&#10;feed &#x263A; tab&#9;\"/></model>",
            "<model><e v=\"a\nb\tc\r\nd\"/></model>",
            "<!DOCTYPE model><!-- a comment --><model>text &amp; more<?pi data?><![CDATA[<not/>]]></model>\n",
            "<model  >\n  <entity name = \"A\" >\n    <attribute name=\"b\"/>\n  </entity >\n</model>",
            "<model><userInfo><entry key=\"k\" value=\"v\"/></userInfo></model>",
        ])
    func wellFormedDocuments(document: String) throws {
        let data = Data(document.utf8)
        let ours = try events(ofOurReader: data)
        #expect(ours == events(ofFoundation: data))
    }

    @Test(
        "refuses a document that is not well-formed (XMLParser on Linux accepts some of these: libxml2 recovers)",
        arguments: [
            "<model><e></model>", "<model>", "<model></e>", "<model><e a=\"1\" a=\"2\"/></model>",
            "<model><e a=\"&nbsp;\"/></model>", "<model/><other/>", "<model/>trailing", "<model><e a=1/></model>",
            "<model><e a=\"<\"/></model>", "<model><e a=\"open/></model>", "", "just text",
            "<model><!-- never closed </model>", "<model>&bogus;</model>",
        ])
    func malformedDocuments(document: String) {
        #expect(throws: XMLElementReader.Malformed.self) { try events(ofOurReader: Data(document.utf8)) }
    }

    @Test("names the line where a document stops being well-formed")
    func lineOfTheFault() {
        var reader = XMLElementReader(Array("<model>\n  <entity>\n  </attribute>\n</model>".utf8))
        #expect(throws: XMLElementReader.Malformed(line: 3, reason: "</attribute> closes <entity>")) {
            try reader.read(start: { _, _, _ in }, end: { _ in })
        }
    }

    // MARK: - The two readers' events

    enum Event: Equatable {
        case start(String, [String: String])
        case end(String)
    }

    private func events(ofOurReader data: Data) throws -> [Event] {
        var events: [Event] = []
        var reader = XMLElementReader(Array(data))
        try reader.read(
            start: { name, attributes, _ in events.append(.start(name, attributes)) }, end: { events.append(.end($0)) })
        return events
    }

    private func events(ofFoundation data: Data) -> [Event]? {
        let parser = XMLParser(data: data)
        let collector = Collector()
        parser.delegate = collector
        return parser.parse() ? collector.events : nil
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var events: [Event] = []

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            events.append(.start(element, attributes))
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            events.append(.end(element))
        }
    }
}
