/// Compares each value an example reads with the one it expects, printing one line per check.
final class Checker {
    let example: String
    private(set) var failures = 0

    init(_ example: String) { self.example = example }

    func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: String) {
        if actual == expected {
            print("ok   \(example): \(what)")
        } else {
            print("FAIL \(example): \(what): \(actual) != \(expected)")
            failures += 1
        }
    }

    func fail(_ error: any Error) {
        print("FAIL \(example): \(error)")
        failures += 1
    }
}
