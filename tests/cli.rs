//! End-to-end tests of the `tafl` binary.

mod cmd;

use cmd::tafl_stdin;
use std::process::Command;

use cmd::tafl_text as tafl;

#[test]
fn perft_prints_the_leaf_count_on_the_last_line() {
    let (ok, out, _) = tafl(&["perft", "hnefatafl", "3"]);
    assert!(ok);
    assert_eq!(out.lines().last(), Some("806344"));
    let (ok, out, _) = tafl(&["perft", "brandubh", "2", "--divide"]);
    assert!(ok);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 41, "40 first moves and the total");
    assert_eq!(lines[40], "960");
    assert!(lines[0].contains('-'), "{}", lines[0]);
}

#[test]
fn random_games_reproduce_whatever_the_thread_count() {
    let args = [
        "random",
        "brandubh",
        "--games",
        "600",
        "--seed",
        "42",
        "--ply-limit",
        "300",
    ];
    let (ok1, one, _) = tafl(&[&args[..], &["--threads", "1"]].concat());
    let (ok2, two, _) = tafl(&[&args[..], &["--threads", "2"]].concat());
    assert!(ok1 && ok2);
    assert_eq!(one, two);
    let (_, other_seed, _) = tafl(&[
        "random",
        "brandubh",
        "--games",
        "600",
        "--seed",
        "43",
        "--ply-limit",
        "300",
    ]);
    assert_ne!(one, other_seed, "a different seed should give different figures");
    // The tallies add up.
    let num = |key: &str| -> u64 {
        let line = one
            .lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("{key} in {one}"));
        line[key.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let (d, a, dec, draws, none) = (
        num("defender wins:"),
        num("attacker wins:"),
        num("decisive games:"),
        num("draws:"),
        num("no result:"),
    );
    assert_eq!(d + a, dec);
    assert_eq!(dec + draws + none, 600);
}

#[test]
fn rules_panel_is_generated_from_the_data() {
    let (ok, out, _) = tafl(&["rules", "copenhagen"]);
    assert!(ok);
    assert!(out.contains("Shieldwall"), "{out}");
    assert!(out.contains("Exit fort"));
    assert!(out.contains("Encirclement"));
    assert!(out.contains("the defenders lose"));
    assert!(out.contains("24 attackers against 12 defenders"));
    assert!(out.contains("11 # . . A A A A A . . #"), "{out}");
    let (_, brandubh, _) = tafl(&["rules", "brandubh"]);
    assert!(!brandubh.contains("Shieldwall"));
    assert!(brandubh.contains("corner square"));
    let (_, tt, _) = tafl(&["rules", "tablut-traditional"]);
    assert!(
        tt.contains("any edge square") && tt.contains("elsewhere like a soldier"),
        "{tt}"
    );
}

#[test]
fn user_rules_files_load_and_bad_ones_are_refused_clearly() {
    let dir = std::env::temp_dir().join(format!("tafl-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (_, toml, _) = tafl(&["rules", "brandubh", "--toml"]);
    let good = dir.join("mine.toml");
    std::fs::write(&good, toml.replace("id = \"brandubh\"", "id = \"mine\"")).unwrap();
    let (ok, out, err) = tafl(&["perft", good.to_str().unwrap(), "2"]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().last(), Some("960"));

    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        toml.replace("escape = \"corners\"", "escape = \"sideways\""),
    )
    .unwrap();
    let (ok, _, err) = tafl(&["rules", bad.to_str().unwrap()]);
    assert!(!ok);
    assert!(
        err.contains("bad.toml") && err.contains("field `escape`") && err.contains("`corners` or `edge`"),
        "{err}"
    );

    let (ok, _, err) = tafl(&["rules", "no-such-rules"]);
    assert!(!ok);
    assert!(err.contains("brandubh"), "should list the built-in ids: {err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn every_builtin_works_from_any_directory() {
    for id in [
        "brandubh",
        "tablut",
        "hnefatafl",
        "copenhagen",
        "fetlar",
        "brandubh-traditional",
        "tablut-traditional",
        "tawlbwrdd",
        "alea-evangelii",
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(["random", id, "--games", "20", "--ply-limit", "200"])
            .current_dir(std::env::temp_dir())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{id}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn play_against_the_ai_from_piped_input() {
    // Attackers move first: the human (attackers) moves, the AI answers; then bad input, an
    // illegal move, a hint, an undo, and quit.
    let (ok, out, err) = tafl_stdin(
        &[
            "play",
            "--rules",
            "brandubh",
            "--side",
            "attackers",
            "--level",
            "2",
        ],
        "d1-b1\nz9\nd2-d1\nhint\nundo\nquit\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("last move: d1-b1"), "{out}");
    assert!(out.contains("AI plays"), "{out}");
    assert!(out.contains("not a move"), "{out}");
    assert!(
        out.contains("illegal move d2-d1") || out.contains("AI plays"),
        "{out}"
    );
    assert!(out.contains("hint: "), "{out}");
    // Undo takes back the human's second move and the AI's answer: the board shown last is
    // the one after the AI's first reply.
    let first_reply = out.split("AI plays ").nth(1).unwrap().lines().next().unwrap();
    let after_undo = out.rsplit("hint: ").next().unwrap();
    assert!(
        after_undo.contains(&format!("last move: {first_reply}")),
        "{after_undo}"
    );
    assert_eq!(out.matches("AI plays").count(), 2, "{out}");
}

#[test]
fn a_played_game_ends_with_its_outcome_and_reason() {
    // Play the defenders through the pipe by asking for a hint each turn and playing it,
    // against the random level, until the game reports its end.
    use std::io::{BufRead, BufReader, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args([
            "play",
            "--rules",
            "brandubh",
            "--side",
            "defenders",
            "--level",
            "1",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run tafl");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "hint").unwrap();
    let mut ending = None;
    let mut moves = 0;
    let mut refused_after_the_end = false;
    while let Some(Ok(line)) = lines.next() {
        // The last hint asked for comes after the final move and is refused.
        if line.contains("no hint: ") {
            refused_after_the_end |= line.contains("no hint: the game is over");
            continue;
        }
        if let Some(rest) = line.split("hint: ").nth(1) {
            let mv = rest.split_whitespace().next().unwrap().to_string();
            writeln!(stdin, "{mv}").unwrap();
            writeln!(stdin, "hint").unwrap();
            moves += 1;
            assert!(moves < 200, "the game should end");
        }
        // The prompt repeats "game over" for each line still queued (the last "hint"): quit
        // once, since the program may be gone before a second quit could be written.
        if let Some(rest) = line.split("game over: ").nth(1) {
            if ending.is_none() {
                writeln!(stdin, "quit").unwrap();
            }
            ending = Some(rest.to_string());
        }
    }
    assert!(child.wait().unwrap().success());
    let ending = ending.expect("the game ended");
    eprintln!("after {moves} moves of ours: {ending}");
    assert!(moves >= 1);
    assert!(ending.contains('('), "the outcome names its reason: {ending}");
    assert!(refused_after_the_end, "a hint after the end is refused as such");
}

#[test]
fn analyze_lists_top_moves_with_values_and_lines() {
    let (ok, out, err) = tafl(&[
        "analyze",
        "--rules",
        "brandubh",
        "--position",
        "/7/7/7/3K3/7/6t/7/",
        "--to-move",
        "defenders",
        "--player",
        "mcts:uniform:3000",
        "--top",
        "3",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("proven win"), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("1 ") && l.contains("(wins)")),
        "{out}"
    );
    let (ok, _, err) = tafl(&["analyze", "--rules", "brandubh", "--moves", "d1-d9"]);
    assert!(!ok && err.contains("move 1"), "{err}");
}

#[test]
fn arena_exploration_is_reported_seeded_and_in_the_rerun_line() {
    let args = [
        "arena",
        "mcts:heuristic:20",
        "greedy",
        "--rules",
        "brandubh",
        "--games",
        "10",
        "--seed",
        "5",
        "--exploration",
        "0.25",
    ];
    let (ok, out, err) = tafl(&args);
    assert!(ok, "{err}");
    // (The per-side table and Elo are checked by `arena_reports_per_side_results_and_elo`.)
    assert!(out.contains("exploration 0.25: each move"), "{out}");
    let rerun = out
        .lines()
        .find_map(|l| l.strip_prefix("rerun: tafl "))
        .unwrap_or_else(|| panic!("no rerun line: {out}"));
    assert!(rerun.contains("--exploration 0.25"), "{rerun}");
    // The rerun line plays the same match: exploration moves are seeded.
    let words: Vec<&str> = rerun.split_whitespace().collect();
    let (ok, again, err) = tafl(&words);
    assert!(ok, "{err}");
    assert_eq!(out, again, "the rerun line reproduces the match");
    // Without exploration the games differ (and the output says there was none).
    let (ok, plain, _) = tafl(&args[..args.len() - 2]);
    assert!(ok && plain.contains("exploration 0: "), "{plain}");
    let table = |o: &str| o.lines().take(5).collect::<Vec<_>>().join("\n");
    assert_ne!(table(&out), table(&plain), "{out}\n{plain}");
    for bad in ["1.5", "-0.1", "NaN"] {
        let flag = format!("--exploration={bad}");
        let (ok, _, err) = tafl(&["arena", "random", "random", "--rules", "brandubh", &flag]);
        assert!(!ok && err.contains("--exploration"), "{bad}: {err}");
    }
}

#[test]
fn arena_reports_per_side_results_and_elo() {
    let (ok, out, err) = tafl(&[
        "arena",
        "mcts:heuristic:50",
        "random",
        "--rules",
        "brandubh",
        "--games",
        "10",
        "--seed",
        "3",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("10 games in colour-swapped pairs"), "{out}");
    assert!(
        out.contains("attackers") && out.contains("defenders") && out.contains("Elo (95%"),
        "{out}"
    );
    let (ok2, out2, _) = tafl(&[
        "arena",
        "mcts:heuristic:50",
        "random",
        "--rules",
        "brandubh",
        "--games",
        "10",
        "--seed",
        "3",
        "--threads",
        "1",
    ]);
    assert!(ok2);
    assert_eq!(out, out2, "arena results must not depend on the thread count");
    let (ok, _, err) = tafl(&["arena", "mcts:nope", "random", "--rules", "brandubh"]);
    assert!(!ok && err.contains("accepted"), "{err}");
    let (ok, _, err) = tafl(&[
        "arena",
        "random",
        "random",
        "--rules",
        "brandubh",
        "--ply-limit",
        "4",
        "--opening-plies",
        "4",
    ]);
    assert!(
        !ok && err.contains("--opening-plies 4 must be below --ply-limit 4"),
        "{err}"
    );
}

#[test]
fn a_timed_arena_gives_each_search_the_cores_of_its_game() {
    // One game at a time: a player that thinks by time searches on every core; one that thinks
    // by simulations keeps its one tree. `--search-threads` replaces both.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let match_line = |extra: &[&str]| {
        let mut args = vec![
            "arena",
            "mcts:heuristic",
            "greedy",
            "--rules",
            "brandubh",
            "--games",
            "2",
            "--movetime",
            "0.01",
            "--threads",
            "1",
        ];
        args.extend_from_slice(extra);
        let (ok, out, err) = tafl(&args);
        assert!(ok, "{err}");
        out.lines()
            .find(|l| l.starts_with("thinking time: "))
            .unwrap_or_else(|| panic!("no thinking time line: {out}"))
            .to_string()
    };
    let threads = |n: usize, parallel: &str| match n {
        1 => "1 search thread".to_string(),
        n => format!("{n} search threads, {parallel} parallel"),
    };
    let line = match_line(&[]);
    let own = threads(cores, "root");
    assert!(
        line.contains(&format!("(A: {own}; B: {own})")),
        "{cores} cores: {line}"
    );
    let line = match_line(&["--search-threads", "3", "--parallel", "tree"]);
    let given = threads(3, "tree");
    assert!(line.contains(&format!("(A: {given}; B: {given})")), "{line}");
    // By simulations: one tree each, though the one game at a time has every core.
    let (ok, out, err) = tafl(&[
        "arena",
        "mcts:heuristic:20",
        "greedy",
        "--rules",
        "brandubh",
        "--games",
        "2",
        "--threads",
        "1",
    ]);
    assert!(ok && !out.contains("search thread"), "{err}{out}");
}

#[test]
fn a_level_can_search_one_shared_tree_and_the_command_line_overrides_it() {
    // A site's levels file: level 2 thinks by time on one shared tree, level 1 on merged trees.
    let dir = std::env::temp_dir().join(format!("tafl-parallel-level-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("levels.toml");
    std::fs::write(
        &file,
        "[[level]]\nlevel = 1\nplayer = \"mcts:heuristic\"\nmovetime = 0.01\n\n\
         [[level]]\nlevel = 2\nplayer = \"mcts:heuristic\"\nmovetime = 0.01\nparallel = \"tree\"\n",
    )
    .unwrap();
    let arena = |extra: &[&str]| {
        let mut args = vec![
            "arena",
            "level:2",
            "level:1",
            "--rules",
            "brandubh",
            "--games",
            "2",
            "--threads",
            "1",
            "--search-threads",
            "2",
        ];
        args.extend_from_slice(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .args(&args)
            .env("TAFL_LEVELS", &file)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        text
    };
    let out = arena(&[]);
    assert!(out.contains("one shared tree"), "the label says it: {out}");
    assert!(
        out.contains("A: 2 search threads, tree parallel; B: 2 search threads, root parallel"),
        "each level keeps its own: {out}"
    );
    assert!(
        !out.contains("--parallel"),
        "not given, not in the rerun line: {out}"
    );
    let out = arena(&["--parallel", "root"]);
    assert!(
        out.contains("A: 2 search threads, root parallel; B: 2 search threads, root parallel"),
        "the flag replaces both: {out}"
    );
    assert!(out.contains("--parallel root"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_times_the_players_asked_for_and_refuses_ones_that_cannot_play() {
    // A network of one's own (here the shipped Brandubh one, by its path) is timed beside the
    // hand-written search, and nothing else is.
    let (ok, out, err) = cmd::tafl_text(&[
        "bench",
        "--rules",
        "brandubh",
        "--seconds",
        "0.05",
        "--search",
        "brandubh",
        "--player",
        "mcts:heuristic",
        "--player",
        "mcts:model=checkpoints/brandubh",
    ]);
    assert!(ok, "{err}");
    for spec in ["mcts:heuristic ", "mcts:model=checkpoints/brandubh "] {
        let rows: Vec<&str> = out
            .lines()
            .filter(|l| l.contains(&format!("one search {spec}")))
            .collect();
        assert_eq!(rows.len(), 3, "{out}");
        for row in rows {
            let rate: f64 = row
                .split("thread(s)")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|r| r.parse().ok())
                .unwrap_or_else(|| panic!("no rate in {row}"));
            assert!(rate > 0.0, "{row}");
        }
    }
    assert!(!out.contains("hybrid"), "{out}");
    // A player for other rules, an unknown one, and players without --search are refused,
    // naming the flag.
    for (args, says) in [
        (
            &[
                "--search",
                "brandubh",
                "--player",
                "mcts:model=checkpoints/tablut",
            ][..],
            &["--player mcts:model=checkpoints/tablut", "size"][..],
        ),
        (
            &["--search", "brandubh", "--player", "mcts:foo"],
            &["--player mcts:foo", "unknown evaluator"],
        ),
        (&["--player", "mcts:heuristic"], &["--player", "--search"]),
    ] {
        let mut all = vec!["bench", "--rules", "brandubh", "--seconds", "0.05"];
        all.extend_from_slice(args);
        let (ok, _, err) = cmd::tafl_text(&all);
        assert!(!ok, "{args:?}");
        for s in says {
            assert!(err.contains(s), "{args:?}: {err}");
        }
    }
}

#[test]
fn arena_writes_each_game_as_a_record_that_replays_and_reads_back() {
    use tafl_engine::{formats::GameRecord, Rules, Ruleset};
    let dir = std::env::temp_dir().join(format!("tafl-arena-records-{}", std::process::id()));
    std::fs::remove_dir_all(&dir).ok();
    let records = dir.join("games");
    let args = |folder: &std::path::Path, extra: &[&str]| {
        let mut v: Vec<String> = [
            "arena",
            "mcts:heuristic:20",
            "greedy",
            "--rules",
            "brandubh",
            "--seed",
            "4",
            "--ply-limit",
            "80",
            "--records",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        v.push(folder.to_str().unwrap().to_string());
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let run = |v: &[String]| {
        let v: Vec<&str> = v.iter().map(|s| s.as_str()).collect();
        tafl(&v)
    };
    let (ok, out, err) = run(&args(&records, &["--games", "6"]));
    assert!(ok, "{err}");
    let rs = Ruleset::builtin("brandubh");
    let rules = Rules::<u128>::new(&rs).unwrap();
    // A's (wins, draws, losses) as attackers and as defenders, from the records alone.
    let mut tally = [(0, 0, 0), (0, 0, 0)];
    for g in 1..=6u32 {
        let path = records.join(format!("game-{g:04}.txt"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rec = GameRecord::parse(&text).unwrap();
        let game = rec.replay(&rules).unwrap_or_else(|e| panic!("{text}\n{e}"));
        let a_attacks = g % 2 == 1;
        let (att, def) = if a_attacks {
            ("mcts:heuristic:20", "greedy")
        } else {
            ("greedy", "mcts:heuristic:20")
        };
        assert_eq!(rec.tag("Attackers"), Some(att), "{text}");
        assert_eq!(rec.tag("Defenders"), Some(def), "{text}");
        assert_eq!(
            rec.tag("Game").unwrap(),
            format!("{g} of 6 (pair {})", g.div_ceil(2))
        );
        assert!(
            rec.tag("Match")
                .unwrap()
                .starts_with("tafl arena mcts:heuristic:20 greedy --rules brandubh --games 6 --seed 4"),
            "{text}"
        );
        let outcome = game
            .outcome()
            .unwrap_or_else(|| panic!("every game ends: {text}"));
        assert_eq!(rec.tag("Result"), Some(outcome.result_text()), "{text}");
        let side = &mut tally[usize::from(!a_attacks)];
        match outcome.winner {
            None => side.1 += 1,
            Some(w) if (w == tafl_engine::Side::Attackers) == a_attacks => side.0 += 1,
            Some(_) => side.2 += 1,
        }
    }
    assert!(!records.join("game-0007.txt").exists());
    for (name, (w, d, l)) in ["attackers", "defenders"].iter().zip(tally) {
        let row = format!("{name:<12} {w:>6} {d:>6} {l:>6}");
        assert!(out.contains(&row), "the records give `{row}`:\n{out}");
    }
    // The records are an archive `tafl records` reads.
    let (ok, eval, err) = tafl(&[
        "records",
        "eval",
        records.to_str().unwrap(),
        "--rules",
        "brandubh",
        "--split",
        "all",
    ]);
    assert!(ok, "{err}");
    assert!(eval.contains("6 games read"), "{eval}");
    // A record's position is set up again for analysis, after any number of its plies.
    let first = records.join("game-0001.txt");
    let plies = GameRecord::parse(&std::fs::read_to_string(&first).unwrap())
        .unwrap()
        .moves
        .len();
    let analyze = |extra: &[&str]| {
        let mut v = vec![
            "analyze",
            "--record",
            first.to_str().unwrap(),
            "--player",
            "mcts:heuristic:30",
            "--top",
            "1",
        ];
        v.extend_from_slice(extra);
        tafl(&v)
    };
    let (ok, text, err) = analyze(&["--rules", "brandubh", "--ply", "5"]);
    assert!(ok, "{err}");
    assert!(text.contains("defenders to move, ply 5"), "{text}");
    let (ok, text, err) = analyze(&["--rules", "brandubh"]);
    assert!(ok, "{err}");
    assert!(
        text.contains(&format!("ply {plies}")),
        "the whole record by default:\n{text}"
    );
    let (ok, _, err) = analyze(&["--rules", "brandubh", "--ply", &(plies + 1).to_string()]);
    assert!(!ok && err.contains(&format!("has {plies} plies")), "{err}");
    let (ok, _, err) = analyze(&["--rules", "tablut"]);
    assert!(
        !ok && err.contains("the record is for rules `brandubh`, not `tablut` (--rules)"),
        "{err}"
    );
    let (ok, _, err) = analyze(&["--rules", "brandubh", "--moves", "d1-d2"]);
    assert!(
        !ok && err.contains("--moves"),
        "--record or --moves, not both: {err}"
    );
    // A folder that holds a match's records is not written into again.
    let (ok, _, err) = run(&args(&records, &["--games", "2"]));
    assert!(!ok && err.contains("already holds game records"), "{err}");
    // From a suite, a record starts at its position.
    let suite = dir.join("suite");
    let (ok, _, err) = run(&args(
        &suite,
        &["--games", "2", "--openings", "checkpoints/openings/brandubh.txt"],
    ));
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(suite.join("game-0001.txt")).unwrap();
    let rec = GameRecord::parse(&text).unwrap();
    assert!(rec.tag("Position").is_some(), "{text}");
    rec.replay(&rules).unwrap();
    let side = rec.tag("ToMove").unwrap();
    let (ok, shown, err) = tafl(&[
        "analyze",
        "--rules",
        "brandubh",
        "--record",
        suite.join("game-0001.txt").to_str().unwrap(),
        "--ply",
        "0",
        "--player",
        "mcts:heuristic:30",
    ]);
    assert!(ok, "{err}");
    assert!(
        shown.contains(&format!("{side} to move, ply 0")),
        "the suite's position:\n{shown}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
