#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic lists of North American numbers for benchmarks: the same seed and count give
/// the same list on every run (same platform; the gaps use `log`).
///
/// Numbers are `1 NPA NXX XXXX` with area code (NPA) and exchange (NXX) from 200 to 999,
/// excluding the N11 service codes: 792 x 792 x 10,000 = 6.27 billion possible numbers.
/// A list of n numbers is a sorted uniform sample of that space, drawn in one pass (each next
/// number is the least of the remaining picks), so gaps look like those of a random sample
/// (clusters and long runs of nothing), the count is exact, and no sort is needed.
/// Uniform spread is the worst case for the index's size at a given count.
public struct NANPSpace: Sendable {
    static let codes: [Int64] = (200...999).filter { $0 % 100 != 11 }.map(Int64.init)
    public static let size = Int64(codes.count * codes.count * 10_000)

    /// The `index`-th possible number in ascending order (0 ..< size).
    @inline(__always)
    public static func number(at index: Int64) -> Int64 {
        let line = index % 10_000
        let exchange = codes[Int(index / 10_000 % Int64(codes.count))]
        let area = codes[Int(index / 10_000 / Int64(codes.count))]
        return 10_000_000_000 + area * 10_000_000 + exchange * 10_000 + line
    }
}

/// SplitMix64: small, fast, and good enough for sampling.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64
    public init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x2545_F491_4F6C_DD1D }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in (0, 1].
    @inline(__always)
    mutating func unit() -> Double { Double((next() >> 11) + 1) * 0x1p-53 }
}

/// Streams a sorted sample of `count` numbers from `NANPSpace`.
public struct SortedSample: Sequence, IteratorProtocol, Sendable {
    private var random: SeededRandom
    private var cursor: Int64 = 0   // next candidate index in the space
    private var needed: Int64

    public init(count: Int, seed: UInt64) {
        precondition(count >= 0 && Int64(count) <= NANPSpace.size, "count exceeds the NANP space")
        random = SeededRandom(seed: seed)
        needed = Int64(count)
    }

    public mutating func next() -> Int64? {
        guard needed > 0 else { return nil }
        // The next pick is the least of `needed` uniform points in the remaining space:
        // skip = floor(remaining * (1 - U^(1/needed))), by inversion of its distribution.
        let remaining = NANPSpace.size - cursor
        let s = (Double(remaining) * -expm1(log(random.unit()) / Double(needed))).rounded(.down)
        let skip = s < Double(remaining - needed) ? Int64(s) : remaining - needed
        let index = cursor + skip
        cursor = index + 1
        needed -= 1
        return NANPSpace.number(at: index)
    }
}

/// A few dozen caller labels, most common first; `pick` draws them with Zipf-like weights
/// (label i about 1/(i+1) as often as the first).
public enum CallerLabels {
    public static let all = [
        "Telemarketer", "Scam Likely", "Robocall", "Spam", "Debt Collector", "Survey",
        "Political Campaign", "Charity", "Health Insurance", "Auto Warranty", "Student Loans",
        "Credit Card Offer", "Tech Support Scam", "IRS Impersonation", "Energy Supplier",
        "Home Security", "Solar Panels", "Timeshare", "Medicare Offer", "Prize Notification",
        "Bank Impersonation", "Delivery Scam", "Loan Offer", "Travel Deal", "Pharmacy",
        "Real Estate", "Insurance Sales", "Market Research", "Fundraiser", "Phishing",
        "Utility Scam", "Cruise Offer", "Lottery", "Crypto Scam", "Job Offer", "Wrong Number",
        "Silent Call", "Call Center", "Collections Agency", "Unknown Business",
    ]

    /// Cumulative weights 1/1, 1/2, ... scaled to 2^32.
    static let cumulative: [UInt64] = {
        let weights = all.indices.map { 1.0 / Double($0 + 1) }
        let total = weights.reduce(0, +)
        var sum = 0.0
        return weights.map { w in sum += w; return UInt64(sum / total * 4_294_967_296.0) }
    }()

    @inline(__always)
    public static func pick(_ random: inout SeededRandom) -> Int {
        let r = random.next() >> 32
        var i = 0
        while i < cumulative.count - 1 && r >= cumulative[i] { i += 1 }
        return i
    }
}
