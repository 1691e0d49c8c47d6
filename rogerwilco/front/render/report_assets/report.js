// rogerwilco report: draws the embedded JSON (#rw1-data). No framework, no network.
// Every piece of data reaches the page through textContent or an attribute value; nothing is parsed as markup.
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var ROW = 24, LANE = 104, GUTTER = 80, OVERSCAN = 30, PAGE = 200, CARDS = 50;
  var COLOURS = { HO: "#1f4fbf", RB: "#6b2fa3", AQ: "#00707a", AN: "#2a6b12", DN: "#145c2a", UN: "#a34a00",
                  FL: "#a3161a", CX: "#6d4c2f", ST: "#4a4a52" };
  var SYMBOL = { passed: "\u2713", failed: "\u2717" };

  var D = JSON.parse(document.getElementById("rw1-data").textContent);
  var messages = D.messages, findings = D.findings, handoffs = D.handoffs, items = D.items, readbacks = D.readbacks;

  // ---- helpers: DOM from data, always as text ----
  function el(tag, attrs) {
    var node = document.createElement(tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    setAttrs(node, attrs);
    for (var i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return;
    Object.keys(attrs).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, String(attrs[k]));
    });
  }
  function append(node, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { append(node, c); }); return; }
    node.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
  // Characters that reorder or hide text (bidi controls, zero-width, other controls) shown as a visible mark,
  // so a line reads on screen as it was sent.
  var HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/;
  function codeOf(ch) { return "U+" + ("0000" + ch.codePointAt(0).toString(16).toUpperCase()).slice(-4); }
  function visible(text) {
    var out = [], plain = "";
    Array.from(String(text)).forEach(function (ch) {
      if (HIDDEN.test(ch)) {
        if (plain) { out.push(plain); plain = ""; }
        out.push(el("span", { "class": "esc", title: codeOf(ch) }, "\u27e8" + codeOf(ch) + "\u27e9"));
      } else plain += ch;
    });
    if (plain) out.push(plain);
    return out;
  }
  function visibleLength(text) {
    return Array.from(String(text)).reduce(function (n, ch) { return n + (HIDDEN.test(ch) ? codeOf(ch).length + 2 : 1); }, 0);
  }
  function plainText(text) {
    return Array.from(String(text)).map(function (ch) { return HIDDEN.test(ch) ? "\u27e8" + codeOf(ch) + "\u27e9" : ch; }).join("");
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // ---- the model, indexed ----
  function msgJson(i) { return messages[i][3]; }
  var idIndex = new Map(), lineIndex = new Map(), agents = [], agentLane = new Map();
  function lane(name) {
    if (!agentLane.has(name)) { agentLane.set(name, agents.length); agents.push(name); }
    return agentLane.get(name);
  }
  messages.forEach(function (m, i) {
    lineIndex.set(m[0], i);
    var j = m[3];
    if (!j) return;
    if (!idIndex.has(j.id)) idIndex.set(j.id, i);
    lane(j.from); lane(j.to);
  });
  var hoById = new Map();
  handoffs.forEach(function (h) { hoById.set(h.id, h); });
  var checkOf = new Map(), checksOfHo = new Map();
  readbacks.forEach(function (r) {
    checkOf.set(r.id, r);
    if (!checksOfHo.has(r.ho)) checksOfHo.set(r.ho, []);
    checksOfHo.get(r.ho).push(r);
  });
  // a finding's place: its line (lint, and the check's unreadable lines), else the message its token names,
  // else the handoff its key names
  var FORM_LINE = /^line ([0-9]+):/;
  function placeOf(f) {
    if (f.line !== undefined && lineIndex.has(f.line)) return lineIndex.get(f.line);
    var m = f.kind === "form" && FORM_LINE.exec(f.message);
    if (m && lineIndex.has(Number(m[1]))) return lineIndex.get(Number(m[1]));
    if (f.token && idIndex.has(f.token)) return idIndex.get(f.token);
    if (f.key && idIndex.has(f.key)) return idIndex.get(f.key);
    return -1;
  }
  var findingsAt = new Map();
  findings.forEach(function (f, k) {
    f.place = placeOf(f);
    var j = f.place >= 0 ? msgJson(f.place) : null;
    var ho = f.key && hoById.get(f.key);
    f.agents = j ? [j.from, j.to] : ho ? [ho.from, ho.to] : [];
    f.item = (ho && ho.item) || (j && j.item) || "";
    if (f.place >= 0) {
      if (!findingsAt.has(f.place)) findingsAt.set(f.place, []);
      findingsAt.get(f.place).push(k);
    }
  });

  // ---- the page skeleton ----
  var meta = D.meta;
  document.title = "RW1 report: " + plainText(meta.file);
  var verdict = meta.passed ? "passed" : "failed";
  var validCount = messages.filter(function (m) { return m[3]; }).length;
  var voidCount = readbacks.filter(function (r) { return !r.passed; }).length;
  var header = el("header", null,
    el("h1", null, "Conversation report: ", el("span", { "class": "mono" }, visible(meta.file))),
    el("p", null, el("span", { "class": meta.passed ? "verdict-pass" : "verdict-fail" },
                     (meta.passed ? "\u2713 " : "\u2717 ") + "check-thread and lint " + verdict),
       voidCount ? [" \u00b7 ", el("span", { "class": "verdict-fail", id: "void-count" },
                                    "\u2717 " + voidCount + (voidCount === 1 ? " readback or done report" : " readbacks and done reports") +
                                    " did not pass")] : null,
       " \u00b7 " + messages.length + " lines, " + validCount + " messages, " + agents.length + " agents \u00b7 " +
       meta.fails + " fails, " + meta.notes + " notes from check-thread, " +
       (findings.length - meta.fails - meta.notes) + " from lint \u00b7 read at " + meta.now +
       " \u00b7 rogerwilco " + meta.version),
    el("nav", { "aria-label": "Sections" }, el("a", { href: "#diagram" }, "Sequence"),
       el("a", { href: "#ownership" }, "Ownership"), el("a", { href: "#readbacks" }, "Readbacks"),
       el("a", { href: "#findings" }, "Findings")));
  var main = el("main");
  document.body.appendChild(header);
  document.body.appendChild(main);

  // ---- 1. the sequence diagram, windowed ----
  var lanesHead = el("div", { id: "lanes-head", "aria-hidden": "true" });
  var spacer = el("div", { id: "lanes-spacer" });
  var lanesBox = el("div", { id: "lanes", tabindex: "0", role: "group",
    "aria-label": "Sequence diagram: one arrow per message. Up and down arrows move between messages, " +
                  "Page Up and Page Down by a screen, Home and End to the ends; the selected message is described beside it.",
    "aria-describedby": "keys" }, spacer);
  var detail = el("div", { id: "detail", "aria-live": "polite" }, el("p", null, "Select a message to see its line, JSON form, digest and findings."));
  var width = GUTTER + Math.max(1, agents.length) * LANE;
  spacer.style.height = (messages.length * ROW) + "px";
  spacer.style.width = width + "px";
  agents.forEach(function (a, i) {
    var s = el("span", { title: plainText(a) }, visible(a));
    s.style.left = (GUTTER + i * LANE + 2) + "px";
    lanesHead.appendChild(s);
  });
  var diagramSection = el("section", { id: "diagram", "aria-labelledby": "diagram-h",
                                       "data-messages": validCount, "data-lines": messages.length },
    el("h2", { id: "diagram-h" }, "Sequence"),
    el("p", { id: "keys" }, "Keys: \u2191 \u2193 move, PgUp PgDn a screen, Home End, Enter shows the details. " +
       "Each arrow is labelled with its type and id. A message with findings has a ring on its arrow (a cross when one " +
       "fails, a dot for notes) and their count in the margin (\u2717 or \u25cb); a void readback says \u2717 VOID."),
    el("div", { id: "diagram-wrap" }, el("div", null, lanesHead, lanesBox), detail));
  main.appendChild(diagramSection);

  var selected = -1, drawn = [-1, -1];
  function xOf(agent) { return GUTTER + agentLane.get(agent) * LANE + LANE / 2; }
  function arrow(i, y) {
    var m = messages[i], j = m[3];
    var g = svg("g", { "class": "msg" + (i === selected ? " sel" : ""), "data-msg": i, "data-line": m[0] });
    g.appendChild(svg("rect", { "class": "hit", x: 0, y: y - ROW / 2, width: width, height: ROW }));
    g.appendChild(svg("text", { "class": "gutter", x: 4, y: y + 4 }, String(m[0])));
    var here = findingsAt.get(i);
    if (here) {
      var fails = here.filter(function (k) { return findings[k].severity === "fail"; }).length;
      g.appendChild(svg("text", { x: 40, y: y + 4, fill: fails ? "#a3161a" : "#6b4e00" },
                        (fails ? "\u2717" : "\u25cb") + here.length));
    }
    if (!j) {
      g.setAttribute("data-kind", "unreadable");
      g.appendChild(svg("rect", { x: GUTTER, y: y - 7, width: width - GUTTER - 4, height: 14, fill: "none",
                                  stroke: "#a3161a", "stroke-dasharray": "4 3" }));
      g.appendChild(svg("text", { x: GUTTER + 6, y: y + 4 }, "line " + m[0] + ": not a message"));
      return g;
    }
    g.setAttribute("data-kind", "arrow");
    g.setAttribute("data-type", j.type);
    var colour = COLOURS[j.type] || "#333";
    var x1 = xOf(j.from), x2 = xOf(j.to), label = j.type + " " + plainText(j.id);
    if (x1 === x2) {
      g.appendChild(svg("path", { d: "M" + x1 + " " + (y - 6) + " h 28 v 12 h -24", fill: "none", stroke: colour, "stroke-width": 2 }));
      g.appendChild(svg("polygon", { points: (x1 + 2) + "," + (y + 6) + " " + (x1 + 9) + "," + (y + 2) + " " + (x1 + 9) + "," + (y + 10), fill: colour }));
      g.appendChild(svg("text", { x: x1 + 32, y: y + 4 }, label));
      if (here) mark(g, x1 + 28, y, here);
      return g;
    }
    var dir = x2 > x1 ? 1 : -1;
    g.appendChild(svg("line", { x1: x1, y1: y + 3, x2: x2 - dir * 8, y2: y + 3, stroke: colour, "stroke-width": 2,
                                "stroke-dasharray": j.type === "RB" || j.type === "AN" ? "6 3" : null }));
    g.appendChild(svg("polygon", { points: x2 + "," + (y + 3) + " " + (x2 - dir * 9) + "," + (y - 1) + " " + (x2 - dir * 9) + "," + (y + 7), fill: colour }));
    var text = svg("text", { x: Math.min(x1, x2) + 6, y: y - 2, fill: colour }, label.length > 40 ? label.slice(0, 39) + "\u2026" : label);
    var check = checkOf.get(j.id);
    if (check && !check.passed) {  // a void readback, a done report off its plan: said in words, after the label
      g.setAttribute("data-void", "1");
      text.appendChild(svg("tspan", { fill: "#a3161a", "font-weight": "bold" }, check.check === "check-rb" ? " \u2717 VOID" : " \u2717 FAIL"));
    }
    g.appendChild(text);
    if (here) mark(g, x2 - dir * 22, y + 3, here);
    return g;
  }
  // the findings of a message on its arrow: a ring with a cross (one fails) or a dot (notes alone)
  function mark(g, x, y, here) {
    var fails = here.some(function (k) { return findings[k].severity === "fail"; });
    var colour = fails ? "#a3161a" : "#6b4e00";
    g.appendChild(svg("circle", { cx: x, cy: y, r: 7, fill: "#ffffff", stroke: colour, "stroke-width": 2, "data-mark": fails ? "fail" : "note" }));
    g.appendChild(fails ? svg("path", { d: "M" + (x - 3) + " " + (y - 3) + " l6 6 m0 -6 l-6 6", stroke: colour, "stroke-width": 2 })
                        : svg("circle", { cx: x, cy: y, r: 2.5, fill: colour }));
  }
  function draw(force) {
    var top = Math.floor(lanesBox.scrollTop / ROW);
    var bottom = Math.min(messages.length, Math.ceil((lanesBox.scrollTop + lanesBox.clientHeight) / ROW));
    // what is on screen is drawn already (the margin drawn around it): a small scroll draws nothing
    if (!force && drawn[0] <= top && bottom <= drawn[1]) return;
    var first = Math.max(0, top - OVERSCAN), last = Math.min(messages.length, bottom + OVERSCAN);
    drawn = [first, last];
    var height = (last - first) * ROW;
    var pic = svg("svg", { width: width, height: height, viewBox: "0 " + first * ROW + " " + width + " " + height, "aria-hidden": "true" });
    pic.style.top = (first * ROW) + "px";
    agents.forEach(function (a) {
      pic.appendChild(svg("line", { "class": "lane", x1: xOf(a), x2: xOf(a), y1: first * ROW, y2: last * ROW }));
    });
    for (var i = first; i < last; i++) pic.appendChild(arrow(i, i * ROW + ROW / 2));
    clear(spacer);
    spacer.appendChild(pic);
  }
  var pending = false;
  lanesBox.addEventListener("scroll", function () {
    lanesHead.scrollLeft = lanesBox.scrollLeft;
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(false); });
  });
  lanesBox.addEventListener("click", function (e) {
    var g = e.target.closest && e.target.closest("g.msg");
    if (g) select(Number(g.getAttribute("data-msg")), false);
  });
  lanesBox.addEventListener("keydown", function (e) {
    var rows = Math.max(1, Math.floor(lanesBox.clientHeight / ROW) - 1), to = null;
    if (e.key === "ArrowDown" || e.key === "j") to = selected + 1;
    else if (e.key === "ArrowUp" || e.key === "k") to = selected - 1;
    else if (e.key === "PageDown") to = selected + rows;
    else if (e.key === "PageUp") to = selected - rows;
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = messages.length - 1;
    else if (e.key === "Enter" && selected >= 0) { detail.focus(); e.preventDefault(); return; }
    if (to === null || !messages.length) return;
    e.preventDefault();
    select(Math.max(0, Math.min(messages.length - 1, to)), true);
  });
  function select(i, scroll) {
    selected = i;
    if (scroll) {
      var top = i * ROW, box = lanesBox;
      if (top < box.scrollTop || top + ROW > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 2);
      var j = messages[i][3];
      if (j) {  // the arrow in view across too: its left end, or the lanes' start
        var left = Math.min(xOf(j.from), xOf(j.to)), right = Math.max(xOf(j.from), xOf(j.to));
        if (left < box.scrollLeft + GUTTER || right > box.scrollLeft + box.clientWidth) box.scrollLeft = Math.max(0, left - GUTTER - 20);
      }
    }
    draw(true);
    showDetail(i);
  }

  // ---- the details of one message ----
  function caretLine(text, f) {
    var chars = Array.from(String(text)), start = -1, len = 1;
    if (f.column) { start = f.column - 1; len = f.token ? Array.from(f.token).length : 1; }
    else if (f.token) {
      var at = String(text).indexOf(f.token);
      if (at >= 0) { start = Array.from(String(text).slice(0, at)).length; len = Array.from(f.token).length; }
    }
    if (start < 0 || start > chars.length) return null;
    var pad = visibleLength(chars.slice(0, start).join("")), wide = Math.max(1, visibleLength(chars.slice(start, start + len).join("")));
    return new Array(pad + 1).join(" ") + new Array(wide + 1).join("^");
  }
  function findingItem(f, text) {
    var caret = text !== null ? caretLine(text, f) : null;
    return el("li", null,
      el("span", { "class": "sev-" + f.severity }, f.severity === "fail" ? "\u2717 fail" : "\u25cb " + f.severity),
      " [", visible(f.kind), "] ", f.tier ? "tier " + f.tier + " " : "", f.key ? el("code", null, visible(f.key)) : null,
      f.key ? " " : null, visible(f.message), " (" + f.src + ")",
      caret !== null ? el("pre", { "class": "caret", "aria-label": "where in the line" },
                          plainText(text) + "\n" + caret) : null);
  }
  function showDetail(i) {
    var m = messages[i], j = m[3];
    clear(detail);
    detail.setAttribute("tabindex", "-1");
    detail.appendChild(el("h3", null, "Line " + m[0] + ": ", j ? j.type + " " : "", j ? el("code", null, visible(j.id)) : "not a message"));
    if (j) detail.appendChild(el("p", null, "from ", el("code", null, visible(j.from)), " to ", el("code", null, visible(j.to)),
                                 j.item ? [" about ", el("code", null, visible(j.item))] : null,
                                 j.re ? [" re ", el("code", null, visible(j.re))] : null));
    detail.appendChild(el("h3", null, "Line"));
    detail.appendChild(el("pre", { "data-part": "line" }, visible(m[1])));
    if (!j) detail.appendChild(el("p", { "class": "sev-fail" }, visible(m[4] || "")));
    var here = findingsAt.get(i) || [];
    detail.appendChild(el("h3", null, "Findings (" + here.length + ")"));
    detail.appendChild(here.length ? el("ul", null, here.map(function (k) { return findingItem(findings[k], m[1]); }))
                                   : el("p", null, "none"));
    if (j) {
      var check = checkOf.get(j.id);
      if (check) detail.appendChild(checkView(check, true));
      var ho = hoById.get(j.id);
      if (ho) detail.appendChild(handoffSummary(ho));
      detail.appendChild(el("h3", null, "Digest"));
      detail.appendChild(el("p", null, el("code", { "data-part": "digest" }, "h=" + m[2])));
      detail.appendChild(el("h3", null, "JSON form"));
      detail.appendChild(el("pre", { "data-part": "json" }, plainText(JSON.stringify(j, null, 2))));
    }
  }
  function handoffSummary(h) {
    return el("p", { "data-part": "handoff" }, "Handoff state: ", el("strong", null, h.state),
      h.readback ? "; readback " + h.readback + " (" + plainText(h.rb || "") + ")" : "; no readback",
      h.by ? "; closed by " + h.by + " " + plainText(h.closer || "") : "",
      h.next ? "; carried forward by " + plainText(h.next) : "",
      h.undoes ? "; undoes " + plainText(h.undoes) + " (reverses " + plainText(h.reverses || "") + ")" : "");
  }

  // ---- 3. a readback's tiers and its comprehension diff; a done report against its plan ----
  function status(s) {
    var cls = s === "passed" ? "st-passed" : s === "failed" ? "st-failed" : "st-other";
    return el("span", { "class": cls }, (SYMBOL[s] || "\u2013") + " " + s);
  }
  function checkView(r, inDetail) {
    var word = r.check === "check-rb" ? (r.passed ? "WILCO" : "VOID") : (r.passed ? "PASS" : "FAIL");
    var box = el("div", { "class": "card", "data-check": r.check, "data-id": r.id, "data-passed": r.passed });
    box.appendChild(el(inDetail ? "h3" : "h3", null, r.check === "check-rb" ? "Readback " : "Done report ",
      el("code", null, visible(r.id)), " of ", el("code", null, visible(r.ho)), ": ",
      el("span", { "class": r.passed ? "verdict-pass" : "verdict-fail" }, (r.passed ? "\u2713 " : "\u2717 ") + word),
      inDetail ? null : [" ", el("button", { "class": "link", "data-goto": r.id, type: "button" }, "show in the diagram")]));
    var at = idIndex.get(r.id), slots = at !== undefined && messages[at][3] ? messages[at][3].slots : {};
    if (slots.x_tok) {  // an RB a two-phase tool composed: its statement, frozen under the token until exp=
      box.appendChild(el("p", { "data-part": "statement" }, "The tool's statement: ", el("code", null, "x_tok=" + plainText(slots.x_tok)),
        slots.exp ? [", to be confirmed by ", el("code", null, "exp=" + plainText(slots.exp))] : null,
        "; the readback relays it, checked here as any readback is."));
    }
    if (r.tiers) {
      box.appendChild(el("ul", { "class": "tiers", "aria-label": "tiers" }, Object.keys(meta.tiers).map(function (t) {
        return el("li", { "data-tier": t, "data-status": r.tiers[t] }, t + " " + meta.tiers[t] + ": ", status(r.tiers[t]));
      })));
      if (r.unchecked && r.unchecked.length) box.appendChild(el("p", null, "Not checked: tier " + r.unchecked.join(" and ") +
        " (no criteria or record to compare; the verdict says so)"));
    }
    var sides = r.findings.filter(function (f) { return f.sender_value !== undefined || f.receiver_value !== undefined; });
    var left = r.check === "check-rb" ? "sender (HO)" : "plan", right = r.check === "check-rb" ? "receiver (RB)" : "done report";
    if (sides.length) {
      box.appendChild(el("table", { "data-part": "diff" }, el("caption", { "class": "visually-hidden" }, "sender against receiver"),
        el("thead", null, el("tr", null, el("th", { scope: "col" }, "key"), el("th", { scope: "col" }, "kind"),
                             el("th", { scope: "col" }, left), el("th", { scope: "col" }, right))),
        el("tbody", null, sides.map(function (f) {
          return el("tr", null, el("td", null, visible(f.key || "-")),
            el("td", { "class": "sev-" + f.severity }, (f.severity === "fail" ? "\u2717 " : "\u25cb ") + f.kind),
            el("td", { "class": "mono" }, visible(shown(f.sender_value))), el("td", { "class": "mono" }, visible(shown(f.receiver_value))));
        }))));
    }
    if (r.findings.length) {
      box.appendChild(el("ul", null, r.findings.map(function (f) {
        return el("li", null, el("span", { "class": "sev-" + f.severity }, f.severity), " ", f.kind,
                  f.tier ? " (tier " + f.tier + (f.key ? ", " : "") : f.key ? " (" : "", f.key ? visible(f.key) : null,
                  f.tier || f.key ? ")" : "", ": ", visible(f.message));
      })));
    } else box.appendChild(el("p", null, "no findings"));
    return box;
  }
  function shown(v) { return v === undefined || v === null ? "-" : typeof v === "string" ? v : JSON.stringify(v); }

  // ---- paging, shared by the lists below ----
  function pager(total, size, page, onPage, label) {
    var pages = Math.max(1, Math.ceil(total / size));
    var prev = el("button", { type: "button", "aria-label": "previous page of " + label }, "\u2190 previous");
    var next = el("button", { type: "button", "aria-label": "next page of " + label }, "next \u2192");
    prev.disabled = page <= 0; next.disabled = page >= pages - 1;
    prev.addEventListener("click", function () { onPage(page - 1); });
    next.addEventListener("click", function () { onPage(page + 1); });
    return el("div", { "class": "pager" }, prev, "page " + (page + 1) + " of " + pages, next);
  }
  function gotoButton(place, text) {
    return place >= 0 ? el("button", { "class": "link", type: "button", "data-place": place }, text) : "-";
  }
  main.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-place], button[data-goto]");
    if (!b) return;
    var place = b.hasAttribute("data-place") ? Number(b.getAttribute("data-place")) : idIndex.get(b.getAttribute("data-goto"));
    if (place === undefined || place < 0) return;
    diagramSection.scrollIntoView();
    select(place, true);
    lanesBox.focus({ preventScroll: true });
  });

  // ---- 2. ownership over time, per item ----
  var byItem = new Map();
  handoffs.forEach(function (h) {
    if (h.item === null || h.item === undefined) return;
    if (!byItem.has(h.item)) byItem.set(h.item, []);
    byItem.get(h.item).push(h);
  });
  var OPEN = { "awaiting-readback": 1, owned: 1, held: 1, orphaned: 1 };
  function itemOpen(item) { return (byItem.get(item.item) || []).some(function (h) { return OPEN[h.state]; }); }
  var ownSection = el("section", { id: "ownership", "aria-labelledby": "ownership-h" }, el("h2", { id: "ownership-h" }, "Ownership over time"));
  var onlyOpen = el("input", { type: "checkbox", id: "only-open" });
  ownSection.appendChild(el("div", { "class": "filters" }, el("label", { "for": "only-open", "class": "check" }, "only items still open at " + meta.now, onlyOpen)));
  var ownList = el("div");
  ownSection.appendChild(ownList);
  main.appendChild(ownSection);
  function itemCard(item) {
    var hs = byItem.get(item.item) || [], open = itemOpen(item);
    var card = el("div", { "class": "card" + (open ? " open" : ""), "data-item": plainText(item.item) });
    card.appendChild(el("h3", null, el("code", null, visible(item.item)), ": owned by ", el("code", null, visible(item.owner)),
      item.via ? [" via ", el("code", null, visible(item.via))] : " (no readback passed)",
      open ? el("span", { "class": "badge sev-fail" }, "\u25b2 open at " + meta.now) : el("span", { "class": "badge st-other" }, "settled")));
    // the owner's spans: the first sender from the first HO, then each HO whose readback passed, from its RB on
    var spans = [], start = idIndex.has(hs.length ? hs[0].id : "") ? idIndex.get(hs[0].id) : 0, owner = hs.length ? hs[0].from : item.owner;
    var events = [];
    hs.forEach(function (h) {
      var at = idIndex.get(h.id);
      events.push(el("li", null, gotoButton(at === undefined ? -1 : at, "line " + (at === undefined ? "?" : messages[at][0])), " HO ",
        el("code", null, visible(h.id)), " ", visible(h.from), " \u2192 ", visible(h.to), h.ask ? " ask=" + plainText(h.ask) : "",
        ": ", el("strong", null, h.state), h.readback ? "; readback " + h.readback + " " + plainText(h.rb || "") : "; no readback",
        tierSummary(checkOf.get(h.rb)),
        h.by ? "; closed by " + h.by + " " + plainText(h.closer || "") : "", h.next ? "; re-issued as " + plainText(h.next) : "",
        h.by === "CX" ? " (cancelled)" : "", h.undoes ? "; undoes " + plainText(h.undoes) : "",
        h.exp ? "; exp=" + h.exp : "", h.due ? "; due=" + h.due : "", OPEN[h.state] ? " \u25b2 still open" : ""));
      if (h.readback === "passed" && idIndex.has(h.rb)) {
        var moved = idIndex.get(h.rb);
        spans.push([owner, start, moved]);
        owner = h.to; start = moved;
      }
    });
    spans.push([owner, start, messages.length]);
    var total = Math.max(1, messages.length - spans[0][1]);
    card.appendChild(el("div", { "class": "bar", role: "img", "aria-label": "owners in turn: " + spans.map(function (s) { return plainText(s[0]); }).join(", ") },
      spans.map(function (s, k) {
        var span = el("span", { title: plainText(s[0]) + " from line " + (messages[s[1]] ? messages[s[1]][0] : "?") }, visible(s[0]));
        span.style.flex = String(Math.max(1, s[2] - s[1]) / total);
        span.style.background = k % 2 ? "#e4ecfb" : "#eef6e8";
        return span;
      })));
    card.appendChild(el("ol", { "class": "events" }, events));
    return card;
  }
  // a readback's tiers in a few characters: "(tiers 1 passed, 3 failed)" with the ones not asked left out
  function tierSummary(check) {
    if (!check || !check.tiers) return null;
    var asked = Object.keys(check.tiers).filter(function (t) { return check.tiers[t] !== "not asked"; });
    return " (tiers " + asked.map(function (t) { return t + " " + (SYMBOL[check.tiers[t]] || "\u2013") + " " + check.tiers[t]; }).join(", ") + ")";
  }
  function drawOwnership(page) {
    var shown = onlyOpen.checked ? items.filter(itemOpen) : items;
    page = Math.max(0, Math.min(page, Math.ceil(shown.length / CARDS) - 1));
    clear(ownList);
    ownList.appendChild(el("p", null, shown.length + " items"));
    shown.slice(page * CARDS, page * CARDS + CARDS).forEach(function (it) { ownList.appendChild(itemCard(it)); });
    if (shown.length > CARDS) ownList.appendChild(pager(shown.length, CARDS, page, drawOwnership, "items"));
  }
  onlyOpen.addEventListener("change", function () { drawOwnership(0); });

  // ---- readbacks, each with its tiers ----
  var rbSection = el("section", { id: "readbacks", "aria-labelledby": "readbacks-h" }, el("h2", { id: "readbacks-h" }, "Readbacks and done reports"));
  var onlyVoid = el("input", { type: "checkbox", id: "only-void" });
  rbSection.appendChild(el("div", { "class": "filters" }, el("label", { "for": "only-void", "class": "check" }, "only void readbacks and failed done reports", onlyVoid)));
  var rbList = el("div");
  rbSection.appendChild(rbList);
  main.appendChild(rbSection);
  function drawReadbacks(page) {
    var shown = onlyVoid.checked ? readbacks.filter(function (r) { return !r.passed; }) : readbacks;
    page = Math.max(0, Math.min(page, Math.ceil(shown.length / CARDS) - 1));
    clear(rbList);
    rbList.appendChild(el("p", null, shown.length + " checked"));
    shown.slice(page * CARDS, page * CARDS + CARDS).forEach(function (r) { rbList.appendChild(checkView(r, false)); });
    if (shown.length > CARDS) rbList.appendChild(pager(shown.length, CARDS, page, drawReadbacks, "readbacks"));
  }
  onlyVoid.addEventListener("change", function () { drawReadbacks(0); });

  // ---- 4. the findings table, filterable ----
  function options(values) {
    return [el("option", { value: "" }, "all")].concat(values.map(function (v) { return el("option", { value: v }, plainText(v)); }));
  }
  function distinct(pick) {
    var seen = new Set();
    findings.forEach(function (f) { [].concat(pick(f)).forEach(function (v) { if (v) seen.add(v); }); });
    return Array.from(seen).sort();
  }
  var fSeverity = el("select", { id: "f-severity" }, options(distinct(function (f) { return f.severity; })));
  var fKind = el("select", { id: "f-kind" }, options(distinct(function (f) { return f.kind; })));
  var fAgent = el("select", { id: "f-agent" }, options(distinct(function (f) { return f.agents; })));
  var fItem = el("input", { id: "f-item", type: "search", placeholder: "part of an item" });
  var fCount = el("p", { id: "findings-count", "aria-live": "polite" });
  var fBody = el("tbody");
  var fPager = el("div");
  var fSection = el("section", { id: "findings", "aria-labelledby": "findings-h" }, el("h2", { id: "findings-h" }, "Findings"),
    el("div", { "class": "filters", role: "search", "aria-label": "filter the findings" },
      el("label", { "for": "f-severity" }, "severity", fSeverity), el("label", { "for": "f-kind" }, "kind", fKind),
      el("label", { "for": "f-agent" }, "agent", fAgent), el("label", { "for": "f-item" }, "item", fItem)),
    fCount,
    el("table", null, el("caption", { "class": "visually-hidden" }, "every finding of check-thread and lint"),
      el("thead", null, el("tr", null, ["severity", "source", "kind", "agents", "item", "message", "place"].map(function (h) {
        return el("th", { scope: "col" }, h);
      }))), fBody),
    fPager);
  main.appendChild(fSection);
  function drawFindings(page) {
    var sev = fSeverity.value, kind = fKind.value, agent = fAgent.value, item = fItem.value;
    var shown = findings.filter(function (f) {
      return (!sev || f.severity === sev) && (!kind || f.kind === kind) && (!agent || f.agents.indexOf(agent) >= 0) &&
             (!item || f.item.indexOf(item) >= 0);
    });
    page = Math.max(0, Math.min(page, Math.ceil(shown.length / PAGE) - 1));
    clear(fBody);
    shown.slice(page * PAGE, page * PAGE + PAGE).forEach(function (f) {
      fBody.appendChild(el("tr", { "data-severity": f.severity },
        el("td", { "class": "sev-" + f.severity }, f.severity === "fail" ? "\u2717 fail" : "\u25cb " + f.severity),
        el("td", null, f.src), el("td", null, visible(f.kind)),
        el("td", null, visible(f.agents.join(" \u2192 "))), el("td", null, visible(f.item)), el("td", null, visible(f.message)),
        el("td", null, gotoButton(f.place, f.place >= 0 ? "line " + messages[f.place][0] : ""))));
    });
    fCount.textContent = "showing " + Math.min(PAGE, shown.length) + " of " + shown.length + " findings (" + findings.length + " in all)";
    clear(fPager);
    if (shown.length > PAGE) fPager.appendChild(pager(shown.length, PAGE, page, drawFindings, "findings"));
  }
  [fSeverity, fKind, fAgent].forEach(function (s) { s.addEventListener("change", function () { drawFindings(0); }); });
  fItem.addEventListener("input", function () { drawFindings(0); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "/" && document.activeElement && ["INPUT", "SELECT"].indexOf(document.activeElement.tagName) < 0) {
      e.preventDefault(); fItem.focus();
    }
  });

  draw(true);
  drawOwnership(0);
  drawReadbacks(0);
  drawFindings(0);
  document.body.setAttribute("data-ready", "1");
})();
