//! Hostile input to the binary, as a user or a careless script gives it: counts that would
//! wrap, absurd thread counts, endless and huge files, endless lines, bytes that are not text,
//! control characters, notation that claims what does not happen, exports over checkpoints and
//! runs, rules that start decided. Each ends with a clear error or goes on, never a panic
//! (exit code 101), a hang or a flood.

mod cmd;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};
use tafl_nn::{default_device, save_checkpoint, Manifest, NetConfig};

use cmd::tafl_command as tafl;

fn run(args: &[&str]) -> Output {
    tafl().args(args).stdin(Stdio::null()).output().expect("run tafl")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tafl-hardening-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Refused with exit code 1 (bad input the command read) or 2 (a bad command-line value, such
/// as a rules file given as `--rules`, which is validated while the arguments are parsed), not
/// a panic's 101, and with an error holding every needle.
fn refused(o: &Output, needles: &[&str]) {
    let err = stderr(o);
    assert!(
        matches!(o.status.code(), Some(1 | 2)),
        "exit code {:?}; stderr: {err}",
        o.status.code()
    );
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
}

const MAX: &str = "18446744073709551615";

#[test]
fn counts_that_would_wrap_are_refused_naming_the_flag() {
    // The command of the issue: the count wrapped to 0 and the match code panicked.
    refused(
        &run(&["arena", "random", "random", "--rules", "brandubh", "--games", MAX]),
        &["--games", MAX, "too many"],
    );
    refused(
        &run(&["random", "brandubh", "--games", MAX]),
        &["--games", "too many"],
    );
    refused(
        &run(&[
            "balance",
            "--rules",
            "brandubh",
            "--random-games",
            "0",
            "--skilled-games",
            MAX,
        ]),
        &["--skilled-games", "too many"],
    );
    refused(
        &run(&[
            "balance",
            "--rules",
            "brandubh",
            "--random-games",
            MAX,
            "--skilled-games",
            "0",
        ]),
        &["--random-games", "too many"],
    );
    refused(
        &run(&[
            "balance",
            "--strength-sweep",
            "levels",
            "--rules",
            "brandubh",
            "--games",
            MAX,
        ]),
        &["--games", "too many"],
    );
    // A perft this deep overflowed the stack (and its count a u64).
    refused(
        &run(&["perft", "brandubh", "100000"]),
        &["depth 100000", "at most"],
    );
    // Seconds beyond a Duration panicked in the search benchmark.
    refused(
        &run(&[
            "bench",
            "--rules",
            "brandubh",
            "--search",
            "brandubh",
            "--seconds",
            "1e300",
        ]),
        &["--seconds", "at most 3600"],
    );
}

#[test]
fn absurd_thread_counts_are_brought_down_with_a_warning() {
    let t0 = Instant::now();
    let o = run(&["perft", "brandubh", "3", "--threads", "100000"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(t0.elapsed() < Duration::from_secs(60), "took {:?}", t0.elapsed());
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().last(), Some("39512"));
    let err = stderr(&o);
    assert!(
        err.contains("warning: --threads 100000") && err.contains("using"),
        "{err}"
    );
    refused(
        &run(&["perft", "brandubh", "3", "--threads", "0"]),
        &["--threads"],
    );
}

#[test]
fn endless_and_huge_files_are_refused_naming_the_file() {
    let dir = temp_dir("files");
    let zero = "/dev/zero";
    refused(&run(&["rules", zero]), &[zero, "larger than 16 MiB"]);
    refused(
        &run(&["replay", "copenhagen", zero]),
        &[zero, "larger than 16 MiB"],
    );
    let out = dir.join("run");
    refused(
        &run(&["train", zero, "--out", out.to_str().unwrap()]),
        &[zero, "larger than 16 MiB"],
    );
    assert!(!out.exists());
    let o = tafl()
        .args(["play", "--level", "1"])
        .env("TAFL_LEVELS", zero)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    refused(&o, &["TAFL_LEVELS", zero, "larger than 16 MiB"]);

    // A file of garbage over the limit, and one under it on a single line: short errors.
    let big = dir.join("big.toml");
    std::fs::write(&big, vec![b'#'; 20 << 20]).unwrap();
    refused(
        &run(&["rules", big.to_str().unwrap()]),
        &["big.toml", "larger than 16 MiB"],
    );
    let line = dir.join("line.toml");
    let mut garbage = b"id = \"x\"\nname = ".to_vec();
    garbage.extend(std::iter::repeat_n(b'z', 10 << 20));
    std::fs::write(&line, &garbage).unwrap();
    let o = run(&["rules", line.to_str().unwrap()]);
    refused(&o, &["line.toml"]);
    assert!(o.stderr.len() < 10_000, "{} bytes of error", o.stderr.len());
    let csv = dir.join("games.csv");
    let mut garbage = vec![b'q'; 10 << 20];
    garbage.extend_from_slice(b",0,0,White\n");
    std::fs::write(&csv, &garbage).unwrap();
    let o = run(&["replay", "copenhagen", csv.to_str().unwrap()]);
    refused(&o, &["games.csv", "line 1"]);
    assert!(o.stderr.len() < 10_000, "{} bytes of error", o.stderr.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn protocol_lines_are_bounded_and_answered() {
    let long = "x".repeat(200_000);
    let (ok, out, err) = cmd::tafl_stdin(
        &["engine", "--protocol", "htp", "--player", "random"],
        &format!("name\n{long}\nname\nquit\n"),
    );
    assert!(ok, "{err}");
    assert_eq!(
        out.matches("= ").count(),
        3,
        "name, name and quit answered: {out}"
    );
    assert!(out.contains("? unrecognized command: line-too-long"), "{out}");
    assert!(out.len() < 2000, "{out}");
    assert!(err.contains("200000 bytes"), "{err}");
    let (ok, out, _) = cmd::tafl_stdin(
        &["engine", "--protocol", "otep", "--player", "random"],
        &format!("{long}\ngoodbye\n"),
    );
    assert!(ok);
    assert!(out.contains("error 0 unknown command `line-too-long`"), "{out}");
}

#[test]
fn control_characters_are_shown_escaped() {
    let dir = temp_dir("controls");
    let text = include_str!("../configs/rules/brandubh.toml")
        .replace("name = \"Brandubh\"", "name = \"Evil\\u001b[2J\\u0007\"");
    let file = dir.join("evil.toml");
    std::fs::write(&file, text).unwrap();
    let o = run(&["rules", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("Evil\\u{1b}[2J\\u{7}"), "{out}");
    // HTP error replies quote the command: escaped too.
    let (_, out, _) = cmd::tafl_stdin(
        &["engine", "--protocol", "htp", "--player", "random"],
        "play a \u{1b}[31m a1\n\u{1b}]0;title\u{7}\nquit\n",
    );
    assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
    assert!(out.contains("\\u{1b}"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_line_that_is_not_text_is_answered_and_the_game_goes_on() {
    let mut child = tafl()
        .args(["play", "--level", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"hint\n\xff\nhint\nquit\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("not text: byte 1 of that line"), "{out}");
    assert_eq!(out.matches("hint: ").count(), 2, "both hints answered:\n{out}");
}

#[test]
fn moves_that_claim_captures_the_rules_do_not_make_are_refused_everywhere() {
    let o = run(&["analyze", "--rules", "brandubh", "--moves", "d2-f2xg7"]);
    refused(
        &o,
        &["--moves, move 1", "d2-f2xg7", "captures g7", "capture nothing"],
    );
    let o = run(&[
        "analyze",
        "--rules",
        "brandubh",
        "--moves",
        "d2-f2",
        "--player",
        "mcts:uniform:8",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (ok, out, err) = cmd::tafl_stdin(
        &["play", "--side", "attackers", "--level", "1"],
        "d2-f2xg7\nquit\n",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("the move says it captures g7, the rules capture nothing"),
        "{out}"
    );
    assert!(
        !out.contains("AI plays"),
        "the refused move was not played: {out}"
    );
}

fn checkpoint(dir: &Path) -> PathBuf {
    let ruleset = tafl_engine::Ruleset::builtin("brandubh");
    let config = NetConfig::tiny(ruleset.size());
    let model = config.init(&default_device());
    let p = dir.join("ckpt");
    save_checkpoint(&p, &model, &Manifest::new(&ruleset, &config, 7)).unwrap();
    p
}

#[test]
fn exports_never_overwrite_a_checkpoint_nor_write_into_a_run() {
    let dir = temp_dir("export");
    let ckpt = checkpoint(&dir);
    let export = |out: &Path| run(&["export", ckpt.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    // A run folder (its state file is what makes it one) with a checkpoint.
    let run_dir = dir.join("run");
    let iter3 = run_dir.join("checkpoints/iter-0003");
    std::fs::create_dir_all(&iter3).unwrap();
    std::fs::write(run_dir.join("state.json"), "{}").unwrap();
    std::fs::copy(ckpt.join("manifest.json"), iter3.join("manifest.json")).unwrap();
    let before = std::fs::read(iter3.join("manifest.json")).unwrap();
    for out in [iter3.clone(), run_dir.clone(), run_dir.join("exports/new")] {
        refused(
            &export(&out),
            &["inside the training run", run_dir.to_str().unwrap()],
        );
    }
    assert_eq!(std::fs::read(iter3.join("manifest.json")).unwrap(), before);
    assert!(!run_dir.join("exports").exists());
    // A folder of other files is not overwritten; a new folder and an earlier bundle are fine.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    refused(&export(&other), &["holds files and is not an earlier bundle"]);
    let bundle = dir.join("bundle");
    let o = export(&bundle);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = export(&bundle);
    assert!(
        o.status.success(),
        "an earlier bundle is replaced: {}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rules_that_start_decided_or_mark_ordinary_squares_are_refused() {
    let dir = temp_dir("decided");
    let brandubh = include_str!("../configs/rules/brandubh.toml");
    for (name, text, needles) in [
        (
            "corner-king",
            brandubh
                .replace("# . . A . . #\n. . . A", "K . . A . . #\n. . . A")
                .replace("A A D K D A A", "A A D . D A A"),
            ["field `setup`", "a7", "corner"],
        ),
        (
            "hash",
            brandubh.replace(". . . D . . .\nA A D K", ". # . D . . .\nA A D K"),
            ["field `setup`", "`#` on b5", "neither a corner nor the throne"],
        ),
    ] {
        let file = dir.join(format!("{name}.toml"));
        std::fs::write(&file, text).unwrap();
        refused(&run(&["rules", file.to_str().unwrap()]), &needles);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn rules_like_a_shipped_models_but_with_other_knobs_play_the_levels_fallback() {
    // The size and id of Brandubh, but weak kings: the shipped Brandubh network was not trained
    // for this game, so a network level plays its fallback, as under rules with no model.
    let dir = temp_dir("fallback");
    let file = dir.join("weak-king.toml");
    let text = include_str!("../configs/rules/brandubh.toml")
        .replace("king_capture = \"strong\"", "king_capture = \"weak\"");
    std::fs::write(&file, text).unwrap();
    let (ok, out, err) = cmd::tafl_stdin(
        &["play", "--rules", file.to_str().unwrap(), "--level", "3"],
        "quit\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("no shipped model for"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lines_from_an_htp_server_are_bounded_too() {
    use std::io::{BufRead, BufReader, Read};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let host = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    let mut child = tafl()
        .args([
            "engine",
            "--protocol",
            "htp",
            "--player",
            "random",
            "--host",
            &host,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (stream, _) = listener.accept().unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut writer = stream.try_clone().unwrap();
    use std::io::Write;
    writer
        .write_all(format!("{}\ngenerate_move\n", "x".repeat(200_000)).as_bytes())
        .unwrap();
    let mut answer = String::new();
    BufReader::new(stream).read_line(&mut answer).unwrap();
    assert!(answer.starts_with("play attacker "), "{answer}");
    child.kill().unwrap();
    child.wait().unwrap();
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    assert!(err.contains("a line of 200000 bytes from the server"), "{err}");
    assert!(err.len() < 5000, "{} bytes of diagnostics", err.len());
}
