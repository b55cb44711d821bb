//! `tafl serve` over real HTTP on loopback: the API's answers, its 4xx errors, the full queue's
//! 503, deadlines, CORS and metrics.

mod cmd;
mod server;

use serde_json::{json, Value};
use server::Server;
use std::time::{Duration, Instant};

fn error_of(r: &server::Reply) -> String {
    r.json()["error"]
        .as_str()
        .unwrap_or_else(|| panic!("no `error` in {}", r.body))
        .to_string()
}

/// Every bad request gets a 4xx whose JSON says what was wrong.
#[test]
fn bad_input_gets_a_4xx_json_error_that_says_what_was_wrong() {
    let s = Server::start(&["--max-moves", "5", "--max-body", "2048", "--searches", "1"]);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/api/state", "not json".into(), 400, "request body"),
        (
            "/api/state",
            json!({"moves": []}).to_string(),
            400,
            "missing field `rules`",
        ),
        (
            "/api/state",
            json!({"rules": "brandubh", "colour": 1}).to_string(),
            400,
            "unknown field `colour`",
        ),
        (
            "/api/state",
            json!({"rules": "chess"}).to_string(),
            400,
            "rules `chess`: no such ruleset",
        ),
        (
            "/api/state",
            json!({"rules": "/etc/passwd"}).to_string(),
            400,
            "no such ruleset",
        ),
        (
            "/api/state",
            json!({"rules": "brandubh", "moves": ["d1-d9"]}).to_string(),
            400,
            "moves, move 1 (`d1-d9`)",
        ),
        (
            "/api/state",
            json!({"rules": "brandubh", "moves": ["a4-a3", "d4-d7"]}).to_string(),
            400,
            "moves, move 2",
        ),
        (
            "/api/state",
            json!({"rules": "brandubh", "moves": vec!["a4-a3"; 6]}).to_string(),
            413,
            "at most 5",
        ),
        (
            "/api/state",
            json!({"rules": "brandubh", "position": "/8/"}).to_string(),
            400,
            "position",
        ),
        (
            "/api/state",
            json!({"rules": "dim:7 nonsense:x"}).to_string(),
            400,
            "OpenTafl rules string",
        ),
        (
            "/api/state",
            json!({"rules": "x".repeat(3000)}).to_string(),
            413,
            "length limit",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "level": 99}).to_string(),
            400,
            "no level 99",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh"}).to_string(),
            400,
            "give a `level`",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "player": "mcts:model=/tmp/x:10"}).to_string(),
            400,
            "not offered",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "level": 3, "movetime": 600}).to_string(),
            400,
            "movetime: 600 s is too long",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "level": 3, "movetime": -1}).to_string(),
            400,
            "movetime",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "level": 3, "simulations": 0}).to_string(),
            400,
            "simulations: 0",
        ),
        (
            "/api/move",
            json!({"rules": "brandubh", "level": 1, "simulations": 10}).to_string(),
            400,
            "does not search",
        ),
        (
            "/api/analyze",
            json!({"rules": "brandubh", "level": 1}).to_string(),
            400,
            "does not search",
        ),
        (
            "/api/analyze",
            json!({"rules": "brandubh", "level": 3, "top": 0}).to_string(),
            400,
            "top: 0",
        ),
        (
            "/api/rules",
            json!({"rules": "nope"}).to_string(),
            400,
            "no such ruleset",
        ),
    ];
    for (path, body, status, says) in cases {
        let r = s.post(path, &body);
        assert_eq!(r.status, status, "{path} {body}: {}", r.body);
        assert!(
            r.header("content-type")
                .unwrap_or("")
                .starts_with("application/json"),
            "{path} {body}"
        );
        let e = error_of(&r);
        assert!(e.contains(says), "{path} {body}: `{e}` does not say `{says}`");
    }
    // A finished game has no AI move: 409.
    let over = json!({"rules": "brandubh", "position": "/7/7/K6/6t/3T3/7/7/", "to_move": "defenders", "moves": ["a3-a1"], "level": 1});
    let r = s.post("/api/move", &over.to_string());
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(error_of(&r).contains("the game is over"));
    let r = s.get("/api/nowhere");
    assert_eq!(r.status, 404);
    assert!(error_of(&r).contains("no such endpoint"));
    let r = s.get("/api/rulesets/chess");
    assert_eq!(r.status, 404);
    assert!(error_of(&r).contains("no ruleset `chess`"));
    let r = s.get("/api/move");
    assert_eq!(r.status, 405);
    assert!(error_of(&r).contains("GET"));
}

/// Legal moves and status for a move list, a position record, and a finished game.
#[test]
fn state_gives_legal_moves_status_and_the_end_with_its_reason() {
    let s = Server::start(&["--searches", "1"]);
    let st = s
        .post("/api/state", &json!({"rules": "brandubh"}).to_string())
        .json();
    assert_eq!(st["to_move"], "attackers");
    let legal: usize = st["legal"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_array().unwrap().len())
        .sum();
    assert_eq!(legal, 40, "brandubh's start has 40 moves: {st}");
    assert_eq!(st["pieces"].as_array().unwrap().len(), 13);
    assert!(st["outcome"].is_null());

    let st = s
        .post(
            "/api/state",
            &json!({"rules": "brandubh", "moves": ["d1-b1", "d3-b3"]}).to_string(),
        )
        .json();
    assert_eq!(st["ply"], 2);
    assert_eq!(st["to_move"], "attackers");
    assert_eq!(st["last"]["from"], "d3");
    assert_eq!(st["moves"][1]["side"], "defenders");
    assert!(st["legal"]["b1"].as_array().is_some(), "{st}");

    // The king one slide from a corner: legal moves from a position record, then the end.
    let pos = json!({"rules": "brandubh", "position": "/7/7/K6/6t/3T3/7/7/", "to_move": "defenders"});
    let st = s.post("/api/state", &pos.to_string()).json();
    let king_moves: Vec<&str> = st["legal"]["a3"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(king_moves.contains(&"a1"), "{king_moves:?}");
    let mut done = pos.clone();
    done["moves"] = json!(["a3-a1"]);
    let st = s.post("/api/state", &done.to_string()).json();
    assert_eq!(st["outcome"]["winner"], "defenders", "{st}");
    assert_eq!(st["outcome"]["reason"], "escape");
    assert!(st["legal"].as_object().unwrap().is_empty());

    // Captures are reported with the move that made them, in notation; a move written with
    // captures must make exactly those.
    let cap = json!({"rules": "brandubh", "position": "/3t3/7/1tT4/7/3K3/7/7/", "to_move": "attackers", "moves": ["d1-d3"]});
    let st = s.post("/api/state", &cap.to_string()).json();
    assert_eq!(st["moves"][0]["captures"], json!(["c3"]), "{st}");
    assert_eq!(st["moves"][0]["text"], "d1-d3xc3");
    assert_eq!(st["pieces"].as_array().unwrap().len(), 3);
    let mut wrong = cap.clone();
    wrong["moves"] = json!(["d1-d3xb3"]);
    let r = s.post("/api/state", &wrong.to_string());
    assert_eq!(r.status, 400);
    assert!(error_of(&r).contains("the rules capture c3"), "{}", r.body);
}

/// The rulesets with their rules panels and OpenTafl strings; the levels.
#[test]
fn rulesets_levels_health_and_the_page() {
    let s = Server::start(&["--searches", "1"]);
    let list = s.get("/api/rulesets").json();
    let ids: Vec<&str> = list["rulesets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert!(
        ids.contains(&"brandubh") && ids.contains(&"copenhagen"),
        "{ids:?}"
    );
    let b = s.get("/api/rulesets/brandubh").json();
    assert!(
        b["panel"]
            .as_str()
            .unwrap()
            .contains("Brandubh (brandubh), 7x7 board"),
        "{b}"
    );
    assert_eq!(b["corners"].as_array().unwrap().len(), 4);
    let ot = b["opentafl"].as_str().unwrap().to_string();
    // An OpenTafl rules string is accepted wherever a ruleset is.
    let d = s.post("/api/rules", &json!({ "rules": ot }).to_string());
    assert_eq!(d.status, 200, "{}", d.body);
    assert_eq!(d.json()["size"], 7);
    let st = s.post(
        "/api/state",
        &json!({"rules": ot, "moves": ["d1-b1"]}).to_string(),
    );
    assert_eq!(st.status, 200, "{}", st.body);
    let levels = s.get("/api/levels").json();
    assert!(levels["levels"].as_array().unwrap().len() >= 3, "{levels}");
    // The timed top level is marked; hints without a level come from the strongest level that
    // thinks by simulations (level 5), so that they do not depend on the machine's speed.
    let timed: Vec<u64> = levels["levels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["timed"] == true)
        .map(|l| l["level"].as_u64().unwrap())
        .collect();
    assert_eq!(timed, [6], "{levels}");
    let hint = s.post(
        "/api/analyze",
        &json!({"rules": "fetlar", "simulations": 40}).to_string(),
    );
    assert_eq!(hint.status, 200, "{}", hint.body);
    let label = hint.json()["player"].as_str().unwrap().to_string();
    assert!(label.starts_with("level 5 "), "{label}");
    assert_eq!(s.get("/health").json()["status"], "ok");
    let page = s.get("/");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"app.js\">"));
    assert!(s.get("/app.js").body.contains("/api/move"));
    assert!(s
        .get("/style.css")
        .header("content-type")
        .unwrap()
        .starts_with("text/css"));
}

fn is_legal(s: &Server, rules: &str, moves: &[String], mv: &str) -> bool {
    let st = s
        .post("/api/state", &json!({"rules": rules, "moves": moves}).to_string())
        .json();
    let (from, to) = mv.split_once('-').unwrap();
    st["legal"][from]
        .as_array()
        .is_some_and(|a| a.iter().any(|t| t == to))
}

/// The AI's move is legal, with its value and principal variation; analysis lists top moves.
#[test]
fn ai_moves_are_legal_with_value_and_pv_and_analysis_ranks_moves() {
    let s = Server::start(&["--searches", "2", "--allow-player", "mcts:heuristic:64"]);
    let moves = vec!["d1-b1".to_string(), "d3-b3".to_string()];
    let r = s.post(
        "/api/move",
        &json!({"rules": "brandubh", "moves": moves, "player": "mcts:heuristic:64"}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let m = r.json();
    let mv = m["move"].as_str().unwrap();
    assert!(is_legal(&s, "brandubh", &moves, mv), "{mv} is not legal");
    assert_eq!(m["searched"], true);
    let v = m["value"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&v), "{v}");
    assert_eq!(
        m["pv"][0], mv,
        "the principal variation starts with the move: {m}"
    );
    assert!(m["simulations"].as_u64().unwrap() >= 64);
    assert_eq!(m["state"]["ply"], 3);
    assert_eq!(m["state"]["moves"][2]["move"], mv);
    // The same request gives the same move (the seed comes from the position).
    let again = s
        .post(
            "/api/move",
            &json!({"rules": "brandubh", "moves": moves, "player": "mcts:heuristic:64"}).to_string(),
        )
        .json();
    assert_eq!(again["move"], mv);

    // Every level answers with a legal move, a network level too, and under rules with no
    // network (its fallback), and a larger board.
    for (rules, level) in [
        ("brandubh", 1),
        ("brandubh", 2),
        ("brandubh", 3),
        ("copenhagen", 4),
        ("tablut", 5),
    ] {
        let r = s.post("/api/move", &json!({"rules": rules, "level": level, "simulations": if level > 2 { Value::from(16) } else { Value::Null }}).to_string());
        assert_eq!(r.status, 200, "{rules} level {level}: {}", r.body);
        let m = r.json();
        let mv = m["move"].as_str().unwrap();
        assert!(is_legal(&s, rules, &[], mv), "{rules} level {level}: {mv}");
        if m["searched"] == true {
            assert!(
                m["value"].is_number() && !m["pv"].as_array().unwrap().is_empty(),
                "{m}"
            );
        }
    }

    let a = s.post(
        "/api/analyze",
        &json!({"rules": "brandubh", "moves": moves, "player": "mcts:heuristic:64", "top": 3}).to_string(),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    let a = a.json();
    let lines = a["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 3, "{a}");
    let shares: Vec<f64> = lines.iter().map(|l| l["share"].as_f64().unwrap()).collect();
    assert!(shares.windows(2).all(|w| w[0] >= w[1]), "best first: {shares:?}");
    for l in lines {
        assert!(is_legal(&s, "brandubh", &moves, l["move"].as_str().unwrap()));
        assert_eq!(l["pv"][0], l["move"]);
    }
    // The first line is the move the search chose, the one the same player plays, whatever
    // the shares (several moves may share the most visits).
    assert_eq!(lines[0]["chosen"], true, "{a}");
    assert!(lines[1..].iter().all(|l| l["chosen"] == false), "{a}");
    let played = s
        .post(
            "/api/move",
            &json!({"rules": "brandubh", "moves": moves, "player": "mcts:heuristic:64"}).to_string(),
        )
        .json();
    assert_eq!(played["move"], lines[0]["move"], "{played} {a}");
}

/// One search thread and a queue of one: a third search at once is refused with 503 and
/// Retry-After, the other two are answered.
#[test]
fn a_full_queue_answers_503_with_retry_after() {
    let s = Server::start(&[
        "--searches",
        "1",
        "--queue",
        "1",
        "--allow-player",
        "mcts:rollout:100",
    ]);
    let body = json!({"rules": "brandubh", "player": "mcts:rollout:100", "movetime": 1.5}).to_string();
    let addr = s.addr.clone();
    let spawn = |delay: u64| {
        let (addr, body) = (addr.clone(), body.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(delay));
            server::request(&addr, "POST", "/api/move", Some(&body), &[])
        })
    };
    let running = spawn(0);
    let queued = spawn(300);
    std::thread::sleep(Duration::from_millis(700));
    let t = Instant::now();
    let refused = s.post("/api/move", &body);
    assert_eq!(refused.status, 503, "{}", refused.body);
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "refused at once, not after waiting"
    );
    assert!(
        refused
            .header("retry-after")
            .is_some_and(|v| v.parse::<u32>().is_ok()),
        "{:?}",
        refused.headers
    );
    assert!(error_of(&refused).contains("queue is full"));
    assert_eq!(running.join().unwrap().status, 200);
    assert_eq!(queued.join().unwrap().status, 200);
    // The state of a game needs no search thread: answered even while they are all busy.
    let metrics = s.get("/metrics").body;
    assert!(metrics.contains("tafl_searches_rejected_total 1"), "{metrics}");
    assert!(
        metrics.contains("tafl_http_requests_total{route=\"/api/move\",status=\"503\"} 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("tafl_http_requests_total{route=\"/api/move\",status=\"200\"} 2"),
        "{metrics}"
    );
    assert!(metrics.contains("tafl_search_queue_length 0"));
    assert!(metrics.contains("tafl_http_request_duration_seconds_bucket{route=\"/api/move\",le=\"+Inf\"} 3"));
}

/// A search asked for more than the deadline allows stops in time with the best move so far.
#[test]
fn a_search_stops_at_the_request_deadline() {
    let s = Server::start(&[
        "--searches",
        "1",
        "--request-timeout",
        "1.5",
        "--max-movetime",
        "1",
        "--max-simulations",
        "100000000",
        "--allow-player",
        "mcts:rollout:100",
    ]);
    let t = Instant::now();
    let r = s.post(
        "/api/move",
        &json!({"rules": "hnefatafl", "player": "mcts:rollout:100", "simulations": 100_000_000}).to_string(),
    );
    let took = t.elapsed();
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        took < Duration::from_millis(1500),
        "answered after {took:?}, past the 1.5 s deadline"
    );
    let sims = r.json()["simulations"].as_u64().unwrap();
    assert!(sims < 100_000_000 && sims > 0, "{sims}");
}

/// Cross-origin requests are answered only for the origins the operator named.
#[test]
fn cors_only_for_named_origins() {
    let s = Server::start(&["--searches", "1", "--cors-origin", "https://game.example"]);
    let ok = s.request("GET", "/api/levels", None, &[("Origin", "https://game.example")]);
    assert_eq!(
        ok.header("access-control-allow-origin"),
        Some("https://game.example")
    );
    // Any other origin is refused, not only its preflight: its search is not run.
    let other = s.request("GET", "/api/levels", None, &[("Origin", "https://evil.example")]);
    assert_eq!(other.status, 403, "{}", other.body);
    assert_eq!(other.header("access-control-allow-origin"), None);
    let ask = json!({"rules": "brandubh", "level": 1}).to_string();
    let searches = metric(&s, "tafl_search_duration_seconds_count");
    let r = s.request(
        "POST",
        "/api/move",
        Some(&ask),
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(error_of(&r).contains("--cors-origin"), "{}", r.body);
    assert_eq!(
        metric(&s, "tafl_search_duration_seconds_count"),
        searches,
        "the search ran"
    );
    let r = s.request("POST", "/api/move", Some(&ask), &[("Origin", "null")]);
    assert_eq!(r.status, 403, "{}", r.body);
    // The server's own page sends its own origin: that is no cross-origin request.
    let own = format!("http://{}", s.addr);
    let r = s.request("POST", "/api/move", Some(&ask), &[("Origin", &own)]);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("access-control-allow-origin"), None);
    // Behind a proxy that rewrites Host, the host the client asked for.
    let r = s.request(
        "POST",
        "/api/state",
        Some(&json!({"rules": "brandubh"}).to_string()),
        &[
            ("Origin", "https://play.example"),
            ("X-Forwarded-Host", "play.example"),
        ],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let pre = s.request(
        "OPTIONS",
        "/api/move",
        None,
        &[
            ("Origin", "https://game.example"),
            ("Access-Control-Request-Method", "POST"),
        ],
    );
    assert_eq!(pre.status, 204);
    assert!(pre
        .header("access-control-allow-methods")
        .unwrap()
        .contains("POST"));
    let pre = s.request(
        "OPTIONS",
        "/api/move",
        None,
        &[("Origin", "https://evil.example")],
    );
    assert_eq!(pre.status, 403);
    // Without --cors-origin, none.
    let plain = Server::start(&["--searches", "1"]);
    let r = plain.request("GET", "/api/levels", None, &[("Origin", "https://game.example")]);
    assert_eq!(r.status, 403);
    assert_eq!(r.header("access-control-allow-origin"), None);
}

/// A rules file the operator names at start is offered by its id; a second with the same id is
/// refused at start.
#[test]
fn the_operators_rules_files_are_offered_by_id() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/serve-test");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/rules/brandubh.toml"),
    )
    .unwrap()
    .replace("id = \"brandubh\"", "id = \"club-brandubh\"")
    .replace("name = \"Brandubh\"", "name = \"Club Brandubh\"");
    let file = dir.join("club-brandubh.toml");
    std::fs::write(&file, text).unwrap();
    let s = Server::start(&["--searches", "1", "--rules", file.to_str().unwrap()]);
    let list = s.get("/api/rulesets").json();
    assert!(list.to_string().contains("club-brandubh"), "{list}");
    let d = s.get("/api/rulesets/club-brandubh").json();
    assert!(d["panel"].as_str().unwrap().starts_with("Club Brandubh"), "{d}");
    let m = s.post(
        "/api/move",
        &json!({"rules": "club-brandubh", "level": 2}).to_string(),
    );
    assert_eq!(m.status, 200, "{}", m.body);
    // The file's path is not a ruleset a request may name.
    let r = s.post(
        "/api/state",
        &json!({"rules": file.to_str().unwrap()}).to_string(),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["serve", "--rules", "configs/rules/brandubh.toml"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already offered"));
}

/// Options that make no sense are refused at start, naming the flag.
#[test]
fn bad_options_are_refused_at_start() {
    for (args, says) in [
        (vec!["--cors-origin", "game.example"], "--cors-origin"),
        (
            vec!["--max-movetime", "30", "--request-timeout", "10"],
            "--max-movetime",
        ),
        (vec!["--allow-player", "chess"], "--allow-player"),
        // A network that is not there is found at start, not on every request.
        (
            vec!["--allow-player", "mcts:model=/nonexistent:10"],
            "/nonexistent",
        ),
        (
            vec!["--idle-timeout", "30", "--request-timeout", "20"],
            "--idle-timeout",
        ),
        (vec!["--max-connections", "0"], "--max-connections"),
        // More than the machine can hold (memory, `ulimit -n`) is refused, not left to fail
        // (the bad address makes a server that took them stop, not serve).
        (
            vec!["--search-memory", "99999999999", "--bind", "256.0.0.1:1"],
            "memory this process may use",
        ),
        (
            vec!["--max-connections", "1000000", "--bind", "256.0.0.1:1"],
            "ulimit -n",
        ),
        (vec!["--searches", "0"], "--searches"),
        (vec!["--bind", "256.0.0.1:1"], "--bind"),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tafl"))
            .arg("serve")
            .args(&args)
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A body sent too slowly is the client's delay: 408 at the deadline, not the 504 of an answer
/// the server did not make in time; `--help` says what `--queue 0` means.
#[test]
fn a_body_too_slow_gets_408_and_queue_0_is_explained() {
    use std::io::{Read, Write};
    let s = Server::start(&[
        "--searches",
        "1",
        "--request-timeout",
        "1.5",
        "--max-movetime",
        "1",
        "--idle-timeout",
        "1.5",
    ]);
    let mut c = std::net::TcpStream::connect(&s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let head = format!(
        "POST /api/state HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"rules\"",
        s.addr
    );
    c.write_all(head.as_bytes()).unwrap();
    let t0 = Instant::now();
    let mut answer = Vec::new();
    let _ = c.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("request body"), "{answer}");
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    // The server goes on answering.
    assert_eq!(
        s.post("/api/state", &json!({"rules": "brandubh"}).to_string())
            .status,
        200
    );
    let (_, help, _) = cmd::tafl_text(&["serve", "--help"]);
    assert!(help.contains("0: none waits"), "{help}");
}

/// Reads from a raw connection until it closes; true when it closed (EOF or reset) within
/// `within`, false when it was still open then.
fn closes_within(s: &mut std::net::TcpStream, within: Duration) -> bool {
    use std::io::Read;
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 4096];
    let until = Instant::now() + within;
    loop {
        match s.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return false
            }
            Err(_) => return true,
        }
        if Instant::now() >= until {
            return false;
        }
    }
}

fn metric(s: &Server, name: &str) -> f64 {
    let text = s.get("/metrics").body;
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
        .parse()
        .unwrap()
}

/// Connections that never finish their headers, and idle kept-alive ones, are closed after
/// the idle timeout; past the limits a new connection is closed at once; the server goes on
/// answering.
#[test]
fn idle_and_half_open_connections_are_closed_and_their_number_is_bounded() {
    use std::io::Write;
    use std::net::TcpStream;
    let s = Server::start(&[
        "--searches",
        "1",
        "--idle-timeout",
        "1",
        "--max-connections-per-address",
        "4",
    ]);
    // Three connections that never finish their headers, one kept alive after an answer.
    let mut half: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut c = TcpStream::connect(&s.addr).unwrap();
            c.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").unwrap();
            c
        })
        .collect();
    let mut kept = TcpStream::connect(&s.addr).unwrap();
    kept.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // The address has its four: a fifth is closed at once, unanswered.
    std::thread::sleep(Duration::from_millis(200));
    let mut fifth = TcpStream::connect(&s.addr).unwrap();
    let _ = fifth.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    assert!(
        closes_within(&mut fifth, Duration::from_millis(800)),
        "the fifth connection was served"
    );
    // Within the idle timeout (and a margin) every one of the four is closed.
    for c in half.iter_mut().chain(std::iter::once(&mut kept)) {
        assert!(
            closes_within(c, Duration::from_secs(5)),
            "a connection outlived the idle timeout"
        );
    }
    assert_eq!(s.get("/health").status, 200, "the server answers again");
    assert!(metric(&s, "tafl_connections_refused_total") >= 1.0);
    assert!(metric(&s, "tafl_connections_timed_out_total") >= 4.0);
    assert_eq!(metric(&s, "tafl_connections_max"), 512.0);

    // The limit over all addresses.
    let s = Server::start(&[
        "--searches",
        "1",
        "--max-connections",
        "2",
        "--max-connections-per-address",
        "0",
    ]);
    let _held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(&s.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let mut third = TcpStream::connect(&s.addr).unwrap();
    assert!(
        closes_within(&mut third, Duration::from_millis(800)),
        "the third connection was kept"
    );
}

/// A body that is not declared JSON is refused with 415 before anything runs (a browser
/// sends `text/plain` cross-site without a preflight); `/index.html` is the page; a huge
/// number is quoted short.
#[test]
fn only_json_bodies_the_page_by_its_name_and_short_quotes() {
    let s = Server::start(&["--searches", "1"]);
    let body = json!({"rules": "brandubh", "level": 1}).to_string();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        let headers: Vec<(&str, &str)> = ct.iter().map(|c| ("Content-Type", *c)).collect();
        let r = server::request_raw(&s.addr, "POST", "/api/move", &body, &headers);
        assert_eq!(r.status, 415, "{ct:?}: {}", r.body);
        assert!(error_of(&r).contains("application/json"), "{}", r.body);
    }
    let r = server::request_raw(
        &s.addr,
        "POST",
        "/api/state",
        &json!({"rules": "brandubh"}).to_string(),
        &[("Content-Type", "Application/JSON; charset=utf-8")],
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let page = s.get("/index.html");
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<script src=\"app.js\">"));
    let huge = format!(
        r#"{{"rules":"brandubh","level":5,"movetime":1{}}}"#,
        "0".repeat(308)
    );
    let r = s.post("/api/move", &huge);
    assert_eq!(r.status, 400);
    let e = error_of(&r);
    assert!(e.len() < 120 && e.contains("1e308"), "{e}");
}

/// A king's capture is reported as one (with the move, in its text, off the board); a
/// position that is already decided is judged, not played on; `to_move` needs `position`.
#[test]
fn the_kings_capture_and_decided_positions_are_reported() {
    let s = Server::start(&["--searches", "1"]);
    let taken = json!({"rules": "brandubh", "position": "/7/7/7/2t4/1tK4/2t4/3t3/", "to_move": "attackers", "moves": ["d7-d5"]});
    let st = s.post("/api/state", &taken.to_string()).json();
    assert_eq!(st["outcome"]["reason"], "king captured", "{st}");
    assert_eq!(st["moves"][0]["captures"], json!(["c5"]), "{st}");
    assert_eq!(st["moves"][0]["text"], "d7-d5xc5");
    assert!(
        st["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["piece"] != "king"),
        "the captured king is still on the board: {st}"
    );
    // The position text says what `pieces` says: no king. Sent back, it is refused, not a
    // game with the king alive again (here and in `tafl analyze`).
    let issue = json!({"rules": "brandubh", "position": "/4T2/7/7/7/t6/1tKt3/2t4/", "moves": ["a5-c5"]});
    let st = s.post("/api/state", &issue.to_string()).json();
    assert_eq!(st["outcome"]["reason"], "king captured", "{st}");
    assert_eq!(st["position"], "/4T2/7/7/7/2t4/1t1t3/2t4/", "{st}");
    let after = st["position"].as_str().unwrap().to_string();
    for (path, back) in [
        ("/api/state", json!({"rules": "brandubh", "position": after})),
        (
            "/api/move",
            json!({"rules": "brandubh", "position": after, "level": 1}),
        ),
    ] {
        let r = s.post(path, &back.to_string());
        assert_eq!(r.status, 400, "{path}: {}", r.body);
        let e = error_of(&r);
        assert!(e.contains("position") && e.contains("king"), "{e}");
    }
    let (ok, out, err) = cmd::tafl_text(&["analyze", "--rules", "brandubh", "--position", &after]);
    assert!(
        !ok && out.is_empty() && err.contains("--position") && err.contains("found none"),
        "{out}{err}"
    );

    // The capture may be written with the move, or left out.
    let mut written = taken.clone();
    written["moves"] = json!(["d7-d5xc5"]);
    assert_eq!(s.post("/api/state", &written.to_string()).status, 200);

    // The king on a corner: the defenders have won; there is no move to find.
    let corner = json!({"rules": "brandubh", "position": "/K6/3t3/7/7/7/7/7/"});
    let st = s.post("/api/state", &corner.to_string()).json();
    assert_eq!(st["outcome"]["winner"], "defenders", "{st}");
    assert_eq!(st["outcome"]["reason"], "escape");
    assert!(st["legal"].as_object().unwrap().is_empty());
    let mut ask = corner.clone();
    ask["level"] = json!(2);
    assert_eq!(s.post("/api/move", &ask.to_string()).status, 409);
    ask["level"] = json!(5);
    assert_eq!(s.post("/api/analyze", &ask.to_string()).status, 409);

    let r = s.post(
        "/api/state",
        &json!({"rules": "brandubh", "to_move": "defenders"}).to_string(),
    );
    assert_eq!(r.status, 400);
    assert!(error_of(&r).contains("to_move"), "{}", r.body);

    // `tafl analyze` judges it the same way.
    let (_, text, _) = cmd::tafl_text(&[
        "analyze",
        "--rules",
        "brandubh",
        "--position",
        "/K6/3t3/7/7/7/7/7/",
    ]);
    assert!(
        text.contains("the game is over: defenders win (escape)"),
        "{text}"
    );
}

/// Without a seed the AI varies from request to request (the random level, the levels'
/// mistakes); with one it is reproducible; the answer names the seed it used.
#[test]
fn the_ai_varies_without_a_seed_and_repeats_with_one() {
    let s = Server::start(&["--searches", "1"]);
    let ask = |seed: Option<u64>| {
        let mut req = json!({"rules": "brandubh", "level": 1});
        if let Some(v) = seed {
            req["seed"] = json!(v);
        }
        let r = s.post("/api/move", &req.to_string()).json();
        (
            r["move"].as_str().unwrap().to_string(),
            r["seed"].as_u64().unwrap(),
        )
    };
    let unseeded: std::collections::HashSet<String> = (0..12).map(|_| ask(None).0).collect();
    assert!(unseeded.len() > 1, "12 random moves were all {unseeded:?}");
    let (mv, seed) = ask(Some(77));
    assert_eq!(seed, 77);
    for _ in 0..3 {
        assert_eq!(ask(Some(77)).0, mv);
    }
    // A seed the server drew replays the same move.
    let (mv, seed) = ask(None);
    assert_eq!(ask(Some(seed)).0, mv);
}

/// Search trees keep to the memory budget (`--search-memory`, shown in /metrics) and a
/// search to the time asked; a budget too small to search is refused at start.
#[test]
fn search_trees_keep_to_the_memory_budget() {
    let s = Server::start(&["--searches", "1", "--search-memory", "16"]);
    assert_eq!(
        metric(&s, "tafl_search_memory_budget_bytes"),
        (16u64 << 20) as f64
    );
    let r = s.post(
        "/api/move",
        &json!({"rules": "copenhagen", "level": 5, "movetime": 3}).to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let seconds = r.json()["seconds"].as_f64().unwrap();
    // Not a speed claim: the search stops when its tree is full, never past the time asked.
    assert!(seconds < 3.0 + 0.5, "{seconds} s for a 3 s movetime");
    let peak = metric(&s, "tafl_search_tree_bytes_peak");
    assert!(peak > 0.0, "no tree was recorded");
    // One expansion past the limit at most (a node's children: a few hundred nodes).
    assert!(
        peak <= (16u64 << 20) as f64 + 64.0 * 1024.0,
        "{peak} bytes of tree"
    );
    let a = s.post(
        "/api/analyze",
        &json!({"rules": "copenhagen", "level": 5, "simulations": 5000}).to_string(),
    );
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(metric(&s, "tafl_search_tree_bytes_peak") <= (16u64 << 20) as f64 + 64.0 * 1024.0);

    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(["serve", "--searches", "2", "--search-memory", "0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--search-memory"));
}
