import Foundation

/// `GET /api/v1/last` from the daemon's HTTP server, next to nginx serving a static
/// file of the same size, with `wrk` at the same threads, connections and duration.
///
/// gpsfake feeds a real gpsd a 1 Hz track and `locationd run --source gpsd` reads it
/// (its answer is live and changes every second). nginx runs with a configuration of
/// its own in a temporary directory, `worker_processes auto` and no access log, on a
/// free loopback port, and is stopped at the end. One run each, one after the other.
/// Then ``httpEventsBenchmark()``: 100 event streams at 10 Hz.
func httpBenchmark() async throws {
    try await httpRequestsBenchmark()
    try await httpEventsBenchmark()
}

private func httpRequestsBenchmark() async throws {
    let ourPort = try freeLoopbackPort()
    let rig = try GPSDRig(name: "http", epochs: 3600, rate: 1, daemonArguments: ["--http", "127.0.0.1:\(ourPort)"])
    defer { rig.stop() }
    let ourURL = "http://127.0.0.1:\(ourPort)/api/v1/last"
    try waitFor("the daemon's HTTP server") {
        (try? runProcess("/usr/bin/curl", ["-sf", "-o", "/dev/null", ourURL]).status) == 0
    }
    let answer = try runProcess("/usr/bin/curl", ["-sf", ourURL])
    guard answer.status == 0, answer.stdout.hasPrefix("{") else {
        throw BenchmarkError("GET /api/v1/last failed: \(answer.stderr)")
    }
    let size = answer.stdout.utf8.count

    let work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-nginx-\(getpid())")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: work.path)
    try String(repeating: "x", count: size).write(
        to: work.appendingPathComponent("last.json"), atomically: true, encoding: .ascii)
    let nginxPort = try freeLoopbackPort()
    let configuration = """
        daemon off;
        worker_processes auto;
        pid \(work.path)/nginx.pid;
        error_log \(work.path)/error.log;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(work.path)/body;
            proxy_temp_path \(work.path)/proxy;
            fastcgi_temp_path \(work.path)/fastcgi;
            uwsgi_temp_path \(work.path)/uwsgi;
            scgi_temp_path \(work.path)/scgi;
            server {
                listen 127.0.0.1:\(nginxPort);
                location / { root \(work.path); default_type application/json; }
            }
        }
        """
    try configuration.write(to: work.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
    let nginx = try startProcess(
        "/usr/sbin/nginx", ["-p", work.path, "-c", work.appendingPathComponent("nginx.conf").path])
    defer { stopProcess(nginx) }
    let nginxURL = "http://127.0.0.1:\(nginxPort)/last.json"
    try waitFor("nginx") {
        (try? runProcess("/usr/bin/curl", ["-sf", "-o", "/dev/null", nginxURL]).status) == 0
    }

    let (threads, connections, duration) = (2, 64, 10)
    func wrk(_ url: String) throws -> Double {
        let run = try runProcess(
            "/usr/bin/wrk", ["-t\(threads)", "-c\(connections)", "-d\(duration)s", "--latency", url])
        guard run.status == 0,
            let line = run.stdout.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
            let rate = Double(line.split(separator: " ").last ?? "")
        else { throw BenchmarkError("wrk failed: \(run.stdout) \(run.stderr)") }
        if let errors = run.stdout.split(separator: "\n").first(where: {
            $0.contains("Non-2xx") || $0.contains("Socket errors")
        }) {
            print("  wrk \(url): \(errors.trimmingCharacters(in: .whitespaces))")
        }
        return rate
    }
    let ours = try wrk(ourURL)
    let peer = try wrk(nginxURL)
    print(String(format: "locationd GET /api/v1/last: %.0f requests/s (%d bytes)", ours, size))
    print(String(format: "nginx static file:          %.0f requests/s (%d bytes)", peer, size))
    print(
        String(
            format:
                "http: ratio %.2f vs nginx (%.0f vs %.0f requests/s; wrk -t%d -c%d -d%ds, %d-byte answer; target >= 0.5)",
            ours / peer, ours, peer, threads, connections, duration, size))
}
