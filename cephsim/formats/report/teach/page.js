// cephsim's teaching page: draws one explained op (cephsim explain's data, embedded in the
// page as JSON) as a sequence diagram and a timeline, with its attribution, op-tracker
// intervals, the run's latency distribution and the what-if runs.  No network, no library.
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("cephsim-data").textContent);
  var NS = "http://www.w3.org/2000/svg";
  var KIND = {
    cpu: {pat: "pat-cpu", word: "CPU work on a thread"},
    net: {pat: "pat-net", word: "a message on the wire"},
    write: {pat: "pat-write", word: "disk write"},
    flush: {pat: "pat-flush", word: "disk flush (fdatasync)"},
    read: {pat: "pat-read", word: "disk or metadata read"},
    wait: {pat: "pat-wait", word: "waiting (a lock, a batch, a busy thread)"}
  };
  var CAT_PAT = {network: "pat-net", cpu: "pat-cpu", wake: "pat-wake", disk: "pat-write",
                 queue: "pat-queue"};
  var MARKS = [{q: "50", dash: "6 3", name: "p50"}, {q: "99", dash: "2 2", name: "p99"},
               {q: "99.9", dash: "8 2 2 2", name: "p99.9"}];

  // the runs the page switches between: the scenario as it is, then each what-if
  var runs = [{variant: "the scenario as it is", set: [], mean_us: D.mean_us, p99_us: D.p99_us,
               op: D}];
  (D.ablations || []).forEach(function (a) { runs.push(a); });
  var cur = 0;
  var stepEls = [];
  var lastXY = [-1, -1];

  function us(ns) { return (ns / 1000).toFixed(1) + " \u00b5s"; }
  function usv(v) { return v.toFixed(1) + " \u00b5s"; }
  function signed(v, unit) {  // +1.2 us, \u22121.2 % (a true minus sign)
    return (v >= 0 ? "+" : "\u2212") + Math.abs(v).toFixed(1) + (unit || " \u00b5s");
  }
  function pc(x) { return (100 * x).toFixed(1) + " %"; }
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) { if (attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function h(tag, attrs, parent, text) {
    var e = document.createElement(tag);
    for (var k in attrs) { if (attrs[k] !== undefined) e.setAttribute(k, attrs[k]); }
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); }
  function newSvg(box, w, hgt, label) {
    clear(box);
    var s = el("svg", {viewBox: "0 0 " + w + " " + hgt, width: w, height: hgt, role: "group",
                       "aria-label": label});
    box.appendChild(s);
    return s;
  }
  function widthOf(box) { return Math.max(300, Math.floor(box.clientWidth || 300)); }
  function fit(text, px, size) {  // cut a label to what fits in px at a font size
    var n = Math.max(1, Math.floor(px / (size * 0.58)));
    return text.length <= n ? text : text.slice(0, Math.max(1, n - 1)) + "\u2026";
  }
  function niceStep(x) {
    var e = Math.pow(10, Math.floor(Math.log10(x)));
    var m = [1, 2, 5, 10].find(function (m) { return m * e >= x; });
    return m * e;
  }
  function shortName(s, tiny) {  // a step's thread or device, without its host or OSD
    if (s.kind === "net") return s.follows || "message";
    if (!s.where) return "waits";
    var w = s.where.replace(/^osd\.\d+\./, "").replace(/^[^.]+\.job\d+\./, "");
    if (tiny) {  // a phone's lane: the kind of thread, the details panel says which
      w = w.replace(/^shard\d+\.t\d+$/, "shard").replace(/^msgr\d+$/, "msgr")
        .replace(/^bluefs_aio$/, "aio").replace(/^bstore_aio$/, "aio");
      if (s.kind === "write" || s.kind === "flush" || s.kind === "read") return s.kind;
    }
    if (s.kind === "write") return w + " write";
    if (s.kind === "flush") return w + " flush";
    if (s.kind === "read") return w + " read";
    if (s.kind === "wait") return w + " (waits)";
    return w;
  }
  function laneTitle(l) { return l.id; }
  function laneHost(l, tiny) {
    return l.osd ? (tiny ? l.osd : l.osd + " on " + l.host) : l.host;
  }

  // ---------------------------------------------------------------- the sequence diagram
  function drawSequence(op) {
    var box = $("seq");
    var W = widthOf(box), narrow = W < 600;
    var gl = narrow ? 40 : 60, gr = narrow ? 58 : 150;
    var lanes = op.lanes, laneW = (W - gl - gr) / lanes.length;
    var headH = 44, rowH = narrow ? 30 : 30, n = op.steps.length;
    var H = headH + n * rowH + 34;
    var svg = newSvg(box, W, H, "sequence diagram of op " + op.seq + ": " + n + " steps, " +
                     us(op.latency_ns));
    var lx = {};
    lanes.forEach(function (l, i) {
      var x = gl + laneW * (i + 0.5);
      lx[l.id] = x;
      el("text", {x: x, y: 16, "text-anchor": "middle", "font-size": narrow ? 12 : 13,
                  "font-weight": 700}, svg, fit(laneTitle(l), laneW - 4, narrow ? 12 : 13));
      el("text", {x: x, y: 32, "text-anchor": "middle", "font-size": 10.5, "class": "muted"},
         svg, fit(laneHost(l, laneW < 110), laneW - 4, 10.5));
      el("line", {x1: x, x2: x, y1: headH - 4, y2: headH + n * rowH, stroke: "#9a9a9a",
                  "stroke-dasharray": "3 4"}, svg);
    });
    el("text", {x: 2, y: 32, "font-size": 10.5, "class": "muted"}, svg, narrow ? "at \u00b5s"
       : "starts at (\u00b5s)");
    el("text", {x: W - 2, y: 32, "font-size": 10.5, "class": "muted", "text-anchor": "end"},
       svg, narrow ? "takes" : "takes, share of the op");
    var list = el("g", {role: "list", "aria-label": "the steps, in order"}, svg);
    stepEls = [];
    op.steps.forEach(function (s, i) {
      var y = headH + i * rowH, cy = y + rowH / 2;
      var share = s.dur_ns / op.latency_ns;
      var g = el("g", {"class": "step", tabindex: 0, role: "listitem", "data-n": s.n,
                       "data-dur-ns": s.dur_ns,
                       "aria-label": "step " + s.n + " of " + n + ", " + us(s.dur_ns) + ", " +
                       pc(share) + ": " + s.what}, list);
      el("rect", {"class": "hit", x: 0, y: y + 1, width: W, height: rowH - 2, rx: 3}, g);
      el("text", {x: gl - 6, y: cy + 4, "text-anchor": "end", "font-size": 10.5,
                  "class": "muted"}, g, (s.start_ns / 1000).toFixed(1));
      var x0 = lx[s.lane] !== undefined ? lx[s.lane] : lx.client;
      if (s.kind === "net") {
        var x1 = lx[s.to] !== undefined ? lx[s.to] : x0;
        var dir = x1 >= x0 ? 1 : -1;
        if (Math.abs(x1 - x0) < 1) {  // on the same host: a loop
          el("path", {d: "M" + (x0 + 4) + "," + (cy - 6) + " c 26,0 26,12 0,12",
                      fill: "none", stroke: "var(--net)", "stroke-width": 2,
                      "marker-end": "url(#arrow)"}, g);
        } else {
          el("line", {x1: x0 + 4 * dir, x2: x1 - 6 * dir, y1: cy + 3, y2: cy + 3,
                      stroke: "var(--net)", "stroke-width": 2.2, "stroke-dasharray": "7 3",
                      "marker-end": "url(#arrow)"}, g);
        }
        // a message's row holds nothing else: its label may use the row's width
        var loop = Math.abs(x1 - x0) < 1, mid = loop ? x0 + 34 : (x0 + x1) / 2;
        var room = loop ? W - gr - mid : 2 * Math.min(mid - gl, W - gr - mid);
        el("text", {x: mid, y: cy - 3, "text-anchor": loop ? "start" : "middle",
                    "font-size": 10.5}, g,
           fit((s.follows || "message") + " " + us(s.dur_ns), Math.max(60, room), 10.5));
      } else {
        var tiny = laneW < 110, bw = Math.max(24, laneW - (tiny ? 4 : 10)), bx = x0 - bw / 2;
        var strip = tiny ? 6 : 11, fs = tiny ? 10 : 11;
        var k = KIND[s.kind] || KIND.cpu;
        el("rect", {x: bx, y: y + 4, width: bw, height: rowH - 8, rx: 3, fill: "#fff",
                    stroke: "var(--" + (s.kind in KIND ? s.kind : "cpu") + ")",
                    "stroke-width": 1.6, "stroke-dasharray": s.kind === "wait" ? "3 2" : undefined},
           g);
        el("rect", {x: bx + 1, y: y + 5, width: strip, height: rowH - 10,
                    fill: "url(#" + k.pat + ")"}, g);
        var wake = s.cats_ns.wake, big = wake >= 2000;  // a wake-up worth a word: >= 2 us
        var label = shortName(s, tiny) + (big && !tiny ? " +wake " + us(wake) : "");
        el("text", {x: bx + strip + 4, y: cy + 4, "font-size": fs}, g,
           fit(label, bw - strip - (wake > 0 ? 16 : 6), fs));
        if (wake > 0) {  // a core woke from an idle state for this hand-off
          var ws = big ? 12 : 8;
          el("rect", {x: bx + bw - ws - 1, y: y + 4, width: ws, height: big ? rowH - 8 : 8,
                      fill: "url(#pat-wake)", stroke: "var(--ink)", "stroke-width": 0.8}, g);
        }
      }
      el("text", {x: narrow ? W - 2 : W - 98, y: cy + 4, "text-anchor": "end",
                  "font-size": 11}, g, us(s.dur_ns));
      if (!narrow) {
        el("rect", {x: W - 92, y: cy - 5, width: 90, height: 10, fill: "none",
                    stroke: "#bbb", "stroke-width": 0.6}, g);
        el("rect", {x: W - 92, y: cy - 5, width: Math.max(0.8, 90 * share), height: 10,
                    fill: "url(#pat-share)"}, g);
      }
      g.addEventListener("focus", function () { show(op, i); });
      g.addEventListener("mousemove", function (ev) {  // the pointer moved onto it: not a
        if (ev.screenX === lastXY[0] && ev.screenY === lastXY[1]) return;  // scroll's echo
        lastXY = [ev.screenX, ev.screenY];
        show(op, i);
      });
      g.addEventListener("click", function () { g.focus(); });
      g.addEventListener("keydown", function (ev) {
        var j = ev.key === "ArrowDown" ? i + 1 : ev.key === "ArrowUp" ? i - 1 : -1;
        if (j >= 0 && j < stepEls.length) { ev.preventDefault(); stepEls[j].focus(); }
      });
      stepEls.push(g);
    });
    var total = op.steps.reduce(function (a, s) { return a + s.dur_ns; }, 0);
    var yb = headH + n * rowH;
    el("line", {x1: 0, x2: W, y1: yb + 4, y2: yb + 4, stroke: "var(--ink)"}, svg);
    el("text", {x: W - 2, y: yb + 22, "text-anchor": "end", "font-size": 12, "font-weight": 700,
                id: "steps-sum", "data-ns": total}, svg,
       (narrow ? "sum: " : "the " + n + " steps add up to ") + us(total) +
       (total === op.latency_ns ? (narrow ? " = latency" : " = this op's latency") : ""));
  }

  function show(op, i) {
    var s = op.steps[i];
    stepEls.forEach(function (e, j) { e.classList.toggle("on", j === i); });
    document.querySelectorAll("#gantt .bar").forEach(function (b) {
      b.classList.toggle("on", +b.getAttribute("data-step") === i);
    });
    var d = $("details");
    clear(d);
    h("h3", {}, d, "Step " + s.n + " of " + op.steps.length + ": " + shortName(s, false));
    h("p", {}, d, s.what);
    var dl = h("dl", {}, d);
    function row(k, v, mono) { h("dt", {}, dl, k); h("dd", mono ? {"class": "mono"} : {}, dl, v); }
    var lane = op.lanes.find(function (l) { return l.id === s.lane; });
    row("who", s.kind === "net" ? s.lane + " \u2192 " + s.to : s.lane + (lane ? " (" +
        laneHost(lane, false) + ")" : ""));
    if (s.where) row("where", s.where, true);
    row("kind", (KIND[s.kind] || KIND.cpu).word);
    row("Ceph code", s.follows || "none: no component runs while it waits", !!s.follows);
    row("starts at", us(s.start_ns) + " after submission");
    row("takes", us(s.dur_ns) + ", " + pc(s.dur_ns / op.latency_ns) + " of the op");
    var parts = D.attribution.categories.filter(function (c) { return s.cats_ns[c.id] > 0; })
      .map(function (c) { return c.label + " " + us(s.cats_ns[c.id]); });
    row("of which", parts.join(", ") || "nothing");
  }

  // ---------------------------------------------------------------- the timeline
  function drawGantt(op) {
    var box = $("gantt");
    var W = widthOf(box), narrow = W < 600;
    var LW = narrow ? 92 : 170, PW = W - LW - 8, rowH = 15, gh = 18;
    var lines = [];
    op.rows.forEach(function (g) {
      lines.push({head: g.host + " (" + g.role + ")"});
      g.rows.forEach(function (r) {  // on a phone, without the host or OSD its group names
        lines.push({row: narrow && g.host !== "network" ? r.replace(/^osd\.\d+\./, "")
          .replace(g.host + ".", "") : r});
      });
    });
    var H = 24 + lines.reduce(function (a, l) { return a + (l.head ? gh : rowH); }, 0) + 24;
    var svg = newSvg(box, W, H, "timeline of op " + op.seq + ", every thread, device and " +
                     "network direction");
    var T = op.latency_ns, x = function (t) { return LW + PW * t / T; };
    var step = niceStep(T / 1000 / (narrow ? 4 : 8));
    for (var t = 0; t <= T / 1000 + 1e-9; t += step) {
      el("line", {x1: x(t * 1000), x2: x(t * 1000), y1: 18, y2: H - 22, stroke: "#e2e2e2"}, svg);
      el("text", {x: x(t * 1000), y: 12, "text-anchor": "middle", "font-size": 10,
                  "class": "muted"}, svg, +t.toFixed(3) + "");
    }
    el("text", {x: LW - 6, y: 12, "text-anchor": "end", "font-size": 10, "class": "muted"}, svg,
       "\u00b5s since submission");
    var y = 24, rowY = [];
    lines.forEach(function (l) {
      if (l.head) {
        el("text", {x: 2, y: y + 13, "font-size": 11, "font-weight": 700}, svg,
           fit(l.head, W - 4, 11));
        el("line", {x1: 0, x2: W, y1: y + 1, y2: y + 1, stroke: "#bbb"}, svg);
        y += gh;
      } else {
        rowY.push(y);
        el("text", {x: LW - 6, y: y + 11, "text-anchor": "end", "font-size": 10}, svg,
           fit(l.row, LW - 8, 10));
        y += rowH;
      }
    });
    op.spans.forEach(function (sp) {
      var yy = rowY[sp.row], on = sp.step >= 0;
      if (yy === undefined) return;
      if (on && sp.start_ns > sp.arrive_ns) {
        el("rect", {x: x(sp.arrive_ns), y: yy + 6, width: x(sp.start_ns) - x(sp.arrive_ns),
                    height: 3, fill: "var(--queue)"}, svg);
      }
      var a = sp.kind === "wait" ? sp.arrive_ns : sp.start_ns;
      var b = el("rect", {"class": "bar", x: x(a), y: yy + 1.5,
                          width: Math.max(1.5, x(sp.end_ns) - x(a)), height: rowH - 3,
                          fill: "url(#" + (KIND[sp.kind] || KIND.cpu).pat + ")",
                          opacity: on ? 1 : 0.35, stroke: on ? "var(--ink)" : "none",
                          "stroke-width": on ? 0.7 : 0, "data-step": sp.step}, svg);
      el("title", {}, b, (on ? "step " + (sp.step + 1) + ": " : "in parallel, not on the " +
         "critical path: ") + sp.what + " (" + us(sp.end_ns - a) + ")");
      if (on) {
        b.style.cursor = "pointer";
        b.addEventListener("click", function () { stepEls[sp.step].focus(); });
      }
    });
  }

  // ---------------------------------------------------------------- attribution, op tracker
  function drawAttribution(op) {
    var A = op.attribution, cats = A.categories;
    var box = $("attr"), W = widthOf(box), narrow = W < 600;
    var LW = narrow ? 70 : 150, PW = W - LW - 6;
    var svg = newSvg(box, W, 70, "where the time went: this op and the mean of the run");
    [["this op", A.op_ns, op.latency_ns], ["mean of " + A.ops + " ops", A.mean_ns,
      A.mean_latency_ns]].forEach(function (b, k) {
      var y = 6 + k * 32, x = LW;
      el("text", {x: LW - 6, y: y + 17, "text-anchor": "end", "font-size": 11}, svg, b[0]);
      cats.forEach(function (c) {
        var w = PW * b[1][c.id] / b[2];
        if (w <= 0) return;
        var r = el("rect", {x: x, y: y, width: w, height: 24, fill: "url(#" + CAT_PAT[c.id] + ")",
                            stroke: "var(--ink)", "stroke-width": 0.6}, svg);
        el("title", {}, r, c.label + ": " + us(b[1][c.id]) + " (" + pc(b[1][c.id] / b[2]) + ")");
        if (w > 70) {
          el("rect", {x: x + 3, y: y + 5, width: Math.min(w - 6, 8 + c.label.length * 6.2),
                      height: 14, fill: "#fff", opacity: 0.9}, svg);
          el("text", {x: x + 6, y: y + 16, "font-size": 10.5}, svg, fit(c.label, w - 10, 10.5));
        }
        x += w;
      });
    });
    var tb = $("attr-table");
    clear(tb);
    var hd = h("tr", {}, h("thead", {}, tb));
    [narrow ? "" : "where the time went", "this op", "%", narrow ? "mean" : "mean of " + A.ops +
     " ops", "%"].forEach(
      function (t, i) { h("th", i ? {"class": "num"} : {}, hd, t); });
    var body = h("tbody", {}, tb);
    cats.forEach(function (c) {
      var tr = h("tr", {}, body);
      var td = h("td", {}, tr);
      var sw = el("svg", {width: 22, height: 12, "aria-hidden": "true"});
      el("rect", {width: 22, height: 12, fill: "url(#" + CAT_PAT[c.id] + ")", stroke: "#333"}, sw);
      sw.style.display = "inline";
      sw.style.verticalAlign = "-2px";
      sw.style.marginRight = "6px";
      sw.style.width = "22px";
      td.appendChild(sw);
      td.appendChild(document.createTextNode(c.label));
      h("td", {"class": "num"}, tr, us(A.op_ns[c.id]));
      h("td", {"class": "num"}, tr, pc(A.op_ns[c.id] / op.latency_ns));
      h("td", {"class": "num"}, tr, us(A.mean_ns[c.id]));
      h("td", {"class": "num"}, tr, pc(A.mean_ns[c.id] / A.mean_latency_ns));
    });
    var tr = h("tr", {}, body);
    h("th", {}, tr, "total = latency");
    h("th", {"class": "num"}, tr, us(op.latency_ns));
    h("th", {"class": "num"}, tr, "100 %");
    h("th", {"class": "num"}, tr, us(A.mean_latency_ns));
    h("th", {"class": "num"}, tr, "100 %");

    var ot = $("tracker");
    clear(ot);
    var th = h("tr", {}, h("thead", {}, ot));
    ["between op-tracker events (at the primary)", "this op", "mean"].forEach(function (t, i) {
      h("th", i ? {"class": "num"} : {}, th, t);
    });
    var ob = h("tbody", {}, ot);
    Object.keys(op.op_tracker.op_ns).forEach(function (k) {
      var r = h("tr", {}, ob);
      h("td", {"class": "mono"}, r, k);
      h("td", {"class": "num"}, r, us(op.op_tracker.op_ns[k]));
      h("td", {"class": "num"}, r, us(op.op_tracker.mean_ns[k]));
    });
  }

  // ---------------------------------------------------------------- latency distribution
  function drawLatency(run) {
    var L = run.op.latency, base = runs[0].op.latency, other = cur !== 0;
    var box = $("lat"), W = widthOf(box), narrow = W < 700;
    var pw = narrow ? W : (W - 24) / 2, ph = 210;
    var H = narrow ? 2 * ph + 20 : ph;
    var svg = newSvg(box, W, H, "latency of every measured op: cumulative distribution and " +
                     "histogram, with fio's percentiles");
    var lo = Math.min(L.min_ns, other ? base.min_ns : Infinity);
    var hi = Math.max(L.max_ns, other ? base.max_ns : 0);
    var log = L.hist.log || (other && base.hist.log);
    if (hi <= lo) hi = lo + 1;
    function panel(ox, oy, title) {
      var g = el("g", {transform: "translate(" + ox + "," + oy + ")"}, svg);
      el("text", {x: 4, y: 14, "font-size": 12, "font-weight": 700}, g, title);
      return g;
    }
    var m = {l: 44, r: 10, t: 40, b: 30};
    function sx(ns) {
      var f = log ? (Math.log(ns) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))
        : (ns - lo) / (hi - lo);
      return m.l + (pw - m.l - m.r) * Math.min(1, Math.max(0, f));
    }
    function axes(g, ylab) {
      var yb = ph - m.b;
      el("line", {x1: m.l, x2: pw - m.r, y1: yb, y2: yb, stroke: "#333"}, g);
      el("line", {x1: m.l, x2: m.l, y1: m.t - 4, y2: yb, stroke: "#333"}, g);
      var ticks = [];
      if (log) {
        for (var e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
          [1, 2, 3, 4, 5, 6, 7, 8, 9].forEach(function (k) {
            var v = k * Math.pow(10, e);
            if (v >= lo && v <= hi) ticks.push(v);
          });
        }
      } else {
        var st = niceStep((hi - lo) / 5);
        for (var v = Math.ceil(lo / st) * st; v <= hi; v += st) ticks.push(v);
      }
      var lastX = -99;
      ticks.forEach(function (v) {
        var x = sx(v);
        if (x - lastX < 30) return;
        lastX = x;
        el("line", {x1: x, x2: x, y1: yb, y2: yb + 4, stroke: "#333"}, g);
        el("text", {x: x, y: yb + 15, "text-anchor": "middle", "font-size": 10}, g,
           +(v / 1000).toPrecision(3) + "");
      });
      el("text", {x: pw - m.r, y: ph - 3, "text-anchor": "end", "font-size": 10,
                  "class": "muted"}, g, "latency (\u00b5s" + (log ? ", log scale)" : ")"));
      el("text", {x: 4, y: 28, "font-size": 10, "class": "muted"}, g, ylab);
    }
    function marks(g) {
      var yb = ph - m.b;
      function label(x, k, text) {  // inside the plot, stacked, never past its right edge
        var right = x > pw - m.r - 44;
        el("text", {x: right ? x - 3 : x + 3, y: m.t + 9 + 11 * k, "font-size": 10,
                    "text-anchor": right ? "end" : "start"}, g, text);
      }
      MARKS.forEach(function (mk, k) {
        var v = L.percentiles_ns[mk.q];
        if (v === undefined) return;
        var x = sx(v);
        el("line", {x1: x, x2: x, y1: m.t - 2, y2: yb, stroke: "var(--ink)",
                    "stroke-dasharray": mk.dash, "stroke-width": 1.3}, g);
        label(x, k + 1, mk.name);
      });
      var xm = sx(L.mean_ns);
      el("line", {x1: xm, x2: xm, y1: m.t - 2, y2: yb, stroke: "var(--wake)",
                  "stroke-width": 1.6, "stroke-dasharray": "1 2"}, g);
      label(xm, 0, "mean");
    }
    // the CDF
    var g1 = panel(0, 0, "cumulative distribution (" + L.n + " ops)");
    axes(g1, "fraction of ops done");
    var yb = ph - m.b, yt = m.t;
    function sy(q) { return yb - (yb - yt) * q; }
    [0, 0.5, 1].forEach(function (q) {
      el("text", {x: m.l - 4, y: sy(q) + 3, "text-anchor": "end", "font-size": 10}, g1, q + "");
    });
    function cdfPath(X) {
      return X.cdf_ns.map(function (v, i) {
        return (i ? "L" : "M") + sx(Math.max(v, lo)).toFixed(1) + "," + sy(X.cdf_q[i]).toFixed(1);
      }).join(" ");
    }
    if (other) {
      el("path", {d: cdfPath(base), fill: "none", stroke: "#888", "stroke-width": 1.5,
                  "stroke-dasharray": "4 3"}, g1);
    }
    el("path", {d: cdfPath(L), fill: "none", stroke: "var(--cpu)", "stroke-width": 2.2}, g1);
    marks(g1);
    // the histogram (counts on a log scale: the tail stays visible)
    var g2 = panel(narrow ? 0 : pw + 24, narrow ? ph + 20 : 0, "histogram" +
                   (L.hist.log ? " (log bins)" : ""));
    axes(g2, "ops per bin (log scale)");
    var maxc = Math.max.apply(null, L.hist.counts.concat([2]));
    function hy(c) { return c <= 0 ? yb : yb - (yb - yt) * Math.log(c + 1) / Math.log(maxc + 1); }
    L.hist.counts.forEach(function (c, i) {
      if (!c) return;
      var a = sx(L.hist.edges_ns[i]), b = sx(L.hist.edges_ns[i + 1]);
      el("rect", {x: a, y: hy(c), width: Math.max(0.8, b - a - 0.5), height: yb - hy(c),
                  fill: "url(#pat-cpu)"}, g2);
    });
    marks(g2);
    // fio's percentiles, as a table
    var pt = $("pct");
    clear(pt);
    Object.keys(L.percentiles_ns).forEach(function (k) {
      var c = h("span", {}, pt);
      h("b", {}, c, "p" + k);
      c.appendChild(document.createTextNode(" " + usv(L.percentiles_ns[k] / 1000)));
    });
    $("lat-note").textContent = other ? "Solid: " + run.variant + "; dashed grey: the scenario " +
      "as it is. Marks and table: " + run.variant + "." : "";
  }

  // ---------------------------------------------------------------- what if
  function drawChoices() {
    var box = $("choices");
    clear(box);
    var base = runs[0].mean_us;
    runs.forEach(function (r, i) {
      var lab = h("label", {"class": r.error ? "off" : (i === cur ? "chosen" : "")}, box);
      var inp = h("input", {type: "radio", name: "run", value: i}, lab);
      if (i === cur) inp.checked = true;
      if (r.error || (i > 0 && !r.op)) inp.disabled = true;
      var t = h("span", {}, lab, r.variant + " ");
      var d = r.error ? "n/a: " + r.error : i === 0 ? usv(r.mean_us) :
        usv(r.mean_us) + ", " + signed(100 * (r.mean_us - base) / base, " %");
      h("span", {"class": "delta"}, t, "(" + d + ")");
      inp.addEventListener("change", function () { select(i); });
    });
  }

  function drawAblationTable() {
    var tb = $("abl");
    clear(tb);
    var hd = h("tr", {}, h("thead", {}, tb));
    ["what if (one change, same seed " + D.seed + ")", "mean", "change", "p99", "--set"].forEach(
      function (t, i) { h("th", i && i < 4 ? {"class": "num"} : {}, hd, t); });
    var body = h("tbody", {}, tb), base = runs[0].mean_us;
    runs.forEach(function (r, i) {
      var tr = h("tr", {}, body);
      h("td", {}, tr, r.variant);
      if (r.error) { h("td", {colspan: 4}, tr, "n/a: " + r.error); return; }
      h("td", {"class": "num"}, tr, usv(r.mean_us));
      h("td", {"class": "num"}, tr, i ? signed(r.mean_us - base) + " (" +
        signed(100 * (r.mean_us - base) / base, " %") + ")" : "");
      h("td", {"class": "num"}, tr, usv(r.p99_us));
      h("td", {"class": "mono"}, tr, r.set.join(" "));
    });
  }

  function drawCards(run) {
    var op = run.op;
    var t = $("op-total");
    t.textContent = us(op.latency_ns);
    t.setAttribute("data-ns", op.latency_ns);
    $("op-note").textContent = op.rank.replace(/^the /, "") + ", op " + op.seq;
    var m = $("run-mean");
    m.textContent = usv(run.mean_us);
    m.setAttribute("data-us", run.mean_us);
    $("run-note").textContent = "mean latency of the run's " + op.attribution.ops + " ops";
    $("run-p99").textContent = usv(run.p99_us);
    $("showing").textContent = cur === 0 ? "the scenario as it is" :
      run.variant + " (--set " + run.set.join(" --set ") + ")";
    $("story").textContent = op.story;
    $("op-word").textContent = !op.is_write ? "read" : op.erasure ? "erasure-coded write" :
      op.pool_size > 1 ? "replicated write" : "write";
  }

  function drawAll() {
    var run = runs[cur];
    var had = stepEls.indexOf(document.activeElement);  // a redraw keeps the step in focus
    drawCards(run);
    drawSequence(run.op);
    drawGantt(run.op);
    drawAttribution(run.op);
    drawLatency(run);
    var d = $("details");
    clear(d);
    h("h3", {}, d, "What happens at each step");
    h("p", {}, d, "Point at a step, tap it, or move to it with Tab (or the arrow keys): " +
      "this panel says what Ceph does there, the Ceph function it follows, how long it " +
      "takes and its share of the op.");
    if (had >= 0 && had < stepEls.length) stepEls[had].focus();
  }

  function select(i) {
    if (!runs[i] || !runs[i].op) return false;  // no such run, or one that could not run
    cur = i;
    document.querySelectorAll("#choices label").forEach(function (l, j) {
      l.classList.toggle("chosen", j === i);
    });
    drawAll();
    return true;
  }

  if (runs.length > 1) {
    drawChoices();
    drawAblationTable();
  } else {  // a run's page: no what-if runs to switch to
    document.querySelector("fieldset.whatif").hidden = true;
    $("abl").hidden = true;
    $("abl-none").hidden = false;
  }
  drawAll();
  var lastW = window.innerWidth;
  var timer = null;
  window.addEventListener("resize", function () {
    if (window.innerWidth === lastW) return;
    lastW = window.innerWidth;
    clearTimeout(timer);
    timer = setTimeout(drawAll, 120);
  });
  window.cephsimSelect = select;  // for scripts and tests: select(i) as the radio buttons do
})();
