/// A catalog of products, stored column by column.
///
/// Names and ids live in two contiguous UTF-8 buffers with offset tables rather than in one
/// `String` per product: 10M products would otherwise cost 20M heap allocations, and the filter
/// engine reads the names as bytes anyway. Scopes and tokens are interned and stored as small
/// integers.
public struct Catalog: Sendable {
    @usableFromInline var nameBytes: [UInt8] = []
    /// `count + 1` entries; product `i`'s name is `nameBytes[nameOffsets[i]..<nameOffsets[i + 1]]`.
    @usableFromInline var nameOffsets: [Int] = [0]
    @usableFromInline var idBytes: [UInt8] = []
    @usableFromInline var idOffsets: [Int] = [0]
    /// Index into `scopes` per product.
    @usableFromInline var scopeIDs: [UInt32] = []
    /// `count + 1` entries into `tokenIDs`.
    @usableFromInline var tokenOffsets: [Int] = [0]
    @usableFromInline var tokenIDs: [UInt32] = []
    @usableFromInline var popularities: [UInt32] = []

    /// Every distinct scope, in order of first appearance; index 0 is always `""` (no scope).
    public private(set) var scopes: [String] = [""]
    /// Every distinct token, in order of first appearance.
    public private(set) var tokens: [String] = []

    /// An empty catalog; build one with ``CatalogBuilder`` or load one with ``CatalogLoader``.
    public init() {}

    /// The number of products.
    public var count: Int { popularities.count }
    /// True when the catalog holds no product.
    public var isEmpty: Bool { popularities.isEmpty }
    /// The valid product indices, `0..<count`, in the order products were added.
    public var indices: Range<Int> { 0..<count }

    /// The total size of all names in UTF-8 bytes.
    public var nameByteCount: Int { nameBytes.count }

    /// Product `index` as a value (allocates its strings; the per-column accessors do not build the
    /// whole ``Product``).
    public subscript(index: Int) -> Product {
        Product(
            id: id(at: index), name: name(at: index), scope: scope(at: index),
            tokens: tokens(at: index), popularity: popularity(at: index)
        )
    }

    /// The name of product `index`.
    public func name(at index: Int) -> String {
        String(decoding: nameBytes[nameOffsets[index]..<nameOffsets[index + 1]], as: UTF8.self)
    }

    /// The id of product `index`.
    public func id(at index: Int) -> String {
        String(decoding: idBytes[idOffsets[index]..<idOffsets[index + 1]], as: UTF8.self)
    }

    /// The scope of product `index`; `""` when it has none.
    public func scope(at index: Int) -> String { scopes[Int(scopeIDs[index])] }

    /// The index into `scopes` of product `index`'s scope.
    public func scopeID(at index: Int) -> Int { Int(scopeIDs[index]) }

    /// The tokens of product `index`, in the order they were given.
    public func tokens(at index: Int) -> [String] {
        tokenIDs[tokenOffsets[index]..<tokenOffsets[index + 1]].map { tokens[Int($0)] }
    }

    /// Indices into `tokens` of product `index`'s tokens.
    public func tokenIDs(at index: Int) -> ArraySlice<UInt32> {
        tokenIDs[tokenOffsets[index]..<tokenOffsets[index + 1]]
    }

    /// The popularity of product `index` (higher ranks first).
    public func popularity(at index: Int) -> Int { Int(popularities[index]) }

    /// The name of every product as UTF-8 bytes in one buffer, with `count + 1` offsets.
    ///
    /// For code that reads every name (folding, statistics) without making a `String` each.
    public func withNameStorage<R>(_ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int>) throws -> R) rethrows -> R {
        try nameBytes.withUnsafeBufferPointer { bytes in
            try nameOffsets.withUnsafeBufferPointer { offsets in try body(bytes, offsets) }
        }
    }

    /// Every product, materialized; for small catalogs and tests.
    public var products: [Product] { indices.map { self[$0] } }
}

/// Builds a `Catalog` one product at a time, rejecting duplicate ids.
///
/// Duplicate detection uses an open-addressing table of row numbers keyed by a hash of the id
/// bytes, so checking 10M ids costs one `Int32` slot per id instead of a `Set<String>`.
public struct CatalogBuilder: Sendable {
    /// The catalog built so far.
    public private(set) var catalog = Catalog()
    private var scopeLookup: [String: UInt32] = ["": 0]
    private var tokenLookup: [String: UInt32] = [:]
    private var idSlots: [Int32] = Array(repeating: -1, count: 1024)
    /// Whether ids are checked for uniqueness; the generator makes unique ids and skips it.
    private let checksDuplicates: Bool

    /// A builder for an empty catalog. `checkDuplicateIDs: false` skips the uniqueness check of ids,
    /// for sources that guarantee it (the generator).
    public init(checkDuplicateIDs: Bool = true) {
        checksDuplicates = checkDuplicateIDs
    }

    /// Products added so far.
    public var count: Int { catalog.count }

    /// Reserves space for `count` products whose names total about `nameBytes` bytes.
    public mutating func reserveCapacity(products count: Int, nameBytes: Int) {
        catalog.nameBytes.reserveCapacity(nameBytes)
        catalog.nameOffsets.reserveCapacity(count + 1)
        catalog.idOffsets.reserveCapacity(count + 1)
        catalog.scopeIDs.reserveCapacity(count)
        catalog.tokenOffsets.reserveCapacity(count + 1)
        catalog.popularities.reserveCapacity(count)
        if checksDuplicates {
            var slots = idSlots.count
            while slots < count * 2 { slots *= 2 }
            if slots > idSlots.count { resizeIDSlots(to: slots) }
        }
    }

    /// Appends `product`; returns the index of the earlier product with the same id instead if
    /// there is one (and appends nothing).
    @discardableResult
    public mutating func append(_ product: Product) -> Int? {
        var id = product.id
        var name = product.name
        return id.withUTF8 { idBytes in
            name.withUTF8 { nameBytes in
                append(id: idBytes, name: nameBytes, scope: product.scope, tokens: product.tokens, popularity: UInt32(clamping: product.popularity))
            }
        }
    }

    /// Appends a product given as UTF-8 bytes (already validated by the caller).
    ///
    /// - Returns: `nil`, or the index of an earlier product with the same id (nothing appended).
    public mutating func append(
        id: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
        scope: String, tokens: [String], popularity: UInt32
    ) -> Int? {
        if checksDuplicates, let earlier = insertID(id) { return earlier }
        catalog.idBytes.append(contentsOf: id)
        catalog.idOffsets.append(catalog.idBytes.count)
        appendRest(name: name, scopeID: internScope(scope), tokenIDs: tokens.map { internToken($0) }, popularity: popularity)
        return nil
    }

    /// The generator's fast path: interned scope and token numbers, ids known to be unique.
    public mutating func appendGenerated(
        id: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>,
        scope: String, tokens: some Sequence<String>, popularity: UInt32
    ) {
        catalog.idBytes.append(contentsOf: id)
        catalog.idOffsets.append(catalog.idBytes.count)
        appendRest(name: name, scopeID: internScope(scope), tokenIDs: tokens.map { internToken($0) }, popularity: popularity)
    }

    private mutating func appendRest(name: UnsafeBufferPointer<UInt8>, scopeID: UInt32, tokenIDs: [UInt32], popularity: UInt32) {
        catalog.nameBytes.append(contentsOf: name)
        catalog.nameOffsets.append(catalog.nameBytes.count)
        catalog.scopeIDs.append(scopeID)
        catalog.tokenIDs.append(contentsOf: tokenIDs)
        catalog.tokenOffsets.append(catalog.tokenIDs.count)
        catalog.popularities.append(popularity)
    }

    private mutating func internScope(_ scope: String) -> UInt32 {
        if let id = scopeLookup[scope] { return id }
        let id = UInt32(catalog.scopes.count)
        catalog.appendScope(scope)
        scopeLookup[scope] = id
        return id
    }

    private mutating func internToken(_ token: String) -> UInt32 {
        if let id = tokenLookup[token] { return id }
        let id = UInt32(catalog.tokens.count)
        catalog.appendToken(token)
        tokenLookup[token] = id
        return id
    }

    /// Inserts the id of the next row; returns the earlier row with the same id if any.
    private mutating func insertID(_ id: UnsafeBufferPointer<UInt8>) -> Int? {
        if (catalog.count + 1) * 2 > idSlots.count { growIDSlots() }
        let mask = idSlots.count - 1
        var slot = Int(truncatingIfNeeded: Self.hash(id)) & mask
        while true {
            let row = idSlots[slot]
            if row < 0 {
                idSlots[slot] = Int32(catalog.count)
                return nil
            }
            if idEquals(Int(row), id) { return Int(row) }
            slot = (slot + 1) & mask
        }
    }

    private func idEquals(_ row: Int, _ id: UnsafeBufferPointer<UInt8>) -> Bool {
        let start = catalog.idOffsets[row], end = catalog.idOffsets[row + 1]
        guard end - start == id.count else { return false }
        return catalog.idBytes.withUnsafeBufferPointer { stored in
            id.indices.allSatisfy { stored[start + $0] == id[$0] }
        }
    }

    private mutating func growIDSlots() {
        resizeIDSlots(to: idSlots.count * 2)
    }

    private mutating func resizeIDSlots(to size: Int) {
        var slots = [Int32](repeating: -1, count: size)
        let mask = slots.count - 1
        catalog.idBytes.withUnsafeBufferPointer { bytes in
            for row in 0..<catalog.count {
                let id = UnsafeBufferPointer(rebasing: bytes[catalog.idOffsets[row]..<catalog.idOffsets[row + 1]])
                var slot = Int(truncatingIfNeeded: Self.hash(id)) & mask
                while slots[slot] >= 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(row)
            }
        }
        idSlots = slots
    }

    /// FNV-1a, then a final mix so the low bits used as the slot are well spread.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        h ^= h >> 33
        h = h &* 0xFF51_AFD7_ED55_8CCD
        h ^= h >> 33
        return h
    }

    /// The finished catalog.
    public func build() -> Catalog { catalog }
}

extension Catalog {
    mutating func appendScope(_ scope: String) { scopes.append(scope) }
    mutating func appendToken(_ token: String) { tokens.append(token) }

    /// A catalog of `products`, in order.
    ///
    /// - Throws: `CatalogError` with kind `.duplicateID` if two products share an id.
    public init(_ products: some Sequence<Product>) throws(CatalogError) {
        var builder = CatalogBuilder()
        for (row, product) in products.enumerated() {
            if let earlier = builder.append(product) {
                throw CatalogError(file: "<memory>", line: row + 1, field: "id", kind: .duplicateID(id: product.id, firstLine: earlier + 1))
            }
        }
        self = builder.build()
    }
}
