extension HTTPPage {
    // The page's uplinks: a panel, shown only when the daemon has targets, with one row per
    // target as `locationd uplinks` prints it: its name and protocol, its state
    // (`delivering`, `retrying`, `refused`), the fixes waiting, the newest fix the server
    // has, and the last answer in the server's words with the next try while retrying or
    // refused. It reads `/api/v1/uplinks` at the start and every 5 s while there are
    // targets (their set changes only with a restart). For tests: `data-uplinks` on
    // #uplinks (the number of targets, once read), and `data-state` on each target's row.

    static let uplinksStyle = """
        .uplinks td, .uplinks th { vertical-align:top; }
        .uplinks tr[data-state=retrying] .state { color:var(--stale); }
        .uplinks tr[data-state=refused] .state { color:var(--lost); }
        .uplinks tr[data-state=delivering] .state { color:var(--live); }
        .uplinks .answer td { text-align:left; color:var(--dim); font-size:12px; border-bottom:1px solid var(--line); }
        .uplinks tr.target td { border-bottom:none; }
        """

    static let uplinksPanel = """
        <section id="uplinksPanel" hidden>
            <h2>Uplinks</h2>
            <table class="uplinks"><thead><tr><th>target</th><th>state</th><th>waiting</th><th>newest sent</th></tr></thead>
              <tbody id="uplinks" data-uplinks=""></tbody></table>
          </section>
        """

    static let uplinksScript = #"""
        function renderUplinks(targets) {
          const body = $("uplinks");
          $("uplinksPanel").hidden = targets.length === 0;
          body.dataset.uplinks = String(targets.length);
          body.replaceChildren();
          const cell = (tr, text, className) => { const td = document.createElement("td"); td.textContent = text;
            if (className) td.className = className; tr.appendChild(td); return td; };
          for (const t of targets) {
            const tr = document.createElement("tr");
            tr.className = "target"; tr.dataset.name = t.name; tr.dataset.state = t.state;
            cell(tr, t.name).title = t.protocol + " " + t.url;
            cell(tr, t.state, "state");
            cell(tr, String(t.backlog));
            cell(tr, t.lastDeliveredFix ? clock(t.lastDeliveredFix) : "–");
            body.appendChild(tr);
            const words = (t.lastAnswer || "no answer yet") + (t.nextTry && t.state !== "delivering" ? ", next try " + clock(t.nextTry) : "");
            const answer = document.createElement("tr"); answer.className = "answer";
            const td = cell(answer, t.protocol + " · " + words); td.colSpan = 4;
            body.appendChild(answer);
          }
        }
        // Every 5 s while there are targets, and again after a failed read.
        async function followUplinks() {
          const targets = await getJSON("/api/v1/uplinks").catch(() => null);
          if (targets) renderUplinks(targets);
          if (!targets || targets.length) setTimeout(followUplinks, 5000);
        }
        """#
}
