import Crypto

/// Ed25519 keys of a feed (swift-crypto's Curve25519.Signing; CryptoKit on Apple platforms).
/// A public key is pasted into configuration as `ed25519:` and 64 hex digits; its key id is the
/// first 16 hex digits of the SHA-256 of its 32 bytes. A private key file is one line:
/// `calldir-feed-private-key-v1 ` and the 64 hex digits of the key's 32-byte seed.
public struct FeedPublicKey: Sendable, Equatable {
    /// What a public key's text starts with.
    public static let prefix = "ed25519:"
    /// The 32 bytes of the Ed25519 public key.
    public let raw: [UInt8]

    /// A key from its 32 raw bytes.
    public init(raw: [UInt8]) { self.raw = raw }

    /// Parses `ed25519:<64 hex>`.
    public init(text: String) throws {
        let trimmed = String(text.filter { !$0.isWhitespace })
        guard trimmed.hasPrefix(FeedPublicKey.prefix),
              let raw = FeedText.bytes(hex: String(trimmed.dropFirst(FeedPublicKey.prefix.count)).lowercased(), count: 32),
              (try? Curve25519.Signing.PublicKey(rawRepresentation: raw)) != nil else {
            throw FeedError(.usage, "a trusted key is \"ed25519:\" and 64 hex digits (what `calldir keygen` prints); got \"\(text)\"")
        }
        self.raw = raw
    }

    /// `ed25519:` and 64 hex digits, as `--trusted-key` takes it.
    public var text: String { FeedPublicKey.prefix + FeedText.hex(raw) }
    /// The first 16 hex digits of the key's SHA-256, as signature lines name it.
    public var keyId: String { String(FeedText.hex(SHA256.hash(data: raw)).prefix(16)) }

    /// Whether `signature` is this key's over `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// A publisher's Ed25519 signing key (`calldir keygen` writes it).
package struct FeedPrivateKey: Sendable {
    /// What a private key file's line starts with.
    package static let header = "calldir-feed-private-key-v1 "
    /// The 32-byte seed (the key type itself is not Sendable).
    let seed: [UInt8]
    var key: Curve25519.Signing.PrivateKey { try! Curve25519.Signing.PrivateKey(rawRepresentation: seed) }

    /// A new random key.
    package init() { seed = Array(Curve25519.Signing.PrivateKey().rawRepresentation) }

    /// Parses a private key file's text.
    package init(fileText: String, path: String) throws {
        let line = fileText.split(separator: "\n").first.map(String.init) ?? ""
        guard line.hasPrefix(FeedPrivateKey.header),
              let seed = FeedText.bytes(hex: String(line.dropFirst(FeedPrivateKey.header.count)), count: 32),
              (try? Curve25519.Signing.PrivateKey(rawRepresentation: seed)) != nil else {
            throw FeedError(.usage, "not a calldir feed private key (expected one line \"\(FeedPrivateKey.header)<64 hex>\", "
                            + "as `calldir keygen` writes)", path: path)
        }
        self.seed = seed
    }

    /// The key file's text: the header and 64 hex digits.
    package var fileText: String { FeedPrivateKey.header + FeedText.hex(seed) + "\n" }
    /// The package key followers trust.
    package var publicKey: FeedPublicKey { FeedPublicKey(raw: Array(key.publicKey.rawRepresentation)) }

    /// The Ed25519 signature of `message`.
    package func signature(for message: [UInt8]) throws -> [UInt8] { Array(try key.signature(for: message)) }
}

/// SHA-256 over bytes handed in pieces (downloads, mapped files).
public struct FeedDigest {
    private var hasher = SHA256()
    /// An empty digest.
    public init() {}
    /// Adds the next bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bufferPointer: bytes) }
    /// The SHA-256 so far, lower-case hex.
    public func hex() -> String { FeedText.hex(hasher.finalize()) }

    /// The SHA-256 of `bytes`, lower-case hex.
    public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var d = FeedDigest()
        d.update(bytes)
        return d.hex()
    }
}
