// Opens `rogerwilco report` pages in the system Chromium, headless, and reports what it saw as JSON on stdout.
// Driven by tests/test_report_browser.py: node report_check.mjs PLAN.json
// PLAN: {"chromium": path, "pages": [{"name", "html", "screenshot", "clickLine"?, "filter"?, "injection"?}]}
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const plan = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync"];

// A context of its own, on a fresh profile folder (deleted after); bypassCSP lets a test page run without the
// report's Content-Security-Policy, so that escaping alone is what keeps injected markup inert.
async function withContext(options, body) {
  const profile = mkdtempSync(join(tmpdir(), "rw1-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: plan.chromium, headless: true, args: ARGS, viewport: { width: 1400, height: 1000 },
    offline: true, ...options,
  });
  try {
    return await body(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

async function open(context, html) {
  const page = await context.newPage();
  const errors = [];
  const requests = [];
  page.on("console", (msg) => { if (msg.type() === "error") errors.push(msg.text()); });
  page.on("pageerror", (err) => errors.push(String(err)));
  page.on("request", (req) => { if (!req.url().startsWith("file:") && !req.url().startsWith("data:")) requests.push(req.url()); });
  await page.goto(pathToFileURL(html).href);
  await page.waitForFunction(() => document.readyState === "complete");
  const ready = await page.evaluate(() => document.body !== null && document.body.getAttribute("data-ready") === "1");
  return { page, errors, requests, ready };
}

// how many pixels of the screenshot differ from its first pixel (a blank page has none)
async function inkOf(context, png) {
  const page = await context.newPage();
  await page.setContent("<canvas></canvas>");
  const ink = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.querySelector("canvas");
    c.width = img.width; c.height = img.height;
    const g = c.getContext("2d");
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    let differ = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i] !== d[0] || d[i + 1] !== d[1] || d[i + 2] !== d[2]) differ++;
    }
    return { differ, pixels: d.length / 4 };
  }, png.toString("base64"));
  await page.close();
  return ink;
}

async function checkPage(context, spec) {
  const { page, errors, requests, ready } = await open(context, spec.html);
  const out = { name: spec.name, errors, requests, ready };
  if (!ready) return out;
  out.arrows = await page.locator("#lanes g.msg[data-kind='arrow']").count();
  out.rows = await page.locator("#lanes g.msg").count();
  out.messages = Number(await page.getAttribute("#diagram", "data-messages"));
  out.lines = Number(await page.getAttribute("#diagram", "data-lines"));
  out.marked = await page.$$eval("#lanes g.msg[data-kind='arrow']", (gs) => gs.filter((g) => g.querySelector("[data-mark]")).map((g) => Number(g.getAttribute("data-line"))));
  out.voids = await page.$$eval("#lanes g.msg[data-void]", (gs) => gs.map((g) => Number(g.getAttribute("data-line"))));
  out.statements = await page.$$eval("[data-part='statement']", (ps) => ps.map((p) => p.textContent));
  out.arrowLines = await page.$$eval("#lanes g.msg[data-kind='arrow']", (gs) => gs.map((g) => Number(g.getAttribute("data-line"))));
  if (spec.clickLine !== undefined) {
    await page.locator(`#lanes g.msg[data-line='${spec.clickLine}']`).click();
    out.clicked = {
      line: await page.locator("#detail [data-part='line']").textContent(),
      digest: await page.locator("#detail [data-part='digest']").textContent(),
      json: await page.locator("#detail [data-part='json']").textContent(),
      failedTiers: await page.$$eval("#detail [data-tier][data-status='failed']", (ts) => ts.map((t) => t.getAttribute("data-tier"))),
      tierText: await page.$$eval("#detail [data-tier]", (ts) => ts.map((t) => t.textContent)),
      diff: await page.$$eval("#detail [data-part='diff'] tbody tr", (rs) => rs.map((r) => Array.from(r.cells).map((c) => c.textContent))),
    };
    await page.locator("#lanes").press("ArrowDown");
    out.afterKey = await page.locator("#lanes g.msg.sel").getAttribute("data-line");
    await page.locator("#lanes").press("ArrowUp");  // back: the screenshot shows the message clicked
    out.backKey = await page.locator("#lanes g.msg.sel").getAttribute("data-line");
  }
  if (spec.filter) {
    out.findingRows = await page.locator("#findings tbody tr").count();
    await page.selectOption("#f-severity", spec.filter);
    out.filteredRows = await page.locator("#findings tbody tr").count();
    out.filteredSeverities = await page.$$eval("#findings tbody tr", (rs) => rs.map((r) => r.getAttribute("data-severity")));
    await page.selectOption("#f-severity", "");
  }
  const png = await page.screenshot({ path: spec.screenshot, fullPage: false });
  out.ink = await inkOf(context, png);
  await page.close();
  return out;
}

async function injection(context, spec) {
  const { page, errors, ready } = await open(context, spec.html);
  if (!ready) {
    const flag = await page.evaluate(() => (window.__rw1_injected === undefined ? null : String(window.__rw1_injected)));
    await page.close();
    return { name: spec.name, errors, ready, flag };
  }
  // every message's details drawn, every section's lists drawn: any injected script had its chance
  const rows = await page.locator("#lanes g.msg").count();
  for (let i = 0; i < rows; i++) await page.locator(`#lanes g.msg[data-msg='${i}']`).click();
  const seen = await page.evaluate(() => ({
    flag: window.__rw1_injected === undefined ? null : String(window.__rw1_injected),
    scripts: document.scripts.length,
    images: document.images.length,
    javascriptLinks: Array.from(document.querySelectorAll("[href],[src],[action]")).filter(
      (e) => /^\s*javascript:/i.test(e.getAttribute("href") || e.getAttribute("src") || e.getAttribute("action") || "")).length,
    handlers: Array.from(document.querySelectorAll("*")).filter(
      (e) => Array.from(e.attributes).some((a) => /^on/i.test(a.name))).length,
    marks: document.querySelectorAll(".esc").length,
  }));
  await page.close();
  return { name: spec.name, errors, ready, rows, ...seen };
}

async function axe(context, spec) {
  const { page } = await open(context, spec.html);
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
                                      target: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  await page.close();
  return { name: spec.name, violations: result };
}

const report = { pages: [], injection: [], axe: [] };
await withContext({}, async (context) => {
  for (const spec of plan.pages.filter((p) => !p.injection)) report.pages.push(await checkPage(context, spec));
});
await withContext({ bypassCSP: true }, async (context) => {
  for (const spec of plan.pages.filter((p) => p.injection)) report.injection.push(await injection(context, spec));
  for (const spec of plan.pages.filter((p) => !p.injection)) report.axe.push(await axe(context, spec));
});
process.stdout.write(JSON.stringify(report));
