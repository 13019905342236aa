import Foundation

/// A `Decoder` that records the shape of the JSON a type's `init(from:)` reads, answering every question with a
/// placeholder (empty text, zero, the first case) so that the walk reaches every field.
struct ShapeProbe: Decoder {
    /// What the walk of one value found.
    final class Recorder {
        enum Form { case object, array, single }
        /// A shape found, or one a nested container is still recording.
        enum Slot {
            case found(ValueShape)
            case nested(Recorder)

            var shape: ValueShape {
                switch self {
                case .found(let shape): shape
                case .nested(let recorder): recorder.shape
                }
            }
        }

        var form: Form?
        var fields: [(name: String, slot: Slot)] = []
        /// The keys asked whether they hold null (`decodeIfPresent` asks first): optional fields.
        var nullable: Set<String> = []
        var element: Slot?
        var single: ValueShape?

        var shape: ValueShape {
            switch form {
            case .object:
                .object(
                    fields.map {
                        ValueShape.Field($0.name, $0.slot.shape, nullable.contains($0.name) ? .optional : .required)
                    })
            case .array: .array(element?.shape ?? .opaque)
            case .single: single ?? .opaque
            case nil: .opaque
            }
        }

        func add(_ name: String, _ slot: Slot) {
            guard !fields.contains(where: { $0.name == name }) else { return }
            fields.append((name, slot))
        }
    }

    let recorder: Recorder
    var codingPath: [CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        recorder.form = .object
        return KeyedDecodingContainer(Keyed<Key>(recorder: recorder, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        recorder.form = .array
        return Unkeyed(recorder: recorder, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        recorder.form = .single
        return Single(recorder: recorder, codingPath: codingPath)
    }

    /// A placeholder value of `type` and its shape.
    ///
    /// - Parameter declared: Whether a ``ShapedValue`` type that cannot be walked may give its declared shape
    ///   (false for the type whose default ``ShapedValue/valueShape`` is being computed, which would ask again).
    static func probe<T: Decodable>(_ type: T.Type, declared: Bool = true) throws -> (value: T, shape: ValueShape) {
        if let (value, shape) = scalar(type) { return (value as! T, shape) }
        if let enumeration = type as? any (CaseIterable & RawRepresentable).Type,
            let (value, shape) = firstCase(enumeration)
        {
            if let value = value as? T { return (value, shape) }
        }
        if let dictionary = type as? any ProbedDictionary.Type {
            let (value, shape) = try dictionary.probeDictionary()
            return (value as! T, shape)
        }
        let recorder = Recorder()
        do {
            return (try T(from: ShapeProbe(recorder: recorder)), recorder.shape)
        } catch {
            guard declared, let shaped = type as? any ShapedValue.Type else { throw error }
            let shape = shaped.valueShape
            guard let sample = shape.sample() else { throw error }
            let data = try JSONSerialization.data(withJSONObject: sample, options: [.fragmentsAllowed])
            return (try JSONDecoder().decode(T.self, from: data), shape)
        }
    }

    private static func firstCase<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> (Any, ValueShape)? {
        guard let first = E.allCases.first else { return nil }
        let raws = E.allCases.map(\.rawValue)
        if let names = raws as? [String] { return (first, .cases(names)) }
        if raws is [Int] || raws is [Int64] || raws is [Int32] || raws is [Int16] { return (first, .int) }
        return nil
    }

    private static func scalar(_ type: Any.Type) -> (Any, ValueShape)? {
        switch type {
        case is String.Type: ("", .string)
        case is Bool.Type: (false, .bool)
        case is Double.Type: (0.0, .double)
        case is Float.Type: (Float(0), .double)
        case is Int.Type: (0, .int)
        case is Int64.Type: (Int64(0), .int)
        case is Int32.Type: (Int32(0), .int)
        case is Int16.Type: (Int16(0), .int)
        case is Int8.Type: (Int8(0), .int)
        case is UInt.Type: (UInt(0), .int)
        case is UInt64.Type: (UInt64(0), .int)
        case is UInt32.Type: (UInt32(0), .int)
        case is UInt16.Type: (UInt16(0), .int)
        case is UInt8.Type: (UInt8(0), .int)
        case is Decimal.Type: (Decimal(0), .decimal)
        case is Date.Type: (Date(timeIntervalSinceReferenceDate: 0), .date)
        case is Data.Type: (Data(), .data)
        case is UUID.Type: (UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)), .uuid)
        case is URL.Type: (URL(string: "https://example.com")!, .string)
        default: nil
        }
    }
}

/// A dictionary keyed by strings, whose `init(from:)` asks for its keys first (which a probe has none of).
protocol ProbedDictionary {
    static func probeDictionary() throws -> (Any, ValueShape)
}

extension Dictionary: ProbedDictionary where Key == String, Value: Decodable {
    static func probeDictionary() throws -> (Any, ValueShape) {
        let (_, shape) = try ShapeProbe.probe(Value.self)
        return ([String: Value](), .dictionary(shape))
    }
}
