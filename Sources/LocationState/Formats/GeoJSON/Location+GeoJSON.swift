import LocationState

extension Location {
    /// The opening of a GeoJSON FeatureCollection; features follow, separated by commas.
    public static let geoJSONHeader = #"{"type":"FeatureCollection","features":["#
    /// The closing of the FeatureCollection.
    public static let geoJSONFooter = "\n]}\n"

    /// One GeoJSON Point feature with the fix's fields as properties.
    public func appendGeoJSONFeature(to out: inout [UInt8]) {
        DecimalFormatting.appendLiteral(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#, to: &out)
        DecimalFormatting.append(lon ?? .nan, decimals: 9, to: &out)
        out.append(UInt8(ascii: ","))
        DecimalFormatting.append(lat ?? .nan, decimals: 9, to: &out)
        if let altitude = altMSL {
            out.append(UInt8(ascii: ","))
            DecimalFormatting.append(altitude, decimals: 3, to: &out)
        }
        DecimalFormatting.appendLiteral(#"]},"properties":"#, to: &out)
        appendJSON(to: &out)
        out.append(UInt8(ascii: "}"))
    }

}
