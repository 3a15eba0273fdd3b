#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How numbers are written.
public enum NumberStyle: String, Sendable, CaseIterable {
    /// `12015550123`: E.164 digits without '+', what most lists and every peer tool take.
    case plain
    /// `+12015550123`.
    case plus
    /// A rotation of `+1 (201) 555-0123`, `1-201-555-0123`, `+1 201.555.0123`: normaliser work.
    case formatted
}

/// Buffered line output to a file descriptor, formatting numbers without allocating.
public struct ListWriter {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var rotation = 0
    public let style: NumberStyle

    public init(fd: Int32, style: NumberStyle = .plain) {
        self.fd = fd
        self.style = style
        buffer.reserveCapacity(1 << 20)
    }

    public mutating func number(_ n: Int64) {
        switch style {
        case .plain: digits(n, count: 11)
        case .plus: buffer.append(0x2B); digits(n, count: 11)
        case .formatted: formatted(n)
        }
    }

    /// A label field: TAB then the label text.
    public mutating func label(_ text: String) {
        buffer.append(0x09)
        buffer.append(contentsOf: text.utf8)
    }

    public mutating func endLine() {
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 { flush() }
    }

    public mutating func flush() {
        buffer.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    perror("calldir-gen: write")
                    exit(1)
                }
                done += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The last `count` decimal digits of `n`, zero-padded.
    private mutating func digits(_ n: Int64, count: Int) {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0x30, count: count))
        var rest = n
        var i = start + count - 1
        while i >= start {
            buffer[i] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
            rest /= 10
            i -= 1
        }
    }

    private mutating func formatted(_ n: Int64) {
        let area = n / 10_000_000 % 1_000
        let exchange = n / 10_000 % 1_000
        let line = n % 10_000
        rotation = (rotation + 1) % 3
        switch rotation {
        case 0:
            text("+1 ("); digits(area, count: 3); text(") "); digits(exchange, count: 3); text("-")
        case 1:
            text("1-"); digits(area, count: 3); text("-"); digits(exchange, count: 3); text("-")
        default:
            text("+1 "); digits(area, count: 3); text("."); digits(exchange, count: 3); text(".")
        }
        digits(line, count: 4)
    }

    private mutating func text(_ s: StaticString) {
        s.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }
}
