//! Recorded exchanges with the engine protocols' hosts, replayed line by line: what OpenTafl
//! sends to `tafl engine --protocol otep` and what hnefatafl.org's programs send to
//! `tafl engine --protocol htp`, with the answers each expects, in `tests/data/*.transcript`.
//!
//! A transcript is a text file of lines:
//!
//! ```text
//! # a comment
//! args: engine --protocol htp --rules brandubh    the command line (after `tafl`)
//! greeting: hello                                 what the engine says first (if anything)
//! probe: tafl-sync                                a line whose answer is known ...
//! probe-reply: ? unrecognized command*            ... (one line each, in order, as `<`)
//! > play attacker D1 B1                           a line the host sends
//! < = D2                                          a line the engine must answer (exact,
//! <                                               trailing blanks aside; `<` alone is a
//! < move *                                        blank line; `*` matches any text)
//! <? status *                                     a line that may come or not
//! exit: 0                                         the engine exits after the last command
//! ```
//!
//! After every command the runner sends the probe and reads up to the probe's reply: the lines
//! before it are the command's whole answer, so an answer with a line too many or too few (a
//! blank line where the host expects none) fails.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

const PATIENCE: Duration = Duration::from_secs(120);

#[derive(Debug)]
enum Expect {
    Line(String),
    Maybe(String),
}

#[derive(Debug)]
struct Step {
    send: String,
    at: usize,
    expect: Vec<Expect>,
}

#[derive(Debug, Default)]
struct Transcript {
    args: Vec<String>,
    greeting: Vec<String>,
    probe: String,
    probe_reply: Vec<String>,
    steps: Vec<Step>,
    exit: Option<i32>,
}

fn parse(text: &str) -> Transcript {
    let mut t = Transcript::default();
    for (i, line) in text.lines().enumerate() {
        let at = i + 1;
        if let Some(a) = line.strip_prefix("args: ") {
            t.args = a.split_whitespace().map(String::from).collect();
        } else if let Some(g) = line.strip_prefix("greeting: ") {
            t.greeting.push(g.trim().to_string());
        } else if let Some(p) = line.strip_prefix("probe: ") {
            t.probe = p.to_string();
        } else if let Some(r) = line.strip_prefix("probe-reply:") {
            t.probe_reply.push(r.trim().to_string());
        } else if let Some(c) = line.strip_prefix("exit: ") {
            t.exit = Some(c.trim().parse().expect("exit code"));
        } else if let Some(s) = line.strip_prefix("> ") {
            t.steps.push(Step {
                send: s.to_string(),
                at,
                expect: Vec::new(),
            });
        } else if let Some(e) = line.strip_prefix("<?") {
            let step = t
                .steps
                .last_mut()
                .unwrap_or_else(|| panic!("line {at}: no command yet"));
            step.expect.push(Expect::Maybe(e.trim().to_string()));
        } else if let Some(e) = line.strip_prefix('<') {
            let step = t
                .steps
                .last_mut()
                .unwrap_or_else(|| panic!("line {at}: no command yet"));
            step.expect.push(Expect::Line(e.trim().to_string()));
        } else if !(line.trim().is_empty() || line.starts_with('#')) {
            panic!("line {at}: `{line}` is not a transcript line");
        }
    }
    assert!(!t.args.is_empty() && !t.probe.is_empty() && !t.probe_reply.is_empty());
    t
}

/// `*` matches any text (none included); everything else matches itself. Trailing blanks
/// of the line are not compared.
fn matches(pattern: &str, line: &str) -> bool {
    let line = line.trim_end();
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, rest) = parts.split_first().expect("split gives one part at least");
    let Some(mut tail) = line.strip_prefix(first) else {
        return false;
    };
    match rest.split_last() {
        None => tail.is_empty(),
        Some((last, middle)) => {
            for m in middle {
                match tail.find(m) {
                    Some(i) => tail = &tail[i + m.len()..],
                    None => return false,
                }
            }
            tail.len() >= last.len() && tail.ends_with(last)
        }
    }
}

/// Checks one command's answer against what the transcript expects.
fn check(step: &Step, got: &[String], name: &str) {
    let mut g = got.iter().peekable();
    for e in &step.expect {
        match e {
            Expect::Line(p) => {
                let line = g.next().unwrap_or_else(|| {
                    panic!(
                        "{name}:{}: `{}`: expected `{p}`, the answer ended: {got:?}",
                        step.at, step.send
                    )
                });
                assert!(
                    matches(p, line),
                    "{name}:{}: `{}`: expected `{p}`, got `{line}` in {got:?}",
                    step.at,
                    step.send
                );
            }
            Expect::Maybe(p) => {
                if g.peek().is_some_and(|l| matches(p, l)) {
                    g.next();
                }
            }
        }
    }
    let rest: Vec<&String> = g.collect();
    assert!(
        rest.is_empty(),
        "{name}:{}: `{}`: more than expected: {rest:?} (the whole answer: {got:?})",
        step.at,
        step.send
    );
}

fn replay(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let t = parse(&text);
    let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
        .args(&t.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run tafl");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |line: &str| {
        writeln!(stdin, "{line}").expect("write to the engine");
        stdin.flush().expect("flush");
    };
    for g in &t.greeting {
        let line = lines.recv_timeout(PATIENCE).expect("the engine greets");
        assert!(matches(g, &line), "{name}: greeting `{line}`, expected `{g}`");
    }
    let answered = |got: &[String]| {
        got.len() >= t.probe_reply.len()
            && got[got.len() - t.probe_reply.len()..]
                .iter()
                .zip(&t.probe_reply)
                .all(|(l, p)| matches(p, l))
    };
    let last = t.steps.len();
    for (i, step) in t.steps.iter().enumerate() {
        send(&step.send);
        let mut got: Vec<String> = Vec::new();
        if i + 1 == last && t.exit.is_some() {
            // The engine exits: its answer is everything until the end of its output.
            while let Ok(line) = lines.recv_timeout(PATIENCE) {
                got.push(line);
            }
        } else {
            send(&t.probe);
            while !answered(&got) {
                got.push(lines.recv_timeout(PATIENCE).unwrap_or_else(|_| {
                    panic!(
                        "{name}:{}: `{}`: no end to the answer: {got:?}",
                        step.at, step.send
                    )
                }));
            }
            got.truncate(got.len() - t.probe_reply.len());
        }
        check(step, &got, name);
    }
    drop(stdin);
    let status = child.wait().expect("wait");
    if let Some(code) = t.exit {
        assert_eq!(status.code(), Some(code), "{name}: exit status");
    }
}

#[test]
fn opentafl_hosts_the_otep_engine() {
    replay("otep-opentafl.transcript");
}

#[test]
fn opentafls_built_in_variants_are_played_or_refused_by_name() {
    replay("otep-opentafl-variants.transcript");
}

#[test]
fn hnefatafl_orgs_text_protocol_is_answered_in_its_framing() {
    replay("htp-hnefatafl-org.transcript");
}

#[test]
fn gtp_framing_ends_every_answer_with_a_blank_line() {
    replay("htp-gtp-framing.transcript");
}

#[test]
fn a_captured_king_is_listed_among_the_captured_squares() {
    replay("htp-king-capture.transcript");
}
