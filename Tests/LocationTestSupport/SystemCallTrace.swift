import Foundation

/// What `strace -f` recorded of a process and its threads and children: the system calls
/// made, the paths opened for writing or created, and the socket address families used.
package struct SystemCallTrace {
    /// Every system call's name, with one line that made it.
    package private(set) var calls: [String: String] = [:]
    /// Paths written: opened with O_WRONLY, O_RDWR or O_CREAT, made, renamed to, removed, bound;
    /// calls that failed (`mkdir` of a parent that exists: EEXIST) wrote nothing.
    package private(set) var writtenPaths: Set<String> = []
    /// `socket(2)`'s first argument (`AF_INET`...).
    package private(set) var addressFamilies: Set<String> = []
    /// Programs started (`execve`'s path).
    package private(set) var executed: [String] = []
    /// Lines that made namespaces (`unshare`, `setns`, `clone` with `CLONE_NEW...`).
    package private(set) var namespaceLines: [String] = []
    /// `mmap`/`mprotect` lines asking for memory both writable and executable.
    package private(set) var writableExecutableLines: [String] = []

    /// Reads strace's output (`-f`, one line a call, a pid first).
    package init(text: String) {
        for raw in Self.wholeCalls(text) {
            // "1234  openat(AT_FDCWD, "/x", O_RDONLY|O_CLOEXEC) = 3"; resumed and signal lines are skipped.
            let line = raw.drop(while: { $0.isNumber }).drop(while: { $0 == " " })
            guard let open = line.firstIndex(of: "("),
                line[..<open].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), !line[..<open].isEmpty
            else { continue }
            let name = String(line[..<open])
            let arguments = line[line.index(after: open)...]
            if calls[name] == nil { calls[name] = String(raw) }
            let strings = Self.quotedStrings(arguments)
            let failed = line.contains("= -1 E")
            switch name {
            case "open", "openat", "creat":
                if !failed,
                    arguments.contains("O_WRONLY") || arguments.contains("O_RDWR") || arguments.contains("O_CREAT")
                        || name == "creat", let path = strings.first
                {
                    writtenPaths.insert(path)
                }
            case "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "truncate", "chmod", "fchmodat", "symlink",
                "symlinkat", "link", "linkat", "rename", "renameat", "renameat2":
                if !failed, let path = strings.last { writtenPaths.insert(path) }
            case "bind":
                if !failed, let path = strings.first, arguments.contains("AF_UNIX") { writtenPaths.insert(path) }
            case "execve":
                if let path = strings.first { executed.append(path) }
            case "socket":
                if let family = arguments.split(separator: ",").first { addressFamilies.insert(String(family)) }
            case "unshare", "setns":
                namespaceLines.append(String(raw))
            case "clone", "clone3":
                if arguments.contains("CLONE_NEW") { namespaceLines.append(String(raw)) }
            case "mmap", "mprotect", "pkey_mprotect":
                if arguments.contains("PROT_WRITE") && arguments.contains("PROT_EXEC") {
                    writableExecutableLines.append(String(raw))
                }
            default: break
            }
        }
    }

    /// strace's lines with each call interrupted by another thread (`... <unfinished ...>`,
    /// then `PID <... NAME resumed>...`) joined into one line.
    private static func wholeCalls(_ text: String) -> [Substring] {
        var lines: [Substring] = []
        var unfinished: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            let pid = line.prefix(while: \.isNumber)
            let rest = line.dropFirst(pid.count).drop(while: { $0 == " " })
            if line.hasSuffix(" <unfinished ...>") {
                unfinished[pid] = line.dropLast(" <unfinished ...>".count)
            } else if rest.hasPrefix("<... "), let start = unfinished.removeValue(forKey: pid),
                let close = rest.firstIndex(of: ">")
            {
                lines.append(Substring(start + rest[rest.index(after: close)...]))
            } else {
                lines.append(line)
            }
        }
        return lines
    }

    /// The double-quoted strings among a call's arguments, in order; a relative path is
    /// joined to the directory descriptor before it, which `strace -y` prints as `3</dir>`.
    private static func quotedStrings(_ text: Substring) -> [String] {
        var strings: [String] = []
        var current: String?
        var escaped = false
        var descriptorPath: String?
        var inDescriptor: String?
        for character in text {
            if var string = current {
                if escaped {
                    string.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    strings.append(string.hasPrefix("/") ? string : descriptorPath.map { $0 + "/" + string } ?? string)
                    current = nil
                    continue
                } else {
                    string.append(character)
                }
                current = string
            } else if var path = inDescriptor {
                if character == ">" {
                    descriptorPath = path
                    inDescriptor = nil
                } else {
                    path.append(character)
                    inDescriptor = path
                }
            } else if character == "<" {
                inDescriptor = ""
            } else if character == "\"" {
                current = ""
            }
        }
        return strings
    }
}
