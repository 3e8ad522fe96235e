// The real-browser test of the page of `sieve-search serve`
// (scripts/test-serve-browser.sh starts the server and runs this).
//
// In headless Chromium (playwright-core, the system's Chromium), at a
// phone size (390x844) and a laptop size (1366x900), on the index `cacm`
// (CACM with MADE-UP spam percentiles): a search, the spam filter (>= 70),
// the side-by-side view (unfiltered A against spam >= 70 B: documents that
// leave and enter the top 10 marked), a document with the query's terms
// marked, back/forward through the history, a deep link, `/` focusing the
// search box and an API error shown in the message area. On the index
// `hostile` (titles, URLs, docids and text holding markup, script,
// javascript: and data: URLs, U+202E): the strings are shown as text and
// nothing from them became live (no script, img, iframe, svg, style or
// link element from the data, no javascript: href, no dialog,
// window.__pwned undefined). Every step checks the DOM and writes a
// screenshot to OUT; any console error (outside the deliberate API error),
// page error, CSP violation or request to another origin fails the test.
//
// Environment: BASE (the server, http://127.0.0.1:PORT), OUT (screenshot
// directory), CHROMIUM (default /usr/bin/chromium).
import { chromium } from "playwright-core";
import fs from "node:fs";
import path from "node:path";

const BASE = process.env.BASE;
const OUT = process.env.OUT || "target/serve-browser";
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
if (!BASE) {
  console.error("serve.mjs: set BASE to the server's address");
  process.exit(2);
}
fs.mkdirSync(OUT, { recursive: true });

let failures = 0;
let checks = 0;
function check(ok, what, detail) {
  checks++;
  if (ok) {
    console.log("ok: " + what);
  } else {
    failures++;
    console.log("FAIL: " + what + (detail === undefined ? "" : " (" + JSON.stringify(detail) + ")"));
  }
}

const SIZES = [
  ["phone", { width: 390, height: 844 }],
  ["laptop", { width: 1366, height: 900 }],
];

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

/** A page at `size` with listeners recording what must not happen. */
async function open(size) {
  const context = await browser.newContext({ viewport: size, colorScheme: size.width < 500 ? "dark" : "light" });
  const page = await context.newPage();
  const seen = { errors: [], expected: [], dialogs: [], foreign: [], allowErrors: false };
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    (seen.allowErrors ? seen.expected : seen.errors).push(m.text());
  });
  page.on("pageerror", (e) => seen.errors.push("page error: " + e.message));
  page.on("dialog", async (d) => {
    seen.dialogs.push(d.type() + ": " + d.message());
    await d.dismiss().catch(() => {});
  });
  page.on("request", (r) => {
    const u = r.url();
    if (!u.startsWith(BASE + "/") && !u.startsWith("data:")) seen.foreign.push(u);
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI);
    });
  });
  return { context, page, seen };
}

/** Waits until the page has settled: results not busy, nothing loading. */
async function settled(page) {
  await page.waitForFunction(() => {
    const r = document.getElementById("results");
    return r && !r.classList.contains("busy") && !document.querySelector(".loading");
  });
  await page.waitForTimeout(60);
}

async function shot(page, name, full) {
  const file = path.join(OUT, name + ".png");
  if (full) await page.evaluate(() => window.scrollTo(0, 0)); // the sticky header at the top
  await page.screenshot({ path: file, fullPage: !!full });
  console.log("   screenshot " + file);
}

async function openSettings(page) {
  const open = await page.$eval("#settings", (d) => d.open);
  if (!open) await page.click("#settings > summary");
}

const spamOf = (t) => (/^spam (\d+)$/.exec(t.trim()) || [])[1];

async function cacm(name, size) {
  const { context, page, seen } = await open(size);
  const tag = (s) => name + "-" + s;
  console.log(`\n== ${name} (${size.width}x${size.height}): cacm`);

  // 1. Search.
  await page.goto(BASE + "/#index=cacm");
  await page.waitForSelector("#index option[value=cacm]", { state: "attached" });
  check(/3,204 documents/.test(await page.textContent("#index-info")), tag("index info shows the documents count"));
  await page.keyboard.press("/");
  check((await page.evaluate(() => document.activeElement && document.activeElement.id)) === "query", tag("/ focuses the search box"));
  await page.keyboard.type("parallel algorithms for sorting");
  await page.keyboard.press("Enter");
  await page.waitForSelector("#results .result");
  await settled(page);
  const n = await page.locator("#results .result").count();
  check(n === 10, tag("10 results by default"), n);
  const badges = await page.locator("#results .result .spam").allTextContents();
  check(badges.length === 10 && badges.every((b) => spamOf(b) !== undefined || b === "unscored"), tag("every result has a spam badge"), badges);
  check(badges.some((b) => Number(spamOf(b)) < 70), tag("the unfiltered results hold a document with spam < 70"), badges);
  const marks = await page.locator("#results .snippet mark").allTextContents();
  check(marks.length > 0 && marks.every((m) => /^(parallel|algorithm|sort)/i.test(m)), tag("snippets mark query terms"), marks.slice(0, 8));
  check((await page.locator("#results .result").first().locator(".errors .err").count()) === 7, tag("seven UTF-8 error counts per result"));
  check(/ms/.test(await page.textContent("#status")), tag("took_ms shown"), await page.textContent("#status"));
  check((await page.locator("#results .result .rank").first().textContent()) === "1", tag("ranks shown"));
  check(/query=parallel/.test(page.url()), tag("the query is in the URL"), page.url());
  await shot(page, tag("01-search"), true);

  // 2. The spam filter: >= 70, then the slider to 85, then back to 70.
  await openSettings(page);
  await page.check("#filter-spam-on");
  await page.waitForFunction(() => location.hash.includes("a.spam=70"));
  await settled(page);
  let f = await page.locator("#results .result .spam").allTextContents();
  check(f.length > 0 && f.every((b) => Number(spamOf(b)) >= 70), tag("with spam >= 70 every result's percentile is >= 70"), f);
  check(/documents kept/.test(await page.textContent("#results .counts")), tag("the kept documents are counted"));
  await page.$eval("#filter-spam", (s) => {
    s.value = "85";
    s.dispatchEvent(new Event("input", { bubbles: true }));
    s.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await page.waitForFunction(() => location.hash.includes("a.spam=85"));
  await settled(page);
  f = await page.locator("#results .result .spam").allTextContents();
  check(f.length > 0 && f.every((b) => Number(spamOf(b)) >= 85), tag("moving the slider to 85 re-runs the search"), f);
  check((await page.textContent("#filter-spam-value")).includes("85"), tag("the slider's value is shown"));
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes("a.spam=70"));
  await settled(page);
  f = await page.locator("#results .result .spam").allTextContents();
  check(f.every((b) => Number(spamOf(b)) >= 70) && f.some((b) => Number(spamOf(b)) < 85), tag("back restores spam >= 70"), f);
  check((await page.inputValue("#filter-spam")) === "70", tag("back restores the slider"));
  await page.locator(".setting-a").scrollIntoViewIfNeeded();
  await shot(page, tag("02-filter"), true);

  // 3. Side by side: A unfiltered (its preset), B spam >= 70 (B's default).
  await page.click("#view-compare");
  await page.waitForSelector("#results .column-b .result");
  await page.selectOption("#preset", "plain");
  await page.waitForFunction(() => !location.hash.includes("a.spam"));
  await settled(page);
  const ca = await page.locator("#results .column-a .result").count();
  const cb = await page.locator("#results .column-b .result").count();
  check(ca === 10 && cb === 10, tag("two columns of 10"), [ca, cb]);
  const leaves = await page.locator(".column-a .result.leaves").count();
  const enters = await page.locator(".column-b .result.enters").count();
  check(leaves > 0 && enters > 0, tag("documents leaving A's top 10 and entering B's are marked"), [leaves, enters]);
  check((await page.locator(".column-b .result.leaves, .column-a .result.enters").count()) === 0, tag("leaves only in A, enters only in B"));
  const summary = await page.textContent("#compare-summary");
  check(summary.includes(leaves + " leave") && summary.includes(enters + " enter") && summary.includes(10 - leaves + " overlap"), tag("the summary counts them"), summary);
  const leftSpam = await page.locator(".column-a .result.leaves .spam").allTextContents();
  check(leftSpam.every((b) => Number(spamOf(b)) < 70), tag("every document leaving has spam < 70"), leftSpam);
  const bSpam = await page.locator(".column-b .result .spam").allTextContents();
  check(bSpam.every((b) => Number(spamOf(b)) >= 70), tag("column B holds spam >= 70 only"), bSpam);
  const da = await page.locator(".column-a .result").evaluateAll((l) => l.map((x) => x.dataset.docid));
  const db = await page.locator(".column-b .result").evaluateAll((l) => l.map((x) => x.dataset.docid));
  const leavingIds = await page.locator(".column-a .result.leaves").evaluateAll((l) => l.map((x) => x.dataset.docid));
  check(
    JSON.stringify(leavingIds) === JSON.stringify(da.filter((d) => !db.includes(d))),
    tag("the marked documents are exactly A's top 10 minus B's"),
  );
  check((await page.getAttribute("#view-compare", "aria-pressed")) === "true", tag("the compare view is pressed"));
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot(page, tag("03-compare"), true);

  // 4. A document: the first that enters B's top 10.
  const entering = page.locator(".column-b .result.enters .title").first();
  const docid = await page.locator(".column-b .result.enters").first().getAttribute("data-docid");
  await entering.click();
  await page.waitForSelector("#doc-view:not([hidden])");
  await page.waitForSelector("#doc-body .doc-text");
  check(decodeURIComponent(page.url()).includes("doc=" + docid), tag("the open document is in the URL"), page.url());
  const docMarks = await page.locator("#doc-body .doc-text mark").allTextContents();
  check(docMarks.length > 0 && docMarks.every((m) => /^(parallel|algorithm|sort)/i.test(m)), tag("the document text marks the query terms"), docMarks);
  check((await page.textContent("#doc-body .doc-docid")).includes(docid), tag("the document view shows its docid"));
  const fields = await page.textContent("#doc-body .shown .doc-fields");
  check(/source/.test(fields) && /charset/.test(fields) && /checked/.test(fields) && /UTF-8 errors/.test(fields), tag("the document view shows source, charset, checks and errors"), fields.slice(0, 200));
  const raw = await page.getAttribute("#doc-raw", "href");
  check(raw === "/v1/cacm/raw?docid=" + encodeURIComponent(docid), tag("the raw link"), raw);
  const rawResp = await page.request.get(BASE + raw);
  check(rawResp.status() === 200 && (await rawResp.body()).length > 0, tag("the raw record is served"), rawResp.status());
  await shot(page, tag("04-doc"), false);
  await page.keyboard.press("Escape");
  await page.waitForSelector("#doc-view", { state: "hidden" });
  check(!page.url().includes("doc="), tag("Escape closes the document"), page.url());
  check((await page.locator(".column-a .result").count()) === 10, tag("the columns are still there"));

  // 5. Back and forward.
  await page.goBack();
  await page.waitForFunction(() => location.hash.includes("a.spam=70") && location.hash.includes("view=compare"));
  await settled(page);
  check((await page.locator(".column-a .result.leaves").count()) === 0, tag("back: A and B both spam >= 70, nothing leaves"));
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes("view=compare"));
  await settled(page);
  check((await page.locator("#results .column-a").count()) === 0 && (await page.locator("#results .result").count()) === 10, tag("back again: the list view"));
  await page.goForward();
  await page.waitForSelector("#results .column-a .result");
  check((await page.getAttribute("#view-compare", "aria-pressed")) === "true", tag("forward: the compare view"));

  // 6. A deep link opens the document directly.
  const deep = BASE + "/#index=cacm&query=parallel+sorting&doc=" + encodeURIComponent(docid);
  await page.goto("about:blank");
  await page.goto(deep);
  await page.waitForSelector("#doc-body .doc-text mark");
  check(await page.isVisible("#doc-view"), tag("a link with doc= opens the document"));
  await page.click("#doc-close");
  await page.waitForSelector("#doc-view", { state: "hidden" });
  await settled(page);
  check((await page.locator("#results .result").count()) === 10, tag("closing a deep-linked document shows its results"));

  // 7. An API error is shown, not a blank page.
  seen.allowErrors = true;
  await page.goto(BASE + "/#index=cacm&query=parallel&a.k1=-3");
  await page.waitForSelector("#message:not([hidden])");
  const msg = await page.textContent("#message");
  check(/400/.test(msg) && /k1/.test(msg), tag("an API error shows its status and parameter"), msg);
  check((await page.getAttribute("#bm25-k1", "aria-invalid")) === "true", tag("the control at fault is marked"));
  await shot(page, tag("05-error"), false);
  await page.goto(BASE + "/#index=cacm&query=parallel");
  await page.waitForSelector("#results .result");
  await settled(page);
  seen.allowErrors = false;
  check(await page.isHidden("#message"), tag("the message clears on a good search"));

  await finish(page, seen, tag("cacm"));
  await context.close();
}

async function hostile(name, size) {
  const { context, page, seen } = await open(size);
  const tag = (s) => name + "-" + s;
  console.log(`\n== ${name} (${size.width}x${size.height}): hostile`);
  await page.goto(BASE + "/#index=hostile&query=sieve&hits=20");
  await page.waitForSelector("#results .result");
  await settled(page);
  const ids = await page.locator("#results .result").evaluateAll((l) => l.map((x) => x.dataset.docid));
  check(ids.length === 7, tag("every hostile document found"), ids);
  await noLiveMarkup(page, tag("results"));
  const markupId = "<img/src=x/onerror=window.__pwned=1>";
  const r1 = page.locator(`#results .result[data-docid="${markupId.replace(/"/g, '\\"')}"]`);
  check((await r1.count()) === 1, tag("the docid holding markup is a result"));
  check((await r1.locator(".docid").textContent()) === markupId, tag("a docid holding markup is shown as text"));
  check((await r1.locator(".title").textContent()).includes("<script>window.__pwned=1</script><b>bold</b>"), tag("a title holding a script is shown as text"));
  check((await r1.locator(".url").evaluate((e) => e.tagName)) === "SPAN" && (await r1.locator(".url").textContent()) === "javascript:window.__pwned=1", tag("a javascript: URL is text, not a link"));
  const bidi = page.locator('#results .result[data-docid="HOSTILE-bidi"]');
  check((await bidi.locator(".title bdi").textContent()).startsWith("\u202e"), tag("the U+202E title is isolated in a bdi"));
  const bidiHref = await bidi.locator("a.url").getAttribute("href");
  check(bidiHref !== null && bidiHref.startsWith("http://evil.example/") && !bidiHref.includes('"') && !bidiHref.includes("<"), tag("an http URL with markup is a link, its href escaped"), bidiHref);
  check((await bidi.locator("a.url").getAttribute("rel")) === "noopener noreferrer nofollow", tag("document links carry rel=noopener noreferrer nofollow"));
  const rtl = page.locator("#results .result").filter({ has: page.locator(".title.untitled") });
  check((await rtl.count()) === 1 && (await rtl.locator(".title").textContent()) === "\u202eRTL-docid-<b>x</b>", tag("an empty title shows the docid, as text"));
  check((await rtl.locator(".url").evaluate((e) => e.tagName)) === "SPAN", tag("a data: URL is text"));
  const upper = page.locator('#results .result[data-docid="javascript:alert(1)"]');
  check((await upper.locator(".url").evaluate((e) => e.tagName)) === "SPAN", tag("a JAVASCRIPT: URL in capitals is text"));
  const rel = page.locator('#results .result[data-docid="x/../..%2Fraw"]');
  check((await rel.locator(".url").evaluate((e) => e.tagName)) === "SPAN", tag("a protocol-relative URL is text"));
  const utf8 = page.locator('#results .result[data-docid="PLAIN-utf8"]');
  const nz = await utf8.locator(".errors .err.nonzero").evaluateAll((l) => l.map((x) => x.dataset.class));
  check(nz.length > 0, tag("non-zero UTF-8 error counts are highlighted"), nz);
  const unscored = await page.locator("#results .spam.unscored").count();
  check(unscored === 2, tag("documents without a spam percentile say unscored"), unscored);
  await shot(page, tag("06-hostile"), true);

  // A hostile document's view.
  await r1.locator(".title").click();
  await page.waitForSelector("#doc-body .doc-text");
  const text = await page.textContent("#doc-body .doc-text");
  check(text.includes('<img src=x onerror="window.__pwned=1">') && text.includes("<script>window.__pwned=1</script>"), tag("the document text shows markup as text"), text.slice(0, 200));
  check((await page.locator("#doc-body .doc-text mark").allTextContents()).includes("sieve"), tag("the hostile document's text marks the query term"));
  check((await page.locator("#doc-body .doc-title").textContent()).includes("<script>"), tag("the document title shows markup as text"));
  await noLiveMarkup(page, tag("document view"));
  const raw = await page.getAttribute("#doc-raw", "href");
  const rawResp = await page.request.get(BASE + raw);
  check(rawResp.status() === 200, tag("the raw link of a docid holding markup works"), [raw, rawResp.status()]);
  await shot(page, tag("07-hostile-doc"), false);

  // The docid with slashes and dots: its document and raw record.
  await page.goto(BASE + "/#index=hostile&query=sieve&doc=" + encodeURIComponent("x/../..%2Fraw"));
  await page.waitForSelector("#doc-body .doc-text");
  check((await page.textContent("#doc-body .doc-docid")).includes("x/../..%2Fraw"), tag("a docid with slashes and dots opens"));
  const raw2 = await page.getAttribute("#doc-raw", "href");
  const rawResp2 = await page.request.get(BASE + raw2);
  check(rawResp2.status() === 200 && (await rawResp2.text()).includes("protocol-relative"), tag("its raw record"), [raw2, rawResp2.status()]);
  await page.keyboard.press("Escape");

  // Side by side on the hostile index.
  await page.goto(BASE + "/#index=hostile&query=sieve&view=compare&b.spam=50");
  await page.waitForSelector("#results .column-b .result");
  await settled(page);
  check((await page.locator(".column-a .result.leaves").count()) > 0, tag("the hostile compare view marks documents leaving"));
  await noLiveMarkup(page, tag("compare view"));
  await shot(page, tag("08-hostile-compare"), true);

  await finish(page, seen, tag("hostile"));
  await context.close();
}

/** Nothing from the crawl became a live element, link or script. */
async function noLiveMarkup(page, what) {
  const found = await page.evaluate(() => {
    const bad = [];
    for (const sel of ["script", "img", "iframe", "svg", "style", "link", "object", "embed", "b", "a[href] a"]) {
      for (const e of document.querySelectorAll("#results " + sel + ", #doc-view " + sel)) bad.push(e.outerHTML.slice(0, 80));
    }
    const scripts = [...document.querySelectorAll("script")].map((s) => s.getAttribute("src"));
    if (scripts.length !== 1 || scripts[0] !== "/assets/app.js") bad.push("scripts: " + JSON.stringify(scripts));
    for (const a of document.querySelectorAll("a[href]")) {
      const h = a.getAttribute("href").trim().toLowerCase();
      if (h.startsWith("javascript:") || h.startsWith("data:") || h.startsWith("//")) bad.push("href " + h);
    }
    // (Chromium's form autofill leaves an empty style="" on form inputs.)
    for (const e of document.querySelectorAll("*")) {
      for (const at of e.getAttributeNames()) {
        if (/^on/i.test(at) || (at === "style" && e.getAttribute(at) !== "")) bad.push(e.tagName + " " + at);
      }
    }
    return { bad, pwned: typeof window.__pwned };
  });
  check(found.bad.length === 0, what + ": no element, event handler, style or javascript:/data: link from the data", found.bad);
  check(found.pwned === "undefined", what + ": window.__pwned is undefined", found.pwned);
}

async function finish(page, seen, what) {
  const csp = await page.evaluate(() => window.__cspViolations || []);
  check(csp.length === 0, what + ": no CSP violation", csp);
  check(seen.errors.length === 0, what + ": no console or page error", seen.errors);
  check(seen.dialogs.length === 0, what + ": no dialog", seen.dialogs);
  check(seen.foreign.length === 0, what + ": no request to another origin", seen.foreign);
}

try {
  for (const [name, size] of SIZES) {
    await cacm(name, size);
    await hostile(name, size);
  }
} catch (e) {
  failures++;
  console.log("FAIL: " + (e && e.stack ? e.stack : e));
} finally {
  await browser.close();
}
console.log(`\n${checks} checks, ${failures} failed; screenshots in ${OUT}`);
process.exit(failures ? 1 : 0);
