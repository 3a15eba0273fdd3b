/// What one field of an input list becomes after normalisation.
public enum NormalizedEntry: Equatable, Sendable {
    /// One number, E.164 digits as CallKit's Int64.
    case number(Int64)
    /// A wildcard pattern (`33162######`) or explicit range (`33162000000-33162999999`).
    case range(NumberRange)
}
