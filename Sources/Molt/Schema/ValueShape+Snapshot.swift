/// A shape in a schema snapshot: a scalar as its name (`"int"`), a composite as an object with one key
/// (`{"array" : "string"}`, `{"dictionary" : "int"}`, `{"cases" : ["g", "ml"]}`,
/// `{"fields" : [{"name" : "grams", "shape" : "int"}, {"name" : "note", "presence" : "optional", "shape" : "string"}]}`).
extension ValueShape: Codable {
    private enum CodingKeys: String, CodingKey { case array, dictionary, fields, cases }

    private static let scalars: [String: ValueShape] = [
        "string": .string, "int": .int, "double": .double, "decimal": .decimal, "bool": .bool, "date": .date,
        "data": .data, "uuid": .uuid, "opaque": .opaque,
    ]

    public init(from decoder: Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            guard let scalar = Self.scalars[name] else {
                throw DecodingError.dataCorruptedError(
                    in: single,
                    debugDescription:
                        "unknown value shape '\(name)' (expected one of \(Self.scalars.keys.sorted().joined(separator: ", ")), or an object with 'array', 'dictionary', 'fields' or 'cases')"
                )
            }
            self = scalar
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let element = try c.decodeIfPresent(ValueShape.self, forKey: .array) {
            self = .array(element)
        } else if let value = try c.decodeIfPresent(ValueShape.self, forKey: .dictionary) {
            self = .dictionary(value)
        } else if let fields = try c.decodeIfPresent([Field].self, forKey: .fields) {
            self = .object(fields)
        } else if let cases = try c.decodeIfPresent([String].self, forKey: .cases) {
            self = .cases(cases)
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: c.codingPath,
                    debugDescription: "a value shape object needs one of 'array', 'dictionary', 'fields' or 'cases'"))
        }
    }

    public func encode(to encoder: Encoder) throws {
        switch self {
        case .array(let element):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(element, forKey: .array)
        case .dictionary(let value):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(value, forKey: .dictionary)
        case .object(let fields):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(fields, forKey: .fields)
        case .cases(let cases):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(cases, forKey: .cases)
        default:
            var single = encoder.singleValueContainer()
            try single.encode(name)
        }
    }
}

extension ValueShape.Field: Codable {
    private enum CodingKeys: String, CodingKey { case name, shape, presence }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name), try c.decode(ValueShape.self, forKey: .shape),
            try c.decodeIfPresent(ValueShape.Presence.self, forKey: .presence) ?? .required)
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(shape, forKey: .shape)
        if presence != .required { try c.encode(presence, forKey: .presence) }
    }
}
