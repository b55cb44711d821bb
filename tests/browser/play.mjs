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
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console error: ${m.text()}`); });

  const status = page.locator("#status");
  const moveCount = () => page.locator("#movelist li").count();
  const waitMoves = (n) => page.waitForFunction(
    (k) => document.querySelectorAll("#movelist li").length === k, n, { timeout: 60_000 });
  const waitTurn = () => page.waitForFunction(() => {
    const s = document.querySelector("#status").dataset.state;
    return s === "your-turn" || s === "over";
  }, null, { timeout: 60_000 });

  // Brandubh, the person plays the defenders against level 1: the attackers (the AI) open.
  await page.goto(`${url}/?rules=brandubh&side=defenders&level=1`);
  await waitMoves(1);
  await waitTurn();
  step(`the AI opened: ${await page.locator("#movelist li").first().textContent()}`);
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
