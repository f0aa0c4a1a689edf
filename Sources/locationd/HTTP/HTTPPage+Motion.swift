extension HTTPPage {
    // The map follows the motion, so that a parked receiver's jitter draws nothing: while
    // the device is stopped, the marker sits at the stay's centroid (the `stopped` motion's
    // position) with the stay's radius as its circle (the fix's accuracy until the page
    // knows the stay), new fixes do not extend the track, and the view, which fits the
    // marker, stays where it is. The track as drawn replaces each known stay's fixes
    // (recorded ones included) by its centroid; once the device moves again, the track
    // continues from there. The fix in the panel stays raw, as `locationd last` shows it.
    // A simulated fix is not the device: the motion, which it does not change, does not
    // hold it still, so the map shows the simulator's drive (marked by the badge) until a
    // real fix comes again.

    static let motionScript = #"""
        S.stays = new Map();
        function stopped() {
          const simulated = S.fix && S.fix.source === "simulated";
          return S.motion && S.motion.motion === "stopped" && !simulated ? S.motion : null;
        }
        // Where the map puts the device, and the radius of its circle in metres.
        function marker() {
          const m = stopped();
          if (m) { const stay = S.stays.get(Date.parse(m.since));
            return { lat: m.lat, lon: m.lon, radius: stay ? stay.radius : S.fix ? S.fix.eph : undefined }; }
          const f = S.fix;
          return f && f.lat !== undefined ? { lat: f.lat, lon: f.lon, radius: f.eph } : null;
        }
        function extendTrack(f) {
          if (stopped()) return;
          S.track.push([f.lat, f.lon, f.time ? Date.parse(f.time) : NaN]);
          if (S.track.length > 3000) S.track.shift();
        }
        // A stop is known only once it has lasted the stay duration: the fixes since it began
        // give way to its centroid, from which the track goes on when the device moves.
        function motionChanged(m) {
          S.motion = m;
          const since = Date.parse(m.since);
          if (m.motion === "stopped") { S.track = S.track.filter(p => !(p[2] >= since)); S.track.push([m.lat, m.lon, since]); }
        }
        function rememberStays(entries) {
          for (const e of entries) if (e.class === "STAY") S.stays.set(Date.parse(e.start), e);
        }
        // The track as drawn: the fixes of each stay replaced by its centroid, once.
        function drawnTrack() {
          const m = stopped(), since = m ? Date.parse(m.since) : NaN, stays = [];
          for (const [start, s] of S.stays) if (start !== since) stays.push([start, Date.parse(s.end), s.lat, s.lon]);
          if (m) stays.push([since, Infinity, m.lat, m.lon]);
          const track = [];
          for (const p of S.track) {
            const stay = stays.find(s => p[2] >= s[0] && p[2] < s[1]), q = stay ? [stay[2], stay[3]] : p;
            const last = track[track.length - 1];
            if (!last || last[0] !== q[0] || last[1] !== q[1]) track.push(q);
          }
          return track;
        }
        """#
}
