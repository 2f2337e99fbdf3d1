/// MetricKit's `MXAverage` as its JSON writes it: the average as a measurement with its unit, the standard deviation
/// as a bare number in that unit, and the number of samples.
public struct MetricKitAverage: Codable, Sendable, Equatable {
  public var averageValue: String
  public var standardDeviation: Double
  public var sampleCount: Int

  public init(averageValue: String, standardDeviation: Double, sampleCount: Int) {
    self.averageValue = averageValue
    self.standardDeviation = standardDeviation
    self.sampleCount = sampleCount
  }
}
