//! Another program run as an engine (`htp:COMMAND`, `otep:COMMAND` players): started from
//! its command line, spoken to in lines over its stdin and stdout with a time limit on every
//! reply, its stderr kept (the last lines and the start of a crash report, for messages),
//! killed when dropped.

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tafl_engine::input::{printable, read_line, Line, LINE_LIMIT, QUOTE_LIMIT};

/// Lines of the program's stderr kept for messages.
const STDERR_LINES: usize = 8;

/// How the crash reports of common runtimes begin (Rust's panic, Python's traceback, Java's
/// uncaught exception, C++'s terminate): the lines that say what went wrong, which a long
/// backtrace after them would push out of the last [`STDERR_LINES`].
const CRASH_MARKERS: [&str; 4] = [
    "panicked at",
    "Traceback (most recent call last)",
    "Exception in thread",
    "terminate called",
];

/// Lines kept from the last crash report's start: the marker line and what follows it (a
/// Rust panic's message is on the line after `panicked at FILE:LINE:COL:`).
const CRASH_LINES: usize = 3;

/// What the program printed on stderr, as messages quote it.
#[derive(Default)]
struct StderrKept {
    /// The last [`STDERR_LINES`] lines.
    tail: VecDeque<String>,
    /// The first [`CRASH_LINES`] lines of the last crash report, if one began.
    crash: Vec<String>,
    /// Lines printed since the last crash report began, its marker included (to know when
    /// it left the tail).
    since_crash: usize,
}

impl StderrKept {
    fn push(&mut self, line: String) {
        if CRASH_MARKERS.iter().any(|m| line.contains(m)) {
            self.crash = vec![line.clone()];
            self.since_crash = 1;
        } else if !self.crash.is_empty() {
            // The report's first lines follow its marker without a gap.
            if self.crash.len() == self.since_crash && self.crash.len() < CRASH_LINES {
                self.crash.push(line.clone());
            }
            self.since_crash = self.since_crash.saturating_add(1);
        }
        if self.tail.len() == STDERR_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }

    /// `; its stderr ended with: ...`, led by the crash report's start where the tail no
    /// longer holds it; empty when the program printed nothing.
    fn message(&self) -> String {
        if self.tail.is_empty() {
            return String::new();
        }
        let crash = if !self.crash.is_empty() && self.since_crash > self.tail.len() {
            format!("; its crash report began: {}", self.crash.join(" | "))
        } else {
            String::new()
        };
        let tail: Vec<&str> = self.tail.iter().map(String::as_str).collect();
        format!("{crash}; its stderr ended with: {}", tail.join(" | "))
    }
}

/// What went wrong reading a reply.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplyError {
    /// No line within the time allowed.
    Timeout(Duration),
    /// The program closed its stdout (it exited or crashed).
    Closed,
    /// A line longer than [`LINE_LIMIT`] (its length).
    TooLong(u64),
    /// Reading failed.
    Io(String),
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::Timeout(d) => write!(f, "no reply within {:.1} s", d.as_secs_f64()),
            ReplyError::Closed => f.write_str("it closed its output (exited?)"),
            ReplyError::TooLong(n) => write!(f, "a line of {n} bytes, more than the {LINE_LIMIT} read"),
            ReplyError::Io(e) => write!(f, "reading its output: {e}"),
        }
    }
}

/// A running program and its pipes.
pub struct EngineProcess {
    /// The command line as given, for messages.
    name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Result<Line, String>>,
    stderr: Arc<Mutex<StderrKept>>,
    /// The program's output has ended (no line will come).
    closed: bool,
}

/// Splits a command line into words: whitespace separates them, and `'...'` or `"..."` keep
/// spaces inside a word (a backslash outside single quotes keeps the next character). No
/// shell runs it.
pub fn command_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        None => return Err(format!("command `{text}`: a {c} quote is not closed")),
                        Some(q) if q == c => break,
                        Some('\\') if c == '"' => match chars.next() {
                            Some(e) => w.push(e),
                            None => return Err(format!("command `{text}`: it ends with a backslash")),
                        },
                        Some(q) => w.push(q),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(e) => word.get_or_insert_with(String::new).push(e),
                None => return Err(format!("command `{text}`: it ends with a backslash")),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    if words.is_empty() {
        return Err("the command is empty".into());
    }
    Ok(words)
}

impl EngineProcess {
    /// Starts `command` (a program and its arguments, see [`command_words`]).
    pub fn start(command: &str) -> Result<EngineProcess, String> {
        let words = command_words(command)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("engine `{command}`: cannot start `{}`: {e}", words[0]))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("engine `{command}`: its pipes could not be opened"));
        };
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            loop {
                let line = read_line(&mut out, LINE_LIMIT).map_err(|e| e.to_string());
                let end = !matches!(line, Ok(Line::Bytes(_) | Line::TooLong(_)));
                if tx.send(line).is_err() || end {
                    return;
                }
            }
        });
        let kept: Arc<Mutex<StderrKept>> = Arc::default();
        let tail = kept.clone();
        std::thread::spawn(move || {
            let mut err = BufReader::new(stderr);
            loop {
                let text = match read_line(&mut err, LINE_LIMIT) {
                    Ok(Line::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
                    Ok(Line::TooLong(n)) => format!("({n} bytes)"),
                    Ok(Line::End) | Err(_) => return,
                };
                tail.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(printable(&text, false, QUOTE_LIMIT));
            }
        });
        Ok(EngineProcess {
            name: command.to_string(),
            child,
            stdin,
            lines,
            stderr: kept,
            closed: false,
        })
    }

    /// The command line, as messages name the program.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing `{line}` to it: {e}"))
    }

    /// The next line it prints, waiting at most `limit`. Bad bytes become U+FFFD.
    pub fn receive(&mut self, limit: Duration) -> Result<String, ReplyError> {
        if self.closed {
            return Err(ReplyError::Closed);
        }
        let line = match self.lines.recv_timeout(limit) {
            Ok(l) => l,
            Err(RecvTimeoutError::Timeout) => return Err(ReplyError::Timeout(limit)),
            Err(RecvTimeoutError::Disconnected) => Ok(Line::End),
        };
        match line {
            Ok(Line::Bytes(b)) => Ok(String::from_utf8_lossy(&b).into_owned()),
            Ok(Line::TooLong(n)) => Err(ReplyError::TooLong(n)),
            Ok(Line::End) => {
                self.closed = true;
                Err(ReplyError::Closed)
            }
            Err(e) => {
                self.closed = true;
                Err(ReplyError::Io(e))
            }
        }
    }

    /// The last lines of its stderr, `; its stderr ended with: ...`, led by the start of a
    /// crash report that a backtrace pushed out of them (empty when it printed nothing).
    pub fn stderr_tail(&self) -> String {
        // A program that just exited may still be flushing stderr.
        std::thread::sleep(Duration::from_millis(20));
        self.stderr.lock().unwrap_or_else(|p| p.into_inner()).message()
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_into_words_with_quotes() {
        assert_eq!(command_words("prog  -a 1").unwrap(), ["prog", "-a", "1"]);
        assert_eq!(
            command_words(r#"'/my dir/prog' --name "a \"b\"" c\ d"#).unwrap(),
            ["/my dir/prog", "--name", "a \"b\"", "c d"]
        );
        assert_eq!(command_words("x ''").unwrap(), ["x", ""]);
        assert!(command_words("prog 'open").unwrap_err().contains("not closed"));
        assert!(command_words("   ").unwrap_err().contains("empty"));
        assert!(command_words("prog \\").unwrap_err().contains("backslash"));
    }

    #[test]
    fn a_program_that_cannot_start_is_named() {
        let e = EngineProcess::start("/nonexistent/engine --x").err().unwrap();
        assert!(e.contains("/nonexistent/engine"), "{e}");
    }

    #[test]
    fn a_crash_report_is_quoted_from_its_start_after_a_long_backtrace() {
        let mut kept = StderrKept::default();
        assert_eq!(kept.message(), "");
        kept.push("info: thinking".into());
        kept.push("thread 'main' panicked at src/game.rs:1:2:".into());
        kept.push("index out of bounds".into());
        // Short enough: the tail still holds it, quoted once.
        let m = kept.message();
        assert_eq!(m.matches("index out of bounds").count(), 1, "{m}");
        assert!(!m.contains("crash report began"), "{m}");
        for i in 0..20 {
            kept.push(format!("{i}: frame"));
        }
        let m = kept.message();
        assert!(
            m.starts_with("; its crash report began: thread 'main' panicked at src/game.rs:1:2: | index out of bounds | 0: frame; its stderr ended with: 12: frame"),
            "{m}"
        );
        assert!(m.ends_with("19: frame"), "{m}");
        // A program that printed no crash report is quoted by its tail alone.
        let mut calm = StderrKept::default();
        for i in 0..20 {
            calm.push(format!("{i}: info"));
        }
        assert!(calm.message().starts_with("; its stderr ended with: 12: info"));
    }

    #[test]
    fn lines_come_back_with_timeouts_and_the_end_is_seen() {
        let mut p = EngineProcess::start("sh -c 'read x; echo got $x; echo oops >&2; sleep 5'").unwrap();
        p.send("hi").unwrap();
        assert_eq!(p.receive(Duration::from_secs(10)).unwrap(), "got hi");
        assert_eq!(
            p.receive(Duration::from_millis(50)),
            Err(ReplyError::Timeout(Duration::from_millis(50)))
        );
        std::thread::sleep(Duration::from_millis(100));
        assert!(p.stderr_tail().contains("oops"), "{}", p.stderr_tail());
        let mut q = EngineProcess::start("true").unwrap();
        assert_eq!(q.receive(Duration::from_secs(10)), Err(ReplyError::Closed));
        assert_eq!(q.receive(Duration::from_secs(10)), Err(ReplyError::Closed));
    }
}
