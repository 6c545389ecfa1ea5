/// An optional that JSON always carries: `nil` is written as `null` instead of leaving the key
/// out, so every document of a type has the same keys.
///
/// Synthesised `Codable` leaves a `nil` optional out; a property marked `@ExplicitNull` keeps its
/// key. Decoding accepts the key as `null` or missing.
@propertyWrapper
public struct ExplicitNull<Value> {
    /// The value; `nil` is encoded as `null`.
    public var wrappedValue: Value?

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension ExplicitNull: Encodable where Value: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(Value.self))
    }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Sendable where Value: Sendable {}

extension KeyedDecodingContainer {
    /// A missing key decodes as `nil`, as it does for a plain optional.
    public func decode<Value: Decodable>(_ type: ExplicitNull<Value>.Type, forKey key: Key) throws -> ExplicitNull<Value> {
        ExplicitNull(wrappedValue: try decodeIfPresent(Value.self, forKey: key))
    }
}
