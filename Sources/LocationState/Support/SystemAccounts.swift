#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's users and groups (`/etc/passwd`, `/etc/group` or whatever NSS serves), for
/// saying who may read a file.
///
/// - Important: ``group(_:besides:)`` walks the user database with `getpwent`, which is not
///   reentrant: call it from one thread at a time (locationd reads its secrets at start and
///   on reload, on one thread).
package enum SystemAccounts {
    /// The name of user `uid`, or the number when it has none.
    package static func userName(_ uid: uid_t) -> String {
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "\(uid)" }
        return String(cString: name)
    }

    /// Group `gid`'s name (or number) and its users other than `user`: those it lists and
    /// those whose primary group it is.
    package static func group(_ gid: gid_t, besides user: String) -> (name: String, others: [String]) {
        guard let entry = getgrgid(gid), let groupName = entry.pointee.gr_name else { return ("\(gid)", []) }
        let name = String(cString: groupName)
        var members: Set<String> = []
        if var member = entry.pointee.gr_mem {
            while let pointer = member.pointee {
                members.insert(String(cString: pointer))
                member += 1
            }
        }
        setpwent()
        while let account = getpwent() {
            if account.pointee.pw_gid == gid, let accountName = account.pointee.pw_name {
                members.insert(String(cString: accountName))
            }
        }
        endpwent()
        members.remove(user)
        return (name, members.sorted())
    }
}
