import Hummingbird
import LocationState

/// The page at `/`: HTML, CSS and a modest script in one document, with nothing
/// fetched from anywhere but the daemon (it must work on a boat).
///
/// It shows the current fix (position, accuracy, speed, source), a freshness badge
/// (live, stale, lost, restored, simulated) whose age ticks every second, "parked for
/// …" while the device is stopped, the day's timeline (`HTTPPage+Timeline`), the uplink
/// targets' states when there are any (`HTTPPage+Uplinks`), the tile statistics, and a
/// map it draws itself on a canvas in Web Mercator: the visited tiles at a chosen zoom,
/// their max square outlined, the recent track, the position with its accuracy circle,
/// both still while the device is stopped (`HTTPPage+Motion`); drag to pan, wheel or
/// buttons to zoom. It reads `/api/v1/…` and follows
/// `/api/v1/events`. After each drawing it sets `data-tiles-drawn` on the canvas to the
/// number of tiles in its layer, `data-track-points` to the points of its track as
/// drawn, and `data-marker` to the position drawn (`lat,lon`).
///
/// With a basemap (`http-basemap`), it draws that server's tiles (at the nearest whole
/// zoom, 0 to 19) dimmed under its own layers, keeps the last 256 it loaded, and
/// names the basemap's host in the legend; `data-basemap-tiles` on the canvas counts
/// the tiles drawn.
enum HTTPPage {
    /// The page, with the basemap drawn from `basemap` (a URL template that
    /// ``HTTPConfiguration/basemapOrigin(of:)`` accepts) or none; its days and times are
    /// those of `days`' zone (`data-timezone` on the body).
    ///
    /// Its Content-Security-Policy lets it load scripts and styles only from itself,
    /// connect only to the daemon, and load images only from the daemon and the
    /// basemap's origin.
    static func response(basemap: String?, days: LocalDays) -> Response {
        let origin = basemap.flatMap(HTTPConfiguration.basemapOrigin(of:))
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:\(origin.map { " " + $0 } ?? ""); frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        // A zone's name is letters, digits and `/_+-` (LocalDays takes no other): safe in an attribute.
        var attributes = " data-timezone=\"\(days.name)\""
        if let basemap, origin != nil {
            attributes += " data-basemap=\"\(basemap.replacingOccurrences(of: "&", with: "&amp;"))\""
        }
        let page = document.replacingOccurrences(
            of: "<body>", with: "<body\(attributes)>", options: [], range: document.range(of: "<body>"))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// The page with the timeline's parts (`HTTPPage+Timeline`) in their places.
    static let document = html.replacingOccurrences(of: "/*timeline-style*/", with: timelineStyle)
        .replacingOccurrences(of: "<!--timeline-panel-->", with: timelinePanel)
        .replacingOccurrences(of: "/*timeline-script*/", with: timelineScript)
        .replacingOccurrences(of: "/*motion-script*/", with: motionScript)
        .replacingOccurrences(of: "/*uplinks-style*/", with: uplinksStyle)
        .replacingOccurrences(of: "<!--uplinks-panel-->", with: uplinksPanel)
        .replacingOccurrences(of: "/*uplinks-script*/", with: uplinksScript)

    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>locationd</title>
        <style>
        :root { --bg:#0f1720; --panel:#17212c; --line:#263442; --text:#e6edf3; --dim:#8b9bab; --accent:#4cc2ff;
                --live:#2fbf71; --stale:#e0a526; --lost:#e5534b; --restored:#a371f7; --simulated:#39c5cf; }
        * { box-sizing:border-box; }
        html, body { margin:0; height:100%; background:var(--bg); color:var(--text);
                     font:15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        body { display:grid; grid-template-columns:340px 1fr; }
        aside { background:var(--panel); border-right:1px solid var(--line); padding:20px 22px; overflow:auto; }
        h1 { font-size:18px; margin:0 0 16px; letter-spacing:.02em; display:flex; align-items:center; gap:10px; }
        h1 .dot { width:10px; height:10px; border-radius:50%; background:var(--accent); box-shadow:0 0 8px var(--accent); }
        h2 { font-size:12px; text-transform:uppercase; letter-spacing:.08em; color:var(--dim); margin:22px 0 8px; }
        .badge { display:inline-flex; align-items:center; gap:8px; padding:4px 12px; border-radius:999px; font-weight:600;
                 font-size:13px; text-transform:uppercase; letter-spacing:.06em; background:#26313d; color:var(--dim); }
        .badge[data-badge=live] { background:rgba(47,191,113,.16); color:var(--live); }
        .badge[data-badge=stale] { background:rgba(224,165,38,.16); color:var(--stale); }
        .badge[data-badge=lost] { background:rgba(229,83,75,.16); color:var(--lost); }
        .badge[data-badge=restored] { background:rgba(163,113,247,.16); color:var(--restored); }
        .badge[data-badge=simulated] { background:rgba(57,197,207,.16); color:var(--simulated); }
        .age { color:var(--dim); font-variant-numeric:tabular-nums; margin-left:8px; }
        .coords { font:600 22px/1.3 ui-monospace, "SFMono-Regular", Menlo, monospace; margin:14px 0 4px; }
        dl { display:grid; grid-template-columns:auto 1fr; gap:4px 14px; margin:10px 0 0; }
        dt { color:var(--dim); } dd { margin:0; font-variant-numeric:tabular-nums; }
        table { width:100%; border-collapse:collapse; font-size:13px; font-variant-numeric:tabular-nums; }
        th, td { text-align:right; padding:4px 2px; border-bottom:1px solid var(--line); }
        th:first-child, td:first-child { text-align:left; } th { color:var(--dim); font-weight:500; }
        .small { font-size:12px; color:var(--dim); }
        main { position:relative; overflow:hidden; }
        canvas { display:block; width:100%; height:100%; cursor:grab; background:#0b1118; }
        canvas:active { cursor:grabbing; }
        .controls { position:absolute; top:14px; right:14px; display:flex; gap:8px; align-items:center; }
        .controls button, .controls select { background:var(--panel); color:var(--text); border:1px solid var(--line);
                 border-radius:8px; height:34px; min-width:34px; font-size:16px; cursor:pointer; padding:0 10px; }
        .legend { position:absolute; left:14px; bottom:14px; background:rgba(23,33,44,.9); border:1px solid var(--line);
                  border-radius:8px; padding:8px 12px; font-size:12px; color:var(--dim); display:flex; gap:14px; }
        .legend i { display:inline-block; width:12px; height:12px; margin-right:6px; vertical-align:-2px; border-radius:2px; }
        /*timeline-style*/
        /*uplinks-style*/
        @media (max-width: 760px) { body { grid-template-columns:1fr; grid-template-rows:auto 60vh; } }
        </style>
        </head>
        <body>
        <aside>
          <h1><span class="dot"></span>locationd</h1>
          <div><span id="badge" class="badge" data-badge="none">no fix</span><span id="age" class="age"></span></div>
          <div id="parked" class="parked" data-motion="" hidden></div>
          <div class="coords"><span id="lat">–</span><br><span id="lon">–</span></div>
          <dl>
            <dt>Accuracy</dt><dd id="accuracy">–</dd>
            <dt>Speed</dt><dd id="speed">–</dd>
            <dt>Altitude</dt><dd id="altitude">–</dd>
            <dt>Fix time</dt><dd id="time">–</dd>
            <dt>Source</dt><dd id="source">–</dd>
            <dt>Status</dt><dd id="status">–</dd>
            <dt>Fixes</dt><dd id="fixes">–</dd>
          </dl>
          <!--timeline-panel-->
          <!--uplinks-panel-->
          <h2>Tiles visited</h2>
          <table><thead><tr><th>zoom</th><th>tiles</th><th>visits</th><th>max sq.</th></tr></thead>
            <tbody id="stats"><tr><td colspan="4" class="small">no tiles logged yet</td></tr></tbody></table>
          <p class="small" id="span"></p>
          <p class="small">Drag to pan, wheel or ± to zoom. Served by the daemon itself: no internet needed.</p>
        </aside>
        <main>
          <canvas id="map" data-tiles-drawn="0" data-tile-zoom=""></canvas>
          <div class="controls">
            <select id="tileZoom" title="zoom of the tile layer"></select>
            <button id="center" title="center on the position">◎</button>
            <button id="zoomIn" title="zoom in">+</button>
            <button id="zoomOut" title="zoom out">−</button>
          </div>
          <div class="legend"><span><i style="background:rgba(76,194,255,.35)"></i>visited tile</span>
            <span><i style="border:2px solid #ffd166"></i>max square</span>
            <span><i style="background:#ff7b72"></i>track</span><span id="basemapHost"></span></div>
        </main>
        <script>
        "use strict";
        const token = new URLSearchParams(location.search).get("access_token");
        const api = (path) => path + (token ? (path.includes("?") ? "&" : "?") + "access_token=" + encodeURIComponent(token) : "");
        const $ = (id) => document.getElementById(id);
        const S = { fix: null, state: "none", status: null, stats: [], tileZoom: null, tiles: [], track: [], view: null };

        // Web Mercator: world pixels at zoom z (256 px tiles).
        const worldX = (lon, z) => (lon + 180) / 360 * 256 * 2 ** z;
        const worldY = (lat, z) => { const s = Math.sin(lat * Math.PI / 180);
          return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * 256 * 2 ** z; };
        const lonOf = (x, z) => x / (256 * 2 ** z) * 360 - 180;
        const latOf = (y, z) => { const n = Math.PI - 2 * Math.PI * y / (256 * 2 ** z);
          return 180 / Math.PI * Math.atan(Math.sinh(n)); };

        function degrees(value, pos, neg) { return Math.abs(value).toFixed(6) + "° " + (value < 0 ? neg : pos); }
        function describeAge(s) { if (s < 120) return s.toFixed(0) + " s"; if (s < 7200) return (s / 60).toFixed(0) + " min";
          if (s < 172800) return (s / 3600).toFixed(1) + " h"; return (s / 86400).toFixed(1) + " days"; }

        function badge() {
          if (S.status && S.status.state === "lost") return "lost";
          if (S.state === "restored") return "restored";
          if (S.state === "stale") return "stale";
          if (S.state === "live") return S.fix && S.fix.source === "simulated" ? "simulated" : "live";
          return "none";
        }

        function renderPanel() {
          const b = badge(), el = $("badge");
          el.dataset.badge = b; el.textContent = b === "none" ? "no fix" : b;
          const f = S.fix;
          if (f && f.time) $("age").textContent = "age " + describeAge(Math.max(0, (Date.now() - Date.parse(f.time)) / 1000));
          else $("age").textContent = "";
          $("lat").textContent = f && f.lat !== undefined ? degrees(f.lat, "N", "S") : "–";
          $("lon").textContent = f && f.lon !== undefined ? degrees(f.lon, "E", "W") : "–";
          $("lat").dataset.value = f && f.lat !== undefined ? f.lat : "";
          $("lon").dataset.value = f && f.lon !== undefined ? f.lon : "";
          $("accuracy").textContent = f && f.eph !== undefined ? "± " + f.eph.toFixed(1) + " m" : "–";
          $("speed").textContent = f && f.speed !== undefined ? f.speed.toFixed(2) + " m/s (" + (f.speed * 3.6).toFixed(1) + " km/h)" : "–";
          const alt = f ? (f.altMSL !== undefined ? f.altMSL : f.altHAE) : undefined;
          $("altitude").textContent = alt !== undefined ? alt.toFixed(1) + " m" : "–";
          $("time").textContent = f && f.time ? local(f.time) + f.time.slice(16, 19) + " " + zone : "–";
          $("source").textContent = f ? f.source + (f.device ? " (" + f.device + ")" : "") : "–";
          $("status").textContent = S.status ? S.status.state + (S.status.connected ? ", connected" : ", not connected") : "–";
          $("fixes").textContent = S.status ? S.status.fixes : "–";
          renderParked();
          renderOpenEntries();
        }

        function renderStats() {
          const body = $("stats");
          if (!S.stats.length) return;
          body.innerHTML = "";
          for (const z of S.stats) {
            const tr = document.createElement("tr");
            for (const v of [z.zoom, z.tiles, z.visits, z.maxSquare.size ? z.maxSquare.size + "×" + z.maxSquare.size : "–"]) {
              const td = document.createElement("td"); td.textContent = v; tr.appendChild(td); }
            body.appendChild(tr);
          }
          const first = S.stats.map(z => z.firstSeen).sort()[0], last = S.stats.map(z => z.lastSeen).sort().pop();
          $("span").textContent = "first visit " + local(first) + ", last " + local(last) + " " + zone;
          const select = $("tileZoom");
          if (select.options.length !== S.stats.length) {
            select.innerHTML = "";
            for (const z of S.stats) { const o = document.createElement("option"); o.value = z.zoom; o.textContent = "tiles z" + z.zoom; select.appendChild(o); }
            if (S.tileZoom === null) S.tileZoom = S.stats[S.stats.length - 1].zoom;
            select.value = S.tileZoom;
          }
        }

        const canvas = $("map"), ctx = canvas.getContext("2d");
        // The basemap: tiles from the configured template, loaded once and kept (the last 256).
        const basemap = document.body.dataset.basemap || "", basemapTiles = new Map();
        if (basemap) $("basemapHost").textContent = "basemap: " + new URL(basemap.replace(/\{[zxy]\}/g, "0")).host;
        let redraw = false;
        function basemapTile(z, x, y) {
          const key = z + "/" + x + "/" + y;
          let image = basemapTiles.get(key);
          if (image) { basemapTiles.delete(key); basemapTiles.set(key, image); return image; }
          image = new Image();
          image.onload = () => { if (!redraw) { redraw = true; requestAnimationFrame(() => { redraw = false; draw(); }); } };
          image.src = basemap.replace("{z}", z).replace("{x}", x).replace("{y}", y);
          basemapTiles.set(key, image);
          if (basemapTiles.size > 256) basemapTiles.delete(basemapTiles.keys().next().value);
          return image;
        }
        function drawBasemap(z, cx, cy, w, h) {
          const bz = Math.min(19, Math.max(0, Math.round(z))), n = 2 ** bz, size = 256 * 2 ** (z - bz);
          let count = 0;
          ctx.globalAlpha = 0.5;
          for (let ty = Math.max(0, Math.floor(cy / size)); ty < Math.min(n, Math.ceil((cy + h) / size)); ty++) {
            for (let tx = Math.floor(cx / size); tx < Math.ceil((cx + w) / size); tx++) {
              const image = basemapTile(bz, ((tx % n) + n) % n, ty);
              if (image.complete && image.naturalWidth > 0) { ctx.drawImage(image, tx * size - cx, ty * size - cy, size, size); count++; }
            }
          }
          ctx.globalAlpha = 1;
          canvas.dataset.basemapTiles = String(count);
        }
        function resize() { const r = canvas.getBoundingClientRect(), d = window.devicePixelRatio || 1;
          canvas.width = Math.max(1, r.width * d); canvas.height = Math.max(1, r.height * d); ctx.setTransform(d, 0, 0, d, 0, 0); draw(); }

        // Until the user pans or zooms, the view fits the tiles and the position; while the
        // device is stopped, once (tiles its jitter adds do not move the map).
        let userMoved = false, fittedStop = null;
        function ensureView() {
          if (userMoved && S.view) return true;
          const stop = stopped();
          if (stop && S.view && fittedStop === stop.since) return true;
          fittedStop = stop ? stop.since : null;
          const w = canvas.clientWidth, h = canvas.clientHeight, box = [Infinity, Infinity, -Infinity, -Infinity];
          const add = (x, y) => { box[0] = Math.min(box[0], x); box[1] = Math.min(box[1], y); box[2] = Math.max(box[2], x); box[3] = Math.max(box[3], y); };
          for (const t of S.tiles) { const k = 2 ** t.z; add(t.x / k * 256, t.y / k * 256); add((t.x + 1) / k * 256, (t.y + 1) / k * 256); }
          const m = marker();
          if (m) add(worldX(m.lon, 0), worldY(m.lat, 0));
          if (box[0] === Infinity) return false;
          const bw = box[2] - box[0], bh = box[3] - box[1];
          const z = bw + bh < 1e-9 ? 15 : Math.min(18, Math.max(1, Math.log2(Math.min((w - 80) / bw, (h - 80) / bh))));
          S.view = { z, lon: lonOf((box[0] + box[2]) / 2, 0), lat: latOf((box[1] + box[3]) / 2, 0) };
          return true;
        }

        function draw() {
          const w = canvas.clientWidth, h = canvas.clientHeight;
          ctx.fillStyle = "#0b1118"; ctx.fillRect(0, 0, w, h);
          if (!ensureView()) { canvas.dataset.tilesDrawn = String(S.tiles.length); return; }
          const z = S.view.z, cx = worldX(S.view.lon, z) - w / 2, cy = worldY(S.view.lat, z) - h / 2;
          if (basemap) drawBasemap(z, cx, cy, w, h);
          // A light graticule: the tile grid at the nearest integer zoom.
          const gz = Math.max(0, Math.round(z)), gs = 256 * 2 ** (z - gz);
          ctx.strokeStyle = "rgba(255,255,255,.05)"; ctx.lineWidth = 1; ctx.beginPath();
          for (let x = Math.floor(cx / gs) * gs; x < cx + w; x += gs) { ctx.moveTo(x - cx + .5, 0); ctx.lineTo(x - cx + .5, h); }
          for (let y = Math.floor(cy / gs) * gs; y < cy + h; y += gs) { ctx.moveTo(0, y - cy + .5); ctx.lineTo(w, y - cy + .5); }
          ctx.stroke();
          // Visited tiles.
          let drawn = 0;
          ctx.fillStyle = "rgba(76,194,255,.30)"; ctx.strokeStyle = "rgba(76,194,255,.65)";
          for (const t of S.tiles) {
            const size = 256 * 2 ** (z - t.z), x = t.x * size - cx, y = t.y * size - cy;
            drawn++;
            if (x > w || y > h || x + size < 0 || y + size < 0) continue;
            ctx.fillRect(x, y, size, size);
            if (size > 6) ctx.strokeRect(x + .5, y + .5, size - 1, size - 1);
          }
          // The max square.
          const st = S.stats.find(s => s.zoom === S.tileZoom);
          if (st && st.maxSquare.size) {
            const size = 256 * 2 ** (z - st.zoom);
            ctx.strokeStyle = "#ffd166"; ctx.lineWidth = 2.5;
            ctx.strokeRect(st.maxSquare.x * size - cx, st.maxSquare.y * size - cy, size * st.maxSquare.size, size * st.maxSquare.size);
          }
          // The recent track.
          const track = drawnTrack();
          if (track.length > 1) {
            ctx.strokeStyle = "#ff7b72"; ctx.lineWidth = 2.5; ctx.lineJoin = "round"; ctx.beginPath();
            // A jump (a gap in the recording, a looped replay) is not joined.
            track.forEach((p, i) => { const x = worldX(p[1], z) - cx, y = worldY(p[0], z) - cy, q = track[i - 1];
              const jump = !q || Math.abs(q[0] - p[0]) + Math.abs(q[1] - p[1]) > 0.01; jump ? ctx.moveTo(x, y) : ctx.lineTo(x, y); });
            ctx.stroke();
          }
          drawTrip(z, cx, cy);
          // The position (the stay's centroid while stopped) and its accuracy circle (the stay's radius).
          const m = marker();
          canvas.dataset.marker = m ? m.lat.toFixed(7) + "," + m.lon.toFixed(7) : "";
          if (m) {
            const x = worldX(m.lon, z) - cx, y = worldY(m.lat, z) - cy;
            const metersPerPixel = 156543.03392 * Math.cos(m.lat * Math.PI / 180) / 2 ** z;
            const color = getComputedStyle(document.documentElement).getPropertyValue("--" + (badge() === "none" ? "stale" : badge())).trim() || "#4cc2ff";
            if (m.radius !== undefined) { const r = m.radius / metersPerPixel;
              ctx.beginPath(); ctx.arc(x, y, Math.max(r, 0), 0, 2 * Math.PI); ctx.fillStyle = color + "33"; ctx.fill();
              ctx.strokeStyle = color + "aa"; ctx.lineWidth = 1; ctx.stroke(); }
            ctx.beginPath(); ctx.arc(x, y, 7, 0, 2 * Math.PI); ctx.fillStyle = color; ctx.fill();
            ctx.lineWidth = 2.5; ctx.strokeStyle = "#fff"; ctx.stroke();
          }
          ctx.fillStyle = "rgba(230,237,243,.55)"; ctx.font = "12px system-ui, sans-serif";
          ctx.fillText("zoom " + z.toFixed(1) + "  ·  " + S.view.lat.toFixed(4) + ", " + S.view.lon.toFixed(4), 14, 24);
          canvas.dataset.tilesDrawn = String(drawn);
          canvas.dataset.trackPoints = String(track.length);
          canvas.dataset.tileZoom = S.loadedZoom === undefined ? "" : String(S.loadedZoom);
        }

        // Pan and zoom.
        let drag = null;
        canvas.addEventListener("pointerdown", e => { if (!S.view) return; userMoved = true; drag = { x: e.clientX, y: e.clientY }; canvas.setPointerCapture(e.pointerId); });
        canvas.addEventListener("pointermove", e => { if (!drag) return; const z = S.view.z;
          S.view.lon = lonOf(worldX(S.view.lon, z) - (e.clientX - drag.x), z); S.view.lat = latOf(worldY(S.view.lat, z) - (e.clientY - drag.y), z);
          drag = { x: e.clientX, y: e.clientY }; draw(); });
        canvas.addEventListener("pointerup", () => { drag = null; });
        function zoomBy(delta, px, py) { if (!S.view) return; userMoved = true; const w = canvas.clientWidth, h = canvas.clientHeight;
          px = px ?? w / 2; py = py ?? h / 2; const z = S.view.z, nz = Math.min(21, Math.max(1, z + delta));
          const wx = worldX(S.view.lon, z) - w / 2 + px, wy = worldY(S.view.lat, z) - h / 2 + py, k = 2 ** (nz - z);
          S.view = { z: nz, lon: lonOf(wx * k - px + w / 2, nz), lat: latOf(wy * k - py + h / 2, nz) }; draw(); }
        canvas.addEventListener("wheel", e => { e.preventDefault(); const r = canvas.getBoundingClientRect();
          zoomBy(e.deltaY < 0 ? .5 : -.5, e.clientX - r.left, e.clientY - r.top); }, { passive: false });
        $("zoomIn").onclick = () => zoomBy(1); $("zoomOut").onclick = () => zoomBy(-1);
        $("center").onclick = () => { const m = marker(); if (m && S.view) { userMoved = true; S.view.lon = m.lon; S.view.lat = m.lat; draw(); } };
        $("tileZoom").onchange = e => { S.tileZoom = Number(e.target.value); loadTiles(); };

        // Data.
        async function getJSON(path) { const r = await fetch(api(path)); if (!r.ok) throw new Error(path + ": " + r.status); return r.json(); }
        async function loadLast() { const l = await getJSON("/api/v1/last"); S.state = l.state; S.fix = l.state === "none" ? null : l; renderPanel(); draw(); }
        async function loadStatus() { S.status = await getJSON("/api/v1/status"); renderPanel(); }
        async function loadStats() { S.stats = (await getJSON("/api/v1/tiles/stats")).zooms; renderStats(); }
        async function loadTiles() {
          if (S.tileZoom === null) { draw(); return; }
          const r = await fetch(api("/api/v1/tiles?format=txt&zoom=" + S.tileZoom)); const text = await r.text();
          S.tiles = text.split("\n").filter(Boolean).map(l => { const [z, x, y] = l.split("/").map(Number); return { z, x, y }; });
          S.loadedZoom = S.tileZoom; draw();
        }
        async function loadTrack() {
          // The local day of the fix shown, else the last day recorded (a fix gpsd sent without
          // a time is filed under the day it came).
          const days = (await getJSON("/api/v1/tracks")).days; if (!days.length) return;
          let r = S.fix && S.fix.time ? await fetch(api("/api/v1/tracks/" + local(S.fix.time).slice(0, 10) + ".gpx")) : null;
          if (!r || !r.ok) r = await fetch(api(days[days.length - 1].gpx));
          const xml = new DOMParser().parseFromString(await r.text(), "application/xml");
          const points = Array.from(xml.getElementsByTagName("trkpt")).slice(-3000).map(p => { const t = p.getElementsByTagName("time")[0];
            return [Number(p.getAttribute("lat")), Number(p.getAttribute("lon")), t ? Date.parse(t.textContent) : NaN]; });
          S.track = points.concat(S.track).slice(-3000); draw();
        }
        function follow() {
          const events = new EventSource(api("/api/v1/events"));
          events.addEventListener("fix", e => { const f = JSON.parse(e.data);
            if (f.mode >= 2 && f.lat !== undefined) { S.fix = f; S.state = "live"; extendTrack(f); }
            else if (S.fix) { S.state = "stale"; }
            renderPanel(); draw(); });
          events.addEventListener("status", e => { S.status = JSON.parse(e.data); renderPanel(); draw(); });
          followTimeline(events);
        }
        /*timeline-script*/
        /*motion-script*/
        /*uplinks-script*/
        window.addEventListener("resize", resize);
        setInterval(renderPanel, 1000);
        setInterval(() => { loadStats().then(loadTiles).catch(() => {}); }, 60000);
        resize();
        Promise.allSettled([loadLast().then(loadTrack).then(loadTimeline), loadStatus(), loadStats().then(loadTiles), loadPlaces()]).then(() => { draw(); follow(); });
        followUplinks();
        </script>
        </body>
        </html>
        """#
}
