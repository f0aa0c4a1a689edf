#if canImport(Glibc)
    import Glibc
#endif

/// Gives the kernel back, once a minute, the free pages inside glibc's heaps.
///
/// The daemon's live heap is about 2 MiB and stays there, but it moves: a burst of
/// clients, or fixes held up on a loaded machine, takes a few hundred KiB more for a
/// while in the heap of whichever thread did the work, and glibc keeps the pages of the
/// chunks freed afterwards for itself (it returns only the free top of a heap). Each such
/// moment raised the resident memory for good, and an hour's soak grew by a megabyte
/// (docs/performance.md). `malloc_trim(0)` returns the free pages of every heap
/// (`MADV_DONTNEED`); the pages come back zeroed when the heap uses them again.
enum HeapTrim {
    /// How often the heaps are trimmed.
    static let interval: Duration = .seconds(60)

    /// Trims every ``interval`` until the task is cancelled.
    static func everyInterval() -> Task<Void, Never> {
        Task {
            while (try? await Task.sleep(for: interval)) != nil {
                trim()
            }
        }
    }

    /// Returns the free pages of glibc's heaps to the kernel now; true when any was returned.
    @discardableResult
    static func trim() -> Bool {
        mallocTrim?(0) == 1
    }

    /// glibc's `malloc_trim(3)`, looked up once: `<malloc.h>` is not part of the Glibc
    /// module; nil where the C library has none.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        #if canImport(Glibc)
            // RTLD_DEFAULT, the global scope, where the C library is.
            guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
            return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        #else
            return nil
        #endif
    }()
}
