/// How counts read in every message: thousands separators, plurals, and one vocabulary for an
/// index's size: "N numbers, M ranges (K device entries)". Numbers are exact entries, ranges
/// are stored FIRST-LAST spans (wildcards included), device entries are what a CallKit
/// extension loads (exact numbers plus every number a range covers, each number once).

/// 1234567 -> "1,234,567".
package func formatCount<T: BinaryInteger>(_ n: T) -> String {
    let digits = String(n)
    var out = ""
    for (i, c) in digits.enumerated() {
        if i > 0, (digits.count - i) % 3 == 0, c != "-" { out.append(",") }
        out.append(c)
    }
    return out
}

/// "1 range", "2 ranges", "1,000 numbers". `plural` defaults to `singular` + "s".
package func counted<T: BinaryInteger>(_ n: T, _ singular: String, _ plural: String? = nil) -> String {
    "\(formatCount(n)) \(n == 1 ? singular : plural ?? singular + "s")"
}

/// "15 numbers, 374 ranges (15,004,219 device entries)".
package func sizeText(numbers: Int, ranges: Int, deviceEntries: Int64) -> String {
    "\(counted(numbers, "number")), \(counted(ranges, "range")) (\(counted(deviceEntries, "device entry", "device entries")))"
}

/// `value` with exactly `places` decimals.
package func formatFixed(_ value: Double, _ places: Int) -> String {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let decimals = text.distance(from: dot, to: text.endIndex) - 1
        if decimals < places { text += String(repeating: "0", count: places - decimals) }
    } else if places > 0 { text += "." + String(repeating: "0", count: places) }
    return text
}
