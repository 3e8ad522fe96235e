// app.js: the page of `sieve-search serve` (docs/service.md, "The page").
// Plain ES2020, no framework, no build step. It reads the JSON API and
// builds every element with createElement; every string from the crawl
// (titles, URLs, docids, snippets, document text) goes in with textContent
// inside a <bdi> or dir="auto" element, never as markup. A document URL is
// a link only when its scheme is http or https.
//
// State lives in location.hash (URLSearchParams syntax), so every view is
// a link and back/forward work:
//   index=NAME  query=TEXT  hits=N  view=compare  doc=DOCID
//   a.KEY=V / b.KEY=V  settings A and B, KEY one of: model (bm25|qld|sdm),
//     k1, b, mu, spam (min spam percentile 0-100), unscored (drop),
//     max456 (max invalid 4/5/6 per KB), dups (1), stats (filtered).
//   A setting absent from the hash has its defaults (B: spam >= 70).
//
// Stable ids and classes (tests/browser/serve.mjs uses them):
//   #search-form, #index (select), #index-info, #query, #hits, #search-go
//   #view-list, #view-compare  the two views (aria-pressed="true" when on)
//   #message                   API and network errors (hidden when none)
//   #status                    counts and took_ms of the last search
//   #settings                  the settings <details>; inside, one
//     .setting-panel.setting-a (and .setting-b in the compare view) whose
//     controls have ids P+NAME, P = "" for A and "b-" for B, NAME one of:
//     preset, model, bm25-k1, bm25-b, qld-mu, filter-spam-on (checkbox),
//     filter-spam (range 0-100), filter-unscored (keep|drop),
//     filter-456-on (checkbox), filter-456 (number), filter-dups
//     (checkbox), stats (full|filtered)
//   #results                   the results; .result (li, data-docid) each
//     .rank .title .url .docid .score .snippet (mark = query terms)
//     .spam (badge: .band-0 .. .band-3 by percentile, .unscored when null)
//     .charset .errors (seven .err, .nonzero when > 0)
//   compare view: #results .column-a / .column-b, #compare-summary;
//     .result.leaves (in A's top 10, not in B's), .result.enters (in B's
//     top 10, not in A's), .flag.leaves / .flag.enters their labels
//   #doc-view (hidden when closed), #doc-close, #doc-raw, #doc-body:
//     .doc-fields (dl), .doc-title, .doc-text (p per paragraph, mark)
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);

  // The seven UTF-8 error classes: key (as the API names it), short label,
  // long label (the command line's).
  const ERRORS = [
    ["unexpected_continuation", "cont", "Unexpected continuation bytes"],
    ["missing_continuation", "miss", "Not enough continuation bytes"],
    ["surrogate", "surr", "Invalid surrogate halves"],
    ["invalid_4_5_6", "456", "Invalid 4/5/6-byte sequences"],
    ["overlong_nul", "nul", "Over-long NUL"],
    ["overlong_ascii", "ovA", "Over-long ASCII"],
    ["overlong_non_ascii", "ovN", "Non-ASCII over-long"],
  ];
  const TOP = 10; // leaves/enters compare the top 10s, as `compare --html`
  const MAX_SHOWN = 300; // characters of a title or URL in a result
  const MAX_TEXT = 200000; // characters of a document's text shown
  const SETTING_KEYS = ["model", "k1", "b", "mu", "spam", "unscored", "max456", "dups", "stats"];
  const PRESETS = [
    ["", "Preset…", null],
    ["plain", "BM25, unfiltered", {}],
    ["spam70", "spam ≥ 70", { spam: "70" }],
    ["spam70f", "spam ≥ 70, filtered statistics", { spam: "70", stats: "filtered" }],
    ["spam70d", "spam ≥ 70, unscored dropped", { spam: "70", unscored: "drop" }],
    ["bm25b", "BM25 k1 1.2 b 0.75", { k1: "1.2", b: "0.75" }],
    ["qld", "QLD μ 1000", { model: "qld" }],
    ["sdm", "SDM", { model: "sdm" }],
  ];

  // ---- small helpers ----------------------------------------------------

  /** An element: attrs (class, text, or attributes), then children. */
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = String(v);
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) {
      if (c === null || c === undefined || c === false) continue;
      e.append(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }

  /** A string from the crawl, isolated for bidi, cut to `max` characters. */
  function crawl(s, cls, max) {
    let t = typeof s === "string" ? s : s == null ? "" : String(s);
    if (max && t.length > max) t = Array.from(t).slice(0, max).join("") + "…";
    return el("bdi", { class: cls || null, text: t });
  }

  /** `url` when it parses as an absolute http(s) URL, else null. */
  function safeHref(url) {
    if (typeof url !== "string" || url === "") return null;
    try {
      const u = new URL(url);
      if (u.protocol === "http:" || u.protocol === "https:") return u.href;
    } catch (_) {
      /* not absolute, or not a URL */
    }
    return null;
  }

  /** The URL shown: a link when http(s), else text (class .url either way). */
  function urlElement(url) {
    if (typeof url !== "string" || url === "") return el("span", { class: "url none", text: "no URL" });
    const href = safeHref(url);
    const text = crawl(url, null, MAX_SHOWN);
    if (href === null) return el("span", { class: "url", title: "not an http(s) URL: shown as text" }, text);
    return el("a", { class: "url", href, rel: "noopener noreferrer nofollow", target: "_blank" }, text);
  }

  /** Marked pieces ({text, mark}) as text nodes and <mark> elements, in `into`. */
  function pieces(list, into) {
    for (const p of Array.isArray(list) ? list : []) {
      const t = p && typeof p.text === "string" ? p.text : "";
      into.append(p && p.mark ? el("mark", { text: t }) : document.createTextNode(t));
    }
    return into;
  }

  const nf = new Intl.NumberFormat("en");
  const num = (n) => (typeof n === "number" && isFinite(n) ? nf.format(n) : "?");
  function ms(x) {
    if (typeof x !== "number" || !isFinite(x)) return "";
    return x < 10 ? x.toFixed(2) + " ms" : x < 100 ? x.toFixed(1) + " ms" : Math.round(x) + " ms";
  }
  function bytes(n) {
    if (typeof n !== "number" || !isFinite(n)) return "";
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(1) + " KB";
    return (n / 1024 / 1024).toFixed(1) + " MB";
  }
  const scoreText = (s) => (typeof s === "number" && isFinite(s) ? s.toFixed(4) : "?");

  // ---- state in the hash ------------------------------------------------

  const DEFAULT_A = {};
  const DEFAULT_B = { spam: "70" };

  function readState() {
    const h = new URLSearchParams(location.hash.replace(/^#/, ""));
    const setting = (p, dflt) => {
      const s = {};
      let any = false;
      for (const k of SETTING_KEYS) {
        const v = h.get(p + "." + k);
        if (v !== null) {
          s[k] = v;
          any = true;
        }
      }
      return any || h.get(p + ".set") !== null ? s : Object.assign({}, dflt);
    };
    return {
      index: h.get("index") || "",
      query: h.get("query") || "",
      hits: h.get("hits") || "10",
      view: h.get("view") === "compare" ? "compare" : "list",
      doc: h.get("doc"),
      a: setting("a", DEFAULT_A),
      b: setting("b", DEFAULT_B),
    };
  }

  function hashOf(st) {
    const h = new URLSearchParams();
    if (st.index) h.set("index", st.index);
    if (st.query) h.set("query", st.query);
    if (st.hits && st.hits !== "10") h.set("hits", st.hits);
    if (st.view === "compare") h.set("view", "compare");
    for (const p of ["a", "b"]) {
      const s = st[p];
      const dflt = p === "a" ? DEFAULT_A : DEFAULT_B;
      if (sameSetting(s, dflt)) continue;
      let any = false;
      for (const k of SETTING_KEYS) {
        if (s[k] !== undefined && s[k] !== null && s[k] !== "") {
          h.set(p + "." + k, s[k]);
          any = true;
        }
      }
      // An explicit empty setting (all defaults) where the default is not.
      if (!any && p === "b") h.set("b.set", "");
    }
    if (st.doc !== null && st.doc !== undefined) h.set("doc", st.doc);
    return "#" + h.toString();
  }

  function sameSetting(x, y) {
    return SETTING_KEYS.every((k) => (x[k] || "") === (y[k] || ""));
  }

  /** Goes to `st`: a new history entry, or the current one replaced. */
  function go(st, replace) {
    const hash = hashOf(st);
    if (hash === location.hash) return render();
    if (replace) {
      history.replaceState(null, "", hash);
      render();
    } else {
      location.hash = hash; // fires hashchange, which renders
    }
  }

  /** The search parameters of setting `s`. */
  function settingParams(s, p) {
    const model = s.model || "bm25";
    if (model !== "bm25") p.set("model", model);
    if (model === "qld") {
      if (s.mu) p.set("mu", s.mu);
    } else {
      if (s.k1) p.set("k1", s.k1);
      if (s.b) p.set("b", s.b);
    }
    let filtered = false;
    if (s.spam) {
      p.set("min_spam_percentile", s.spam);
      if (s.unscored === "drop") p.set("unscored", "drop");
      filtered = true;
    }
    if (s.max456) {
      p.set("max_invalid_456_per_kb", s.max456);
      filtered = true;
    }
    if (s.dups === "1") {
      p.set("drop_near_duplicates", "true");
      filtered = true;
    }
    if (filtered && s.stats === "filtered") p.set("collection_stats", "filtered");
    return p;
  }

  /** A short description of setting `s`. */
  function describe(s) {
    const model = s.model || "bm25";
    const parts = [];
    if (model === "qld") parts.push("QLD μ " + (s.mu || "1000"));
    else parts.push((model === "sdm" ? "SDM" : "BM25") + " k1 " + (s.k1 || "0.9") + " b " + (s.b || "0.4"));
    const f = [];
    if (s.spam) f.push("spam ≥ " + s.spam + (s.unscored === "drop" ? " (unscored dropped)" : ""));
    if (s.max456) f.push("≤ " + s.max456 + " invalid 4/5/6 per KB");
    if (s.dups === "1") f.push("no near-duplicates");
    if (f.length) {
      parts.push(f.join(", "));
      if (s.stats === "filtered") parts.push("filtered statistics");
    } else {
      parts.push("unfiltered");
    }
    return parts.join(" · ");
  }

  // ---- the API ----------------------------------------------------------

  class ApiError extends Error {
    constructor(status, message, parameter) {
      super(message);
      this.status = status;
      this.parameter = parameter || null;
    }
  }

  const cache = new Map(); // URL -> answer (searches and documents are deterministic)
  async function api(path, params, signal) {
    const qs = params ? params.toString() : "";
    const url = path + (qs ? "?" + qs : "");
    if (cache.has(url)) return cache.get(url);
    let resp;
    try {
      resp = await fetch(url, { signal, headers: { Accept: "application/json" } });
    } catch (e) {
      if (e && e.name === "AbortError") throw e;
      throw new ApiError(0, "could not reach the server (" + (e && e.message ? e.message : "network error") + ")");
    }
    let body = null;
    try {
      body = await resp.json();
    } catch (e) {
      if (e && e.name === "AbortError") throw e;
    }
    if (!resp.ok) {
      const err = body && typeof body === "object" ? body : {};
      throw new ApiError(
        typeof err.status === "number" ? err.status : resp.status,
        typeof err.error === "string" ? err.error : resp.statusText || "request failed",
        typeof err.parameter === "string" ? err.parameter : null,
      );
    }
    if (body === null || typeof body !== "object") throw new ApiError(resp.status, "the answer is not a JSON object");
    if (cache.size >= 48) cache.delete(cache.keys().next().value);
    cache.set(url, body);
    return body;
  }
  const enc = encodeURIComponent;

  // ---- messages ---------------------------------------------------------

  // The search parameter each control sets (to mark the one at fault).
  const PARAM_CONTROL = {
    hits: "hits",
    query: "query",
    model: "model",
    k1: "bm25-k1",
    b: "bm25-b",
    mu: "qld-mu",
    min_spam_percentile: "filter-spam",
    unscored: "filter-unscored",
    max_invalid_456_per_kb: "filter-456",
    drop_near_duplicates: "filter-dups",
    collection_stats: "stats",
  };

  function clearMessage() {
    const m = $("message");
    m.hidden = true;
    m.replaceChildren();
    for (const e of document.querySelectorAll("[aria-invalid]")) e.removeAttribute("aria-invalid");
  }

  function showError(err, where) {
    if (err && err.name === "AbortError") return;
    const m = $("message");
    const status = err instanceof ApiError ? err.status : 0;
    const head = (where ? where + ": " : "") + (status ? "error " + status : "error");
    const line = el("p", null, el("strong", { text: head }));
    if (err instanceof ApiError && err.parameter) {
      line.append(" (parameter ", el("code", { text: err.parameter }), ")");
      const id = PARAM_CONTROL[err.parameter];
      const prefix = where && where.startsWith("B") ? "b-" : "";
      const c = id && ($(prefix + id) || $(id));
      if (c) c.setAttribute("aria-invalid", "true");
    }
    line.append(": ", el("span", { class: "message-text", dir: "auto", text: err && err.message ? err.message : String(err) }));
    const close = el("button", { type: "button", class: "message-close", "aria-label": "Dismiss", text: "×" });
    close.addEventListener("click", clearMessage);
    m.append(el("div", { class: "message-item" }, line, close));
    m.hidden = false;
  }

  // ---- indexes ----------------------------------------------------------

  let indexes = []; // INFO objects

  function infoOf(name) {
    return indexes.find((i) => i && i.name === name) || null;
  }

  function renderIndexInfo(info) {
    const p = $("index-info");
    p.replaceChildren();
    if (!info) return;
    const chip = (text, cls, title) => el("span", { class: "chip" + (cls ? " " + cls : ""), title: title || null, text });
    p.append(chip(num(info.documents) + " documents", "strong"));
    if (Array.isArray(info.shards)) {
      const seg = info.shards.reduce((n, s) => n + (s && typeof s.segments === "number" ? s.segments : 0), 0);
      const plural = (k, w) => k + " " + w + (k === 1 ? "" : "s");
      p.append(chip(plural(info.shards.length, "shard") + ", " + plural(seg, "segment")));
    }
    const yes = (v, on, off, title) => {
      const text = v ? on : off;
      if (typeof v === "boolean" && text) p.append(chip(text, v ? "on" : "off", title));
    };
    yes(info.spam_scores, "spam percentiles", "no spam percentiles", "spam percentile per document (0 spammiest, 99 cleanest)");
    yes(info.near_duplicates, "near-duplicate signatures", "no near-duplicate signatures", "built with --minhash: drop near-duplicates works");
    yes(info.positions, "positions", "no positions", "term positions (SDM's phrases)");
    yes(info.docvectors, "document vectors", "no document vectors", "feedback models read them");
    yes(info.build_filter, "built with a filter", null);
    const scalar = (v) => (v === null || v === undefined ? null : typeof v === "object" ? JSON.stringify(v) : String(v));
    if (info.analyzer && typeof info.analyzer === "object") {
      p.append(chip("stemmer " + scalar(info.analyzer.stemmer) + ", stopwords " + scalar(info.analyzer.stopwords)));
    }
    if (scalar(info.charset)) p.append(chip("charset " + scalar(info.charset)));
    if (scalar(info.text)) p.append(chip("text " + scalar(info.text)));
    const body = info.statistics && info.statistics.body;
    if (body && typeof body.average_length === "number") {
      p.append(chip(body.average_length.toFixed(1) + " tokens per document", null, num(body.tokens) + " body tokens"));
    }
    if (info.schema_version !== undefined) p.append(chip("schema " + scalar(info.schema_version)));
  }

  async function loadIndexes() {
    try {
      const ans = await api("/v1/indexes");
      indexes = Array.isArray(ans.indexes) ? ans.indexes : [];
    } catch (e) {
      showError(e, "indexes");
      indexes = [];
    }
    const sel = $("index");
    sel.replaceChildren();
    for (const i of indexes) {
      if (!i || typeof i.name !== "string") continue;
      sel.append(el("option", { value: i.name, text: i.name + " (" + num(i.documents) + ")" }));
    }
    if (!indexes.length) sel.append(el("option", { value: "", text: "no index" }));
  }

  // ---- settings controls ------------------------------------------------

  /** The controls of setting `p` ("a" or "b"). */
  function settingPanel(p) {
    const P = p === "a" ? "" : "b-";
    const id = (n) => P + n;
    const field = (label, control, cls) =>
      el("div", { class: "field" + (cls ? " " + cls : "") }, el("label", { for: control.id, text: label }), control);
    const select = (n, opts) => el("select", { id: id(n), name: n }, ...opts.map(([v, t]) => el("option", { value: v, text: t })));
    const number = (n, attrs) => el("input", Object.assign({ id: id(n), name: n, type: "number", inputmode: "decimal" }, attrs));
    const check = (n, label, title) =>
      el("label", { class: "check", title: title || null }, el("input", { id: id(n), name: n, type: "checkbox" }), " " + label);

    const panel = el(
      "fieldset",
      { class: "setting-panel setting-" + p, "data-setting": p },
      el("legend", null, el("span", { class: "tag tag-" + p, text: p.toUpperCase() }), " ", el("span", { class: "setting-desc" })),
      field("Preset", select("preset", PRESETS.map(([v, t]) => [v, t]))),
      el(
        "div",
        { class: "row" },
        field("Model", select("model", [["bm25", "BM25"], ["qld", "QLD"], ["sdm", "SDM"]])),
        field("k1", number("bm25-k1", { min: 0, max: 1000, step: 0.1, placeholder: "0.9" }), "for-bm25"),
        field("b", number("bm25-b", { min: 0, max: 1, step: 0.05, placeholder: "0.4" }), "for-bm25"),
        field("μ", number("qld-mu", { min: 1, step: 100, placeholder: "1000" }), "for-qld"),
      ),
      el(
        "div",
        { class: "group" },
        el(
          "div",
          { class: "spam-line" },
          check("filter-spam-on", "Spam percentile ≥", "keep documents whose spam percentile is at least this (0 spammiest, 99 cleanest)"),
          el("output", { id: id("filter-spam-value"), for: id("filter-spam"), class: "spam-value", text: "off" }),
        ),
        el("input", {
          id: id("filter-spam"),
          name: "filter-spam",
          type: "range",
          min: 0,
          max: 100,
          step: 1,
          value: 70,
          "aria-label": "Minimum spam percentile",
          list: id("spam-ticks"),
        }),
        el("datalist", { id: id("spam-ticks") }, ...[0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((v) => el("option", { value: v }))),
        field("Unscored documents", select("filter-unscored", [["keep", "keep"], ["drop", "drop"]]), "inline"),
      ),
      el(
        "div",
        { class: "group" },
        el(
          "div",
          { class: "row num-line" },
          check("filter-456-on", "Max invalid 4/5/6 per KB", "drop documents with more invalid 4/5/6-byte sequences per KB"),
          number("filter-456", { min: 0, step: 0.5, value: 0.5, "aria-label": "Max invalid 4/5/6-byte sequences per KB" }),
        ),
        check("filter-dups", "Drop near-duplicates", "needs an index built with --minhash"),
        field("Statistics", select("stats", [["full", "full collection"], ["filtered", "filtered documents"]]), "inline"),
      ),
    );

    const get = (n) => panel.querySelector("#" + id(n)); // not in the document yet
    const current = () => {
      const st = readState();
      return { st, s: Object.assign({}, st[p]) };
    };
    const commit = (s, replace) => {
      const st = readState();
      st[p] = s;
      go(st, replace);
    };
    const setOrDrop = (s, k, v, dflt) => {
      if (v === "" || v === null || v === dflt) delete s[k];
      else s[k] = v;
    };
    get("preset").addEventListener("change", (e) => {
      const found = PRESETS.find(([v]) => v === e.target.value);
      if (found && found[2]) commit(Object.assign({}, found[2]));
    });
    get("model").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "model", e.target.value, "bm25");
      commit(s);
    });
    for (const [n, k] of [["bm25-k1", "k1"], ["bm25-b", "b"], ["qld-mu", "mu"], ["filter-456", "max456"]]) {
      get(n).addEventListener("change", (e) => {
        const { s } = current();
        if (k === "max456" && !get("filter-456-on").checked) return;
        setOrDrop(s, k, e.target.value.trim(), null);
        commit(s);
      });
    }
    const spam = get("filter-spam");
    spam.addEventListener("input", () => {
      get("filter-spam-value").textContent = get("filter-spam-on").checked ? "≥ " + spam.value : "off";
    });
    spam.addEventListener("change", () => {
      const { s } = current();
      get("filter-spam-on").checked = true;
      s.spam = spam.value;
      commit(s);
    });
    get("filter-spam-on").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "spam", e.target.checked ? spam.value : "", null);
      commit(s);
    });
    get("filter-unscored").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "unscored", e.target.value, "keep");
      commit(s);
    });
    get("filter-456-on").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "max456", e.target.checked ? get("filter-456").value.trim() || "0.5" : "", null);
      commit(s);
    });
    get("filter-dups").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "dups", e.target.checked ? "1" : "", null);
      commit(s);
    });
    get("stats").addEventListener("change", (e) => {
      const { s } = current();
      setOrDrop(s, "stats", e.target.value, "full");
      commit(s);
    });
    return panel;
  }

  /** Sets the controls of setting `p` to `s` (and the index's abilities). */
  function syncPanel(p, s, info) {
    const P = p === "a" ? "" : "b-";
    const get = (n) => $(P + n);
    const panel = document.querySelector(".setting-" + p);
    if (!panel) return;
    const model = s.model || "bm25";
    panel.classList.toggle("model-qld", model === "qld");
    get("preset").value = "";
    get("model").value = model;
    get("bm25-k1").value = s.k1 || "";
    get("bm25-b").value = s.b || "";
    get("qld-mu").value = s.mu || "";
    const spamOn = !!s.spam;
    get("filter-spam-on").checked = spamOn;
    if (spamOn) get("filter-spam").value = s.spam;
    get("filter-spam").classList.toggle("off", !spamOn);
    get("filter-spam-value").textContent = spamOn ? "≥ " + s.spam : "off";
    get("filter-unscored").value = s.unscored === "drop" ? "drop" : "keep";
    get("filter-unscored").disabled = !spamOn;
    get("filter-456-on").checked = !!s.max456;
    if (s.max456) get("filter-456").value = s.max456;
    get("filter-dups").checked = s.dups === "1";
    const dupsAvail = !info || info.near_duplicates !== false;
    get("filter-dups").disabled = !dupsAvail && s.dups !== "1";
    get("filter-dups").parentElement.classList.toggle("unavailable", !dupsAvail);
    const filtered = spamOn || !!s.max456 || s.dups === "1";
    get("stats").value = s.stats === "filtered" ? "filtered" : "full";
    get("stats").disabled = !filtered;
    panel.querySelector(".setting-desc").textContent = describe(s);
  }

  // ---- results ----------------------------------------------------------

  function spamBadge(spam) {
    if (typeof spam !== "number") {
      return el("span", { class: "spam unscored", title: "no spam percentile for this document", text: "unscored" });
    }
    const band = spam < 10 ? 0 : spam < 40 ? 1 : spam < 70 ? 2 : 3;
    return el("span", {
      class: "spam band-" + band,
      title: "spam percentile " + spam + " (0 spammiest, 99 cleanest; below 70 is the usual spam cut)",
      text: "spam " + spam,
    });
  }

  function errorsElement(errors) {
    const box = el("span", { class: "errors", title: "UTF-8 errors by class" });
    let total = 0;
    for (const [key, short, long] of ERRORS) {
      const n = errors && typeof errors[key] === "number" ? errors[key] : 0;
      total += n;
      box.append(el("span", { class: "err" + (n > 0 ? " nonzero" : ""), title: long + ": " + n, "data-class": key }, short + " ", el("span", { class: "n", text: String(n) })));
    }
    box.classList.toggle("clean", total === 0);
    return box;
  }

  /** The link that opens document `docid` over the current view. */
  function docHref(docid) {
    const st = readState();
    st.doc = docid;
    return hashOf(st);
  }

  function resultItem(c, opts) {
    const doc = c && c.doc && typeof c.doc === "object" ? c.doc : {};
    const docid = c && typeof c.docid === "string" ? c.docid : String(c && c.docid);
    const li = el("li", { class: "result", "data-docid": docid });
    const hasTitle = typeof doc.title === "string" && doc.title.trim() !== "";
    const title = el(
      "a",
      { class: "title" + (hasTitle ? "" : " untitled"), href: docHref(docid) },
      crawl(hasTitle ? doc.title : docid, null, MAX_SHOWN),
    );
    title.addEventListener("click", () => {
      openedFromPage = true;
    });
    const head = el("div", { class: "r-head" }, el("span", { class: "rank", text: String(c.rank ?? "") }), title);
    if (opts.flag) head.append(el("span", { class: "flag " + opts.flag, title: opts.flagTitle, text: opts.flag }));
    if (opts.other) head.append(el("span", { class: "moved", title: opts.other[1], text: opts.other[0] }));
    li.append(head);
    if (typeof doc.url === "string" && doc.url !== "") li.append(el("div", { class: "r-url" }, urlElement(doc.url)));
    if (opts.snippet && Array.isArray(c.snippet) && c.snippet.length) {
      li.append(pieces(c.snippet, el("p", { class: "snippet", dir: "auto" })));
    }
    const meta = el(
      "div",
      { class: "r-meta" },
      spamBadge(doc.spam),
      el("span", { class: "docid", title: "docid" }, crawl(docid, null, MAX_SHOWN)),
      el("span", { class: "score", title: "score" }, scoreText(c.score)),
    );
    if (typeof doc.charset === "string") {
      meta.append(
        el("span", { class: "charset", title: "charset (how it was decided)" }, crawl(doc.charset), el("span", { class: "charset-source" }, " (", crawl(doc.charset_source), ")")),
      );
    }
    if (typeof doc.bytes === "number") meta.append(el("span", { class: "bytes", text: bytes(doc.bytes) }));
    meta.append(errorsElement(doc.errors));
    li.append(meta);
    return li;
  }

  function candidates(ans) {
    return ans && Array.isArray(ans.candidates) ? ans.candidates.filter((c) => c && typeof c === "object") : [];
  }

  function countsLine(ans) {
    const n = candidates(ans).length;
    const parts = [n + (n === 1 ? " result" : " results")];
    if (typeof ans.kept_documents === "number" && typeof ans.documents === "number" && ans.kept_documents !== ans.documents) {
      parts.push(num(ans.kept_documents) + " of " + num(ans.documents) + " documents kept");
    } else if (typeof ans.documents === "number") {
      parts.push(num(ans.documents) + " documents");
    }
    if (typeof ans.took_ms === "number") parts.push(ms(ans.took_ms));
    return parts.join(" · ");
  }

  function termsLine(ans) {
    const terms = ans && ans.query && Array.isArray(ans.query.terms) ? ans.query.terms : [];
    const p = el("p", { class: "terms" }, "Terms: ");
    if (!terms.length) p.append(el("span", { class: "none", text: "none (every word was a stopword or dropped)" }));
    for (const t of terms) p.append(el("code", { class: "term", dir: "auto", text: String(t) }), " ");
    return p;
  }

  function renderList(ans) {
    const res = $("results");
    const list = el("ol", { class: "result-list" });
    for (const c of candidates(ans)) list.append(resultItem(c, { snippet: true }));
    const head = el("div", { class: "results-head" }, el("p", { class: "counts", text: countsLine(ans) }), termsLine(ans));
    res.replaceChildren(head, candidates(ans).length ? list : el("p", { class: "empty", text: "No document matches." }));
    $("status").textContent = typeof ans.took_ms === "number" ? "took " + ms(ans.took_ms) : "";
  }

  function renderCompare(st, ansA, ansB) {
    const res = $("results");
    const ca = candidates(ansA);
    const cb = candidates(ansB);
    const topA = ca.slice(0, TOP).map((c) => c.docid);
    const topB = cb.slice(0, TOP).map((c) => c.docid);
    const setA = new Set(topA);
    const setB = new Set(topB);
    const rankA = new Map(ca.map((c, i) => [c.docid, i + 1]));
    const rankB = new Map(cb.map((c, i) => [c.docid, i + 1]));
    const leave = topA.filter((d) => !setB.has(d)).length;
    const enter = topB.filter((d) => !setA.has(d)).length;
    const overlap = topA.filter((d) => setB.has(d)).length;
    const column = (p, ans, cands, mine, other, otherRank, flag, flagTitle) => {
      const col = el("section", { class: "column column-" + p, "aria-label": "Setting " + p.toUpperCase() });
      col.append(
        el(
          "div",
          { class: "column-head" },
          el("h2", null, el("span", { class: "tag tag-" + p, text: p.toUpperCase() }), " ", describe(st[p])),
          el("p", { class: "counts", text: ans ? countsLine(ans) : "no answer" }),
        ),
      );
      const list = el("ol", { class: "result-list compact" });
      cands.forEach((c, i) => {
        const inTop = i < TOP;
        const marked = inTop && !other.has(c.docid);
        const r = otherRank.get(c.docid);
        const o = p === "a" ? "B" : "A";
        const li = resultItem(c, {
          snippet: true,
          flag: marked ? flag : null,
          flagTitle,
          other: r ? [o + " #" + r, "rank " + r + " in " + o] : [o + " –", "not in " + o + "'s " + cands.length],
        });
        if (marked) li.classList.add(flag);
        list.append(li);
      });
      col.append(cands.length ? list : el("p", { class: "empty", text: ans ? "No document matches." : "" }));
      return col;
    };
    const summary = el(
      "p",
      { id: "compare-summary", class: "compare-summary" },
      el("span", { class: "flag leaves", text: leave + " leave" }),
      " the top 10 (in A's, not in B's) · ",
      el("span", { class: "flag enters", text: enter + " enter" }),
      " the top 10 (in B's, not in A's) · ",
      el("strong", { text: overlap + " overlap" }),
      " (in both top 10s)",
    );
    const cols = el(
      "div",
      { class: "columns" },
      column("a", ansA, ca, setA, setB, rankB, "leaves", "Left the top 10 (in A's, not in B's)"),
      column("b", ansB, cb, setB, setA, rankA, "enters", "Entered the top 10 (in B's, not in A's)"),
    );
    res.replaceChildren(el("div", { class: "results-head" }, summary, ansA ? termsLine(ansA) : null), cols);
    const t = [ansA, ansB].filter((x) => x && typeof x.took_ms === "number").map((x) => ms(x.took_ms));
    $("status").textContent = t.length ? "took " + t.join(" + ") : "";
  }

  function searchParams(st, s, snippets) {
    const p = new URLSearchParams();
    p.set("query", st.query);
    p.set("hits", st.hits);
    if (snippets) p.set("snippets", "true");
    return settingParams(s, p);
  }

  // ---- the document view ------------------------------------------------

  let openedFromPage = false;
  let docKey = null;

  function closeDoc() {
    if (openedFromPage && history.length > 1) {
      openedFromPage = false;
      history.back();
      return;
    }
    const st = readState();
    st.doc = null;
    go(st);
  }

  function fieldsList(rows) {
    const dl = el("dl", { class: "doc-fields" });
    for (const [k, v] of rows) {
      if (v === null || v === undefined || v === "") continue;
      dl.append(el("dt", { text: k }), el("dd", null, v));
    }
    return dl;
  }

  function errorsTable(pairs) {
    // `utf8_errors` is [[key, n], ...]; `errors` is {key: n}.
    const counts = {};
    if (Array.isArray(pairs)) for (const x of pairs) if (Array.isArray(x) && typeof x[1] === "number") counts[x[0]] = x[1];
    if (pairs && !Array.isArray(pairs) && typeof pairs === "object") Object.assign(counts, pairs);
    const ul = el("ul", { class: "err-list" });
    for (const [key, , long] of ERRORS) {
      const n = typeof counts[key] === "number" ? counts[key] : 0;
      ul.append(el("li", { class: "err" + (n > 0 ? " nonzero" : ""), "data-class": key }, el("span", { class: "n", text: String(n) }), " " + long));
    }
    return ul;
  }

  /** Text (pieces, or plain) as paragraphs (one per line) with marks. */
  function textParagraphs(list, plain) {
    const box = el("div", { class: "doc-text" });
    const src = Array.isArray(list) ? list : [{ text: typeof plain === "string" ? plain : "", mark: false }];
    let p = el("p", { dir: "auto" });
    let shown = 0;
    let cut = false;
    const flush = () => {
      if (p.childNodes.length && p.textContent.trim() !== "") box.append(p);
      p = el("p", { dir: "auto" });
    };
    for (const piece of src) {
      if (!piece || typeof piece.text !== "string") continue;
      if (shown >= MAX_TEXT) {
        cut = true;
        break;
      }
      let t = piece.text;
      if (shown + t.length > MAX_TEXT) {
        t = t.slice(0, MAX_TEXT - shown);
        cut = true;
      }
      shown += t.length;
      const lines = t.split("\n");
      lines.forEach((line, i) => {
        if (i > 0) flush();
        if (line !== "") p.append(piece.mark ? el("mark", { text: line }) : document.createTextNode(line));
      });
    }
    flush();
    if (!box.childNodes.length) box.append(el("p", { class: "none", text: "no text" }));
    if (cut) box.append(el("p", { class: "note", text: "Text cut at " + num(MAX_TEXT) + " characters: the raw record has all of it." }));
    return box;
  }

  /** One record of the document: its title and text (query terms
   *  marked), then where it is and what was checked. */
  function shownSection(s, i, n, docid) {
    const sec = el("section", { class: "shown" });
    if (n > 1) sec.append(el("p", { class: "record-of", text: "Record " + (i + 1) + " of " + n }));
    const title = el("h3", { class: "doc-title", dir: "auto" });
    if (Array.isArray(s.title_pieces)) pieces(s.title_pieces, title);
    else title.append(typeof s.title === "string" ? s.title : "");
    if (!title.textContent.trim()) title.replaceChildren(crawl(docid, "untitled"));
    sec.append(title);
    if (s.url) sec.append(el("p", { class: "doc-url" }, urlElement(s.url)));
    sec.append(textParagraphs(s.text_pieces, s.text));
    const where = el("span", null, crawl(s.source));
    if (typeof s.offset === "number") where.append(" at byte " + num(s.offset));
    if (typeof s.record_len === "number") where.append(", " + num(s.record_len) + " bytes");
    if (typeof s.gz_member === "number") where.append(" (gzip member at " + num(s.gz_member) + ")");
    const charset = el("span", null, crawl(s.charset), " (", crawl(s.charset_source), ")");
    if (s.charset_disagree) charset.append(el("span", { class: "warn", text: " the declared charsets disagree" }));
    const tokens = typeof s.tokens === "number" ? num(s.tokens) + (typeof s.indexed_tokens === "number" ? " (" + num(s.indexed_tokens) + " indexed)" : "") : null;
    sec.append(
      el("h4", { class: "record-head", text: "The record" }),
      fieldsList([
        ["source", where],
        ["file read", s.file && s.file !== s.source ? crawl(s.file) : null],
        ["record id", s.record_id ? crawl(s.record_id) : null],
        ["language", s.language ? crawl(s.language) : null],
        ["charset", charset],
        ["spam", spamBadge(s.spam)],
        ["tokens", tokens],
        ["checked", typeof s.checked === "string" ? crawl(s.checked) : null],
        ["UTF-8 errors", errorsTable(s.utf8_errors)],
      ]),
    );
    return sec;
  }

  async function renderDoc(st) {
    const view = $("doc-view");
    if (st.doc === null || st.doc === undefined || !st.index) {
      openedFromPage = false;
      if (!view.hidden) {
        view.hidden = true;
        document.body.classList.remove("doc-open");
      }
      docKey = null;
      return;
    }
    const key = st.index + "\n" + st.doc + "\n" + st.query;
    const wasHidden = view.hidden;
    view.hidden = false;
    document.body.classList.add("doc-open");
    if (wasHidden) $("doc-close").focus();
    if (key === docKey) return;
    docKey = key;
    // By parameter, not path segment: a docid "." or ".." would be
    // resolved away as a path segment.
    const path = "/v1/" + enc(st.index) + "/doc";
    $("doc-raw").setAttribute("href", "/v1/" + enc(st.index) + "/raw?docid=" + enc(st.doc));
    const body = $("doc-body");
    body.replaceChildren(el("p", { class: "loading", text: "Loading…" }));
    const params = new URLSearchParams();
    params.set("docid", st.doc);
    if (st.query) params.set("query", st.query);
    try {
      const ans = await api(path, params);
      if (docKey !== key) return;
      const doc = ans.doc && typeof ans.doc === "object" ? ans.doc : {};
      const shown = Array.isArray(ans.shown) ? ans.shown.filter((s) => s && typeof s === "object") : [];
      const id = typeof ans.docid === "string" ? ans.docid : st.doc;
      // What the index stores (what search answers), on one line.
      const stored = el("div", { class: "doc-stored", title: "as stored in the index" }, el("span", { class: "label", text: "index" }), spamBadge(doc.spam));
      if (typeof doc.charset === "string") stored.append(el("span", { class: "charset" }, crawl(doc.charset), el("span", { class: "charset-source" }, " (", crawl(doc.charset_source), ")")));
      if (typeof doc.bytes === "number") stored.append(el("span", { class: "bytes", text: bytes(doc.bytes) }));
      stored.append(errorsElement(doc.errors));
      const head = el("div", { class: "doc-head" }, el("p", { class: "doc-docid" }, "docid ", crawl(id)), stored);
      if (typeof doc.title === "string" && doc.title && !shown.length) head.append(el("p", { class: "doc-title" }, crawl(doc.title)));
      if (typeof doc.url === "string" && doc.url && !shown.length) head.append(el("p", { class: "doc-url" }, urlElement(doc.url)));
      body.replaceChildren(head, ...shown.map((s, i) => shownSection(s, i, shown.length, id)));
      if (!shown.length) body.append(el("p", { class: "none", text: "The record could not be read again." }));
    } catch (e) {
      if (docKey !== key) return;
      body.replaceChildren(el("p", { class: "none", text: "No document." }));
      docKey = null;
      showError(e, "document");
    }
  }

  // ---- rendering the state ----------------------------------------------

  let shownKey = null; // what #results shows now
  let controller = null;

  function welcome(info) {
    const box = el("div", { class: "welcome" });
    box.append(el("h2", { text: info ? "Search " + info.name : "Search" }));
    box.append(
      el(
        "p",
        null,
        "Type a query and press Enter. Filters and models are in Settings; every change searches again. ",
        "The A / B view shows two settings side by side: documents that leave or enter the top 10 are marked.",
      ),
    );
    box.append(el("p", { class: "note", text: "Keys: / focuses the search box; Escape closes a document." }));
    return box;
  }

  async function render() {
    const st = readState();
    // The index: the hash's, else the first served.
    if (!st.index && indexes.length) {
      st.index = indexes[0].name;
      history.replaceState(null, "", hashOf(st));
    }
    const info = infoOf(st.index);
    const sel = $("index");
    if (st.index && !info && indexes.length) {
      clearMessage();
      showError(new ApiError(404, "no index named " + JSON.stringify(st.index) + " is served"), "index");
    }
    sel.value = info ? st.index : "";
    renderIndexInfo(info);
    if (document.activeElement !== $("query")) $("query").value = st.query;
    if (![...$("hits").options].some((o) => o.value === st.hits)) $("hits").append(el("option", { value: st.hits, text: st.hits }));
    $("hits").value = st.hits;
    const compare = st.view === "compare";
    $("view-list").setAttribute("aria-pressed", String(!compare));
    $("view-compare").setAttribute("aria-pressed", String(compare));
    document.body.classList.toggle("compare", compare);
    $("setting-panels").querySelector(".setting-b").hidden = !compare;
    syncPanel("a", st.a, info);
    syncPanel("b", st.b, info);
    document.title = (st.query ? st.query + " · " : "") + "sieve search" + (st.index ? " · " + st.index : "");
    renderDoc(st);

    if (!st.index || !info) {
      shownKey = null;
      $("results").replaceChildren(welcome(null));
      return;
    }
    if (!st.query.trim()) {
      shownKey = null;
      clearMessage();
      $("results").replaceChildren(welcome(info));
      $("status").textContent = "";
      return;
    }
    const base = "/v1/" + enc(st.index) + "/search";
    const pa = searchParams(st, st.a, true);
    const key = st.view + "\n" + pa + (compare ? "\n" + searchParams(st, st.b, true) : "");
    if (key === shownKey) return; // the document view opened or closed
    if (controller) controller.abort();
    controller = new AbortController();
    const signal = controller.signal;
    shownKey = key;
    clearMessage();
    $("results").classList.add("busy");
    try {
      if (!compare) {
        let ans = null;
        try {
          ans = await api(base, pa, signal);
        } catch (e) {
          if (signal.aborted) return;
          showError(e, "search");
          shownKey = null;
          $("results").replaceChildren(el("p", { class: "empty", text: "No results: see the message above." }));
          return;
        }
        if (signal.aborted) return;
        renderList(ans);
      } else {
        const pb = searchParams(st, st.b, true);
        const out = await Promise.allSettled([api(base, pa, signal), api(base, pb, signal)]);
        if (signal.aborted) return;
        const [ra, rb] = out;
        if (ra.status === "rejected") showError(ra.reason, "A");
        if (rb.status === "rejected") showError(rb.reason, "B");
        if (ra.status === "rejected" || rb.status === "rejected") shownKey = null;
        renderCompare(st, ra.status === "fulfilled" ? ra.value : null, rb.status === "fulfilled" ? rb.value : null);
      }
    } finally {
      if (!signal.aborted) $("results").classList.remove("busy");
    }
  }

  // ---- wiring -----------------------------------------------------------

  function wire() {
    const panels = $("setting-panels");
    panels.append(settingPanel("a"), settingPanel("b"));
    $("search-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const st = readState();
      st.query = $("query").value;
      st.doc = null;
      go(st);
      $("query").blur();
    });
    $("index").addEventListener("change", (e) => {
      const st = readState();
      st.index = e.target.value;
      st.doc = null;
      go(st);
    });
    $("hits").addEventListener("change", (e) => {
      const st = readState();
      st.hits = e.target.value;
      go(st);
    });
    $("view-list").addEventListener("click", () => {
      const st = readState();
      st.view = "list";
      go(st);
    });
    $("view-compare").addEventListener("click", () => {
      const st = readState();
      st.view = "compare";
      go(st);
    });
    $("doc-close").addEventListener("click", closeDoc);
    $("doc-view").addEventListener("click", (e) => {
      if (e.target === $("doc-view")) closeDoc(); // the backdrop
    });
    document.addEventListener("keydown", (e) => {
      const t = e.target;
      const typing = t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
      if (e.key === "/" && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        $("query").focus();
        $("query").select();
      } else if (e.key === "Escape" && !$("doc-view").hidden) {
        e.preventDefault();
        closeDoc();
      }
    });
    window.addEventListener("hashchange", () => render());
    if (window.matchMedia && window.matchMedia("(max-width: 760px)").matches) $("settings").open = false;
  }

  async function start() {
    wire();
    await loadIndexes();
    await render();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
