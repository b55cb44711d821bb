// The game page: talks to `tafl serve`'s JSON API only. The server keeps no game; the page
// keeps the move list and sends it with every request.
"use strict";

const $ = (id) => document.getElementById(id);
const game = {
  rules: null, // the ruleset's description (/api/rulesets/ID)
  side: "defenders", // the side the person plays
  level: 3,
  strongest: null, // the level that gives hints
  moves: [], // move texts so far
  state: null, // the last /api/state answer
  selected: null, // the square of the piece picked up
  hint: null, // the hinted line
  busy: false,
  // Drawn for each game, so that the AI's choices among equal moves and a level's
  // deliberate mistakes vary from game to game, and are the same when a game is replayed
  // with its seed (sent with the ply: every move of a game gets its own).
  seed: 0,
  // Bumped by New game and Undo: an answer to a request made before is dropped, so that a
  // click while the AI thinks is never ignored and an old game's answer never lands in a
  // new one.
  epoch: 0,
  inFlight: null, // the AbortController of the request in flight
};

// A request overtaken by New game or Undo: not an error to show.
class Stale extends Error {}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Calls the API. A 503 (every search thread busy) is retried after the Retry-After the
// server gives, up to 5 times, saying so in the status line; `waiting` is the status shown
// again once it is retried.
async function api(path, body, waiting) {
  const epoch = game.epoch;
  for (let attempt = 0; ; attempt++) {
    const controller = new AbortController();
    game.inFlight = controller;
    const init = body === undefined ? { signal: controller.signal } : {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: controller.signal,
    };
    let r;
    try {
      r = await fetch(path, init);
    } catch (e) {
      if (epoch !== game.epoch) throw new Stale();
      throw new Error(`the server did not answer (${e.message})`);
    }
    if (epoch !== game.epoch) throw new Stale();
    if (r.status === 503 && attempt < 5) {
      const wait = Math.min(30, Math.max(1, Number(r.headers.get("retry-after")) || 1));
      setStatus(`The server is busy; trying again in ${wait} s…`, "retrying");
      await sleep(1000 * wait);
      if (epoch !== game.epoch) throw new Stale();
      if (waiting) setStatus(waiting, "thinking");
      continue;
    }
    const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
    if (epoch !== game.epoch) throw new Stale();
    if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
    return data;
  }
}

// Drops whatever is in flight: its answer will be ignored.
function interrupt() {
  game.epoch += 1;
  if (game.inFlight) game.inFlight.abort();
  game.inFlight = null;
  game.busy = false;
}

function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }

function setStatus(text, kind, result) {
  const s = $("status");
  s.textContent = text;
  s.dataset.state = kind;
  if (result) s.dataset.result = result; else delete s.dataset.result;
  s.className = kind === "over" ? `over ${result || ""}`.trim() : kind === "error" ? "error" : "";
}

function humanToMove() {
  return game.state && !game.state.outcome && game.state.to_move === game.side;
}

// Sets a menu from a URL parameter if it offers the value; otherwise says so and keeps the
// menu's default.
function fromUrl(params, key, problems) {
  const v = params.get(key);
  if (v === null) return;
  const menu = $(key);
  const offered = [...menu.options].map((o) => o.value);
  if (offered.includes(v)) {
    menu.value = v;
  } else {
    const shown = v.length > 40 ? `${v.slice(0, 40)}…` : v;
    problems.push(`URL parameter ${key}=${shown} is not offered (${offered.join(", ")}); playing ${menu.value}`);
  }
}

async function init() {
  try {
    const [rs, lv] = await Promise.all([api("/api/rulesets"), api("/api/levels")]);
    for (const r of rs.rulesets) $("rules").add(new Option(`${r.name} (${r.size}×${r.size})`, r.id));
    $("rules").value = "brandubh";
    for (const l of lv.levels) {
      // The first sentence in the menu, the whole description as its tooltip.
      const o = new Option(`${l.level}: ${l.description.split(/[.(,;]/)[0]}`, l.level);
      o.title = `${l.description} ${l.player}`;
      $("level").add(o);
    }
    $("level").value = "3";
    // Hints come from the strongest level that thinks by simulations: the same position gets
    // the same hint whatever the server's load (as /api/analyze chooses without a level).
    const searching = lv.levels.filter((l) => l.searches && !l.timed).map((l) => l.level);
    game.strongest = searching.length ? Math.max(...searching) : null;
    const params = new URLSearchParams(location.search);
    const problems = [];
    for (const k of ["rules", "side", "level"]) fromUrl(params, k, problems);
    // `moves` (space or comma separated) resumes a game: a link to a position.
    const moves = (params.get("moves") || "").split(/[\s,]+/).filter((m) => m);
    await newGame(moves);
    if (problems.length) showError(problems.join("; "));
  } catch (e) {
    showError(e);
    setStatus("The page could not start: see the message below.", "error");
  }
}

async function newGame(moves) {
  interrupt();
  showError(null);
  game.side = $("side").value;
  game.level = Number($("level").value);
  game.moves = Array.isArray(moves) ? moves : [];
  game.seed = Math.floor(Math.random() * 2 ** 32);
  game.selected = null;
  game.hint = null;
  game.state = null;
  $("hint-text").textContent = "";
  $("ai-text").textContent = "";
  setStatus("Starting a game…", "starting");
  try {
    game.rules = await api(`/api/rulesets/${encodeURIComponent($("rules").value)}`);
    $("panel").textContent = game.rules.panel;
    try {
      await refresh();
    } catch (e) {
      if (game.moves.length === 0 || e instanceof Stale) throw e;
      // Moves from a link that do not play: the start instead, saying why.
      game.moves = [];
      await refresh();
      showError(`URL parameter moves: ${e.message}; starting from the beginning`);
    }
    await aiTurn();
  } catch (e) {
    if (e instanceof Stale) return;
    showError(e);
    setStatus("The game could not start: see the message below. Press New game to try again.", "error");
  }
}

async function refresh() {
  game.state = await api("/api/state", { rules: game.rules.id, moves: game.moves });
  render();
}

async function aiTurn() {
  if (!game.state || game.state.outcome || humanToMove()) return;
  game.busy = true;
  const epoch = game.epoch;
  const thinking = `The AI (level ${game.level}) is thinking…`;
  setStatus(thinking, "thinking");
  try {
    const r = await api("/api/move", {
      rules: game.rules.id, moves: game.moves, level: game.level, seed: game.seed + game.moves.length,
    }, thinking);
    game.moves.push(r.move);
    game.state = r.state;
    // A move found without search (a random or greedy level, or a level's deliberate
    // mistake) has no value.
    const value = r.value === null ? "" : ` (value ${fmt(r.value)} for the AI)`;
    $("ai-text").textContent = `AI played ${r.text}${value}`;
  } catch (e) {
    if (e instanceof Stale) return;
    game.busy = false;
    showError(e);
    render();
    setStatus("The AI could not answer: see the message below. Press Retry, Undo or New game.", "error");
    $("retry").hidden = false;
    return;
  } finally {
    if (epoch === game.epoch) game.busy = false;
  }
  render();
}

async function play(text) {
  game.busy = true;
  game.selected = null;
  game.hint = null;
  $("hint-text").textContent = "";
  showError(null);
  setStatus(`Playing ${text}…`, "sending");
  const epoch = game.epoch;
  try {
    game.moves.push(text);
    try { await refresh(); } catch (e) { if (!(e instanceof Stale)) game.moves.pop(); throw e; }
  } catch (e) {
    if (e instanceof Stale) return;
    showError(e);
  } finally {
    if (epoch === game.epoch) game.busy = false;
  }
  render();
  await aiTurn();
}

async function hint() {
  if (game.busy || !humanToMove() || game.strongest === null) return;
  game.busy = true;
  const epoch = game.epoch;
  $("hint-text").textContent = "Thinking about a hint…";
  try {
    const r = await api("/api/analyze", { rules: game.rules.id, moves: game.moves, level: game.strongest, top: 3 });
    const best = r.lines[0];
    game.hint = best;
    const el = $("hint-text");
    el.dataset.move = best.move;
    el.textContent = `Hint: ${best.move} — value ${fmt(best.value)} for you (line ${best.pv.join(" ")})`;
  } catch (e) {
    if (e instanceof Stale) return;
    showError(e);
    $("hint-text").textContent = "";
  } finally {
    if (epoch === game.epoch) game.busy = false;
  }
  render();
}

async function undo() {
  if (game.moves.length === 0 || !game.rules) return;
  // Also while the AI thinks: its answer is dropped.
  interrupt();
  showError(null);
  $("retry").hidden = true;
  // Back to the person's previous turn: the AI's answer and the person's move go.
  const first = game.rules.first;
  const toMove = (k) => (k % 2 === 0 ? first : (first === "attackers" ? "defenders" : "attackers"));
  game.moves.pop();
  while (game.moves.length > 0 && toMove(game.moves.length) !== game.side) game.moves.pop();
  game.selected = null;
  game.hint = null;
  $("hint-text").textContent = "";
  $("ai-text").textContent = "";
  try { await refresh(); await aiTurn(); } catch (e) { if (!(e instanceof Stale)) showError(e); }
}

function fmt(v) { return (v >= 0 ? "+" : "") + v.toFixed(2); }

function squareName(file, rank) { return String.fromCharCode(97 + file) + (rank + 1); }

function onSquare(sq) {
  if (game.busy || !humanToMove()) return;
  const legal = game.state.legal;
  if (game.selected && (legal[game.selected] || []).includes(sq)) {
    play(`${game.selected}-${sq}`);
    return;
  }
  game.selected = legal[sq] && game.selected !== sq ? sq : null;
  render();
}

function render() {
  const st = game.state;
  if (!st) return;
  const n = st.size;
  const board = $("board");
  board.style.setProperty("--n", n);
  board.replaceChildren();
  const pieces = new Map(st.pieces.map((p) => [p.square, p.piece]));
  const special = new Set([...(game.rules.corners || []), ...(game.rules.throne ? [game.rules.throne] : [])]);
  const lastMove = st.moves.length ? st.moves[st.moves.length - 1] : null;
  const captured = new Set(lastMove ? lastMove.captures : []);
  const targets = new Set(game.selected ? st.legal[game.selected] || [] : []);
  for (let rank = n - 1; rank >= 0; rank--) {
    const label = document.createElement("div");
    label.className = "label";
    label.textContent = rank + 1;
    board.append(label);
    for (let file = 0; file < n; file++) {
      const sq = squareName(file, rank);
      const b = document.createElement("button");
      b.type = "button";
      b.className = "sq";
      b.dataset.square = sq;
      const piece = pieces.get(sq);
      b.setAttribute("aria-label", piece ? `${sq} ${piece}` : sq);
      if (special.has(sq)) b.classList.add("special");
      if (st.last && st.last.from === sq) b.classList.add("last-from");
      if (st.last && st.last.to === sq) b.classList.add("last-to");
      if (captured.has(sq)) b.classList.add("captured");
      if (game.selected === sq) b.classList.add("selected");
      if (targets.has(sq)) b.classList.add("target");
      if (game.hint && game.hint.move.split("-")[0] === sq) b.classList.add("hint-from");
      if (game.hint && game.hint.move.split("-")[1] === sq) b.classList.add("hint-to");
      if (piece) {
        const p = document.createElement("span");
        p.className = `piece ${piece}`;
        b.append(p);
      }
      b.addEventListener("click", () => onSquare(sq));
      board.append(b);
    }
  }
  board.append(document.createElement("div"));
  for (let file = 0; file < n; file++) {
    const label = document.createElement("div");
    label.className = "label";
    label.textContent = String.fromCharCode(97 + file);
    board.append(label);
  }

  // The move list, numbered by pairs, and the same as copyable notation.
  const list = $("movelist");
  list.replaceChildren();
  const parts = [];
  st.moves.forEach((m, i) => {
    const li = document.createElement("li");
    li.textContent = `${m.side}: ${m.text}`;
    list.append(li);
    if (i % 2 === 0) parts.push(`${i / 2 + 1}.`);
    parts.push(m.text);
  });
  $("notation").value = parts.join(" ");

  const took = { attackers: 0, defenders: 0 };
  for (const m of st.moves) took[m.side] += m.captures.length;
  $("captures").textContent = `Captures: attackers took ${took.attackers}, defenders took ${took.defenders}` +
    (lastMove && lastMove.captures.length ? ` (last move took ${lastMove.captures.join(" ")})` : "");

  if (st.outcome) {
    const w = st.outcome.winner;
    const result = w === null ? "draw" : w === game.side ? "won" : "lost";
    const who = { draw: " — no winner.", won: " — you win!", lost: " — the AI wins." }[result];
    setStatus(`Game over: ${st.outcome.text}${who}`, "over", result);
  } else if (!game.busy) {
    setStatus(humanToMove() ? `Your move (${game.side})` : "The AI is to move", humanToMove() ? "your-turn" : "thinking");
  }
  $("undo").disabled = game.moves.length === 0;
  $("hint").disabled = !humanToMove() || game.strongest === null || game.busy;
  if (game.busy || st.outcome || humanToMove()) $("retry").hidden = true;
}

async function copyMoves() {
  const text = $("notation").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    $("notation").select();
    document.execCommand("copy");
  }
}

$("new").addEventListener("click", () => newGame());
// A new ruleset or side is a new game; a new level plays from the AI's next move.
$("rules").addEventListener("change", () => newGame());
$("side").addEventListener("change", () => newGame());
$("level").addEventListener("change", () => {
  game.level = Number($("level").value);
  $("ai-text").textContent = `Level ${game.level} plays from the AI's next move.`;
  if (!game.busy) aiTurn();
});
$("retry").addEventListener("click", () => { $("retry").hidden = true; showError(null); aiTurn(); });
$("hint").addEventListener("click", hint);
$("undo").addEventListener("click", undo);
$("copy").addEventListener("click", copyMoves);
init();
