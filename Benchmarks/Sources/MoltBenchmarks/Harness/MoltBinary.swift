import Foundation

/// How the `molt` binary under test was built, for the labels of the CLI scenarios: its start-up cost (most of a
/// small command's time) depends on it, so a figure means nothing without it.
///
/// - the Swift runtime and Foundation linked dynamically (a plain `swift build`) or statically
///   (`--static-swift-stdlib`, what the README's install line does);
/// - with PostgreSQL support (the default `PostgreSQL` trait: NIO, postgres-nio and BoringSSL are in it) or for
///   SQLite files only (`--disable-default-traits`).
enum MoltBinary {
    static func describe(_ binary: URL) -> String {
        guard let bytes = try? Data(contentsOf: binary, options: .alwaysMapped) else { return "unknown build" }
        // A dynamically linked binary names libswiftCore.so among the libraries it needs; NIO's module name is in
        // the mangled names of a binary that links it.
        let runtime = bytes.range(of: Data("libswiftCore.so".utf8)) == nil ? "static runtime" : "dynamic runtime"
        let engines = bytes.range(of: Data("8NIOPosix".utf8)) == nil ? "SQLite only" : "with PostgreSQL"
        return "\(runtime), \(engines)"
    }
}
