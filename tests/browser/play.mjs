// Plays a game on `tafl serve`'s page in headless Chromium, as a person would: clicks, not API
// calls. Run by tests/browser.rs as
//   node play.mjs URL SCREENSHOT_DIR
// with CHROMIUM naming the browser binary. Exits non-zero, saying what failed, on any problem.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const [url, outDir] = process.argv.slice(2);
if (!url || !outDir) {
  console.error("usage: node play.mjs URL SCREENSHOT_DIR");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const executablePath = process.env.CHROMIUM || "/usr/bin/chromium";
const step = (text) => console.log(`[browser] ${text}`);

const browser = await chromium.launch({
  executablePath,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
let page;
try {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    // Chromium logs every 503 as a failed resource; the test provokes those on purpose.
    if (m.type() === "error" && !/status of 503/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });

  const status = page.locator("#status");
  const moveCount = () => page.locator("#movelist li").count();
  const waitMoves = (n) => page.waitForFunction(
    (k) => document.querySelectorAll("#movelist li").length === k, n, { timeout: 60_000 });
  const waitTurn = () => page.waitForFunction(() => {
    const s = document.querySelector("#status").dataset.state;
    return s === "your-turn" || s === "over";
  }, null, { timeout: 60_000 });

  const waitState = (state) => page.waitForFunction(
    (k) => document.querySelector("#status").dataset.state === k, state, { timeout: 60_000 });
  // Holds the server's only search thread (it runs with --searches 1 --queue 0) for a few
  // seconds, so that the page's next search request is answered 503 with Retry-After.
  const holdSearch = async () => {
    const held = fetch(`${url}/api/move`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ rules: "copenhagen", level: 5, movetime: 3 }),
    }).then((r) => r.status);
    await new Promise((resolve) => setTimeout(resolve, 300));
    return held;
  };

  // Brandubh, the person plays the defenders against level 1: the attackers (the AI) open,
  // while the server is busy: the page waits the time the server gives and tries again.
  let held = holdSearch();
  await page.goto(`${url}/?rules=brandubh&side=defenders&level=1`);
  await waitState("retrying");
  step(`the server was busy: \`${await status.textContent()}\``);
  await waitMoves(1);
  await waitTurn();
  if ((await held) !== 200) throw new Error("the search that held the server failed");
  step(`the AI opened after retrying: ${await page.locator("#movelist li").first().textContent()}`);
  const panel = await page.locator("#panel").textContent();
  if (!panel.includes("Brandubh")) throw new Error(`the rules panel does not show Brandubh's rules: ${panel.slice(0, 200)}`);

  // Pick up a defender, see its legal moves, click one of them.
  const defender = page.locator(".sq:has(.piece.defender)").first();
  const from = await defender.getAttribute("data-square");
  await defender.click();
  const targets = page.locator(".sq.target");
  const count = await targets.count();
  if (count === 0) throw new Error(`no legal moves shown for the defender on ${from}`);
  const to = await targets.first().getAttribute("data-square");
  step(`${from} shows ${count} legal moves; playing ${from}-${to}`);
  await targets.first().click();
  await waitMoves(3);
  await waitTurn();
  step(`the AI answered: ${await page.locator("#movelist li").nth(2).textContent()}`);
  const second = await page.locator("#movelist li").nth(1).textContent();
  if (!second.includes(`${from}-${to}`)) throw new Error(`the move list shows \`${second}\`, not ${from}-${to}`);

  // A hint, with its value; then undo takes back the person's move and the AI's answer.
  await page.click("#hint");
  await page.waitForFunction(() => document.querySelector("#hint-text").dataset.move, null, { timeout: 60_000 });
  const hintText = await page.locator("#hint-text").textContent();
  if (!/value [+-]\d/.test(hintText)) throw new Error(`the hint shows no value: ${hintText}`);
  if ((await page.locator(".sq.hint-from").count()) !== 1) throw new Error("the hinted move is not marked on the board");
  step(hintText);
  await page.click("#undo");
  await waitMoves(1);
  await waitTurn();
  step("undo took back the last two moves");
  await page.screenshot({ path: `${outDir}/midgame.png` });

  // Finish the game: take the hint each turn and play it by clicking its squares.
  for (let turn = 0; turn < 80; turn++) {
    if ((await status.getAttribute("data-state")) === "over") break;
    await page.locator("#hint-text").evaluate((e) => { delete e.dataset.move; });
    await page.click("#hint");
    await page.waitForFunction(() => document.querySelector("#hint-text").dataset.move, null, { timeout: 60_000 });
    const mv = await page.locator("#hint-text").getAttribute("data-move");
    const [a, b] = mv.split("-");
    const before = await moveCount();
    await page.click(`.sq[data-square="${a}"]`);
    await page.click(`.sq[data-square="${b}"]`);
    await page.waitForFunction((k) => document.querySelectorAll("#movelist li").length > k, before, { timeout: 60_000 });
    await waitTurn();
  }
  const end = await status.textContent();
  if ((await status.getAttribute("data-state")) !== "over") throw new Error(`the game did not end: ${end}`);
  if (!/Game over: .*\(.+\)/.test(end)) throw new Error(`the end shows no reason: ${end}`);
  const notation = await page.locator("#notation").inputValue();
  if (!notation.startsWith("1. ")) throw new Error(`the copyable move list is \`${notation}\``);
  step(`${end} after ${await moveCount()} moves: ${notation}`);
  await page.screenshot({ path: `${outDir}/game-over.png`, fullPage: true });

  if ((await status.getAttribute("data-result")) === null) throw new Error("the end does not say who won");

  // Undo and New game while the AI thinks (here: waits for a busy server) are done at once,
  // and the answer to the old request never lands.
  await page.click("#new");
  await waitMoves(1);
  await waitTurn();
  const playAny = async () => {
    await page.locator(".sq:has(.piece.defender)").first().click();
    await page.locator(".sq.target").first().click();
  };
  held = holdSearch();
  await playAny();
  await waitState("retrying");
  await page.click("#undo");
  await waitMoves(1);
  await waitTurn();
  await held;
  step("undo while the AI waited took the move back");
  held = holdSearch();
  await playAny();
  await waitState("retrying");
  // A new side is a new game: the person now plays the attackers, who move first.
  await page.selectOption("#side", "attackers");
  await waitMoves(0);
  await waitTurn();
  await held;
  await new Promise((resolve) => setTimeout(resolve, 2500));
  if ((await moveCount()) !== 0 || (await status.getAttribute("data-state")) !== "your-turn") {
    throw new Error(`the old game's answer landed in the new one: ${await status.textContent()}`);
  }
  step("a new game while the AI waited started at once; the old answer was dropped");

  // A game from a link, ending in the king's capture: reported as a capture, the king off
  // the board, and the person (the attackers) told they won.
  const toCapture = "d7-c7 e4-e1 f4-e4 c4-c5 b4-c4 e1-f1 a4-b4 f1-f4 d2-e2 f4-f1 g4-e4 f1-f7 d1-d2 d5-e5 d6-d5 f7-f3 c7-c6 d3-a3";
  await page.goto(`${url}/?rules=brandubh&side=attackers&level=1&moves=${toCapture.replaceAll(" ", ",")}`);
  await waitMoves(18);
  await waitTurn();
  await page.click(`.sq[data-square="d2"]`);
  await page.click(`.sq[data-square="d3"]`);
  await waitState("over");
  const won = await status.textContent();
  if ((await status.getAttribute("data-result")) !== "won" || !won.includes("king captured")) throw new Error(`after the king's capture: ${won}`);
  if ((await page.locator(".piece.king").count()) !== 0) throw new Error("the captured king is still drawn");
  const last = await page.locator("#movelist li").last().textContent();
  if (!last.includes("d2-d3xd4")) throw new Error(`the capture is not in the move text: ${last}`);
  step(`${won} (${last})`);
  await page.screenshot({ path: `${outDir}/king-captured.png`, fullPage: true });

  // Bad URL parameters are named, and the game starts with the defaults.
  await page.goto(`${url}/?side=kings&level=99&rules=nope`);
  await page.waitForFunction(() => document.querySelector("#error").textContent.includes("side=kings"), null, { timeout: 60_000 });
  const said = await page.locator("#error").textContent();
  for (const p of ["level=99", "rules=nope"]) if (!said.includes(p)) throw new Error(`bad parameter ${p} not named: ${said}`);
  await waitTurn();
  step(`bad parameters: ${said}`);

  // The same page on a phone-sized screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `${outDir}/phone.png`, fullPage: true });
  const boardWidth = await page.locator("#board").evaluate((e) => e.getBoundingClientRect().width);
  const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
  if (pageWidth > 390 || boardWidth < 300) throw new Error(`on a phone the page is ${pageWidth}px wide and the board ${boardWidth}px`);

  if (problems.length) throw new Error(problems.join("\n"));
  step(`screenshots in ${outDir}`);
} catch (e) {
  if (page) await page.screenshot({ path: `${outDir}/failure.png`, fullPage: true }).catch(() => {});
  console.error(`[browser] FAILED: ${e.message}`);
  process.exitCode = 1;
} finally {
  await browser.close();
}
