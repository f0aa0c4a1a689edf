import Foundation
import LocationState

extension ControlPages {
    /// `?TRACK`: for each file of `export`, `{"class":"TRACKFILE","day":…,"bytes":N}` and
    /// then its first N bytes (its size when the answer reaches it; the recorder may go on
    /// appending) as `{"class":"NMEA","data":BASE64}` lines of up to `chunkBytes` bytes;
    /// then `{"class":"TRACK","files":N}`. A file read a chunk at a time, a few chunks a page.
    static func track(_ export: TrackExport, chunkBytes: Int = 48 * 1024, chunksPerPage: Int = 4) -> ControlPages {
        var files = export.files[...]
        var current: (handle: FileHandle, remaining: Int)?
        var done = false
        return ControlPages {
            guard !done else { return [] }
            var lines: [String] = []
            do {
                while lines.count < chunksPerPage {
                    if let (handle, remaining) = current {
                        guard remaining > 0 else {
                            try? handle.close()
                            current = nil
                            continue
                        }
                        let data = try handle.read(upToCount: min(chunkBytes, remaining)) ?? Data()
                        guard !data.isEmpty else {
                            done = true
                            try? handle.close()
                            return lines + [ControlReply.error("a recorded track became shorter while it was read")]
                        }
                        current = (handle, remaining - data.count)
                        lines.append(ControlAnswers.line(Chunk(data: data.base64EncodedString())))
                    } else if let file = files.popFirst() {
                        let handle = try FileHandle(forReadingFrom: file)
                        let bytes = Int(try handle.seekToEnd())
                        try handle.seek(toOffset: 0)
                        current = (handle, bytes)
                        let day = file.deletingPathExtension().lastPathComponent
                        lines.append(ControlAnswers.line(File(day: day, bytes: bytes)))
                    } else {
                        done = true
                        lines.append(ControlAnswers.line(End(files: export.files.count)))
                        return lines
                    }
                }
            } catch {
                done = true
                try? current?.handle.close()
                return lines + [ControlReply.error("a recorded track cannot be read: \(error.localizedDescription)")]
            }
            return lines
        }
    }

    private struct File: Encodable {
        let `class` = "TRACKFILE"
        let day: String
        let bytes: Int
    }

    private struct Chunk: Encodable {
        let `class` = "NMEA"
        let data: String
    }

    private struct End: Encodable {
        let `class` = "TRACK"
        let files: Int
    }
}
