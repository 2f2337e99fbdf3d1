/// A measurement as MetricKit's JSON writes it: the value, grouped in thousands with commas as the `en_US` formatter
/// of Apple's payloads does, at most three decimals, a space and the unit (`3.214 sec`, `200,000 kB`, `1,000 ms`).
public enum MetricKitMeasurement {
  /// `value` with `unit`; a negative value (which no counter gives) is written as 0.
  public static func format(_ value: Double, unit: String) -> String {
    let thousandths = Int((max(0, value) * 1000).rounded())
    var text = grouped(thousandths / 1000)
    var fraction = thousandths % 1000
    if fraction != 0 {
      var digits = 3
      while fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
      let raw = String(fraction)
      text += "." + String(repeating: "0", count: digits - raw.count) + raw
    }
    return text + " " + unit
  }

  /// The number a measurement string carries, in its own unit (nil if it is not one): what tests and readers of
  /// these payloads parse.
  public static func value(of text: String) -> Double? {
    guard let number = text.split(separator: " ").first else { return nil }
    return Double(number.filter { $0 != "," })
  }

  private static func grouped(_ whole: Int) -> String {
    let digits = Array(String(whole))
    var result = ""
    for (index, digit) in digits.enumerated() {
      if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
      result.append(digit)
    }
    return result
  }
}
