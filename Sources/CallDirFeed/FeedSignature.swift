/// The detached signature file (`manifest.json.sig`): one line per signing key,
/// `ed25519 <keyId> <128 hex digits>`, each an Ed25519 signature over the manifest file's
/// exact bytes. Two lines while a key is being rotated (old and new key sign the same bytes),
/// and, for the moment a publication takes, lines over the previous manifest too (the
/// publisher's order: signatures of both, the new manifest, the new signatures alone), so a
/// reader that fetches the manifest and its signature across a publication still verifies.
public enum FeedSignature {
    /// The signature file for `manifest`: one line per key.
    package static func render(manifest: [UInt8], keys: [FeedPrivateKey]) throws -> [UInt8] {
        var text = ""
        for key in keys {
            text += "ed25519 \(key.publicKey.keyId) \(FeedText.hex(try key.signature(for: manifest)))\n"
        }
        return Array(text.utf8)
    }

    /// Verifies `signature` over `manifest` with one of `trusted`, then parses the manifest.
    /// Refuses with `.untrustedKey` when no line is by a trusted key, `.signature` when no
    /// line by a trusted key verifies over these bytes, `.manifest` when the verified
    /// manifest does not name a key that signed it.
    public static func verify(manifest: [UInt8], signature: [UInt8], trusted: [FeedPublicKey],
                              manifestName: String = FeedManifest.fileName,
                              signatureName: String = FeedManifest.signatureFileName) throws -> FeedManifest {
        let verifiedBy = try verifiedKeys(signature: signature, over: manifest, trusted: trusted, signatureName: signatureName)
        let parsed = try FeedManifest.parse(manifest, name: manifestName)
        guard verifiedBy.contains(parsed.keyId) else {
            throw FeedError(.manifest, "the manifest names key \(parsed.keyId), which did not sign it", path: manifestName)
        }
        return parsed
    }

    /// The ids of the trusted keys whose lines verify over `bytes` (at least one, else thrown).
    public static func verifiedKeys(signature: [UInt8], over bytes: [UInt8], trusted: [FeedPublicKey],
                                    signatureName: String) throws -> [String] {
        guard signature.count <= 4096 else {
            throw FeedError(.signature, "\(signature.count) bytes is too long for a signature file", path: signatureName)
        }
        var seen: [String] = []
        var verifiedBy: [String] = []
        var failedBy: [String] = []
        for line in String(decoding: signature, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, fields[0] == "ed25519", let sig = FeedText.bytes(hex: String(fields[2]), count: 64) else {
                throw FeedError(.signature, "malformed line \"\(line.prefix(80))\" (expected \"ed25519 <keyId> <128 hex>\")",
                                path: signatureName)
            }
            let keyId = String(fields[1])
            seen.append(keyId)
            guard let key = trusted.first(where: { $0.keyId == keyId }) else { continue }
            if key.isValidSignature(sig, for: bytes) { verifiedBy.append(keyId) } else { failedBy.append(keyId) }
        }
        if verifiedBy.isEmpty, let keyId = failedBy.first {
            throw FeedError(.signature, "the signature by trusted key \(keyId) does not verify over the signed file's "
                            + "\(bytes.count) bytes (altered file or signature)", path: signatureName)
        }
        guard !verifiedBy.isEmpty else {
            let trustedIds = trusted.map(\.keyId).joined(separator: ", ")
            throw FeedError(.untrustedKey, seen.isEmpty ? "no signature in the file"
                            : "signed by key \(seen.joined(separator: ", ")), which is not trusted (trusted: \(trustedIds))",
                            path: signatureName)
        }
        return verifiedBy
    }
}
