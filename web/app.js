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
};

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  const r = await fetch(path, init);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function showError(e) { $("error").textContent = e ? String(e.message || e) : ""; }

function setStatus(text, kind) {
  const s = $("status");
  s.textContent = text;
  s.dataset.state = kind;
  s.className = kind === "over" ? "over" : "";
}

function humanToMove() {
  return game.state && !game.state.outcome && game.state.to_move === game.side;
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
    const searching = lv.levels.filter((l) => l.searches).map((l) => l.level);
    game.strongest = searching.length ? Math.max(...searching) : null;
    const params = new URLSearchParams(location.search);
    for (const k of ["rules", "side", "level"]) if (params.get(k)) $(k).value = params.get(k);
    await newGame();
  } catch (e) { showError(e); }
}

async function newGame() {
  if (game.busy) return;
  showError(null);
  game.side = $("side").value;
  game.level = Number($("level").value);
  game.moves = [];
  game.seed = Math.floor(Math.random() * 2 ** 32);
  game.selected = null;
  game.hint = null;
  $("hint-text").textContent = "";
  $("ai-text").textContent = "";
  try {
    game.rules = await api(`/api/rulesets/${encodeURIComponent($("rules").value)}`);
    $("panel").textContent = game.rules.panel;
    await refresh();
    await aiTurn();
  } catch (e) { showError(e); }
}

async function refresh() {
  game.state = await api("/api/state", { rules: game.rules.id, moves: game.moves });
  render();
}

async function aiTurn() {
  if (!game.state || game.state.outcome || humanToMove()) return;
  game.busy = true;
  setStatus("The AI is thinking…", "thinking");
  try {
    const r = await api("/api/move", {
      rules: game.rules.id, moves: game.moves, level: game.level, seed: game.seed + game.moves.length,
    });
    game.moves.push(r.move);
    game.state = r.state;
    // A move found without search (a random or greedy level, or a level's deliberate
    // mistake) has no value.
    const value = r.value === null ? "" : ` (value ${fmt(r.value)} for the AI)`;
    $("ai-text").textContent = `AI played ${r.text}${value}`;
  } catch (e) { showError(e); } finally { game.busy = false; }
  render();
}

async function play(text) {
  game.busy = true;
  game.selected = null;
  game.hint = null;
  $("hint-text").textContent = "";
  try {
    game.moves.push(text);
    try { await refresh(); } catch (e) { game.moves.pop(); throw e; }
  } catch (e) { showError(e); } finally { game.busy = false; }
  render();
  await aiTurn();
}

async function hint() {
  if (game.busy || !humanToMove() || game.strongest === null) return;
  game.busy = true;
  $("hint-text").textContent = "Thinking about a hint…";
  try {
    const r = await api("/api/analyze", { rules: game.rules.id, moves: game.moves, level: game.strongest, top: 3 });
    const best = r.lines[0];
    game.hint = best;
    const el = $("hint-text");
    el.dataset.move = best.move;
    el.textContent = `Hint: ${best.move} — value ${fmt(best.value)} for you (line ${best.pv.join(" ")})`;
  } catch (e) { showError(e); $("hint-text").textContent = ""; } finally { game.busy = false; }
  render();
}

async function undo() {
  if (game.busy || game.moves.length === 0) return;
  showError(null);
  // Back to the person's previous turn: the AI's answer and the person's move go.
  const first = game.rules.first;
  const toMove = (k) => (k % 2 === 0 ? first : (first === "attackers" ? "defenders" : "attackers"));
  game.moves.pop();
  while (game.moves.length > 0 && toMove(game.moves.length) !== game.side) game.moves.pop();
  game.selected = null;
  game.hint = null;
  $("hint-text").textContent = "";
  $("ai-text").textContent = "";
  try { await refresh(); await aiTurn(); } catch (e) { showError(e); }
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
    const who = w === null ? "" : w === game.side ? " — you win!" : " — the AI wins.";
    setStatus(`Game over: ${st.outcome.text}${who}`, "over");
  } else if (!game.busy) {
    setStatus(humanToMove() ? `Your move (${game.side})` : "The AI is to move", humanToMove() ? "your-turn" : "thinking");
  }
  $("undo").disabled = game.moves.length === 0;
  $("hint").disabled = !humanToMove() || game.strongest === null;
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

$("new").addEventListener("click", newGame);
$("hint").addEventListener("click", hint);
$("undo").addEventListener("click", undo);
$("copy").addEventListener("click", copyMoves);
init();
