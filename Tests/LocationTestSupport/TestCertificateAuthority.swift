import Foundation
import Testing

/// A certificate authority made for one test with the `openssl` command line, and a
/// server certificate it signed (for 127.0.0.1 and localhost unless told otherwise): what a test server (an
/// ``UplinkServer``, a ``Mosquitto`` broker) serves, and what a client is told to trust
/// (``caFile``) instead of the system's store. Its files are removed when it is released.
package final class TestCertificateAuthority: Sendable {
    /// The authority's certificate (PEM): the file a client trusts.
    package let caFile: String
    /// The server's certificate (PEM), signed by the authority.
    package let certificateFile: String
    /// The server certificate's private key (PEM, unencrypted).
    package let keyFile: String
    private let directory: String

    /// Makes the authority and the server certificate (P-256 keys, valid one day) for
    /// `names` (`subjectAltName` entries).
    package init(names: [String] = ["IP:127.0.0.1", "DNS:localhost"]) async throws {
        directory = NSTemporaryDirectory() + "locationd-ca-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        caFile = directory + "/ca.pem"
        certificateFile = directory + "/server.pem"
        keyFile = directory + "/server.key"
        let (caKey, request, extensions) = (directory + "/ca.key", directory + "/server.csr", directory + "/server.ext")
        try """
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature, keyEncipherment
        extendedKeyUsage = serverAuth
        subjectAltName = \(names.joined(separator: ", "))

        """.write(toFile: extensions, atomically: true, encoding: .utf8)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        for arguments in [
            ["req", "-x509"] + key + [
                "-keyout", caKey, "-out", caFile, "-days", "1", "-subj", "/CN=locationd test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ],
            ["req"] + key + ["-keyout", keyFile, "-out", request, "-subj", "/CN=127.0.0.1"],
            [
                "x509", "-req", "-in", request, "-CA", caFile, "-CAkey", caKey, "-CAcreateserial", "-out",
                certificateFile, "-days", "1", "-extfile", extensions,
            ],
        ] {
            let run = try await runProgram("/usr/bin/openssl", arguments)
            try #require(run.status == 0, "openssl \(arguments[0]): \(run.stderr)")
        }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}
