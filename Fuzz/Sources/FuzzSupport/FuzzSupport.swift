import CLibFuzzer
import Foundation
import Molt
@_spi(Fuzzing) import MoltTesting

/// What every fuzz target shares: the schema that mapping SQL and data files are read against, and the rule that
/// a reader of untrusted input returns or throws ``MoltError``, never anything else.
public enum FuzzSupport {
    /// The schema mapping SQL and data files are read against (``FuzzingEntryPoints/fixtureSchema``, shared with
    /// the corpus replay of the ordinary tests).
    public static var schema: Schema { FuzzingEntryPoints.fixtureSchema }

    /// Runs libFuzzer on `testOneInput` with the process's arguments (`-max_total_time=60 corpus/ seeds/` …).
    ///
    /// SwiftPM names an executable's entry point `<module>_main` and links it as `main`, so libFuzzer's own `main`
    /// is left out and each target's entry point calls this.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        molt_fuzz_run(argc, argv, testOneInput)
    }

    /// Runs `body`; a ``MoltError`` is an answer, any other error a bug, which stops the fuzzer with the input.
    public static func expectingOnlyMoltErrors(_ body: () throws -> Void) {
        do {
            try body()
        } catch is MoltError {
            return
        } catch {
            fatalError("Not a MoltError: \(type(of: error)): \(error)")
        }
    }
}
