import FuzzSupport
import Molt
@_spi(Fuzzing) import MoltTesting

/// The checks, built once: SQLite's scratch tables of the fixture schema.
nonisolated(unsafe) let check = try! FuzzingEntryPoints.mappingCheck(over: FuzzSupport.schema)

/// libFuzzer's entry: the bytes as a mapping's SQL expression over `Book`, checked as a mapping stage checks it
/// before it runs (one expression, no statement, reads of the old version's tables only).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMapping(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let bytes else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    _ = check(text, "Book")
    return 0
}

/// The executable's entry point (SwiftPM links it as `main`): libFuzzer's driver on ``fuzzMapping(_:_:)``.
@_cdecl("fuzz_mapping_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzSupport.run(argc, argv, fuzzMapping)
}
