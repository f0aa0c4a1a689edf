extension HTTPPage {
    // The page's timeline: "parked for …" under the badge while the device is stopped, and
    // a panel with the day's stays (times, durations) and trips (times, distances). A
    // click on a trip draws it (the recorded track between its start and end, or, without
    // one, the line between the stays it joins) and fits the map to it. It reads
    // `/api/v1/timeline?day=…` and follows the `motion`, `stay` and `trip` events. Days and
    // times are those of the daemon's zone (`data-timezone` on the body), whatever the
    // browser's: the day picker starts at the local day of the fix shown.
    // An open stay or trip ends "now" only while the fix is current; otherwise it reads
    // "since 09:12, last fix 11:40", and "parked for" becomes "parked for at least …",
    // measured to the last fix. For tests: `data-motion`, `data-since` and `data-current`
    // on #parked, `data-entries` on #timeline, `data-trip-points` on the canvas (the points
    // of the trip drawn), `data-places` on #places.
    // Under the day, the places that recur (`/api/v1/places`, read again as each stay
    // closes), most time first: name, home or work, visits and total time; a click centres
    // the map on the place. "parked for …" says where when the place is named.

    static let timelineStyle = """
        .parked { margin-top:10px; font-size:14px; color:var(--restored); font-weight:600; }
        .timeline { list-style:none; padding:0; margin:0; font-size:13px; }
        .timeline li { display:flex; justify-content:space-between; align-items:baseline; gap:8px; padding:6px 10px;
                       margin:0 0 4px; border-left:3px solid var(--line); border-radius:0 6px 6px 0;
                       background:#1b2632; font-variant-numeric:tabular-nums; }
        .timeline li.stay { border-color:var(--restored); }
        .timeline li.trip { border-color:#ff7b72; cursor:pointer; }
        .timeline li.trip:hover, .timeline li.selected { background:#243344; }
        .timeline li.open { border-style:dashed; }
        .timeline li.place { border-color:var(--restored); cursor:pointer; }
        .timeline li.place:hover { background:#243344; }
        .timeline .label { font-size:11px; text-transform:uppercase; color:var(--dim); margin-left:6px; }
        .timeline .what { font-weight:600; } .timeline .when { color:var(--dim); flex:none; white-space:nowrap; }
        .dayPicker { background:var(--panel); color:var(--text); border:1px solid var(--line); border-radius:6px;
                     font-size:12px; padding:2px 6px; margin-left:8px; color-scheme:dark; }
        """

    static let timelinePanel = """
        <h2>Timeline <input type="date" id="day" class="dayPicker" title="the day shown, in the daemon's time zone"></h2>
          <ul id="timeline" class="timeline" data-entries="0"><li class="small">nothing recorded this day</li></ul>
          <p class="small" id="dayDistance"></p>
        <h2>Places</h2>
          <ul id="places" class="timeline" data-places="0"><li class="small">no places yet</li></ul>
        """

    static let timelineScript = #"""
        S.motion = null; S.entries = []; S.tripPath = [];
        function describeDuration(s) { const m = Math.max(0, Math.round(s / 60)); if (m < 60) return m + " min";
          return Math.floor(m / 60) + " h " + (m % 60) + " min"; }
        // "YYYY-MM-DD HH:MM" of a time in the daemon's zone (UTC when the browser does not know it).
        const zone = document.body.dataset.timezone || "UTC";
        const localFormat = (() => {
          const options = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
          try { return new Intl.DateTimeFormat("en-US", { ...options, timeZone: zone }); }
          catch (e) { return new Intl.DateTimeFormat("en-US", { ...options, timeZone: "UTC" }); }
        })();
        function local(iso) {
          const p = {}; for (const part of localFormat.formatToParts(new Date(iso))) p[part.type] = part.value;
          return p.year + "-" + p.month + "-" + p.day + " " + p.hour + ":" + p.minute;
        }
        // HH:MM, with the date in front when it is not the day shown (a stay begun days ago).
        function clock(iso) { const t = local(iso); return (t.slice(0, 10) === $("day").value ? "" : t.slice(0, 10) + " ") + t.slice(11, 16); }
        // Whether the fix is current: the badge says live (or simulated) and the fix is dated
        // within 5 minutes of the page's clock (room for a clock that is off; a replayed old
        // track is live, but not current).
        function current() {
          const b = badge(), t = S.fix && S.fix.time ? Date.parse(S.fix.time) : NaN;
          return (b === "live" || b === "simulated") && !(Date.now() - t > 300000);
        }
        // The time of the last fix known, in ms (NaN when none).
        function lastFixTime() {
          const t = S.fix && S.fix.time ? S.fix.time : S.status && S.status.lastFix;
          return t ? Date.parse(t) : NaN;
        }
        // While the fix is current, stopped until now; otherwise at least until the last fix.
        function renderParked() {
          const el = $("parked"), m = S.motion;
          el.dataset.motion = m ? m.motion : "";
          if (!m || m.motion !== "stopped") { el.hidden = true; el.textContent = ""; el.dataset.since = ""; return; }
          const since = Date.parse(m.since), live = current(), until = live ? Date.now() : Math.max(since, lastFixTime() || since);
          el.hidden = false; el.dataset.since = m.since; el.dataset.current = String(live);
          el.textContent = "parked for " + (live ? "" : "at least ") + describeDuration((until - since) / 1000)
            + (m.name ? " at " + m.name : "");
        }
        // An entry's times and how long it lasted: an open one lasts until now while the fix is
        // current, else it is open since its start and known until the last fix.
        function span(e) {
          const start = Date.parse(e.start);
          if (!e.open) return [clock(e.start) + "–" + clock(e.end), (Date.parse(e.end) - start) / 1000];
          if (current()) return [clock(e.start) + "–now", (Date.now() - start) / 1000];
          const last = Math.max(Date.parse(e.end), lastFixTime() || 0);
          return ["since " + clock(e.start) + ", last fix " + clock(new Date(last).toISOString()), (last - start) / 1000];
        }
        function describeEntry(e, what, when) {
          const [times, seconds] = span(e), lasted = describeDuration(seconds);
          when.textContent = times;
          const mode = e.mode ? e.mode.replace("_mobility", "") + " · " : "";
          what.textContent = e.class === "STAY" ? (e.name || "Stay") + " · " + lasted
            : "Trip · " + (e.distance / 1000).toFixed(1) + " km · " + mode + lasted + (e.to_name ? " · to " + e.to_name : "");
        }
        function renderOpenEntries() {
          for (const li of document.querySelectorAll("#timeline li.open"))
            describeEntry(S.entries[Number(li.dataset.index)], li.querySelector(".what"), li.querySelector(".when"));
        }
        function renderTimeline(answer) {
          const list = $("timeline"); list.innerHTML = "";
          S.entries = answer.entries; list.dataset.entries = String(S.entries.length);
          if (!S.entries.length) list.innerHTML = '<li class="small">nothing recorded this day</li>';
          rememberStays(S.entries);
          S.entries.forEach((e, index) => {
            const li = document.createElement("li"), what = document.createElement("span"), when = document.createElement("span");
            what.className = "what"; when.className = "when";
            describeEntry(e, what, when);
            if (e.class === "STAY") li.className = "stay";
            else { li.className = "trip"; li.title = "draw this trip"; li.onclick = () => selectTrip(e, li); }
            if (e.open) li.classList.add("open");
            li.dataset.start = e.start; li.dataset.index = String(index); li.append(what, when); list.appendChild(li);
          });
          $("dayDistance").textContent = "travelled " + (answer.distance / 1000).toFixed(1) + " km, times in " + zone;
        }
        async function loadTimeline() {
          if (!$("day").value) $("day").value = local(S.fix && S.fix.time ? S.fix.time : new Date().toISOString()).slice(0, 10);
          try { renderTimeline(await getJSON("/api/v1/timeline?day=" + $("day").value)); } catch (e) {}
        }
        function renderPlaces(places) {
          const list = $("places"); list.innerHTML = ""; list.dataset.places = String(places.length);
          if (!places.length) list.innerHTML = '<li class="small">no places yet</li>';
          for (const p of places) {
            const li = document.createElement("li"), what = document.createElement("span"), when = document.createElement("span");
            what.className = "what"; when.className = "when"; li.className = "place";
            what.textContent = p.name || "Place " + p.id;
            if (p.label) { const label = document.createElement("span"); label.className = "label"; label.textContent = p.label; what.append(label); }
            when.textContent = p.visits + (p.visits === 1 ? " visit · " : " visits · ") + describeDuration(p.seconds);
            li.title = "first " + local(p.first) + ", last " + local(p.last) + " (" + zone + ")";
            li.dataset.id = String(p.id);
            li.onclick = () => { S.view = { z: Math.max(S.view ? S.view.z : 16, 16), lon: p.lon, lat: p.lat }; userMoved = true; draw(); };
            li.append(what, when); list.appendChild(li);
          }
        }
        async function loadPlaces() { try { renderPlaces((await getJSON("/api/v1/places")).places); } catch (e) {} }
        async function selectTrip(trip, li) {
          for (const other of document.querySelectorAll("#timeline li.selected")) other.classList.remove("selected");
          li.classList.add("selected");
          let points = [];
          try {
            const r = await fetch(api("/api/v1/tracks.gpx?from=" + trip.start + "&to=" + trip.end));
            if (r.ok) points = Array.from(new DOMParser().parseFromString(await r.text(), "application/xml").getElementsByTagName("trkpt"))
              .map(p => [Number(p.getAttribute("lat")), Number(p.getAttribute("lon"))]);
          } catch (e) {}
          if (points.length < 2) points = S.entries.filter(s => s.class === "STAY" && (s.start === trip.from || s.start === trip.to))
            .map(s => [s.lat, s.lon]);
          S.tripPath = points; fitTrip(); draw();
        }
        function fitTrip() {
          if (!S.tripPath.length) return;
          const xs = S.tripPath.map(p => worldX(p[1], 0)), ys = S.tripPath.map(p => worldY(p[0], 0));
          const bw = Math.max(...xs) - Math.min(...xs), bh = Math.max(...ys) - Math.min(...ys);
          const w = canvas.clientWidth, h = canvas.clientHeight;
          const z = bw + bh < 1e-9 ? 16 : Math.min(18, Math.max(1, Math.log2(Math.min((w - 80) / bw, (h - 80) / bh))));
          S.view = { z, lon: lonOf((Math.max(...xs) + Math.min(...xs)) / 2, 0), lat: latOf((Math.max(...ys) + Math.min(...ys)) / 2, 0) };
          userMoved = true;
        }
        function drawTrip(z, cx, cy) {
          canvas.dataset.tripPoints = String(S.tripPath.length);
          if (S.tripPath.length < 2) return;
          ctx.strokeStyle = "#7ee787"; ctx.lineWidth = 4; ctx.lineJoin = "round"; ctx.beginPath();
          S.tripPath.forEach((p, i) => { const x = worldX(p[1], z) - cx, y = worldY(p[0], z) - cy; i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
          ctx.stroke();
        }
        function followTimeline(events) {
          events.addEventListener("motion", e => { motionChanged(JSON.parse(e.data)); renderParked(); draw(); loadTimeline().then(draw); });
          for (const kind of ["stay", "trip"]) events.addEventListener(kind, () => loadTimeline());
          for (const kind of ["stay", "motion"]) events.addEventListener(kind, () => loadPlaces());
        }
        $("day").onchange = () => { S.tripPath = []; loadTimeline().then(draw); };
        """#
}
