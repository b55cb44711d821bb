//! Other programs as players (`htp:COMMAND`, `otep:COMMAND`): our own `tafl engine` run as
//! the other program, through both protocols, in arenas and in a levels file; and a program
//! that answers badly, which loses its games with the reason in the report.

mod cmd;

fn tafl(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|&(k, v)| (k, v.as_ref())).collect();
    cmd::tafl_text_env(args, &env)
}

/// `tafl engine` as a command line: the binary's path in single quotes, then `args`.
fn engine(args: &str) -> String {
    format!("'{}' engine {args}", env!("CARGO_BIN_EXE_tafl"))
}

/// Player A's (wins, draws, losses) summed over both sides of an arena's table.
fn totals(out: &str) -> (u32, u32, u32) {
    let mut t = (0, 0, 0);
    for line in out.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.len() == 4 && (w[0] == "attackers" || w[0] == "defenders") {
            let n = |i: usize| w[i].parse::<u32>().unwrap_or_else(|_| panic!("{line}"));
            t = (t.0 + n(1), t.1 + n(2), t.2 + n(3));
        }
    }
    t
}

fn arena(a: &str, b: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "arena",
        a,
        b,
        "--rules",
        "brandubh",
        "--games",
        "4",
        "--seed",
        "5",
        "--threads",
        "2",
    ];
    args.extend_from_slice(extra);
    let (ok, out, err) = tafl(&args, &[]);
    assert!(ok, "{err}\n{out}");
    assert!(out.contains("4 games in colour-swapped pairs"), "{out}");
    let (w, d, l) = totals(&out);
    assert_eq!(w + d + l, 4, "{out}");
    // A program may resign a proven loss (our HTP engine does); nothing else may end a game
    // outside the rules.
    let outside: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("game "))
        .collect();
    assert!(outside.iter().all(|l| l.ends_with("it resigned")), "{out}");
    out
}

#[test]
fn our_engine_plays_through_both_protocols_and_reproduces() {
    let htp = format!(
        "htp:{}",
        engine("--protocol htp --rules brandubh --player mcts:heuristic:40")
    );
    let otep = format!("otep:{}", engine("--protocol otep --player mcts:heuristic:40"));
    let first = arena("mcts:heuristic:40", &htp, &[]);
    // The program is seeded too: the same match again gives the same games.
    assert_eq!(arena("mcts:heuristic:40", &htp, &[]), first);
    arena(&otep, "mcts:heuristic:40", &[]);
    // Two programs against each other, one through each protocol.
    arena(&otep, &htp, &[]);
}

#[test]
fn the_programs_get_the_games_clock() {
    // Under a clock the programs are told their time (OTEP's clock, HTP's time_settings)
    // and, thinking by it, never lose on time.
    let htp = format!(
        "htp:{}",
        engine("--protocol htp --rules brandubh --player level:5")
    );
    let otep = format!("otep:{}", engine("--protocol otep --player level:5"));
    let out = arena(&otep, &htp, &["--clock", "6+0.1"]);
    assert!(out.contains("0 game(s) lost on time"), "{out}");
}

#[test]
fn a_levels_file_can_name_another_program() {
    let dir = std::env::temp_dir().join(format!("tafl-external-levels-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let levels = dir.join("levels.toml");
    let command = engine("--protocol otep --player mcts:heuristic:20").replace('\'', "\\\"");
    std::fs::write(
        &levels,
        format!("[[level]]\nlevel = 1\nplayer = \"otep:{command}\"\nmovetime = 0.2\n"),
    )
    .unwrap();
    let path = levels.to_str().unwrap();
    let (ok, out, err) = tafl(
        &[
            "arena", "level:1", "random", "--rules", "brandubh", "--games", "2",
        ],
        &[("TAFL_LEVELS", path)],
    );
    assert!(ok, "{err}");
    assert!(out.contains("level 1 (otep:"), "{out}");
    assert_eq!(totals(&out).0 + totals(&out).1 + totals(&out).2, 2, "{out}");
    // A program's level has no simulations.
    std::fs::write(
        &levels,
        format!("[[level]]\nlevel = 1\nplayer = \"otep:{command}\"\nsimulations = 100\n"),
    )
    .unwrap();
    let (ok, _, err) = tafl(
        &["arena", "level:1", "random", "--rules", "brandubh"],
        &[("TAFL_LEVELS", path)],
    );
    assert!(!ok && err.contains("simulations are for search players"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_program_that_answers_an_illegal_move_loses_every_game_and_the_report_says_why() {
    // A corner square is always empty: `a1 a2` is never legal.
    let bad = "htp:sh -c 'while read -r l; do case \"$l\" in generate_move*) echo \"= play attacker a1 a2\";; *) echo \"= \";; esac; done'";
    let records = std::env::temp_dir().join(format!("tafl-forfeit-records-{}", std::process::id()));
    std::fs::remove_dir_all(&records).ok();
    let (ok, out, err) = tafl(
        &[
            "arena",
            "mcts:heuristic:10",
            bad,
            "--rules",
            "brandubh",
            "--games",
            "4",
            "--records",
            records.to_str().unwrap(),
        ],
        &[],
    );
    assert!(ok, "{err}");
    assert_eq!(totals(&out), (4, 0, 0), "{out}");
    assert!(out.contains("4 game(s) ended outside the rules"), "{out}");
    assert!(out.contains("forfeit") && out.contains("a1 a2"), "{out}");
    // Each game's record keeps the verdict and what the program did.
    for g in 1..=4 {
        let text = std::fs::read_to_string(records.join(format!("game-{g:04}.txt"))).unwrap();
        let rec = tafl_engine::formats::GameRecord::parse(&text).unwrap();
        let ours = if g % 2 == 1 { "attackers" } else { "defenders" };
        assert_eq!(rec.tag("Result"), Some(ours), "{text}");
        assert_eq!(rec.tag("Termination"), Some("forfeit"), "{text}");
        assert!(rec.tag("Stopped").is_some_and(|s| s.contains("a1 a2")), "{text}");
    }
    // As an archive, those games have no result (a forfeit says nothing sure about who was
    // winning), and a writer's hidden temporary file is not a game.
    std::fs::write(records.join(".game-0005.txt.tmp"), "[Rules \"brandubh\"]\n1. d1-").unwrap();
    let (ok, eval, err) = tafl(
        &[
            "records",
            "eval",
            records.to_str().unwrap(),
            "--rules",
            "brandubh",
            "--split",
            "all",
        ],
        &[],
    );
    assert!(ok, "{err}");
    assert!(eval.contains("4 games read"), "{eval}");
    let all = eval
        .lines()
        .find(|l| l.starts_with("| prior: heuristic") && l.contains("| all |"))
        .unwrap_or_else(|| panic!("{eval}"));
    let cells: Vec<&str> = all.split('|').map(str::trim).collect();
    assert_eq!(cells[6], "0", "positions with a result: {all}");
    std::fs::remove_dir_all(&records).ok();
    // A program that does not start is an error of the match, named.
    let (ok, _, err) = tafl(
        &[
            "arena",
            "random",
            "otep:/nonexistent/engine",
            "--rules",
            "brandubh",
            "--games",
            "2",
        ],
        &[],
    );
    assert!(!ok && err.contains("/nonexistent/engine"), "{err}");
}

/// A bot for `htp-host:` in bash: it connects to the address after its `--host` (port
/// 49152, as hnefatafl.org's engine does) and relays the host's bare lines to our own HTP
/// engine over a pipe: `play` is passed on, `generate_move` passed on and its answer sent back
/// without the `= `. Written to a file, as the command line of a player cannot nest quotes.
fn host_relay(dir: &std::path::Path, engine_args: &str) -> String {
    let script = dir.join("relay.sh");
    std::fs::write(
        &script,
        format!(
            "exec 3<>/dev/tcp/$2/49152\n\
             coproc E {{ {}; }}\n\
             echo 'board_size 7' >&${{E[1]}}; read -r a <&${{E[0]}}\n\
             while read -r w r <&3; do\n\
               case $w in\n\
                 play) echo \"play $r\" >&${{E[1]}}; read -r a <&${{E[0]}};;\n\
                 generate_move) echo \"generate_move $r\" >&${{E[1]}}; read -r a <&${{E[0]}}; echo \"${{a#= }}\" >&3;;\n\
               esac\n\
             done\n",
            engine(engine_args)
        ),
    )
    .unwrap();
    format!("htp-host:bash {}", script.display())
}

#[test]
fn a_program_that_connects_to_us_plays_through_htp_host() {
    // Our HTP engine behind the relay: whole games, two at once (each bot on its own loopback
    // address), reproducible as through stdin.
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("htp-host");
    std::fs::create_dir_all(&dir).unwrap();
    let bot = host_relay(&dir, "--protocol htp --rules brandubh --player mcts:heuristic:40");
    let first = arena("mcts:heuristic:40", &bot, &[]);
    assert!(first.contains("htp-host:bash "), "{first}");
    assert_eq!(arena("mcts:heuristic:40", &bot, &[]), first);
    // The same engine through stdin plays the same games.
    let htp = format!(
        "htp:{}",
        engine("--protocol htp --rules brandubh --player mcts:heuristic:40")
    );
    let table = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| {
                l.starts_with("attackers") || l.starts_with("defenders") || l.starts_with("average length")
            })
            .map(String::from)
            .collect()
    };
    assert_eq!(table(&arena("mcts:heuristic:40", &htp, &[])), table(&first));
}

#[test]
fn the_external_match_script_plays_pairs_keeps_them_and_runs_the_network_as_asked() {
    // checkpoints/measure-external.sh with our own HTP engine standing in for hnefatafl.org's,
    // the network player in int8 at 0.01 s a move: one pair, then two, the first kept.
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out_dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("external-script");
    let _ = std::fs::remove_dir_all(&out_dir);
    let run = |pairs: &str| {
        let out = std::process::Command::new("bash")
            .arg(root.join("checkpoints/measure-external.sh"))
            .args([pairs, "mcts:model=shipped"])
            .env("TAFL", env!("CARGO_BIN_EXE_tafl"))
            .env(
                "ENGINE",
                engine("--protocol htp --rules copenhagen-hnefatafl-org --player mcts:heuristic:10"),
            )
            .env("MOVETIME", "0.01")
            .env("INFERENCE", "int8")
            .env("OUT", &out_dir)
            .output()
            .expect("run bash");
        let (_, stdout, stderr) = cmd::text(&out);
        assert!(out.status.success(), "{stderr}");
        (stdout, stderr)
    };
    let (stdout, stderr) = run("1");
    assert!(stderr.contains("pair 1:"), "{stderr}");
    assert!(
        stdout.starts_with("mcts:model=shipped: 2 games; as attackers "),
        "{stdout}"
    );
    let log = std::fs::read_to_string(out_dir.join("pair-1.txt")).unwrap();
    // The report says which engine ran the network, and its rerun line asks for the same.
    assert!(log.contains("networks: A: int8; B: none"), "{log}");
    assert!(log.contains("rerun: tafl --inference int8 arena "), "{log}");
    // The pair's games are kept as records, each naming the program it played.
    for g in ["game-0001.txt", "game-0002.txt"] {
        let text = std::fs::read_to_string(out_dir.join("games-1").join(g)).unwrap();
        assert!(text.contains("[Rules \"copenhagen-hnefatafl-org\"]"), "{text}");
        assert!(text.contains(" engine --protocol htp "), "{text}");
    }
    let (stdout, stderr) = run("2");
    assert!(
        !stderr.contains("pair 1:") && stderr.contains("pair 2:"),
        "{stderr}"
    );
    assert!(
        stdout.starts_with("mcts:model=shipped: 4 games; as attackers "),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}
