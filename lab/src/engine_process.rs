//! Another program run as an engine (`htp:COMMAND`, `otep:COMMAND` players): started from
//! its command line, spoken to in lines over its stdin and stdout with a time limit on every
//! reply, its stderr kept (the last lines, for messages), killed when dropped.

use std::collections::VecDeque;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tafl_engine::input::{printable, read_line, Line, LINE_LIMIT, QUOTE_LIMIT};

/// Lines of the program's stderr kept for messages.
const STDERR_LINES: usize = 8;

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
    stderr: Arc<Mutex<VecDeque<String>>>,
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
        let kept: Arc<Mutex<VecDeque<String>>> = Arc::default();
        let tail = kept.clone();
        std::thread::spawn(move || {
            let mut err = BufReader::new(stderr);
            loop {
                let text = match read_line(&mut err, LINE_LIMIT) {
                    Ok(Line::Bytes(b)) => String::from_utf8_lossy(&b).into_owned(),
                    Ok(Line::TooLong(n)) => format!("({n} bytes)"),
                    Ok(Line::End) | Err(_) => return,
                };
                let mut t = tail.lock().unwrap_or_else(|p| p.into_inner());
                if t.len() == STDERR_LINES {
                    t.pop_front();
                }
                t.push_back(printable(&text, false, QUOTE_LIMIT));
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

    /// The last lines of its stderr, `; stderr: ...` (empty when it printed none).
    pub fn stderr_tail(&self) -> String {
        // A program that just exited may still be flushing stderr.
        std::thread::sleep(Duration::from_millis(20));
        let t = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        if t.is_empty() {
            String::new()
        } else {
            format!(
                "; its stderr ended with: {}",
                t.iter().cloned().collect::<Vec<_>>().join(" | ")
            )
        }
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
